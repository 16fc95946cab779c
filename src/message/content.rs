//! The content parts a message is made of.

use serde_json::{Map, Value};
use std::sync::Arc;

/// A tool call requested by the model.
///
/// Messages hold calls behind an [`Arc`]: the model's reply and every tool
/// result answering the call (its [`origin`](ToolCallResult::origin)) share
/// one call, as Haystack's `ToolCallResult.origin` is the reply's own
/// `ToolCall` object. Reading goes through the `Arc`; to edit a call in a
/// message, [`Arc::make_mut`] gives a call of the message's own (a copy when
/// another message shares it):
///
/// ```
/// use hookharness::{ChatMessage, ChatRole, ContentPart, ToolCall};
/// use serde_json::{Map, json};
/// use std::sync::Arc;
///
/// let call = Arc::new(ToolCall::new("search", Map::new()).with_id("call_0"));
/// let mut reply = ChatMessage::new(ChatRole::Assistant, vec![ContentPart::ToolCall(call.clone())]);
/// let result = ChatMessage::from_tool("found", call, false); // shares the call
///
/// if let Some(ContentPart::ToolCall(call)) = reply.content_mut().first_mut() {
///     Arc::make_mut(call).arguments.insert("query".into(), json!("fusion")); // copies it
/// }
/// assert_eq!(reply.tool_calls().next().unwrap().arguments["query"], "fusion");
/// assert!(result.tool_call_result().unwrap().origin.arguments.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id; Haystack allows none.
    pub id: Option<String>,
    /// The name of the tool to call.
    pub tool_name: String,
    /// The arguments, in the order the model wrote them.
    pub arguments: Map<String, Value>,
    /// Provider-specific data, kept as is.
    pub extra: Option<Map<String, Value>>,
}

impl ToolCall {
    /// A call to `tool_name` with these arguments and no id.
    pub fn new(tool_name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        ToolCall {
            id: None,
            tool_name: tool_name.into(),
            arguments,
            extra: None,
        }
    }

    /// Sets the id (builder style).
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

/// What a tool returned: a string, or a list of content parts
/// (text, image or file parts).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResult {
    /// A plain string result.
    Text(String),
    /// A list of content parts.
    Parts(Vec<ContentPart>),
}

impl ToolResult {
    /// The string result, when the result is a string.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ToolResult::Text(text) => Some(text),
            ToolResult::Parts(_) => None,
        }
    }
}

impl From<String> for ToolResult {
    fn from(text: String) -> Self {
        ToolResult::Text(text)
    }
}

impl From<&str> for ToolResult {
    fn from(text: &str) -> Self {
        ToolResult::Text(text.to_owned())
    }
}

/// The result of one tool invocation, as stored in a tool message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallResult {
    /// The result.
    pub result: ToolResult,
    /// The call that produced it, shared with the message that made the call.
    pub origin: Arc<ToolCall>,
    /// `true` when the invocation failed.
    pub error: bool,
}

/// One part of a message's content.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentPart {
    /// A text part.
    Text(String),
    /// A tool call (shared with the results that answer it).
    ToolCall(Arc<ToolCall>),
    /// A tool result.
    ToolCallResult(ToolCallResult),
    /// An image, file or reasoning part, kept in its serialized form
    /// (`kind` is `image`, `file` or `reasoning`).
    Other {
        /// The part's key in the serialized form.
        kind: String,
        /// The part's serialized value.
        value: Value,
    },
}
