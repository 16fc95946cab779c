//! A record run's model calls: each `model_call` the worker sends (its
//! conversation, tools and `generation_kwargs`, python/hookharness/engine/
//! relay.py) answered by the live models, the reply going back as the
//! model entry the worker builds its message from.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::super::{LiveCall, LiveModels};
use crate::message::ChatMessage;
use crate::tool::ToolSpec;

/// A `model_call` as the worker writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireCall {
    model: Option<String>,
    messages: Vec<ChatMessage>,
    tools: Vec<WireTool>,
    generation_kwargs: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireTool {
    name: String,
    description: String,
    parameters: Value,
}

/// The `model_reply` entry for one `model_call`; an error when the call
/// does not read (a bug of the worker: the record fails with it).
pub(super) fn answer(call: &Value, models: &dyn LiveModels) -> Result<Value, String> {
    // Through text: integers past 64 bits stay exact only that way.
    let wire: WireCall = serde_json::from_str(&call.to_string())
        .map_err(|e| format!("a model call that does not read ({e})"))?;
    let tools: Vec<ToolSpec> = wire
        .tools
        .into_iter()
        .map(|t| {
            ToolSpec::new(t.name)
                .description(t.description)
                .parameters(t.parameters)
        })
        .collect();
    let entry = models.answer(LiveCall {
        model: wire.model.as_deref(),
        messages: &wire.messages,
        tools: &tools,
        generation_kwargs: wire.generation_kwargs.as_ref(),
    });
    Ok(crate::scenario::write_reply(&entry))
}
