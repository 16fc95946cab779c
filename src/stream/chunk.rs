//! One streamed piece (Haystack's `StreamingChunk`).

use crate::message::serde_form::tool_call_to_value;
use crate::message::{ToolCall, ToolCallResult};
use serde_json::{Map, Value};

/// A piece of a streamed reply, or a tool result the loop streams.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct StreamingChunk {
    /// The text of this piece (`""` for a tool result).
    pub content: String,
    /// Metadata (for a tool result: `tool_result` and `tool_call`).
    pub meta: Map<String, Value>,
    /// Which content block the piece belongs to.
    pub index: Option<i64>,
    /// The tool result this chunk carries.
    pub tool_call_result: Option<ToolCallResult>,
    /// `true` when the piece starts a content block.
    pub start: bool,
    /// Why generation finished (`tool_call_results` ends the tool results).
    pub finish_reason: Option<String>,
}

impl StreamingChunk {
    /// A piece of text.
    pub fn text(content: impl Into<String>) -> Self {
        StreamingChunk {
            content: content.into(),
            ..StreamingChunk::default()
        }
    }

    /// The chunk Haystack streams for one tool result
    /// (`_create_tool_result_streaming_chunk`).
    pub(crate) fn tool_result(result: &ToolCallResult, call: &ToolCall, index: i64) -> Self {
        let mut meta = Map::new();
        let text = result.result.as_text().map_or(Value::Null, Value::from);
        meta.insert("tool_result".into(), text);
        meta.insert("tool_call".into(), tool_call_to_value(call));
        StreamingChunk {
            content: String::new(),
            meta,
            index: Some(index),
            tool_call_result: Some(result.clone()),
            start: true,
            finish_reason: None,
        }
    }

    /// The empty chunk that ends a step's tool results.
    pub(crate) fn end_of_tool_results() -> Self {
        let reason = "tool_call_results";
        let mut meta = Map::new();
        meta.insert("finish_reason".into(), Value::from(reason));
        StreamingChunk {
            meta,
            finish_reason: Some(reason.to_owned()),
            ..StreamingChunk::default()
        }
    }
}
