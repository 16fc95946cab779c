//! The landmarks every compactor reads a conversation by (Haystack's
//! `haystack.hooks.compaction.utils`).
//!
//! ```text
//!  [system...] [turn: user ...] [turn: user ...] [task: user] [step: assistant + tool results] [step] ...
//!  ^ system block ^ historical turns (oldest first)  ^ anchor   ^ agent steps of the current task
//! ```
//!
//! Messages a compactor wrote carry `meta["context_compaction"]`; they never
//! count as the system block, the task anchor or the start of a turn.

use super::counter::TokenCounter;
use crate::message::{ChatMessage, ChatRole};
use serde_json::Value;

/// The meta key of a message a compactor produced; its value records the strategy.
pub const COMPACTION_META_KEY: &str = "context_compaction";

fn marked(message: &ChatMessage) -> bool {
    message.meta().contains_key(COMPACTION_META_KEY)
}

/// The end of the leading block of system messages without a compaction marker.
pub(crate) fn leading_system_end(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .position(|m| !m.is_from(ChatRole::System) || marked(m))
        .unwrap_or(messages.len())
}

/// The latest user message without a compaction marker.
pub(crate) fn latest_user_index(messages: &[ChatMessage]) -> Option<usize> {
    messages
        .iter()
        .rposition(|m| m.is_from(ChatRole::User) && !marked(m))
}

/// The messages at `indices`, in the order given.
pub(crate) fn messages_at(messages: &[ChatMessage], indices: &[usize]) -> Vec<ChatMessage> {
    indices.iter().map(|&i| messages[i].clone()).collect()
}

/// The messages `indices` leave out, in conversation order.
pub(crate) fn messages_except(messages: &[ChatMessage], indices: &[usize]) -> Vec<ChatMessage> {
    let left_out: std::collections::BTreeSet<usize> = indices.iter().copied().collect();
    messages
        .iter()
        .enumerate()
        .filter(|(i, _)| !left_out.contains(i))
        .map(|(_, m)| m.clone())
        .collect()
}

/// `true` when the message was produced by `strategy` (and has `role`, if given).
pub(crate) fn is_compaction_message(
    message: &ChatMessage,
    strategy: &str,
    role: Option<ChatRole>,
) -> bool {
    let has_role = role.is_none_or(|r| message.is_from(r));
    has_role
        && matches!(
            message.meta().get(COMPACTION_META_KEY),
            Some(Value::Object(marker)) if marker.get("strategy").and_then(Value::as_str) == Some(strategy)
        )
}

/// The last assistant message's index.
pub(crate) fn last_assistant_index(messages: &[ChatMessage]) -> Option<usize> {
    messages
        .iter()
        .rposition(|m| m.is_from(ChatRole::Assistant))
}

/// Spans `(start, end)` of an assistant message and the tool-result messages
/// right after it, looked for from `start`; other messages are skipped.
pub(crate) fn agent_step_spans(messages: &[ChatMessage], start: usize) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut index = start;
    while index < messages.len() {
        if !messages[index].is_from(ChatRole::Assistant) {
            index += 1;
            continue;
        }
        let mut end = index + 1;
        while end < messages.len() && messages[end].tool_call_result().is_some() {
            end += 1;
        }
        spans.push((index, end));
        index = end;
    }
    spans
}

/// Index groups of the current task's agent steps, oldest first.
pub(crate) fn current_agent_step_groups(
    messages: &[ChatMessage],
    system_end: usize,
    task_index: Option<usize>,
) -> Vec<Vec<usize>> {
    let start = task_index.map_or(system_end, |t| t + 1);
    agent_step_spans(messages, start)
        .into_iter()
        .map(|(s, e)| (s..e).collect())
        .collect()
}

