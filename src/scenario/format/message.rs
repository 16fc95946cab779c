//! Messages written in a scenario: the simple form `{role, text, tool_calls,
//! meta, name}` or Haystack's `ChatMessage.to_dict()` form (told apart by its
//! `content` key), accepted wherever a message is read.

use serde_json::{Map, Value};
use std::sync::Arc;

use super::error::ScenarioErrorKind;
use super::model::read_tool_call;
use super::reader::{Field, Read};
use crate::message::{ChatMessage, ChatRole, ContentPart, MessageFormatError, ToolCall};
use crate::scripted::ScriptedToolCall;

/// A chat message written in a scenario.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MessageSpec {
    /// `{role, text, tool_calls, meta, name}`: content is the text (when
    /// given) followed by the tool calls, for any role.
    Simple {
        /// `role`.
        role: ChatRole,
        /// `text`; `None` adds no text part.
        text: Option<String>,
        /// `tool_calls`, in order; no default ids.
        tool_calls: Vec<ScriptedToolCall>,
        /// `meta` (default `{}`).
        meta: Map<String, Value>,
        /// `name` (default null).
        name: Option<String>,
    },
    /// `ChatMessage.to_dict()`: `{role, content: [...], meta, name}`, kept as
    /// written; its top-level keys, role and part tags are checked.
    Haystack(Value),
}

/// The format's spelling of each role: Haystack's.
pub(crate) fn roles() -> Vec<(&'static str, ChatRole)> {
    ChatRole::ALL.map(|r| (r.as_str(), r)).to_vec()
}

/// The part tags of `ChatMessage.to_dict()` content.
pub(crate) const PART_TAGS: &[&str] = &[
    "text",
    "tool_call",
    "tool_call_result",
    "image",
    "file",
    "reasoning",
];

impl MessageSpec {
    /// The message as the loop sees it: the simple form's text comes first,
    /// then its tool calls (no default ids); the `to_dict()` form is read as
    /// Haystack reads it.
    pub fn to_message(&self) -> Result<ChatMessage, MessageFormatError> {
        match self {
            MessageSpec::Simple {
                role,
                text,
                tool_calls,
                meta,
                name,
            } => {
                let mut content = Vec::with_capacity(tool_calls.len() + 1);
                content.extend(text.clone().map(ContentPart::Text));
                content.extend(tool_calls.iter().map(|call| {
                    ContentPart::ToolCall(Arc::new(ToolCall {
                        id: call.id.clone(),
                        tool_name: call.tool.clone(),
                        arguments: call.arguments.to_map(),
                        extra: None,
                    }))
                }));
                let mut message = ChatMessage::new(*role, content).with_meta(meta.clone());
                if let Some(name) = name {
                    message = message.with_name(name.clone());
                }
                Ok(message)
            }
            MessageSpec::Haystack(value) => ChatMessage::from_value(value),
        }
    }

    /// Several messages, in order; the first that does not convert stops it.
    pub fn to_messages(specs: &[MessageSpec]) -> Result<Vec<ChatMessage>, MessageFormatError> {
        specs.iter().map(MessageSpec::to_message).collect()
    }
}

pub(crate) fn read_messages(field: &Field<'_>) -> Read<Vec<MessageSpec>> {
    field.seq()?.iter().map(read_message).collect()
}

pub(crate) fn read_message(field: &Field<'_>) -> Read<MessageSpec> {
    let map = field.map()?;
    if map.has("content") {
        read_haystack(field)
    } else {
        read_simple(field)
    }
}

fn read_simple(field: &Field<'_>) -> Read<MessageSpec> {
    let mut map = field.map()?;
    let role = map.required("role")?.variant(&roles())?;
    let text = match map.get("text") {
        Some(f) => f.opt_string()?,
        None => None,
    };
    let tool_calls = match map.get("tool_calls") {
        Some(f) => f.seq()?.iter().map(read_tool_call).collect::<Read<_>>()?,
        None => Vec::new(),
    };
    let meta = match map.get("meta") {
        Some(f) => f.json_map()?,
        None => Map::new(),
    };
    let name = match map.get("name") {
        Some(f) => f.opt_string()?,
        None => None,
    };
    map.finish_suggesting(&["content"])?;
    Ok(MessageSpec::Simple {
        role,
        text,
        tool_calls,
        meta,
        name,
    })
}

fn read_haystack(field: &Field<'_>) -> Read<MessageSpec> {
    let mut map = field.map()?;
    map.required("role")?.variant(&roles())?;
    for part in map.required("content")?.seq()? {
        let mut part_map = part.map()?;
        let tags: Vec<_> = PART_TAGS.iter().filter_map(|t| part_map.get(t)).collect();
        part_map.finish()?;
        if tags.len() != 1 {
            return Err(part.error(ScenarioErrorKind::NeedsOneOf {
                keys: PART_TAGS.iter().map(|t| (*t).to_owned()).collect(),
                exactly: true,
            }));
        }
    }
    if let Some(f) = map.get("meta") {
        f.json_map()?;
    }
    if let Some(f) = map.get("name") {
        f.opt_string()?;
    }
    map.finish()?;
    Ok(MessageSpec::Haystack(field.json()))
}

impl MessageSpec {
    /// A message in the scenario's form: the simple form
    /// (`{role, text, tool_calls, meta, name}`) when it holds the message
    /// (at most one text part, first, then tool calls without provider
    /// data), else Haystack's `to_dict()` form.
    #[must_use]
    pub fn of_message(message: &crate::message::ChatMessage) -> MessageSpec {
        use crate::message::ContentPart;
        let parts = message.content();
        let (text, calls) = match parts.first() {
            Some(ContentPart::Text(text)) => (Some(text.clone()), &parts[1..]),
            _ => (None, parts),
        };
        let tool_calls: Option<Vec<ScriptedToolCall>> = calls
            .iter()
            .map(|part| match part {
                ContentPart::ToolCall(call) if call.extra.is_none() => Some(ScriptedToolCall {
                    tool: call.tool_name.clone(),
                    arguments: call.arguments.clone().into(),
                    id: call.id.clone(),
                }),
                _ => None,
            })
            .collect();
        match tool_calls {
            Some(tool_calls) => MessageSpec::Simple {
                role: message.role(),
                text,
                tool_calls,
                meta: message.meta().clone(),
                name: message.name().map(str::to_owned),
            },
            None => MessageSpec::Haystack(message.to_value()),
        }
    }
}
