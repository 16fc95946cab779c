//! Model calls answered live while an engine runs a scenario: what
//! `hookharness record` gives an engine whose loop runs elsewhere (the
//! Haystack engine's worker keeps its network closed and relays each model
//! call here instead).

use serde_json::{Map, Value};

use crate::message::ChatMessage;
use crate::scripted::ModelReply;
use crate::tool::ToolSpec;

/// One model call of a run, as the engine relays it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct LiveCall<'a> {
    /// The script the call would have read: `None` for the main `model`,
    /// else the `models:` name.
    pub model: Option<&'a str>,
    /// The conversation sent.
    pub messages: &'a [ChatMessage],
    /// The tools offered (name, description, parameters).
    pub tools: &'a [ToolSpec],
    /// The call's `generation_kwargs`, when it was given any.
    pub generation_kwargs: Option<&'a Map<String, Value>>,
}

/// Answers an engine's model calls from a live model.
pub trait LiveModels: Send + Sync {
    /// The reply to `call`, as the model entry the recording keeps for it
    /// (a failed call is [`ModelReply::Error`]); the engine answers the
    /// call with it exactly as a replay of that entry does.
    fn answer(&self, call: LiveCall<'_>) -> ModelReply;
}
