//! The trace: one ordered event stream, recorded by an observer.
//!
//! The trace is the single source of the outcome JSON, the human report,
//! snapshots and invariant checks. It is recorded through
//! [`Observer`](crate::Observer), so recording never changes the run.

use crate::observe::{Event, Observer};
use crate::state::State;
use crate::state::keys;
use serde_json::{Map, Value};

/// One event of a run, as the outcome JSON shows it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TraceEvent {
    /// A hook was invoked (before its `when` was evaluated).
    Hook {
        /// The hook point.
        point: String,
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

impl TraceEvent {
    /// The event as the outcome JSON writes it.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        match self {
            TraceEvent::Hook { point, hook, step } => {
                map.insert("event".into(), "hook".into());
                map.insert("point".into(), point.clone().into());
                map.insert("hook".into(), hook.clone().into());
                map.insert("step".into(), step.clone());
            }
            TraceEvent::Llm { step, messages_in } => {
                map.insert("event".into(), "llm".into());
                map.insert("step".into(), step.clone());
                map.insert("messages_in".into(), (*messages_in).into());
            }
            TraceEvent::Tool {
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
            TraceEvent::Exit {
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

/// Records the trace of a run.
#[derive(Debug, Default)]
pub struct TraceRecorder {
    /// The events so far.
    pub events: Vec<TraceEvent>,
}

fn step(state: &State) -> Value {
    state
        .data()
        .get(keys::STEP_COUNT)
        .cloned()
        .unwrap_or(Value::Null)
}

impl Observer for TraceRecorder {
    fn on_event(&mut self, event: &Event<'_>) {
        let recorded = match event {
            Event::HookStarted {
                point, hook, state, ..
            } => TraceEvent::Hook {
                point: point.as_str().to_owned(),
                hook: hook.name().into_owned(),
                step: step(state),
            },
            Event::LlmStarted { state, messages } => TraceEvent::Llm {
                step: step(state),
                messages_in: messages.len(),
            },
            Event::ToolFinished { state, call, error } => TraceEvent::Tool {
                step: step(state),
                tool: call.tool_name.clone(),
                id: call.id.clone(),
                error: *error,
            },
            Event::Exit {
                state,
                reason,
                continues,
            } => TraceEvent::Exit {
                step: step(state),
                reason: (*reason).clone(),
                continues: *continues,
            },
            _ => return,
        };
        self.events.push(recorded);
    }
}
