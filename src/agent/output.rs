//! What a run returns.

use crate::message::ChatMessage;
use crate::state::HookContext;
use crate::state::keys;
use serde_json::{Map, Value};

/// The result of a run: Haystack's return value with the internal keys
/// stripped, plus the `hook_context` handed back to the caller.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentOutput {
    /// Every message of the run.
    pub messages: Vec<ChatMessage>,
    /// The last message (`None` when there are none).
    pub last_message: Option<ChatMessage>,
    /// The public state keys other than `messages`: `step_count`,
    /// `token_usage`, `tool_call_counts`, `exit_reason` and the user keys
    /// that hold a value, in State order.
    pub data: Map<String, Value>,
    /// The run's `hook_context`, as the hooks left it.
    pub hook_context: HookContext,
}

impl AgentOutput {
    /// Why the run stopped: `text`, `length`, `content_filter`, a tool name,
    /// `max_agent_steps`, or a `stop_run` value.
    pub fn exit_reason(&self) -> Option<&str> {
        self.data.get(keys::EXIT_REASON).and_then(Value::as_str)
    }

    /// The number of steps.
    pub fn step_count(&self) -> Option<i64> {
        self.data.get(keys::STEP_COUNT).and_then(Value::as_i64)
    }

    /// The summed token usage.
    pub fn token_usage(&self) -> Option<&Value> {
        self.data.get(keys::TOKEN_USAGE)
    }

    /// Calls per tool (errored and unknown calls included).
    pub fn tool_call_counts(&self) -> Option<&Value> {
        self.data.get(keys::TOOL_CALL_COUNTS)
    }

    /// Any public key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.data.get(key)
    }
}
