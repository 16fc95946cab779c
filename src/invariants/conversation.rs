//! What hooks that rewrite the conversation keep: every tool result stays
//! with the call it answers, compaction never makes the conversation
//! larger, and a result offloaded to a store can be read back from it.
//!
//! Rewrites are read from the complete trace, where
//! [`Detail::Full`](crate::outcome::Detail::Full) records the conversation
//! before and after each hook that rewrote it; offload references from the
//! messages' `tool_result_offloaded` meta, in those conversations and in the
//! result.

use super::view::View;
use super::{Invariant, Violation};
use crate::hooks::compaction::{ApproximateTokenCounter, TokenCounter};
use crate::hooks::offload::{OFFLOADED_META_KEY, ToolResultStore};
use crate::message::ChatMessage;
use crate::outcome::TraceKind;
use std::collections::BTreeSet;

/// A call or a result whose partner is missing, by call id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Orphan {
    /// A tool result with no call before it.
    Result(String),
    /// A call (outside the last message, whose calls are still pending)
    /// with no result after it.
    Call(String),
}

/// Every orphan of a conversation.
fn orphans(messages: &[ChatMessage]) -> BTreeSet<Orphan> {
    let mut found = BTreeSet::new();
    let mut called = BTreeSet::new();
    for message in messages {
        if let Some(id) = message
            .tool_call_result()
            .and_then(|r| r.origin.id.as_deref())
        {
            if !called.contains(id) {
                found.insert(Orphan::Result(id.to_owned()));
            }
        }
        called.extend(message.tool_calls().filter_map(|c| c.id.as_deref()));
    }
    let Some((_, earlier)) = messages.split_last() else {
        return found;
    };
    for (i, message) in earlier.iter().enumerate() {
        for id in message.tool_calls().filter_map(|c| c.id.as_deref()) {
            let answered = messages[i + 1..].iter().any(|m| {
                m.tool_call_result()
                    .is_some_and(|r| r.origin.id.as_deref() == Some(id))
            });
            if !answered {
                found.insert(Orphan::Call(id.to_owned()));
            }
        }
    }
    found
}

pub(super) fn check(
    view: &View<'_>,
    compactors: &[String],
    stores: &[&dyn ToolResultStore],
) -> Vec<Violation> {
    let mut found = Vec::new();
    let counter = ApproximateTokenCounter::default();
    let mut references: Vec<(String, Option<usize>)> = Vec::new();
    for (i, event) in view.outcome.trace.iter().enumerate() {
        let TraceKind::HookFinished {
            hook,
            changes: Some(changes),
            ..
        } = &event.kind
        else {
            continue;
        };
        let Some(rewrite) = &changes.rewrite else {
            continue;
        };
        let at = view.wire_index(i);
        let before = orphans(&rewrite.before);
        for orphan in orphans(&rewrite.after).difference(&before) {
            let message = match orphan {
                Orphan::Result(id) => {
                    format!("hook `{hook}` left the tool result of call {id:?} without its call")
                }
                Orphan::Call(id) => {
                    format!("hook `{hook}` left call {id:?} without its tool result")
                }
            };
            found.push(Violation::new(
                Invariant::ToolResultsStayWithTheirCalls,
                view.trace,
                at,
                message,
            ));
        }
        if compactors.iter().any(|c| c == hook) {
            let (was, is) = (
                counter.count(&rewrite.before, &[]),
                counter.count(&rewrite.after, &[]),
            );
            if is > was {
                found.push(Violation::new(
                    Invariant::CompactionNeverGrows,
                    view.trace,
                    at,
                    format!(
                        "compaction hook `{hook}` grew the conversation from an estimated {was} \
                         to {is} tokens (ApproximateTokenCounter)"
                    ),
                ));
            }
        }
        references.extend(offloaded(&rewrite.after).map(|r| (r, at)));
    }
    if let Some(result) = view.result {
        references.extend(offloaded(&result.messages).map(|r| (r, None)));
    }
    if !stores.is_empty() {
        let mut seen = BTreeSet::new();
        for (reference, at) in references {
            if !seen.insert(reference.clone()) {
                continue;
            }
            if stores.iter().all(|s| s.read(&reference).is_err()) {
                let error = stores[0]
                    .read(&reference)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                found.push(Violation::new(
                    Invariant::OffloadedResultsAreRetrievable,
                    view.trace,
                    at,
                    format!(
                        "the conversation points to offloaded result {reference:?}, which no \
                         store can read back: {error}"
                    ),
                ));
            }
        }
    }
    found
}

/// The references in the messages' `tool_result_offloaded` meta.
fn offloaded(messages: &[ChatMessage]) -> impl Iterator<Item = String> + '_ {
    messages
        .iter()
        .filter_map(|m| m.meta().get(OFFLOADED_META_KEY))
        .filter_map(|v| v.as_array())
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::Map;

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: Some(id.into()),
            tool_name: "search".into(),
            arguments: Map::new(),
            extra: None,
        }
    }

    fn assistant(id: &str) -> ChatMessage {
        ChatMessage::from_assistant_parts(None, vec![call(id)])
    }

    fn result(id: &str) -> ChatMessage {
        ChatMessage::from_tool("found", call(id), false)
    }

    #[test]
    fn a_paired_conversation_has_no_orphans() {
        let messages = [ChatMessage::from_user("go"), assistant("a"), result("a")];
        assert!(orphans(&messages).is_empty());
    }

    #[test]
    fn the_pending_calls_of_the_last_message_are_not_orphans() {
        let messages = [ChatMessage::from_user("go"), assistant("a")];
        assert!(orphans(&messages).is_empty());
    }

    #[test]
    fn a_result_without_its_call_and_a_call_without_its_result_are_orphans() {
        let messages = [result("a"), assistant("b"), ChatMessage::from_user("go")];
        let found: Vec<Orphan> = orphans(&messages).into_iter().collect();
        assert_eq!(
            found,
            [Orphan::Result("a".into()), Orphan::Call("b".into())]
        );
    }
}
