//! What a run returned: Haystack's result, typed.

use crate::agent::AgentOutput;
use crate::message::ChatMessage;
use crate::state::keys;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Haystack's return value: the conversation, the last message, the run
/// metadata and the scenario's own state keys.
///
/// The metadata stay JSON values: hooks may write anything there, and the
/// outcome shows what they wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunResult {
    /// The whole conversation.
    pub messages: Vec<ChatMessage>,
    /// The last message, if any.
    pub last_message: Option<ChatMessage>,
    /// `exit_reason` (`null` when absent).
    pub exit_reason: Value,
    /// `step_count` (`null` when absent).
    pub step_count: Value,
    /// `token_usage` (`null` when absent).
    pub token_usage: Value,
    /// `tool_call_counts` (`null` when absent).
    pub tool_call_counts: Value,
    /// The scenario's `state_schema` keys (except `messages`) present after the run.
    pub state: Map<String, Value>,
}

impl RunResult {
    /// The result of a run; `schema_keys` are the scenario's `state_schema`
    /// keys, in order.
    pub(crate) fn new<'k>(
        output: crate::AgentOutput,
        schema_keys: impl Iterator<Item = &'k String>,
    ) -> Self {
        let AgentOutput {
            messages,
            last_message,
            data,
            ..
        } = output;
        let field = |key: &str| data.get(key).cloned().unwrap_or(Value::Null);
        RunResult {
            exit_reason: field(keys::EXIT_REASON),
            step_count: field(keys::STEP_COUNT),
            token_usage: field(keys::TOKEN_USAGE),
            tool_call_counts: field(keys::TOOL_CALL_COUNTS),
            state: schema_keys
                .filter(|k| *k != keys::MESSAGES)
                .filter_map(|k| data.get(k).map(|v| (k.clone(), v.clone())))
                .collect(),
            messages,
            last_message,
        }
    }

    /// `exit_reason` when it is a string.
    pub fn exit_reason(&self) -> Option<&str> {
        self.exit_reason.as_str()
    }

    /// A result field by its JSON key (`exit_reason`, `step_count`,
    /// `token_usage`, `tool_call_counts`, `state`); `None` for others.
    pub fn field(&self, key: &str) -> Option<&Value> {
        match key {
            keys::EXIT_REASON => Some(&self.exit_reason),
            keys::STEP_COUNT => Some(&self.step_count),
            keys::TOKEN_USAGE => Some(&self.token_usage),
            keys::TOOL_CALL_COUNTS => Some(&self.tool_call_counts),
            _ => None,
        }
    }

    /// The result as the outcome JSON writes it.
    pub fn to_value(&self) -> Value {
        let mut result = Map::new();
        result.insert(
            keys::MESSAGES.into(),
            Value::Array(self.messages.iter().map(ChatMessage::to_value).collect()),
        );
        result.insert(
            "last_message".into(),
            self.last_message
                .as_ref()
                .map_or(Value::Null, ChatMessage::to_value),
        );
        result.insert(keys::EXIT_REASON.into(), self.exit_reason.clone());
        result.insert(keys::STEP_COUNT.into(), self.step_count.clone());
        result.insert(keys::TOKEN_USAGE.into(), self.token_usage.clone());
        result.insert(keys::TOOL_CALL_COUNTS.into(), self.tool_call_counts.clone());
        result.insert("state".into(), Value::Object(self.state.clone()));
        Value::Object(result)
    }
}
