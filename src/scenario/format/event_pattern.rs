//! `expect.trace`: partial matchers over the run's events, such as
//! `{kind: hook, point: on_exit, name: require_search}`.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::pattern::{Slot, ValuePattern, read_pattern};
use super::reader::{Field, Read};

/// The kinds of event `expect.trace` matches, one per loop event worth
/// naming in a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventKind {
    /// A hook was invoked (before its `when` was evaluated).
    Hook,
    /// A chat-generator call, also one that failed.
    Llm,
    /// A tool call that executed a scripted tool.
    Tool,
    /// An exit attempt, after the `on_exit` hooks.
    Exit,
    /// `stop_run` stopped the loop.
    Stop,
    /// The loop ran `max_agent_steps` steps.
    MaxSteps,
}

pub(crate) const KINDS: &[(&str, EventKind)] = &[
    ("hook", EventKind::Hook),
    ("llm", EventKind::Llm),
    ("tool", EventKind::Tool),
    ("exit", EventKind::Exit),
    ("stop", EventKind::Stop),
    ("max_steps", EventKind::MaxSteps),
];

impl EventKind {
    /// The name `kind:` gives it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, kind)| *kind == self)
            .map_or("", |(name, _)| name)
    }

    /// The fields a matcher of this kind may name, in the order an event's
    /// view lists them.
    #[must_use]
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            EventKind::Hook => &["point", "name", "index", "step", "error"],
            EventKind::Llm => &["step", "messages_in", "error"],
            EventKind::Tool => &["tool", "id", "arguments", "step", "error"],
            EventKind::Exit => &["reason", "continue", "step"],
            EventKind::Stop => &["reason", "step"],
            EventKind::MaxSteps => &["step"],
        }
    }
}

/// One item of `expect.trace`: an event kind and the fields that matter.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct EventPattern {
    /// `kind`.
    pub kind: EventKind,
    /// The other keys given, each a value pattern, in file order.
    pub fields: IndexMap<String, ValuePattern>,
}

pub(crate) fn read_event_pattern(field: &Field<'_>) -> Read<EventPattern> {
    let mut map = field.map().map_err(|_| {
        field.wrong_type("an event matcher `{kind: hook|llm|tool|exit|stop|max_steps, ...}`")
    })?;
    let kind = map.required("kind")?.variant(KINDS)?;
    let mut given = Vec::new();
    for name in kind.fields() {
        if let Some(value) = map.get(name) {
            given.push((*name, value));
        }
    }
    // The wire trace names a hook `hook` and a tool event's tool `tool`.
    let hints: &[(&str, &str)] = match kind {
        EventKind::Hook => &[("hook", "name"), ("tool", "name")],
        EventKind::Tool => &[("name", "tool")],
        _ => &[],
    };
    map.finish_hinting(hints)?;
    // File order, whatever the order of `fields()`.
    given.sort_by_key(|(_, f)| (f.node.pos.line, f.node.pos.column));
    let mut fields = IndexMap::with_capacity(given.len());
    for (name, value) in given {
        fields.insert(name.to_owned(), read_pattern(&value, Slot::Any)?);
    }
    Ok(EventPattern { kind, fields })
}

impl EventPattern {
    /// The matcher as the scenario format writes it.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut out = Map::new();
        out.insert("kind".into(), self.kind.as_str().into());
        for (name, pattern) in &self.fields {
            out.insert(name.clone(), pattern.to_value());
        }
        Value::Object(out)
    }
}
