//! One scripted model reply: what a scenario's `model` entry holds, what
//! [`ScriptedChatGenerator`](super::ScriptedChatGenerator) replays and what
//! recording writes. The loader reads it, the writer writes it, and
//! [`ModelReply::to_message`] is the one place it becomes a `ChatMessage`.

use super::ToolArguments;
use crate::generator::GeneratorError;
use crate::message::{ChatMessage, ToolCall};
use serde_json::{Map, Value};

/// The reply to one chat-generator call (a `model:` entry).
///
/// ```
/// use hookharness::scripted::{FinishReason, ModelReply};
/// use serde_json::json;
///
/// let reply = ModelReply::tool_call("search", json!({"query": "fusion"}))
///     .with_finish_reason(FinishReason::ToolCalls);
/// let message = reply.to_message(0)?;
/// assert_eq!(message.tool_calls().next().unwrap().id.as_deref(), Some("call_0_0"));
/// assert_eq!(message.finish_reason(), Some("tool_calls"));
/// # Ok::<(), hookharness::GeneratorError>(())
/// ```
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
    /// `arguments`, in file order (default `{}`), held compact:
    /// [`ToolArguments::to_map`] gives the map.
    pub arguments: ToolArguments,
    /// `id`; in `model` replies `None` means the default `call_<k>_<i>`.
    pub id: Option<String>,
}

impl ScriptedToolCall {
    /// A call of `tool` with these arguments and no id.
    pub fn new(tool: impl Into<String>, arguments: Map<String, Value>) -> Self {
        ScriptedToolCall {
            tool: tool.into(),
            arguments: arguments.into(),
            id: None,
        }
    }

    /// Sets the call's id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
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
    /// Every reason, in the format's order.
    pub const ALL: [FinishReason; 4] = [
        FinishReason::Stop,
        FinishReason::Length,
        FinishReason::ContentFilter,
        FinishReason::ToolCalls,
    ];

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

    /// The reason Haystack writes as `text`, if it is one of these.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|reason| reason.as_str() == text)
    }
}

impl ModelReply {
    /// A text reply.
    pub fn text(text: impl Into<String>) -> Self {
        ModelReply::Reply {
            text: Some(text.into()),
            tool_calls: Vec::new(),
            usage: None,
            finish_reason: None,
            chunks: None,
        }
    }

    /// A reply with one tool call and no text.
    pub fn tool_call(tool: impl Into<String>, arguments: Value) -> Self {
        ModelReply::empty().with_tool_call(tool, arguments)
    }

    /// An assistant reply with no content.
    pub fn empty() -> Self {
        ModelReply::Reply {
            text: None,
            tool_calls: Vec::new(),
            usage: None,
            finish_reason: None,
            chunks: None,
        }
    }

    /// The generator raises.
    pub fn error(message: impl Into<String>) -> Self {
        ModelReply::Error(message.into())
    }

    /// Adds a tool call (arguments must be a JSON map; anything else is
    /// taken as no arguments). An error reply stays as it is.
    #[must_use]
    pub fn with_tool_call(mut self, tool: impl Into<String>, arguments: Value) -> Self {
        if let ModelReply::Reply { tool_calls, .. } = &mut self {
            let arguments = match arguments {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            tool_calls.push(ScriptedToolCall::new(tool, arguments));
        }
        self
    }

    /// Sets `meta.usage` (a JSON map; anything else leaves it unset).
    #[must_use]
    pub fn with_usage(mut self, value: Value) -> Self {
        if let (ModelReply::Reply { usage, .. }, Value::Object(map)) = (&mut self, value) {
            *usage = Some(map);
        }
        self
    }

    /// Sets `meta.finish_reason`.
    #[must_use]
    pub fn with_finish_reason(mut self, reason: FinishReason) -> Self {
        if let ModelReply::Reply { finish_reason, .. } = &mut self {
            *finish_reason = Some(reason);
        }
        self
    }

    /// Streams these pieces before the reply when the run streams; the
    /// reply's text becomes their concatenation.
    #[must_use]
    pub fn with_chunks<I, S>(mut self, pieces: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let ModelReply::Reply { text, chunks, .. } = &mut self {
            let pieces: Vec<String> = pieces.into_iter().map(Into::into).collect();
            *text = Some(pieces.concat());
            *chunks = Some(pieces);
        }
        self
    }

    /// The pieces streamed before this reply, if any.
    #[must_use]
    pub fn chunks(&self) -> Option<&[String]> {
        match self {
            ModelReply::Reply {
                chunks: Some(chunks),
                ..
            } => Some(chunks),
            _ => None,
        }
    }

    /// The reply as the `call`-th LLM call (0-based) returns it: a tool
    /// call without an id gets `call_<call>_<i>`.
    pub fn to_message(&self, call: usize) -> Result<ChatMessage, GeneratorError> {
        match self {
            ModelReply::Error(message) => Err(GeneratorError::new(message.clone())),
            ModelReply::Reply {
                text,
                tool_calls,
                usage,
                finish_reason,
                ..
            } => {
                let calls = tool_calls
                    .iter()
                    .enumerate()
                    .map(|(i, scripted)| ToolCall {
                        id: Some(
                            scripted
                                .id
                                .clone()
                                .unwrap_or_else(|| format!("call_{call}_{i}")),
                        ),
                        tool_name: scripted.tool.clone(),
                        arguments: scripted.arguments.to_map(),
                        extra: None,
                    })
                    .collect();
                let mut meta = Map::new();
                if let Some(usage) = usage {
                    meta.insert("usage".into(), Value::Object(usage.clone()));
                }
                if let Some(reason) = finish_reason {
                    meta.insert(
                        "finish_reason".into(),
                        Value::String(reason.as_str().into()),
                    );
                }
                Ok(ChatMessage::from_assistant_parts(text.clone(), calls).with_meta(meta))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_scripted_id_is_kept_and_a_missing_one_is_numbered_by_call_and_position() {
        let reply = ModelReply::tool_call("a", json!({}))
            .with_tool_call("b", json!({"q": 1}))
            .with_tool_call("c", json!({}));
        let ModelReply::Reply { mut tool_calls, .. } = reply else {
            unreachable!("a tool-call reply is a reply")
        };
        tool_calls[1] = tool_calls[1].clone().with_id("mine");
        let reply = ModelReply::Reply {
            text: None,
            tool_calls,
            usage: None,
            finish_reason: None,
            chunks: None,
        };
        let ids: Vec<_> = reply
            .to_message(3)
            .unwrap()
            .tool_calls()
            .map(|c| c.id.clone().unwrap())
            .collect();
        assert_eq!(ids, ["call_3_0", "mine", "call_3_2"]);
    }

    #[test]
    fn chunks_set_the_text_to_their_concatenation() {
        let reply = ModelReply::text("ignored").with_chunks(["He", "llo"]);
        assert_eq!(reply.to_message(0).unwrap().text(), Some("Hello"));
        assert_eq!(
            reply.chunks(),
            Some(&["He".to_owned(), "llo".to_owned()][..])
        );
    }

    #[test]
    fn an_error_reply_raises_its_message() {
        let error = ModelReply::error("rate limited").to_message(0).unwrap_err();
        assert_eq!(error.message(), "rate limited");
    }

    #[test]
    fn every_finish_reason_parses_back_from_its_name() {
        for reason in FinishReason::ALL {
            assert_eq!(FinishReason::parse(reason.as_str()), Some(reason));
        }
        assert_eq!(FinishReason::parse("eos"), None);
    }
}
