//! The recorded trace: an owned, typed copy of every
//! [`observe::Event`](crate::observe::Event), and its four-kind wire view.

use crate::hook::HookPoint;
use crate::message::{ChatMessage, ToolCall};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// One event of a run, owned. Each kind mirrors an
/// [`observe::Event`](crate::observe::Event) kind; `step` is `step_count`
/// at the time (`None` when a hook removed the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TraceEvent {
    /// State is initialised with this many messages.
    RunStarted {
        /// Messages at the start (the system prompt included).
        messages: usize,
    },
    /// A hook is about to run.
    HookStarted {
        /// Where.
        point: HookPoint,
        /// Its position among the hooks of that point.
        index: usize,
        /// The hook's trace name.
        hook: String,
        /// `step_count` before it runs.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
    },
    /// A hook returned.
    HookFinished {
        /// Where.
        point: HookPoint,
        /// Its position among the hooks of that point.
        index: usize,
        /// The hook's trace name.
        hook: String,
        /// `step_count` after it ran.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// Its error or panic message, when it failed.
        error: Option<String>,
        /// After a `before_tool` hook: the calls left pending and
        /// `tool_call_counts` (`None` at other points).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tools: Option<PendingTools>,
        /// What it changed in State, when the recorder was asked for
        /// [`Detail::Full`](super::Detail::Full).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes: Option<StateChanges>,
        /// What the call printed or logged (the Haystack engine captures
        /// the user's Python code), when anything.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    /// The chat generator is called.
    LlmStarted {
        /// `step_count` at the call.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// How many messages the model receives.
        messages_in: usize,
        /// The last of them.
        last: Option<ChatMessage>,
        /// The named script (`models:`) that answered, for a generator the
        /// user's own code calls; `None` for the Agent's model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// The chat generator answered.
    LlmFinished {
        /// `step_count` at the call.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// The replies.
        replies: Vec<ChatMessage>,
        /// The named script (`models:`) that answered, for a generator the
        /// user's own code calls; `None` for the Agent's model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// The chat generator failed.
    LlmFailed {
        /// `step_count` at the call.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// The failure.
        error: String,
        /// The named script (`models:`) that answered, for a generator the
        /// user's own code calls; `None` for the Agent's model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A tool call ran (in call order, after its batch).
    ToolFinished {
        /// `step_count` before the step's increment.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// The tool.
        tool: String,
        /// The call id.
        id: Option<String>,
        /// `true` when the tool failed.
        error: bool,
        /// The arguments the call ran with.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        arguments: Map<String, Value>,
        /// What the call printed or logged (the Haystack engine captures
        /// the user's Python code), when anything.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    /// The step's tool messages were counted and appended.
    ToolsFinished {
        /// `step_count` before the step's increment.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// `tool_call_counts` now.
        tool_call_counts: Value,
    },
    /// An exit attempt, after the `on_exit` hooks.
    Exit {
        /// `step_count` after the `on_exit` hooks.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// `exit_reason` after the `on_exit` hooks.
        reason: Value,
        /// The loop's decision.
        continues: bool,
    },
    /// `stop_run` was found at the stop check.
    Stopped {
        /// `step_count` at the check.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// The `stop_run` value.
        reason: Value,
    },
    /// The loop ran `max_agent_steps` steps.
    MaxStepsReached {
        /// `step_count` then.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
    },
    /// The run finished without failing; `after_run` hooks have run.
    RunFinished {
        /// `step_count` at the end.
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        step: Option<Value>,
        /// `exit_reason` at the end (`null` when absent).
        exit_reason: Value,
        /// `continue_run` at the end (`null` when absent).
        continue_run: Value,
    },
}

/// A field that is present, whatever its value (`null` included): absent
/// fields take the `default`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The pending tool calls and `tool_call_counts` after a `before_tool` hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingTools {
    /// The calls of the last message.
    pub pending: Vec<CallRef>,
    /// `tool_call_counts` (`null` when absent).
    pub tool_call_counts: Value,
}

/// A tool call, by tool name and id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRef {
    /// The tool's name.
    pub tool: String,
    /// The call id.
    pub id: Option<String>,
    /// The call's arguments.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub arguments: Map<String, Value>,
}

impl From<&ToolCall> for CallRef {
    fn from(call: &ToolCall) -> Self {
        CallRef {
            tool: call.tool_name.clone(),
            id: call.id.clone(),
            arguments: call.arguments.clone(),
        }
    }
}

/// What a hook changed in State.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateChanges {
    /// The conversation.
    pub messages: MessageChanges,
    /// Data keys whose value is new, in State order (removed keys are not listed).
    pub data: Vec<KeyChange>,
    /// The whole conversation before and after, when the hook rewrote it
    /// (neither left it alone nor only appended to it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Box<Rewrite>>,
}

/// A conversation a hook rewrote, whole, before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rewrite {
    /// The messages before the hook ran.
    pub before: Vec<ChatMessage>,
    /// The messages after.
    pub after: Vec<ChatMessage>,
}