/// Index groups of the historical turns before the task anchor, oldest
/// first: each from a real user message up to the next one.
pub(crate) fn historical_turn_groups(
    messages: &[ChatMessage],
    system_end: usize,
    task_index: Option<usize>,
) -> Vec<Vec<usize>> {
    let end = task_index.unwrap_or(system_end);
    let users: Vec<usize> = (system_end..end.max(system_end))
        .filter(|&i| messages[i].is_from(ChatRole::User) && !marked(&messages[i]))
        .collect();
    users
        .iter()
        .enumerate()
        .map(|(pos, &start)| (start..users.get(pos + 1).copied().unwrap_or(end)).collect())
        .collect()
}

/// What replacing one tool result gave: the new message and the tokens it saves.
pub(crate) type Replacement = Option<(ChatMessage, i64)>;

/// Haystack's `_replace_tool_results_until_target`: oldest first, outside the
/// newest `min_keep_steps` tool-calling steps, until the running total
/// reaches the target. `None` when nothing was replaced.
pub(crate) fn replace_tool_results_until_target(
    messages: &[ChatMessage],
    target_tokens: i64,
    counter: &dyn TokenCounter,
    min_keep_steps: usize,
    mut replace: impl FnMut(&ChatMessage, usize) -> Replacement,
) -> Option<Vec<ChatMessage>> {
    let mut current = counter.count(messages, &[]);
    if current <= target_tokens {
        return None;
    }
    let result_steps: Vec<(usize, usize)> = agent_step_spans(messages, 0)
        .into_iter()
        .filter(|(s, e)| *e > s + 1)
        .collect();
    let protected: std::collections::BTreeSet<usize> = result_steps
        [result_steps.len().saturating_sub(min_keep_steps)..]
        .iter()
        .flat_map(|(s, e)| s + 1..*e)
        .collect();
    let mut compacted = messages.to_vec();
    let mut changed = false;
    for (index, message) in messages.iter().enumerate() {
        if message.tool_call_result().is_none() || protected.contains(&index) {
            continue;
        }
        let Some((replacement, saved)) = replace(message, index) else {
            continue;
        };
        compacted[index] = replacement;
        current -= saved;
        changed = true;
        if current <= target_tokens {
            break;
        }
    }
    changed.then_some(compacted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::{Map, json};

    fn marker(message: ChatMessage) -> ChatMessage {
        let mut meta = Map::new();
        meta.insert(COMPACTION_META_KEY.into(), json!({"strategy": "x"}));
        message.with_meta(meta)
    }

    fn step(id: &str) -> Vec<ChatMessage> {
        let call = ToolCall::new("t", Map::new()).with_id(id);
        vec![
            ChatMessage::from_assistant_parts(None, vec![call.clone()]),
            ChatMessage::from_tool("r", call, false),
        ]
    }

    #[test]
    fn the_landmarks_skip_messages_that_compaction_wrote() {
        let mut messages = vec![
            ChatMessage::from_system("s"),
            marker(ChatMessage::from_system("note")),
            ChatMessage::from_user("old"),
            ChatMessage::from_assistant("a"),
            marker(ChatMessage::from_user("summary")),
            ChatMessage::from_user("task"),
        ];
        messages.extend(step("1"));
        messages.push(marker(ChatMessage::from_user("later note")));
        messages.extend(step("2"));
        assert_eq!(leading_system_end(&messages), 1);
        assert_eq!(latest_user_index(&messages), Some(5));
        // The turn starts at the real user message; the marked system message
        // before it belongs to no group.
        assert_eq!(
            historical_turn_groups(&messages, 1, Some(5)),
            vec![vec![2, 3, 4]]
        );
        assert_eq!(
            current_agent_step_groups(&messages, 1, Some(5)),
            vec![vec![6, 7], vec![9, 10]]
        );
    }

    #[test]
    fn without_an_anchor_the_steps_start_after_the_system_block_and_there_is_no_history() {
        let mut messages = vec![ChatMessage::from_system("s")];
        messages.extend(step("1"));
        assert_eq!(latest_user_index(&messages), None);
        assert!(historical_turn_groups(&messages, 1, None).is_empty());
        assert_eq!(
            current_agent_step_groups(&messages, 1, None),
            vec![vec![1, 2]]
        );
    }
}
