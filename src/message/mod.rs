//! Chat messages, in the shape of Haystack's `ChatMessage`.
//!
//! A message is a role, an ordered list of content parts, an optional `name`
//! and a `meta` map. The serialized form is Haystack's `ChatMessage.to_dict()`
//! (`{"role", "meta", "name", "content": [...]}`), so conversations dumped by
//! Python load here and serialize back to the same JSON value.

mod content;
pub(crate) mod serde_form;

pub use content::{ContentPart, ToolCall, ToolCallResult, ToolResult};
pub use serde_form::MessageFormatError;

use serde_json::{Map, Value};
use std::fmt;
use std::sync::{Arc, LazyLock};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChatRole {
    /// The person talking to the agent.
    User,
    /// Instructions for the model.
    System,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

impl ChatRole {
    /// Every role, in Haystack's order.
    pub const ALL: [ChatRole; 4] = [
        ChatRole::User,
        ChatRole::System,
        ChatRole::Assistant,
        ChatRole::Tool,
    ];

    /// The role as Haystack spells it (`user`, `system`, `assistant`, `tool`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRole::User => "user",
            ChatRole::System => "system",
            ChatRole::Assistant => "assistant",
            ChatRole::Tool => "tool",
        }
    }

    /// Parses a role, with Haystack's error text for an unknown one.
    pub fn parse(text: &str) -> Result<Self, MessageFormatError> {
        Self::ALL
            .into_iter()
            .find(|role| role.as_str() == text)
            .ok_or_else(|| {
                MessageFormatError::new(format!(
                    "Unknown chat role '{text}'. Supported roles are: ['user', 'system', 'assistant', 'tool']"
                ))
            })
    }
}

impl fmt::Display for ChatRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message of a conversation.
///
/// ```
/// use hookharness::{ChatMessage, ChatRole};
///
/// let msg = ChatMessage::from_user("What is fusion?");
/// assert_eq!(msg.role(), ChatRole::User);
/// assert_eq!(msg.text(), Some("What is fusion?"));
/// ```
#[derive(Clone)]
pub struct ChatMessage {
    role: ChatRole,
    content: Vec<ContentPart>,
    name: Option<String>,
    // `None` for an empty map (most messages), so a message is half the
    // size, and copying or dropping one skips the map: a `Map` is 72 bytes
    // and cloning an empty one still copies its hasher and both tables.
    meta: Option<Box<Map<String, Value>>>,
}

/// The `meta` of a message that has none.
static NO_META: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

impl PartialEq for ChatMessage {
    fn eq(&self, other: &Self) -> bool {
        self.role == other.role
            && self.content == other.content
            && self.name == other.name
            && self.meta() == other.meta()
    }
}

impl fmt::Debug for ChatMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatMessage")
            .field("role", &self.role)
            .field("content", &self.content)
            .field("name", &self.name)
            .field("meta", self.meta())
            .finish()
    }
}

impl ChatMessage {
    /// Builds a message from its parts.
    pub fn new(role: ChatRole, content: Vec<ContentPart>) -> Self {
        ChatMessage {
            role,
            content,
            name: None,
            meta: None,
        }
    }

    /// A user message with one text part.
    pub fn from_user(text: impl Into<String>) -> Self {
        Self::new(ChatRole::User, vec![ContentPart::Text(text.into())])
    }

    /// A system message with one text part.
    pub fn from_system(text: impl Into<String>) -> Self {
        Self::new(ChatRole::System, vec![ContentPart::Text(text.into())])
    }

    /// An assistant message with one text part (`""` gives an empty text part,
    /// as Haystack's `from_assistant(text="")` does).
    pub fn from_assistant(text: impl Into<String>) -> Self {
        Self::new(ChatRole::Assistant, vec![ContentPart::Text(text.into())])
    }

    /// An assistant message: optional text first, then the tool calls.
    /// `None` adds no text part.
    pub fn from_assistant_parts(text: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        let mut content = Vec::with_capacity(tool_calls.len() + 1);
        content.extend(text.map(ContentPart::Text));
        content.extend(
            tool_calls
                .into_iter()
                .map(|call| ContentPart::ToolCall(Arc::new(call))),
        );
        Self::new(ChatRole::Assistant, content)
    }

    /// A tool message holding one tool result; `origin` is the call it
    /// answers (a `ToolCall`, or an `Arc<ToolCall>` shared with the reply).
    pub fn from_tool(
        result: impl Into<ToolResult>,
        origin: impl Into<Arc<ToolCall>>,
        error: bool,
    ) -> Self {
        Self::new(
            ChatRole::Tool,
            vec![ContentPart::ToolCallResult(ToolCallResult {
                result: result.into(),
                origin: origin.into(),
                error,
            })],
        )
    }

