//! `expect`: what the outcome must show. Every key is optional; each one given
//! must hold.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::always::{Always, read_always};
use super::event_pattern::{EventPattern, read_event_pattern};
use super::list_expect::{ListExpect, read_list};
use super::message::roles;
use super::pattern::{Slot, ValuePattern, read_pattern};
use super::reader::{Field, MapReader, Read};
use crate::message::ChatRole;
use crate::state::SchemaEntry;

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
    /// `printed`: texts that appear, in this order, in what the user's
    /// Python hooks and tools printed or logged (the Haystack engine
    /// captures it).
    pub printed: Option<Vec<String>>,
    /// `always`: what must hold on every variant `hookharness explore`
    /// runs.
    pub always: Option<Box<Always>>,
}

/// `expect.last_message: {role, text, text_contains, tool_calls, tool_result, meta}`.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LastMessageExpect {
    /// `role`.
    pub role: Option<ChatRole>,
    /// `text`, matched with the message's text (`null` when it has none);
    /// absent: not checked.
    pub text: Option<ValuePattern>,
    /// `text_contains`.
    pub text_contains: Option<String>,
    /// `tool_calls`: a plain list is the same length, each matching.
    pub tool_calls: Option<ListExpect<ToolCallExpect>>,
    /// `meta`, matched with the message's `meta` map.
    pub meta: Option<ValuePattern>,
    /// `tool_result`, matched with the text of the message's tool result
    /// (`null` when it holds none, or one that is not text).
    pub tool_result: Option<ValuePattern>,
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

impl Expect {
    /// The expectation keys given (not `unused_replies` or `always`), in
    /// the format's order.
    ///
    /// ```
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str(
    ///     "model: []\nexpect: {tools_run: [], exit_reason: text, unused_replies: allow}",
    ///     "keys.yaml",
    ///     Format::Yaml,
    /// )?;
    /// assert_eq!(scenario.expect.keys(), ["exit_reason", "tools_run"]);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn keys(&self) -> Vec<&'static str> {
        let given = [
            ("exit_reason", self.exit_reason.is_some()),
            ("step_count", self.step_count.is_some()),
            ("token_usage", self.token_usage.is_some()),
            ("tool_call_counts", self.tool_call_counts.is_some()),
            ("state", self.state.is_some()),
            ("last_message", self.last_message.is_some()),
            ("message_count", self.message_count.is_some()),
            ("hooks", self.hooks.is_some()),
            ("llm_calls", self.llm_calls.is_some()),
            ("tools_run", self.tools_run.is_some()),
            ("trace", self.trace.is_some()),
            ("error", self.error.is_some()),
            ("streamed", self.streamed.is_some()),
            ("printed", self.printed.is_some()),
        ];
        given
            .into_iter()
            .filter(|(_, given)| *given)
            .map(|(key, _)| key)
            .collect()
    }

    /// These expectations with only `keys` kept (and `unused_replies`
    /// allowed, `always` dropped): what a variant of the scenario is held to.
    #[must_use]
    pub fn only(&self, keys: &[impl AsRef<str>]) -> Expect {
        let keep = |key: &str| keys.iter().any(|k| k.as_ref() == key);
        Expect {
            exit_reason: self.exit_reason.clone().filter(|_| keep("exit_reason")),
            step_count: self.step_count.filter(|_| keep("step_count")),
            token_usage: self.token_usage.clone().filter(|_| keep("token_usage")),
            tool_call_counts: self
                .tool_call_counts
                .clone()
                .filter(|_| keep("tool_call_counts")),
            state: self.state.clone().filter(|_| keep("state")),
            last_message: self.last_message.clone().filter(|_| keep("last_message")),
            message_count: self.message_count.filter(|_| keep("message_count")),
            hooks: self.hooks.clone().filter(|_| keep("hooks")),
            llm_calls: self.llm_calls.filter(|_| keep("llm_calls")),
            tools_run: self.tools_run.clone().filter(|_| keep("tools_run")),
            trace: self.trace.clone().filter(|_| keep("trace")),
            error: self.error.clone().filter(|_| keep("error")),
            unused_replies: UnusedReplies::Allow,
            streamed: self.streamed.clone().filter(|_| keep("streamed")),
            printed: self.printed.clone().filter(|_| keep("printed")),
            always: None,
        }
    }
}

const UNUSED_REPLIES: &[(&str, UnusedReplies)] = &[
    ("fail", UnusedReplies::Fail),
    ("allow", UnusedReplies::Allow),
];

pub(crate) fn read_expect(
    field: &Field<'_>,
    schema: &IndexMap<String, SchemaEntry>,
) -> Read<Expect> {
    let mut map = field.map()?;
    let mut expect = read_expect_keys(&mut map, schema, true)?;
    expect.always = map
        .get("always")
        .map(|f| read_always(&f, schema).map(Box::new))
        .transpose()?;
    map.finish()?;
    Ok(expect)
}

/// The expectation keys of `map`; `error` and `unused_replies` only when
/// `outcome_keys` (not in `always`). Leaves `finish` to the caller.
pub(crate) fn read_expect_keys(
    map: &mut MapReader<'_>,
    schema: &IndexMap<String, SchemaEntry>,
    outcome_keys: bool,
) -> Read<Expect> {
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
                .map_or(Slot::Any, |entry| Slot::State(entry.ty.clone()));
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
    expect.printed = map.get("printed").map(|f| f.strings()).transpose()?;
    if outcome_keys {
        expect.error = map.get("error").map(|f| f.string()).transpose()?;
        if let Some(f) = map.get("unused_replies") {
            expect.unused_replies = f.variant(UNUSED_REPLIES)?;
        }
    }
    if let Some(f) = map.get("streamed") {
        expect.streamed = Some(f.seq()?.iter().map(Field::json).collect());
    }
    Ok(expect)
}

pub(crate) fn read_last_message(field: &Field<'_>) -> Read<LastMessageExpect> {
    let mut map = field.map()?;
    let expect = LastMessageExpect {
        role: map.get("role").map(|f| f.variant(&roles())).transpose()?,
        text: map.get("text").map(|f| read_text(&f)).transpose()?,
        text_contains: map.get("text_contains").map(|f| f.string()).transpose()?,
        tool_calls: map
            .get("tool_calls")
            .map(|f| read_list(&f, read_tool_call))
            .transpose()?,
        meta: map
            .get("meta")
            .map(|f| read_pattern(&f, Slot::Any))
            .transpose()?,
        tool_result: map.get("tool_result").map(|f| read_text(&f)).transpose()?,
    };
    map.finish()?;
    Ok(expect)
}

/// A text to match (`last_message.text`, `last_message.tool_result`): a
/// string, null, or a `contains`, `absent` or `equals` matcher.
fn read_text(f: &Field<'_>) -> Read<ValuePattern> {
    let pattern = read_pattern(f, Slot::Text)?;
    match &pattern {
        ValuePattern::Equals(Value::String(_) | Value::Null)
        | ValuePattern::Absent(_)
        | ValuePattern::Contains(_) => Ok(pattern),
        _ => Err(f.wrong_type("a string, null, or a matcher (`contains`, `absent`, `equals`)")),
    }
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
