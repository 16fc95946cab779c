//! A `continue_run` loop makes progress: a step that an `on_exit` hook
//! continued does not repeat the step before it.
//!
//! A cycle runs from one exit attempt to the next. Two cycles repeat each
//! other when the model replied the same (tool-call ids aside), no tool ran
//! and every hook changed the same things (the loop's own bookkeeping,
//! `step_count`, `continue_run`, `exit_reason` and `token_usage`, aside).
//! What a hook changed is only recorded with
//! [`Detail::Full`](crate::outcome::Detail::Full); a cycle whose hooks ran
//! without that record is never called a repeat.

use super::view::View;
use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::message::ChatMessage;
use crate::outcome::{TraceEvent, TraceKind};
use crate::state::keys;
use serde_json::{Value, json};

/// The keys the loop itself moves on every step.
const BOOKKEEPING: [&str; 4] = [
    keys::STEP_COUNT,
    keys::CONTINUE_RUN,
    keys::EXIT_REASON,
    keys::TOKEN_USAGE,
];

/// One cycle: what it did (`None` when it ran a tool or cannot be told),
/// its exit's index in the complete trace and the exit's decision.
struct Cycle {
    signature: Option<Vec<Value>>,
    exit: usize,
    continues: bool,
}

pub(super) fn check(view: &View<'_>) -> Vec<Violation> {
    let cycles = cycles(&view.outcome.trace);
    let mut found = Vec::new();
    for pair in cycles.windows(2) {
        let (previous, next) = (&pair[0], &pair[1]);
        if !previous.continues {
            continue;
        }
        if let (Some(a), Some(b)) = (&previous.signature, &next.signature) {
            if a == b {
                found.push(Violation::new(
                    Invariant::ContinuedStepsMakeProgress,
                    view.trace,
                    view.wire_index(next.exit),
                    format!(
                        "the step continued at trace[{}] repeated the one before it: the same \
                         model reply, no tool ran, and the hooks changed the same things; a \
                         continue_run loop that makes no progress only ends at max_agent_steps",
                        view.wire_index(previous.exit)
                            .map_or("?".to_owned(), |i| i.to_string())
                    ),
                ));
            }
        }
    }
    found
}

fn cycles(trace: &[TraceEvent]) -> Vec<Cycle> {
    let mut cycles = Vec::new();
    let mut signature = Some(Vec::new());
    for (i, event) in trace.iter().enumerate() {
        match &event.kind {
            TraceKind::LlmFinished { replies, .. } => {
                if let Some(items) = signature.as_mut() {
                    items.extend(replies.iter().map(reply));
                }
            }
            TraceKind::ToolFinished { .. } | TraceKind::LlmFailed { .. } => signature = None,
            TraceKind::HookFinished {
                point,
                hook,
                changes,
                ..
            } if *point != HookPoint::BeforeRun => match (changes, signature.as_mut()) {
                (Some(changes), Some(items)) => {
                    let data: Vec<Value> = changes
                        .data
                        .iter()
                        .filter(|c| !BOOKKEEPING.contains(&c.key.as_str()))
                        .map(|c| json!([c.key, c.before, c.after]))
                        .collect();
                    let messages = serde_json::to_value(&changes.messages).unwrap_or(Value::Null);
                    items.push(json!({"hook": hook, "messages": messages, "data": data}));
                }
                (None, _) => signature = None,
                (Some(_), None) => {}
            },
            TraceKind::Exit { continues, .. } => {
                cycles.push(Cycle {
                    signature: signature.take(),
                    exit: i,
                    continues: *continues,
                });
                signature = Some(Vec::new());
            }
            _ => {}
        }
    }
    cycles
}

/// A reply without its tool-call ids (default ids number the LLM calls).
fn reply(message: &ChatMessage) -> Value {
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|c| json!([c.tool_name, c.arguments]))
        .collect();
    json!({
        "role": message.role().as_str(),
        "text": message.text(),
        "calls": calls,
        "meta": message.meta(),
    })
}