    /// Sets `meta` (builder style).
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = (!meta.is_empty()).then(|| Box::new(meta));
        self
    }

    /// Sets `name` (builder style).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The role.
    pub fn role(&self) -> ChatRole {
        self.role
    }

    /// `true` when the message has this role.
    pub fn is_from(&self, role: ChatRole) -> bool {
        self.role == role
    }

    /// The content parts, in order.
    pub fn content(&self) -> &[ContentPart] {
        &self.content
    }

    /// The content parts, mutable.
    pub fn content_mut(&mut self) -> &mut Vec<ContentPart> {
        &mut self.content
    }

    /// The optional author name.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The metadata map (`finish_reason`, `usage`, anything else).
    pub fn meta(&self) -> &Map<String, Value> {
        self.meta.as_deref().unwrap_or(&NO_META)
    }

    /// `meta[key]`: the loop's per-step reads, which skip the map when the
    /// message has none.
    pub(crate) fn meta_get(&self, key: &str) -> Option<&Value> {
        self.meta.as_deref()?.get(key)
    }

    /// The metadata map, mutable.
    pub fn meta_mut(&mut self) -> &mut Map<String, Value> {
        self.meta.get_or_insert_with(Box::default)
    }

    /// All text parts.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(|part| match part {
            ContentPart::Text(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// The first text part, if any (it may be empty).
    pub fn text(&self) -> Option<&str> {
        self.texts().next()
    }

    /// All tool calls.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.shared_tool_calls().map(|call| &**call)
    }

    /// All tool calls, for editing in place (a call another message shares,
    /// such as a tool result's `origin`, is copied first, so that message
    /// keeps the call as it was).
    ///
    /// ```
    /// use hookharness::{ChatMessage, ToolCall};
    /// use serde_json::{Map, json};
    ///
    /// let mut reply = ChatMessage::from_assistant_parts(None, vec![ToolCall::new("search", Map::new())]);
    /// for call in reply.tool_calls_mut() {
    ///     call.arguments.insert("query".into(), json!("fusion"));
    /// }
    /// assert_eq!(reply.tool_calls().next().unwrap().arguments["query"], "fusion");
    /// ```
    pub fn tool_calls_mut(&mut self) -> impl Iterator<Item = &mut ToolCall> {
        self.content.iter_mut().filter_map(|part| match part {
            ContentPart::ToolCall(call) => Some(Arc::make_mut(call)),
            _ => None,
        })
    }

    /// All tool calls, as the shared handles a tool result's `origin` keeps.
    pub(crate) fn shared_tool_calls(&self) -> impl Iterator<Item = &Arc<ToolCall>> {
        self.content.iter().filter_map(|part| match part {
            ContentPart::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// `true` when the message holds at least one tool call.
    pub fn has_tool_calls(&self) -> bool {
        self.tool_calls().next().is_some()
    }

    /// All tool results.
    pub fn tool_call_results(&self) -> impl Iterator<Item = &ToolCallResult> {
        self.content.iter().filter_map(|part| match part {
            ContentPart::ToolCallResult(result) => Some(result),
            _ => None,
        })
    }

    /// The first tool result, if any.
    pub fn tool_call_result(&self) -> Option<&ToolCallResult> {
        self.tool_call_results().next()
    }

    /// `meta["finish_reason"]` when it is a string.
    pub fn finish_reason(&self) -> Option<&str> {
        self.meta_get("finish_reason").and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_meta_map_is_no_meta_whichever_way_it_was_made() {
        let plain = ChatMessage::from_user("hi");
        let mut touched = ChatMessage::from_user("hi");
        touched.meta_mut();
        let emptied = ChatMessage::from_user("hi").with_meta(Map::new());
        for message in [&touched, &emptied] {
            assert_eq!(message, &plain);
            assert_eq!(format!("{message:?}"), format!("{plain:?}"));
            assert_eq!(message.to_value(), plain.to_value());
        }
        assert_eq!(plain.meta_get("usage"), None);
    }

    #[test]
    fn a_meta_map_is_kept_read_and_compared() {
        let mut meta = Map::new();
        meta.insert("finish_reason".into(), json!("stop"));
        let message = ChatMessage::from_assistant("done").with_meta(meta.clone());
        assert_eq!(message.meta(), &meta);
        assert_eq!(message.meta_get("finish_reason"), Some(&json!("stop")));
        assert_eq!(message.finish_reason(), Some("stop"));
        assert_ne!(message, ChatMessage::from_assistant("done"));
        let mut edited = ChatMessage::from_assistant("done");
        edited
            .meta_mut()
            .insert("finish_reason".into(), json!("stop"));
        assert_eq!(edited, message);
    }
}
