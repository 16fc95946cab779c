//! What a hook did to the conversation, one line per message, as both
//! `explain` timelines (text and HTML) show it: appended messages, and for
//! a rewrite (a confirmation hook splitting a message and adding its
//! rejection, an offload hook replacing a result with its reference) every
//! message removed, added or changed, found by diffing the conversation
//! before and after.

use crate::message::ChatMessage;
use crate::outcome::{MessageChanges, StateChanges};
use serde_json::Value;
use similar::DiffOp;

/// The lines for `changes`: `+ message N ROLE: ...` for a message added,
/// `- message N ROLE: ...` for one removed (N its place before), `~ message
/// N ROLE: ... (was ROLE: ...)` for one changed in place; then each data
/// key with its new value. `describe` writes a message in one line.
pub(super) fn lines(
    changes: &StateChanges,
    describe: impl Fn(&ChatMessage) -> String,
) -> Vec<String> {
    let mut lines = Vec::new();
    match (&changes.messages, &changes.rewrite) {
        (MessageChanges::Unchanged, _) => {}
        (MessageChanges::Appended { messages }, _) => {
            lines.extend(
                messages
                    .iter()
                    .map(|m| format!("+ message {}", describe(m))),
            );
        }
        (MessageChanges::Rewritten { before, after, .. }, Some(rewrite)) => {
            lines.push(format!("messages rewritten: {before} -> {after}"));
            lines.extend(rewritten(&rewrite.before, &rewrite.after, &describe));
        }
        // A trace recorded without the conversations: the first change only.
        (
            MessageChanges::Rewritten {
                before,
                after,
                first_changed,
            },
            None,
        ) => {
            lines.push(format!("messages rewritten: {before} -> {after}"));
            if let Some((index, message)) = first_changed {
                lines.push(format!("~ message {index} is now {}", describe(message)));
            }
        }
    }
    for change in &changes.data {
        let old = change
            .before
            .as_ref()
            .map_or_else(|| "<absent>".into(), Value::to_string);
        lines.push(format!("{}: {old} -> {}", change.key, change.after));
    }
    lines
}

/// Every message removed, added or changed from `before` to `after`.
fn rewritten(
    before: &[ChatMessage],
    after: &[ChatMessage],
    describe: &impl Fn(&ChatMessage) -> String,
) -> Vec<String> {
    // Messages compare by their whole JSON form, so that the diff pairs
    // equal messages only.
    let key = |m: &ChatMessage| m.to_value().to_string();
    let old: Vec<String> = before.iter().map(key).collect();
    let new: Vec<String> = after.iter().map(key).collect();
    let mut lines = Vec::new();
    let removed = |from: usize, to: usize, lines: &mut Vec<String>| {
        for (i, message) in before[from..to].iter().enumerate() {
            lines.push(format!("- message {} {}", from + i, describe(message)));
        }
    };
    let added = |from: usize, to: usize, lines: &mut Vec<String>| {
        for (i, message) in after[from..to].iter().enumerate() {
            lines.push(format!("+ message {} {}", from + i, describe(message)));
        }
    };
    for op in super::diff::ops(&old, &new) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => removed(old_index, old_index + old_len, &mut lines),
            DiffOp::Insert {
                new_index, new_len, ..
            } => added(new_index, new_index + new_len, &mut lines),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                // As many as both have are changed in place; the rest of
                // either side is removed or added.
                let paired = old_len.min(new_len);
                let pairs = before[old_index..old_index + paired]
                    .iter()
                    .zip(&after[new_index..new_index + paired]);
                for (k, (was, now)) in pairs.enumerate() {
                    lines.push(format!(
                        "~ message {} {} (was {})",
                        new_index + k,
                        describe(now),
                        describe(was)
                    ));
                }
                removed(old_index + paired, old_index + old_len, &mut lines);
                added(new_index + paired, new_index + new_len, &mut lines);
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::rewritten;
    use crate::message::ChatMessage;

    fn describe(m: &ChatMessage) -> String {
        format!("{}: {}", m.role(), m.text().unwrap_or_default())
    }

    #[test]
    fn a_message_split_in_two_and_an_added_result_each_get_a_line() {
        let before = [
            ChatMessage::from_user("go"),
            ChatMessage::from_assistant("a b"),
        ];
        let after = [
            ChatMessage::from_user("go"),
            ChatMessage::from_assistant("a"),
            ChatMessage::from_user("rejected"),
            ChatMessage::from_assistant("b"),
        ];
        assert_eq!(
            rewritten(&before, &after, &describe),
            [
                "~ message 1 assistant: a (was assistant: a b)",
                "+ message 2 user: rejected",
                "+ message 3 assistant: b",
            ]
        );
    }

    #[test]
    fn a_removed_message_is_named_at_its_place_before() {
        let before = [ChatMessage::from_user("go"), ChatMessage::from_user("old")];
        let after = [ChatMessage::from_user("go")];
        assert_eq!(
            rewritten(&before, &after, &describe),
            ["- message 1 user: old"]
        );
    }
}
