//! The recorded trace: an owned, typed copy of every
//! [`observe::Event`](crate::observe::Event).

use crate::hook::HookPoint;
use crate::message::{ChatMessage, ToolCall};
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// One event of a run, owned: `step_count` at the time and what happened.
///
/// Its JSON is one object: `event` names the kind, `step` sits among the
/// kind's fields (after `hook` in hook events, after `event` elsewhere) and
/// is left out when absent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TraceEvent {
    /// `step_count` at the event: before a hook runs, after it ran, at an
    /// LLM call, before the step's increment for tools, after the `on_exit`
    /// hooks for an exit, at the end for `RunFinished`. `None` when a hook
    /// removed the key, and for `RunStarted`. A present `null` is
    /// `Some(Null)`.
    #[serde(default, deserialize_with = "present")]
    pub step: Option<Value>,
    /// What happened.
    #[serde(flatten)]
    pub kind: TraceKind,
}

/// What happened at one event of a run. Each kind mirrors an
/// [`observe::Event`](crate::observe::Event) kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TraceKind {
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
    },
    /// A hook returned.
    HookFinished {
        /// Where.
        point: HookPoint,
        /// Its position among the hooks of that point.
        index: usize,
        /// The hook's trace name.
        hook: String,
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
        /// The replies.
        replies: Vec<ChatMessage>,
        /// The named script (`models:`) that answered, for a generator the
        /// user's own code calls; `None` for the Agent's model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// The chat generator failed.
    LlmFailed {
        /// The failure.
        error: String,
        /// The named script (`models:`) that answered, for a generator the
        /// user's own code calls; `None` for the Agent's model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A tool call ran (in call order, after its batch).
    ToolFinished {
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
        /// `tool_call_counts` now.
        tool_call_counts: Value,
    },
    /// An exit attempt, after the `on_exit` hooks.
    Exit {
        /// `exit_reason` after the `on_exit` hooks.
        reason: Value,
        /// The loop's decision.
        continues: bool,
    },
    /// `stop_run` was found at the stop check.
    Stopped {
        /// The `stop_run` value.
        reason: Value,
    },
    /// The loop ran `max_agent_steps` steps.
    MaxStepsReached,
    /// The run finished without failing; `after_run` hooks have run.
    RunFinished {
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

impl Serialize for TraceEvent {
    /// The kind's object with `step` in its place: after `hook` in hook
    /// events, after `event` elsewhere.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(fields) = serde_json::to_value(&self.kind).map_err(S::Error::custom)?
        else {
            return Err(S::Error::custom("a trace event is an object"));
        };
        let after = match self.kind {
            TraceKind::HookStarted { .. } | TraceKind::HookFinished { .. } => "hook",
            _ => "event",
        };
        let mut map =
            serializer.serialize_map(Some(fields.len() + usize::from(self.step.is_some())))?;
        for (key, value) in &fields {
            map.serialize_entry(key, value)?;
            if let (true, Some(step)) = (key == after, &self.step) {
                map.serialize_entry("step", step)?;
            }
        }
        map.end()
    }
}

impl TraceEvent {
    /// The event `kind` at `step`.
    pub fn new(step: Option<Value>, kind: TraceKind) -> Self {
        TraceEvent { step, kind }
    }

    /// `step_count` at the event (`None` when absent or for `RunStarted`).
    pub fn step(&self) -> Option<&Value> {
        self.step.as_ref()
    }
}
