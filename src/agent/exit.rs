//! When a step ends the run: model exits and tool exit conditions.

use crate::message::{ChatMessage, ChatRole, ToolCall};
use std::sync::Arc;

/// Haystack's `_get_model_exit_reason`: `length` and `content_filter`
/// finishes win over text; a reply batch with any tool call never exits.
pub(crate) fn model_exit_reason(replies: &[ChatMessage]) -> Option<&'static str> {
    let last = replies.last()?;
    if replies.iter().any(ChatMessage::has_tool_calls) || !last.is_from(ChatRole::Assistant) {
        return None;
    }
    match last.finish_reason() {
        Some("length") => return Some("length"),
        Some("content_filter") => return Some("content_filter"),
        _ => {}
    }
    last.text().filter(|t| !t.is_empty()).map(|_| "text")
}

/// Haystack's `_check_exit_conditions`: the first pending call (in call
/// order) whose tool is an exit condition, unless any call to an
/// exit-condition tool errored, which cancels the exit.
pub(crate) fn tool_exit<'a>(
    exit_conditions: &[String],
    pending: &[&'a Arc<ToolCall>],
    tool_messages: &[ChatMessage],
) -> Option<&'a str> {
    let errored = |name: &str| {
        tool_messages.iter().any(|m| {
            m.tool_call_result()
                .is_some_and(|r| r.error && r.origin.tool_name == name)
        })
    };
    let mut first = None;
    for call in pending {
        if !exit_conditions.contains(&call.tool_name) {
            continue;
        }
        if errored(&call.tool_name) {
            return None;
        }
        first.get_or_insert(call.tool_name.as_str());
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn call(name: &str) -> Arc<ToolCall> {
        Arc::new(ToolCall::new(name, Map::new()))
    }

    #[test]
    fn an_empty_text_reply_is_not_an_exit() {
        assert_eq!(model_exit_reason(&[ChatMessage::from_assistant("")]), None);
    }

    #[test]
    fn a_length_finish_wins_over_text() {
        let mut reply = ChatMessage::from_assistant("partial");
        reply
            .meta_mut()
            .insert("finish_reason".into(), "length".into());
        assert_eq!(model_exit_reason(&[reply]), Some("length"));
    }

    #[test]
    fn a_tool_call_in_any_reply_of_the_batch_prevents_the_exit() {
        let with_call =
            ChatMessage::from_assistant_parts(None, vec![ToolCall::new("a", Map::new())]);
        let text = ChatMessage::from_assistant("done");
        assert_eq!(model_exit_reason(&[with_call, text]), None);
    }

    #[test]
    fn the_first_exit_tool_in_call_order_wins() {
        let conditions = vec!["b".to_string(), "a".to_string()];
        let pending = [call("x"), call("a"), call("b")];
        let pending: Vec<&Arc<ToolCall>> = pending.iter().collect();
        assert_eq!(tool_exit(&conditions, &pending, &[]), Some("a"));
    }

    #[test]
    fn an_errored_exit_tool_cancels_the_exit() {
        let conditions = vec!["a".to_string(), "b".to_string()];
        let pending = [call("a"), call("b")];
        let failed = ChatMessage::from_tool("boom", call("b"), true);
        let pending: Vec<&Arc<ToolCall>> = pending.iter().collect();
        assert_eq!(tool_exit(&conditions, &pending, &[failed]), None);
    }
}
