//! `expect`: what the outcome must show. Every key is optional; each one given
//! must hold.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::agent::SchemaEntrySpec;
use super::event_pattern::{EventPattern, read_event_pattern};
use super::list_expect::{ListExpect, read_list};
use super::message::{ROLES, Role};
use super::pattern::{Slot, ValuePattern, read_pattern};
use super::reader::{Field, Read};

/// The expectations of a scenario (`expect:`).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Expect {
    /// `exit_reason`: equals the outcome's.
    pub exit_reason: Option<String>,
    /// `step_count`: equals.
    pub step_count: Option<i64>,
    /// `token_usage`: matches (a plain map: equals).
    pub token_usage: Option<ValuePattern>,
    /// `tool_call_counts`: equals.
    pub tool_call_counts: Option<IndexMap<String, i64>>,
    /// `state`: each listed public state key matches (a plain value: equals).
    pub state: Option<IndexMap<String, ValuePattern>>,
    /// `last_message`: matches every given field.
    pub last_message: Option<LastMessageExpect>,
    /// `message_count`: `len(messages)` equals.
    pub message_count: Option<i64>,
    /// `hooks`: the hooks that ran, each `POINT` or `POINT:NAME`; a plain
    /// list is the exact sequence.
    pub hooks: Option<ListExpect<String>>,
    /// `llm_calls`: the number of chat-generator calls equals.
    pub llm_calls: Option<i64>,
    /// `tools_run`: the executed tool names; a plain list is the exact
    /// sequence.
    pub tools_run: Option<ListExpect<String>>,
    /// `trace`: the run's events, matched by partial event matchers; a
    /// plain list is the exact sequence of events of every kind.
    pub trace: Option<ListExpect<EventPattern>>,
    /// `error`: the run fails with an error whose text contains this.
    pub error: Option<String>,
    /// `unused_replies` (default `fail`).
    pub unused_replies: UnusedReplies,
    /// `streamed`: what a streaming run (`run.stream`) received, in order: a
    /// string per text chunk, `{tool_result: TEXT}` per tool result and
    /// `{finish_reason: R}` for a chunk that ends a stream.
    pub streamed: Option<Vec<Value>>,
}

/// `expect.last_message: {role, text, text_contains, tool_calls, meta}`.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LastMessageExpect {
    /// `role`.
    pub role: Option<Role>,
    /// `text`, matched with the message's text (`null` when it has none);
    /// absent: not checked.
    pub text: Option<ValuePattern>,
    /// `text_contains`.
    pub text_contains: Option<String>,
    /// `tool_calls`: a plain list is the same length, each matching.
    pub tool_calls: Option<ListExpect<ToolCallExpect>>,
    /// `meta`, matched with the message's `meta` map.
    pub meta: Option<ValuePattern>,
}

/// One expected tool call: a name, or `{tool, arguments?, id?}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCallExpect {
    /// `tool`.
    pub tool: String,
    /// `arguments`; `None`: not checked.
    pub arguments: Option<Map<String, Value>>,
    /// `id`; `None`: not checked.
    pub id: Option<Option<String>>,
}

/// What to do when scripted `model` replies are left unused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnusedReplies {
    /// `fail` (default): a successful run that leaves replies fails the scenario.
    #[default]
    Fail,
    /// `allow`.
    Allow,
}

const UNUSED_REPLIES: &[(&str, UnusedReplies)] = &[
    ("fail", UnusedReplies::Fail),
    ("allow", UnusedReplies::Allow),
];

pub(crate) fn read_expect(
    field: &Field<'_>,
    schema: &IndexMap<String, SchemaEntrySpec>,
) -> Read<Expect> {
    let mut map = field.map()?;
    let mut expect = Expect {
        exit_reason: map.get("exit_reason").map(|f| f.string()).transpose()?,
        step_count: map.get("step_count").map(|f| f.i64()).transpose()?,
        token_usage: map
            .get("token_usage")
            .map(|f| {
                f.map()?;
                read_pattern(&f, Slot::Any)
            })
            .transpose()?,
        ..Expect::default()
    };
    if let Some(f) = map.get("tool_call_counts") {
        let counts = f
            .entries()?
            .into_iter()
            .map(|(tool, count)| Ok((tool.to_owned(), count.i64()?)));
        expect.tool_call_counts = Some(counts.collect::<Read<_>>()?);
    }
    if let Some(f) = map.get("state") {
        let mut state = IndexMap::new();
        for (key, value) in f.entries()? {
            let slot = schema
                .get(key)
                .map_or(Slot::Any, |entry| Slot::State(entry.ty));
            state.insert(key.to_owned(), read_pattern(&value, slot)?);
        }
        expect.state = Some(state);
    }
    expect.last_message = map
        .get("last_message")
        .map(|f| read_last_message(&f))
        .transpose()?;
    expect.message_count = map.get("message_count").map(|f| f.i64()).transpose()?;
    expect.hooks = map
        .get("hooks")
        .map(|f| read_list(&f, |item| item.string()))
        .transpose()?;
    expect.llm_calls = map.get("llm_calls").map(|f| f.i64()).transpose()?;
    expect.tools_run = map
        .get("tools_run")
        .map(|f| read_list(&f, |item| item.string()))
        .transpose()?;
    expect.trace = map
        .get("trace")
        .map(|f| read_list(&f, read_event_pattern))
        .transpose()?;
    expect.error = map.get("error").map(|f| f.string()).transpose()?;
    if let Some(f) = map.get("unused_replies") {
        expect.unused_replies = f.variant(UNUSED_REPLIES)?;
    }
    if let Some(f) = map.get("streamed") {
        expect.streamed = Some(f.seq()?.iter().map(Field::json).collect());
    }
    map.finish()?;
    Ok(expect)
}

fn read_last_message(field: &Field<'_>) -> Read<LastMessageExpect> {
    let mut map = field.map()?;
    let expect = LastMessageExpect {
        role: map.get("role").map(|f| f.variant(ROLES)).transpose()?,
        text: map
            .get("text")
            .map(|f| {
                let pattern = read_pattern(&f, Slot::Text)?;
                match &pattern {
                    ValuePattern::Equals(Value::String(_) | Value::Null)
                    | ValuePattern::Absent(_)
                    | ValuePattern::Contains(_) => Ok(pattern),
                    _ => Err(f.wrong_type(
                        "a string, null, or a matcher (`contains`, `absent`, `equals`)",
                    )),
                }
            })
            .transpose()?,
        text_contains: map.get("text_contains").map(|f| f.string()).transpose()?,
        tool_calls: map
            .get("tool_calls")
            .map(|f| read_list(&f, read_tool_call))
            .transpose()?,
        meta: map
            .get("meta")
            .map(|f| read_pattern(&f, Slot::Any))
            .transpose()?,
    };
    map.finish()?;
    Ok(expect)
}

fn read_tool_call(field: &Field<'_>) -> Read<ToolCallExpect> {
    if let Some(tool) = field.as_str() {
        return Ok(ToolCallExpect {
            tool: tool.to_owned(),
            arguments: None,
            id: None,
        });
    }
    let mut map = field
        .map()
        .map_err(|_| field.wrong_type("a tool name or `{tool, arguments, id}`"))?;
    let call = ToolCallExpect {
        tool: map.required("tool")?.string()?,
        arguments: map.get("arguments").map(|f| f.json_map()).transpose()?,
        id: map
            .get("id")
            .map(|f| {
                if f.is_null() {
                    Ok(None)
                } else {
                    f.string().map(Some)
                }
            })
            .transpose()?,
    };
    map.finish()?;
    Ok(call)
}
