//! Messages written in a scenario: the simple form `{role, text, tool_calls,
//! meta, name}` or Haystack's `ChatMessage.to_dict()` form (told apart by its
//! `content` key), accepted wherever a message is read.

use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::model::{ScriptedToolCall, read_tool_call};
use super::reader::{Field, Read};

/// A chat message written in a scenario.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MessageSpec {
    /// `{role, text, tool_calls, meta, name}`: content is the text (when
    /// given) followed by the tool calls, for any role.
    Simple {
        /// `role`.
        role: Role,
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

/// A chat role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// `user`.
    User,
    /// `system`.
    System,
    /// `assistant`.
    Assistant,
    /// `tool`.
    Tool,
}

impl Role {
    /// The role as Haystack writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::System => "system",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// The role Haystack writes as `text`, if any.
    #[must_use]
    pub fn parse(text: &str) -> Option<Role> {
        ROLES
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, role)| *role)
    }
}

pub(crate) const ROLES: &[(&str, Role)] = &[
    ("user", Role::User),
    ("system", Role::System),
    ("assistant", Role::Assistant),
    ("tool", Role::Tool),
];

/// The part tags of `ChatMessage.to_dict()` content.
const PART_TAGS: &[&str] = &[
    "text",
    "tool_call",
    "tool_call_result",
    "image",
    "file",
    "reasoning",
];

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
    let role = map.required("role")?.variant(ROLES)?;
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
    map.required("role")?.variant(ROLES)?;
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
                    arguments: call.arguments.clone(),
                    id: call.id.clone(),
                }),
                _ => None,
            })
            .collect();
        let role = Role::parse(message.role().as_str());
        match (tool_calls, role) {
            (Some(tool_calls), Some(role)) => MessageSpec::Simple {
                role,
                text,
                tool_calls,
                meta: message.meta().clone(),
                name: message.name().map(str::to_owned),
            },
            _ => MessageSpec::Haystack(message.to_value()),
        }
    }
}
