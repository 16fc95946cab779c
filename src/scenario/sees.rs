//! `sees:` on a `model` entry: what the request that reply answers must
//! show, so that a replay whose conversation changed fails instead of
//! answering a question nobody asked any more.

use serde_json::{Map, Value, json};

use super::expect::{LastMessageExpect, read_last_message};
use super::message::{MessageSpec, read_messages, roles};
use super::reader::{Field, Read};
use crate::message::ChatRole;

/// What the model must be sent for this reply to be the right answer. Every
/// key is optional; each one given must hold.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Sees {
    /// `messages`: the whole conversation sent, message by message.
    pub messages: Option<Vec<MessageSpec>>,
    /// `message_count`: how many messages were sent.
    pub message_count: Option<i64>,
    /// `last_message`: the last message sent matches (as `expect.last_message`).
    pub last_message: Option<LastMessageExpect>,
    /// `contains`: some message's text, or string tool result, contains this.
    pub contains: Option<String>,
    /// `roles`: the sequence of the messages' roles.
    pub roles: Option<Vec<ChatRole>>,
    /// `tools`: the names of the tools offered, in order.
    pub tools: Option<Vec<String>>,
    /// Where the `sees` key is written (line and column), for failures; not
    /// part of what the scenario means, so equality ignores it.
    pub at: Option<(usize, usize)>,
}

impl PartialEq for Sees {
    fn eq(&self, other: &Self) -> bool {
        self.messages == other.messages
            && self.message_count == other.message_count
            && self.last_message == other.last_message
            && self.contains == other.contains
            && self.roles == other.roles
            && self.tools == other.tools
    }
}

pub(crate) fn read_sees(field: &Field<'_>) -> Read<Sees> {
    let mut map = field.map()?;
    let sees = Sees {
        messages: map.get("messages").map(|f| read_messages(&f)).transpose()?,
        message_count: map.get("message_count").map(|f| f.i64()).transpose()?,
        last_message: map
            .get("last_message")
            .map(|f| read_last_message(&f))
            .transpose()?,
        contains: map.get("contains").map(|f| f.string()).transpose()?,
        roles: map
            .get("roles")
            .map(|f| f.seq()?.iter().map(|r| r.variant(&roles())).collect())
            .transpose()?,
        tools: map
            .get("tools")
            .map(|f| f.seq()?.iter().map(Field::string).collect())
            .transpose()?,
        at: None,
    };
    map.finish()?;
    Ok(sees)
}

impl Sees {
    /// What a recording writes: the whole conversation and the tools.
    #[must_use]
    pub fn request(messages: Vec<MessageSpec>, tools: Vec<String>) -> Sees {
        Sees {
            messages: Some(messages),
            tools: Some(tools),
            ..Sees::default()
        }
    }

    /// `sees` as the scenario format writes it.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut out = Map::new();
        if let Some(messages) = &self.messages {
            out.insert(
                "messages".into(),
                messages.iter().map(super::write::message).collect(),
            );
        }
        if let Some(count) = self.message_count {
            out.insert("message_count".into(), json!(count));
        }
        if let Some(last) = &self.last_message {
            out.insert("last_message".into(), super::write::last_message(last));
        }
        if let Some(text) = &self.contains {
            out.insert("contains".into(), json!(text));
        }
        if let Some(roles) = &self.roles {
            out.insert(
                "roles".into(),
                roles.iter().map(|r| json!(r.as_str())).collect(),
            );
        }
        if let Some(tools) = &self.tools {
            out.insert("tools".into(), json!(tools));
        }
        Value::Object(out)
    }
}
