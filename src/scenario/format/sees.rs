//! `sees:` on a `model` entry: what the request that reply answers must
//! show, so that a replay whose conversation changed fails instead of
//! answering a question nobody asked any more.

use serde_json::{Map, Value, json};

use super::error::ScenarioErrorKind;
use super::message::{MessageSpec, read_messages, roles};
use super::reader::{Field, Read};
use crate::expect::{LastMessageExpect, read_last_message};
use crate::message::ChatRole;

/// What the model must be sent for this reply to be the right answer. Every
/// key is optional; each one given must hold.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Sees {
    /// `messages`: the whole conversation sent, message by message.
    pub messages: Option<Vec<MessageSpec>>,
    /// `previous_messages`: the conversation starts with this many of the
    /// messages the previous reply's `sees` lists (with `new_messages`:
    /// the whole conversation, written once however long the run).
    pub previous_messages: Option<usize>,
    /// `new_messages`: the messages after those `previous_messages` keeps.
    pub new_messages: Option<Vec<MessageSpec>>,
    /// `message_count`: how many messages were sent.
    pub message_count: Option<i64>,
    /// `last_message`: the last message sent matches (as `expect.last_message`).
    pub last_message: Option<LastMessageExpect>,
    /// `contains`: some message's text, or string tool result, contains this.
    pub contains: Option<String>,
    /// `roles`: the sequence of the messages' roles.
    pub roles: Option<Vec<ChatRole>>,
    /// `tool_results`: every tool result sent, in order, as the model reads
    /// it (its text; `null` for a result that is not text).
    pub tool_results: Option<Vec<Option<String>>>,
    /// `tools`: the names of the tools offered, in order.
    pub tools: Option<Vec<String>>,
    /// Where the `sees` key is written (line and column), for failures; not
    /// part of what the scenario means, so equality ignores it.
    pub at: Option<(usize, usize)>,
}

impl PartialEq for Sees {
    fn eq(&self, other: &Self) -> bool {
        self.messages == other.messages
            && self.previous_messages == other.previous_messages
            && self.new_messages == other.new_messages
            && self.message_count == other.message_count
            && self.last_message == other.last_message
            && self.contains == other.contains
            && self.roles == other.roles
            && self.tool_results == other.tool_results
            && self.tools == other.tools
    }
}

pub(crate) fn read_sees(field: &Field<'_>) -> Read<Sees> {
    let mut map = field.map()?;
    let messages = map.get("messages");
    let previous = map.get("previous_messages");
    let new = map.get("new_messages");
    match (&messages, &previous, &new) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(field.error(ScenarioErrorKind::NeedsOneOf {
                keys: vec!["messages".into(), "previous_messages + new_messages".into()],
                exactly: true,
            }));
        }
        (None, Some(_), None) => {
            return Err(field.error(ScenarioErrorKind::MissingKey {
                key: "new_messages".into(),
            }));
        }
        (None, None, Some(_)) => {
            return Err(field.error(ScenarioErrorKind::MissingKey {
                key: "previous_messages".into(),
            }));
        }
        _ => {}
    }
    let previous_messages = match previous {
        Some(f) => Some(usize::try_from(f.i64()?).map_err(|_| {
            f.error(ScenarioErrorKind::WrongType {
                expected: "a count of messages (0 or more)",
                found: "a negative number",
            })
        })?),
        None => None,
    };
    let sees = Sees {
        messages: messages.map(|f| read_messages(&f)).transpose()?,
        previous_messages,
        new_messages: new.map(|f| read_messages(&f)).transpose()?,
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
        tool_results: map
            .get("tool_results")
            .map(|f| {
                f.seq()?
                    .iter()
                    .map(|r| {
                        if r.is_null() {
                            Ok(None)
                        } else {
                            r.string().map(Some)
                        }
                    })
                    .collect()
            })
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

    /// What a recording writes for a request whose first `previous`
    /// messages are those of the request before it: those counted, the
    /// rest listed, and the tools.
    #[must_use]
    pub fn after(previous: usize, new: Vec<MessageSpec>, tools: Vec<String>) -> Sees {
        Sees {
            previous_messages: Some(previous),
            new_messages: Some(new),
            tools: Some(tools),
            ..Sees::default()
        }
    }

    /// How many messages this `sees` lists, counting those it keeps of the
    /// previous reply's (`None` when it lists none).
    #[must_use]
    pub fn listed_count(&self) -> Option<usize> {
        match (&self.messages, self.previous_messages, &self.new_messages) {
            (Some(messages), _, _) => Some(messages.len()),
            (None, Some(previous), Some(new)) => Some(previous + new.len()),
            _ => None,
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
        if let Some(previous) = self.previous_messages {
            out.insert("previous_messages".into(), json!(previous));
        }
        if let Some(new) = &self.new_messages {
            out.insert(
                "new_messages".into(),
                new.iter().map(super::write::message).collect(),
            );
        }
        if let Some(count) = self.message_count {
            out.insert("message_count".into(), json!(count));
        }
        if let Some(last) = &self.last_message {
            out.insert(
                "last_message".into(),
                crate::expect::write_last_message(last),
            );
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
        if let Some(results) = &self.tool_results {
            out.insert("tool_results".into(), json!(results));
        }
        if let Some(tools) = &self.tools {
            out.insert("tools".into(), json!(tools));
        }
        Value::Object(out)
    }
}

/// Checks that each `previous_messages` has a previous reply whose `sees`
/// lists at least that many messages: `model[i - 1].sees` with `messages`
/// or `previous_messages` + `new_messages`.
pub(crate) fn check_chain(
    sees: &std::collections::BTreeMap<usize, Sees>,
    origin: &str,
) -> Result<(), super::ScenarioError> {
    for (&reply, seen) in sees {
        let Some(previous) = seen.previous_messages.filter(|&n| n > 0) else {
            continue;
        };
        let listed = reply
            .checked_sub(1)
            .and_then(|before| sees.get(&before))
            .and_then(Sees::listed_count);
        let problem = match listed {
            Some(listed) if listed >= previous => continue,
            Some(listed) => format!(
                "`model[{reply}].sees.previous_messages` keeps {previous} messages of the \
                 previous reply's `sees`, which lists {listed}; keep at most {listed}, or list \
                 the whole conversation in `messages`"
            ),
            None if reply == 0 => format!(
                "`model[0].sees.previous_messages` is {previous}, but the first reply has no \
                 previous one; write 0, or list the conversation in `messages`"
            ),
            None => format!(
                "`model[{reply}].sees.previous_messages` keeps {previous} messages of \
                 `model[{}].sees`, which lists none; list the whole conversation in \
                 `messages`, or give `model[{}]` a `sees` with `messages`",
                reply - 1,
                reply - 1
            ),
        };
        let error = super::ScenarioError::new(ScenarioErrorKind::Sees { message: problem }, origin)
            .with_path(format!("model[{reply}].sees.previous_messages"));
        return Err(match seen.at {
            Some((line, column)) => error.at(line, column),
            None => error,
        });
    }
    Ok(())
}