/// How a hook changed the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MessageChanges {
    /// Not at all.
    Unchanged,
    /// Messages were appended.
    Appended {
        /// The new messages.
        messages: Vec<ChatMessage>,
    },
    /// Anything else.
    Rewritten {
        /// The size before.
        before: usize,
        /// The size after.
        after: usize,
        /// The first position (among those both had) whose message changed,
        /// with its new message.
        first_changed: Option<(usize, ChatMessage)>,
    },
}

impl MessageChanges {
    /// The change from `before` to `after`.
    pub(crate) fn between(before: &[ChatMessage], after: &[ChatMessage]) -> Self {
        if before == after {
            MessageChanges::Unchanged
        } else if after.len() > before.len() && after.starts_with(before) {
            MessageChanges::Appended {
                messages: after[before.len()..].to_vec(),
            }
        } else {
            MessageChanges::Rewritten {
                before: before.len(),
                after: after.len(),
                first_changed: before
                    .iter()
                    .zip(after)
                    .position(|(old, new)| old != new)
                    .map(|i| (i, after[i].clone())),
            }
        }
    }
}

/// A data key a hook set to a new value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyChange {
    /// The key.
    pub key: String,
    /// Its value before (`None`: absent).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub before: Option<Value>,
    /// Its value after.
    pub after: Value,
}

impl KeyChange {
    /// The keys of `after` whose value differs from `before`.
    pub(crate) fn between(before: &Map<String, Value>, after: &Map<String, Value>) -> Vec<Self> {
        after
            .iter()
            .filter(|(key, value)| before.get(*key) != Some(*value))
            .map(|(key, value)| KeyChange {
                key: key.clone(),
                before: before.get(key).cloned(),
                after: value.clone(),
            })
            .collect()
    }
}

impl TraceEvent {
    /// `step_count` at the event (`None` when absent or for `RunStarted`).
    pub fn step(&self) -> Option<&Value> {
        match self {
            TraceEvent::RunStarted { .. } => None,
            TraceEvent::HookStarted { step, .. }
            | TraceEvent::HookFinished { step, .. }
            | TraceEvent::LlmStarted { step, .. }
            | TraceEvent::LlmFinished { step, .. }
            | TraceEvent::LlmFailed { step, .. }
            | TraceEvent::ToolFinished { step, .. }
            | TraceEvent::ToolsFinished { step, .. }
            | TraceEvent::Exit { step, .. }
            | TraceEvent::Stopped { step, .. }
            | TraceEvent::MaxStepsReached { step }
            | TraceEvent::RunFinished { step, .. } => step.as_ref(),
        }
    }

    /// The event as the outcome JSON's trace shows it, for the four kinds
    /// it keeps (hook started, LLM started, tool finished, exit).
    pub fn to_wire(&self) -> Option<WireEvent> {
        let step = || self.step().cloned().unwrap_or(Value::Null);
        Some(match self {
            TraceEvent::HookStarted { point, hook, .. } => WireEvent::Hook {
                point: *point,
                hook: hook.clone(),
                step: step(),
            },
            TraceEvent::LlmStarted {
                messages_in,
                model: None,
                ..
            } => WireEvent::Llm {
                step: step(),
                messages_in: *messages_in,
            },
            TraceEvent::ToolFinished {
                tool, id, error, ..
            } => WireEvent::Tool {
                step: step(),
                tool: tool.clone(),
                id: id.clone(),
                error: *error,
            },
            TraceEvent::Exit {
                reason, continues, ..
            } => WireEvent::Exit {
                step: step(),
                reason: reason.clone(),
                continues: *continues,
            },
            _ => return None,
        })
    }
}

/// One event of the outcome JSON's trace: the four kinds the
/// scenario-format contract compares with the Python reference.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WireEvent {
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
    /// The event as the outcome JSON writes it.
    pub fn to_value(&self) -> Value {
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
