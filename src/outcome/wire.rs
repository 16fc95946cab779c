//! The trace of the contract's outcome JSON: the four event kinds the
//! scenario-format contract compares with the Python reference, projected
//! from the recorded [`TraceEvent`]s. The projection stays here; the rest of
//! the crate asks an event whether the JSON shows it and how.

use super::trace::{TraceEvent, TraceKind};
use crate::hook::HookPoint;
use serde_json::{Map, Value};

/// One event of the outcome JSON's trace: the four kinds the
/// scenario-format contract compares with the Python reference.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum WireEvent {
    /// A hook was invoked (before its `when` was evaluated).
    Hook {
        /// The hook point.
        point: HookPoint,
        /// The hook's trace name.
        hook: String,
        /// `step_count` at the time.
        step: Value,
    },
    /// A chat-generator call (also one that failed).
    Llm {
        /// `step_count` at the time.
        step: Value,
        /// How many messages the model received.
        messages_in: usize,
    },
    /// A call that executed a tool.
    Tool {
        /// `step_count` before the step's increment.
        step: Value,
        /// The tool.
        tool: String,
        /// The call id.
        id: Option<String>,
        /// `true` when the tool failed.
        error: bool,
    },
    /// An exit attempt, after the `on_exit` hooks.
    Exit {
        /// `step_count` after the `on_exit` hooks.
        step: Value,
        /// `exit_reason` after the `on_exit` hooks.
        reason: Value,
        /// The loop's decision.
        continues: bool,
    },
}

impl WireEvent {
    /// `event` as the outcome JSON's trace shows it, for the four kinds it
    /// keeps (hook started, LLM started, tool finished, exit).
    pub(super) fn of(event: &TraceEvent) -> Option<Self> {
        let step = || event.step().cloned().unwrap_or(Value::Null);
        Some(match &event.kind {
            TraceKind::HookStarted { point, hook, .. } => WireEvent::Hook {
                point: *point,
                hook: hook.clone(),
                step: step(),
            },
            TraceKind::LlmStarted {
                messages_in,
                model: None,
                ..
            } => WireEvent::Llm {
                step: step(),
                messages_in: *messages_in,
            },
            TraceKind::ToolFinished {
                tool, id, error, ..
            } => WireEvent::Tool {
                step: step(),
                tool: tool.clone(),
                id: id.clone(),
                error: *error,
            },
            TraceKind::Exit {
                reason, continues, ..
            } => WireEvent::Exit {
                step: step(),
                reason: reason.clone(),
                continues: *continues,
            },
            _ => return None,
        })
    }

    /// The event as the outcome JSON writes it.
    pub(super) fn to_value(&self) -> Value {
        let mut map = Map::new();
        match self {
            WireEvent::Hook { point, hook, step } => {
                map.insert("event".into(), "hook".into());
                map.insert("point".into(), point.as_str().into());
                map.insert("hook".into(), hook.clone().into());
                map.insert("step".into(), step.clone());
            }
            WireEvent::Llm { step, messages_in } => {
                map.insert("event".into(), "llm".into());
                map.insert("step".into(), step.clone());
                map.insert("messages_in".into(), (*messages_in).into());
            }
            WireEvent::Tool {
                step,
                tool,
                id,
                error,
            } => {
                map.insert("event".into(), "tool".into());
                map.insert("step".into(), step.clone());
                map.insert("tool".into(), tool.clone().into());
                map.insert("id".into(), id.clone().map_or(Value::Null, Value::String));
                map.insert("error".into(), (*error).into());
            }
            WireEvent::Exit {
                step,
                reason,
                continues,
            } => {
                map.insert("event".into(), "exit".into());
                map.insert("step".into(), step.clone());
                map.insert("reason".into(), reason.clone());
                map.insert("continue".into(), (*continues).into());
            }
        }
        Value::Object(map)
    }
}

impl TraceEvent {
    /// `true` when the outcome JSON's trace shows the event: a hook
    /// starting, a call of the Agent's model, a tool that ran, an exit.
    pub(crate) fn on_wire(&self) -> bool {
        WireEvent::of(self).is_some()
    }

    /// The event as the outcome JSON's trace writes it (keys unsorted);
    /// `None` when that trace does not show it.
    pub(crate) fn wire_value(&self) -> Option<Value> {
        WireEvent::of(self).map(|e| e.to_value())
    }
}
