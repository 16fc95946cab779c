//! `model`: the replies the mock chat generator returns, one per LLM call.

use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};

/// The reply to one chat-generator call (`model:` entry).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelReply {
    /// `{error: MESSAGE}`: the generator raises.
    Error(String),
    /// An assistant message; `{}` or null is a reply with no content.
    Reply {
        /// `text`; `None` adds no text part, `Some("")` one empty text part.
        text: Option<String>,
        /// `tool_calls`, in order.
        tool_calls: Vec<ScriptedToolCall>,
        /// `usage`: becomes `meta.usage`.
        usage: Option<Map<String, Value>>,
        /// `finish_reason`: becomes `meta.finish_reason`.
        finish_reason: Option<FinishReason>,
        /// `chunks`: the pieces a streaming run receives, in order; the
        /// reply's text is their concatenation (exclusive with `text`).
        chunks: Option<Vec<String>>,
    },
}

/// A tool call written in a scenario: `{tool, arguments, id}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ScriptedToolCall {
    /// `tool`: the tool's name.
    pub tool: String,
    /// `arguments`, in file order (default `{}`).
    pub arguments: Map<String, Value>,
    /// `id`; in `model` replies `None` means the default `call_<k>_<i>`.
    pub id: Option<String>,
}

/// Why the model stopped (`finish_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FinishReason {
    /// `stop`.
    Stop,
    /// `length`.
    Length,
    /// `content_filter`.
    ContentFilter,
    /// `tool_calls`.
    ToolCalls,
}

impl FinishReason {
    /// The value as Haystack writes it in `meta.finish_reason`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::ToolCalls => "tool_calls",
        }
    }
}

const FINISH_REASONS: &[(&str, FinishReason)] = &[
    ("stop", FinishReason::Stop),
    ("length", FinishReason::Length),
    ("content_filter", FinishReason::ContentFilter),
    ("tool_calls", FinishReason::ToolCalls),
];

pub(crate) fn read_reply(field: &Field<'_>) -> Read<ModelReply> {
    let empty = ModelReply::Reply {
        text: None,
        tool_calls: Vec::new(),
        usage: None,
        finish_reason: None,
        chunks: None,
    };
    if field.is_null() {
        return Ok(empty);
    }
    let mut map = field.map()?;
    if let Some(error) = map.get("error") {
        let others: Vec<String> = map.keys().into_iter().filter(|k| k != "error").collect();
        if !others.is_empty() {
            return Err(field.error(ScenarioErrorKind::ErrorWithOtherKeys { keys: others }));
        }
        return Ok(ModelReply::Error(error.string()?));
    }
    let mut text = match map.get("text") {
        Some(f) => f.opt_string()?,
        None => None,
    };
    let chunks = match map.get("chunks") {
        Some(_) if map.has("text") => {
            return Err(field.error(ScenarioErrorKind::NeedsOneOf {
                keys: vec!["text".to_owned(), "chunks".to_owned()],
                exactly: true,
            }));
        }
        Some(f) => {
            let chunks = f.strings()?;
            text = Some(chunks.concat());
            Some(chunks)
        }
        None => None,
    };
    let tool_calls = match map.get("tool_calls") {
        Some(f) => f.seq()?.iter().map(read_tool_call).collect::<Read<_>>()?,
        None => Vec::new(),
    };
    let usage = match map.get("usage") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.json_map()?),
        None => None,
    };
    let finish_reason = match map.get("finish_reason") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.variant(FINISH_REASONS)?),
        None => None,
    };
    map.finish()?;
    Ok(ModelReply::Reply {
        text,
        tool_calls,
        usage,
        finish_reason,
        chunks,
    })
}

/// `{tool, arguments, id}`, in `model` replies and in simple-form messages.
pub(crate) fn read_tool_call(field: &Field<'_>) -> Read<ScriptedToolCall> {
    let mut map = field.map()?;
    let tool = map.get("tool");
    let arguments = match map.get("arguments") {
        Some(f) => f.json_map()?,
        None => Map::new(),
    };
    let id = match map.get("id") {
        Some(f) => f.opt_string()?,
        None => None,
    };
    map.finish_hinting(&[("tool_name", "tool"), ("args", "arguments")])?;
    let tool = tool.ok_or_else(|| map.missing("tool"))?.string()?;
    Ok(ScriptedToolCall {
        tool,
        arguments,
        id,
    })
}
