//! Writing a scenario back out: `Scenario` -> JSON that the loader reads
//! as the same `Scenario`.
//!
//! Keys come in the format's order, and every map the file held (tool
//! arguments, state, usage, parameters) keeps its order. Values equal to the
//! format's defaults are left out, except `version` and `name`, which are
//! always written (a new file name must not rename the scenario).
//!
//! [`Scenario::to_yaml`] writes the same JSON for a `.yaml` file: YAML 1.2
//! reads JSON, once the characters YAML does not print are escaped.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::action::{Action, ResultRewrite, StateValue, ToolSelection};
use super::hook::HookEntry;
use super::message::MessageSpec;
use super::run::RunSpec;
use super::spec::Scenario;
use super::tool::ToolScript;
use super::when::{StepCountCondition, When};
use crate::scripted::{ModelReply, ScriptedToolCall};

impl Scenario {
    /// The scenario as a JSON value in the scenario format.
    ///
    /// What a file cannot name is written so that the loader rejects it
    /// rather than reads something else: a custom
    /// [`Handler`](crate::state::Handler) by its name, an `Optional` type as
    /// `optional[T]`.
    ///
    /// ```
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("model:\n  - text: hi\n", "hello.yaml", Format::Yaml)?;
    /// let json = scenario.to_json();
    /// assert_eq!(json, "{\n  \"version\": 1,\n  \"name\": \"hello\",\n  \"model\": [\n    {\n      \"text\": \"hi\"\n    }\n  ]\n}\n");
    /// let again = Scenario::from_str(&json, "hello.json", Format::Json)?;
    /// assert_eq!(again, scenario);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut out = Map::new();
        out.insert("version".into(), json!(self.version));
        out.insert("name".into(), json!(self.name));
        if let Some(description) = &self.description {
            out.insert("description".into(), json!(description));
        }
        let agent = self.agent.to_map();
        if !agent.is_empty() {
            out.insert("agent".into(), Value::Object(agent));
        }
        if !self.tools.is_empty() {
            out.insert(
                "tools".into(),
                self.tools.iter().map(ToolScript::to_value).collect(),
            );
        }
        if !self.shared_hooks.is_empty() {
            let shared = self
                .shared_hooks
                .iter()
                .map(|(name, entry)| (name.clone(), hook(entry)))
                .collect();
            out.insert("shared_hooks".into(), Value::Object(shared));
        }
        if !self.hooks.is_empty() {
            let hooks = self
                .hooks
                .iter()
                .map(|(point, entries)| (point.clone(), entries.iter().map(hook).collect()))
                .collect();
            out.insert("hooks".into(), Value::Object(hooks));
        }
        let model = (0..self.model.len()).map(|i| self.written_entry(i));
        out.insert("model".into(), model.collect());
        let run = run(&self.run);
        if !run.is_empty() {
            out.insert("run".into(), Value::Object(run));
        }
        let expect = self.expect.to_map();
        if !expect.is_empty() {
            out.insert("expect".into(), Value::Object(expect));
        }
        if !self.python.python_path.is_empty() {
            out.insert("python_path".into(), json!(self.python.python_path));
        }
        if let Some(clock) = &self.python.clock {
            out.insert("clock".into(), json!(clock));
        }
        if !self.python.models.is_empty() {
            let models = self
                .python
                .models
                .iter()
                .map(|(name, script)| {
                    let mut entry = Map::new();
                    entry.insert("replies".into(), script.replies.iter().map(reply).collect());
                    if let Some(replaces) = &script.replaces {
                        entry.insert("replaces".into(), json!(replaces));
                    }
                    (name.clone(), Value::Object(entry))
                })
                .collect();
            out.insert("models".into(), Value::Object(models));
        }
        Value::Object(out)
    }

    /// The scenario as pretty-printed JSON text (two-space indent, UTF-8,
    /// a final newline), ready for a `.json` file.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut text =
            serde_json::to_string_pretty(&self.to_value()).expect("a JSON value always serializes");
        text.push('\n');
        text
    }

    /// `model[i]` as written, with its `sees`.
    fn written_entry(&self, i: usize) -> Value {
        let mut entry = reply(&self.model[i]);
        if let (Some(sees), Value::Object(map)) = (self.sees.get(&i), &mut entry) {
            map.insert("sees".into(), sees.to_value());
        }
        entry
    }

    /// The first `model` entry (its `sees` included) that, written, nests
    /// lists and maps deeper than the loader reads ([`MAX_DEPTH`]), with
    /// the depth it reaches in the file: such a file would not load back.
    ///
    /// [`MAX_DEPTH`]: super::MAX_DEPTH
    pub(crate) fn first_too_deep_entry(&self) -> Option<(usize, usize)> {
        (0..self.model.len()).find_map(|i| {
            // The root map and the `model` list hold the entry.
            let depth = 2 + nesting(&self.written_entry(i));
            (depth > super::MAX_DEPTH).then_some((i, depth))
        })
    }

    /// The scenario as the text of a `.yaml` scenario file: the JSON of
    /// [`to_json`](Scenario::to_json), with every character YAML does not
    /// take as printable escaped (C0 and C1 controls, DEL, U+2028/U+2029,
    /// BOM, non-characters), so the YAML reader sees exactly the JSON
    /// strings. The loader reads it as `.yaml` and as `.json` (unless a key
    /// is past YAML's 1,024 characters of an implicit key: it is written
    /// after YAML's `? `, which JSON does not read), and loading it gives
    /// this scenario back (with `file` set to where it was loaded from).
    ///
    /// ```
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str(
    ///     "name: nudge\nhooks:\n  on_exit:\n    - do: [{continue_run: true}]\n      when: {times: 1}\nmodel:\n  - text: a\n  - text: b\n",
    ///     "nudge.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let text = scenario.to_yaml();
    /// assert_eq!(Scenario::from_str(&text, "again.yaml", Format::Yaml)?, scenario);
    /// assert_eq!(Scenario::from_str(&text, "again.json", Format::Json)?, scenario);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        write_value(&self.to_value(), 0, &mut out);
        out.push('\n');
        out
    }
}

/// One `model` entry.
pub(crate) fn reply(entry: &ModelReply) -> Value {
    match entry {
        ModelReply::Error(message) => json!({"error": message}),
        ModelReply::Reply {
            text,
            tool_calls,
            usage,
            finish_reason,
            chunks,
        } => {
            let mut out = Map::new();
            match (chunks, text) {
                (Some(chunks), _) => {
                    out.insert("chunks".into(), json!(chunks));
                }
                (None, Some(text)) => {
                    out.insert("text".into(), json!(text));
                }
                (None, None) => {}
            }
            if !tool_calls.is_empty() {
                out.insert(
                    "tool_calls".into(),
                    tool_calls.iter().map(tool_call).collect(),
                );
            }
            if let Some(usage) = usage {
                out.insert("usage".into(), Value::Object(usage.clone()));
            }
            if let Some(reason) = finish_reason {
                out.insert("finish_reason".into(), json!(reason.as_str()));
            }
            Value::Object(out)
        }
    }
}

fn tool_call(call: &ScriptedToolCall) -> Value {
    let mut out = Map::new();
    out.insert("tool".into(), json!(call.tool));
    out.insert("arguments".into(), Value::Object(call.arguments.to_map()));
    if let Some(id) = &call.id {
        out.insert("id".into(), json!(id));
    }
    Value::Object(out)
}

fn hook(entry: &HookEntry) -> Value {
    let mut out = Map::new();
    match entry {
        HookEntry::Shared(name) => {
            out.insert("shared".into(), json!(name));
        }
        HookEntry::Custom(name) => {
            out.insert("custom".into(), json!(name));
        }
        HookEntry::Python { name, call } => {
            if let Some(name) = name {
                out.insert("name".into(), json!(name));
            }
            out.extend(call.to_map());
        }
        HookEntry::ReadyMade { name, kind, params } => {
            if let Some(name) = name {
                out.insert("name".into(), json!(name));
            }
            out.insert(kind.as_str().into(), params.clone());
        }
        HookEntry::Declarative {
            name,
            when,
            actions,
            allowed_hook_points,
        } => {
            if let Some(name) = name {
                out.insert("name".into(), json!(name));
            }
            let when = condition(when);
            if !when.is_empty() {
                out.insert("when".into(), Value::Object(when));
            }
            if !actions.is_empty() {
                out.insert("do".into(), actions.iter().map(action).collect());
            }
            if let Some(points) = allowed_hook_points {
                out.insert("allowed_hook_points".into(), json!(points));
            }
        }
    }
    Value::Object(out)
}

fn condition(when: &When) -> Map<String, Value> {
    let mut out = Map::new();
    match when.step_count {
        Some(StepCountCondition::Eq(n)) => {
            out.insert("step_count".into(), json!(n));
        }
        Some(StepCountCondition::Range { gte, lt }) => {
            let mut range = Map::new();
            if let Some(gte) = gte {
                range.insert("gte".into(), json!(gte));
            }
            if let Some(lt) = lt {
                range.insert("lt".into(), json!(lt));
            }
            out.insert("step_count".into(), Value::Object(range));
        }
        None => {}
    }
    if let Some(reason) = &when.exit_reason {
        out.insert("exit_reason".into(), reason.clone());
    }
    if !when.tool_call_counts.is_empty() {
        out.insert("tool_call_counts".into(), counts(&when.tool_call_counts));
    }
    if let Some(last) = &when.last_message {
        let mut map = Map::new();
        if let Some(role) = last.role {
            map.insert("role".into(), json!(role.as_str()));
        }
        if let Some(has) = last.has_tool_calls {
            map.insert("has_tool_calls".into(), json!(has));
        }
        if let Some(text) = &last.text_contains {
            map.insert("text_contains".into(), json!(text));
        }
        out.insert("last_message".into(), Value::Object(map));
    }
    if !when.state.is_empty() {
        out.insert("state".into(), Value::Object(when.state.clone()));
    }
    if !when.hook_context.is_empty() {
        out.insert(
            "hook_context".into(),
            Value::Object(when.hook_context.clone()),
        );
    }
    if let Some(times) = when.times {
        out.insert("times".into(), json!(times));
    }
    out
}

fn counts(counts: &IndexMap<String, i64>) -> Value {
    Value::Object(counts.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

fn action(action: &Action) -> Value {
    let (name, value) = match action {
        Action::AppendMessages(messages) => ("append_messages", self::messages(messages)),
        Action::PrependMessages(messages) => ("prepend_messages", self::messages(messages)),
        Action::ReplaceMessages(messages) => ("replace_messages", self::messages(messages)),
        Action::Set(values) => ("set", state_values(values)),
        Action::Replace(values) => ("replace", state_values(values)),
        Action::ContinueRun(flag) => ("continue_run", json!(flag)),
        Action::StopRun(reason) => ("stop_run", json!(reason)),
        Action::DropToolCalls(ToolSelection::All) => ("drop_tool_calls", json!("all")),
        Action::DropToolCalls(ToolSelection::Named(tools)) => ("drop_tool_calls", json!(tools)),
        Action::SetToolArguments { tool, arguments } => (
            "set_tool_arguments",
            json!({"tool": tool, "arguments": arguments}),
        ),
        Action::RewriteToolResults(ResultRewrite::Truncate(n)) => {
            ("rewrite_tool_results", json!({"truncate": n}))
        }
        Action::RewriteToolResults(ResultRewrite::Replace(text)) => {
            ("rewrite_tool_results", json!({"replace": text}))
        }
        Action::Fail(message) => ("fail", json!(message)),
    };
    let mut out = Map::new();
    out.insert(name.into(), value);
    Value::Object(out)
}

fn state_values(values: &IndexMap<String, StateValue>) -> Value {
    let map = values
        .iter()
        .map(|(key, value)| {
            let value = match value {
                StateValue::Messages(messages) => self::messages(messages),
                StateValue::Value(value) => value.clone(),
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(map)
}

fn messages(specs: &[MessageSpec]) -> Value {
    specs.iter().map(message).collect()
}

/// How deep a recording nests the reply `entry` (answering LLM call
/// `call`) where it writes it: the entry itself, under the root map and
/// `model`; the message it becomes, and each tool message answering one of
/// its calls, in a later reply's `sees.new_messages` (under the root map,
/// `model`, the entry, `sees` and the list).
pub(crate) fn recorded_depth(entry: &ModelReply, call: usize) -> usize {
    let own = 2 + nesting(&reply(entry));
    let Ok(message) = entry.to_message(call) else {
        return own;
    };
    let in_sees =
        |m: &crate::message::ChatMessage| 5 + nesting(&self::message(&MessageSpec::of_message(m)));
    let answers = message.tool_calls().map(|call| {
        let answer = crate::message::ChatMessage::from_tool("", call.clone(), false);
        in_sees(&answer)
    });
    answers.fold(own.max(in_sees(&message)), usize::max)
}

/// How deep a reply of the named script `models.NAME` nests where a
/// recording writes it (the root map, `models`, `NAME`, `replies` hold it;
/// named replies have no `sees`).
pub(crate) fn named_recorded_depth(entry: &ModelReply) -> usize {
    4 + nesting(&reply(entry))
}

/// How deep `value` nests lists and maps (a scalar: 0, `[]`: 1, `[[]]`:
/// 2), counted without recursion.
pub(crate) fn nesting(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1_usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(depth);
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    deepest
}

pub(crate) fn message(spec: &MessageSpec) -> Value {
    match spec {
        MessageSpec::Haystack(value) => value.clone(),
        MessageSpec::Simple {
            role,
            text,
            tool_calls,
            meta,
            name,
        } => {
            let mut out = Map::new();
            out.insert("role".into(), json!(role.as_str()));
            if let Some(text) = text {
                out.insert("text".into(), json!(text));
            }
            if !tool_calls.is_empty() {
                out.insert(
                    "tool_calls".into(),
                    tool_calls.iter().map(tool_call).collect(),
                );
            }
            if !meta.is_empty() {
                out.insert("meta".into(), Value::Object(meta.clone()));
            }
            if let Some(name) = name {
                out.insert("name".into(), json!(name));
            }
            Value::Object(out)
        }
    }
}

fn run(spec: &RunSpec) -> Map<String, Value> {
    let mut out = Map::new();
    if !spec.messages.is_empty() {
        out.insert("messages".into(), messages(&spec.messages));
    }
    if !spec.hook_context.is_empty() {
        out.insert(
            "hook_context".into(),
            Value::Object(spec.hook_context.clone()),
        );
    }
    if !spec.state.is_empty() {
        out.insert("state".into(), Value::Object(spec.state.clone()));
    }
    if !spec.variables.is_empty() {
        out.insert("variables".into(), Value::Object(spec.variables.clone()));
    }
    if spec.stream {
        out.insert("stream".into(), json!(true));
    }
    if let Some(kwargs) = &spec.generation_kwargs {
        out.insert("generation_kwargs".into(), Value::Object(kwargs.clone()));
    }
    if let Some(tools) = &spec.tools {
        out.insert("tools".into(), json!(tools));
    }
    if spec.is_async {
        out.insert("async".into(), json!(true));
    }
    out
}

/// Indented JSON; empty lists and maps stay on one line.
pub(crate) fn write_value(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                push_indent(indent + 1, out);
                write_value(item, indent + 1, out);
            }
            out.push('\n');
            push_indent(indent, out);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                push_indent(indent + 1, out);
                write_key(key, out);
                write_value(item, indent + 1, out);
            }
            out.push('\n');
            push_indent(indent, out);
            out.push('}');
        }
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        Value::String(text) => write_string(text, out),
        Value::Null | Value::Bool(_) | Value::Number(_) => out.push_str(&value.to_string()),
    }
}

/// JSON on one line (`", "` and `": "` between items), escaped as
/// [`write_value`] escapes it, so YAML reads it as the same value.
pub(crate) fn write_compact(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_compact(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_key(key, out);
                write_compact(item, out);
            }
            out.push('}');
        }
        Value::String(text) => write_string(text, out),
        Value::Null | Value::Bool(_) | Value::Number(_) => out.push_str(&value.to_string()),
    }
}

fn push_indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// The longest key YAML reads without its explicit-key indicator: an
/// implicit key holds at most 1024 characters (YAML 1.2, 7.4.2), quotes
/// and escapes included.
const IMPLICIT_KEY_CHARS: usize = 1024;

/// Whether a key, as written, is too long for YAML to read it without
/// `? ` before it.
pub(crate) fn needs_explicit_key(written: &str) -> bool {
    written.len() > IMPLICIT_KEY_CHARS && written.chars().count() > IMPLICIT_KEY_CHARS
}

/// A map's key and the `: ` after it; a key too long to be implicit is
/// written after YAML's `? ` (a file with such a key is YAML, not JSON).
fn write_key(key: &str, out: &mut String) {
    let start = out.len();
    write_string(key, out);
    if needs_explicit_key(&out[start..]) {
        out.insert_str(start, "? ");
        out.push_str(" : ");
    } else {
        out.push_str(": ");
    }
}

/// A JSON string that YAML reads as the same string.
fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Characters outside YAML's printable set, and the ones some readers
/// take as line breaks.
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{feff}'
            | '\u{fffe}'
            | '\u{ffff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    fn round_trip(text: &str) {
        let scenario = Scenario::from_str(text, "case.yaml", Format::Yaml).unwrap();
        let written = scenario.to_yaml();
        let yaml = Scenario::from_str(&written, "case.yaml", Format::Yaml).unwrap();
        let json = Scenario::from_str(&written, "case.json", Format::Json).unwrap();
        assert_eq!(yaml, scenario, "{written}");
        assert_eq!(json, scenario, "{written}");
    }

    #[test]
    fn every_hook_kind_and_action_round_trips() {
        round_trip(
            r#"
name: all
description: every key
agent:
  max_agent_steps: 3
  exit_conditions: [text, search]
  system_prompt: "Be brief."
  state_schema: {notes: {type: list}, count: {type: int, handler: replace_values}}
  raise_on_tool_invocation_failure: true
  tool_concurrency_limit: 2
tools:
  - name: search
    description: Search
    results: ["a", {json: {hits: 3}}, {error: boom}]
    repeat_last: true
shared_hooks:
  audit: {name: audit_hook, when: {times: 2}}
hooks:
  before_run:
    - shared: audit
    - custom: mine
  before_llm:
    - name: b
      when:
        step_count: {gte: 1, lt: 3}
        exit_reason: null
        tool_call_counts: {search: 0}
        last_message: {role: user, has_tool_calls: false, text_contains: "x"}
        state: {count: 1}
        hook_context: {user: u1}
      do:
        - append_messages: [{role: user, text: "more", meta: {a: 1}, name: bob}]
        - prepend_messages: [{role: system, content: [{text: "sys"}]}]
        - replace_messages: [{role: assistant, tool_calls: [{tool: search, arguments: {q: 1}, id: c1}]}]
        - set: {notes: [1], messages: [{role: user, text: hi}]}
        - replace: {count: 2}
        - continue_run: false
        - stop_run: null
        - stop_run: halt
        - drop_tool_calls: all
        - drop_tool_calls: [search]
        - set_tool_arguments: {tool: search, arguments: {q: 2}}
        - rewrite_tool_results: {truncate: 3}
        - rewrite_tool_results: {replace: "x"}
        - fail: "no"
      allowed_hook_points: [before_llm]
  on_exit:
    - {name: budget, token_budget: {max_total_tokens: 10}}
    - {when: {step_count: 2}}
    - {}
model:
  - tool_calls: [{tool: search, arguments: {q: fusion}}]
    usage: {prompt_tokens: 1, details: {cached: 2}}
    finish_reason: tool_calls
  - {}
  - text: ""
  - {error: "rate limited"}
run:
  messages: [{role: user, text: "q"}]
  hook_context: {user: u1}
  state: {notes: []}
  async: true
expect:
  exit_reason: text
  step_count: 2
  token_usage: {prompt_tokens: 1}
  tool_call_counts: {search: 1}
  state: {notes: []}
  last_message: {role: assistant, text: null, text_contains: a, tool_calls: [search, {tool: search, arguments: {}, id: null}]}
  message_count: 3
  hooks: [before_run, "on_exit:budget"]
  llm_calls: 2
  tools_run: [search]
  error: boom
  unused_replies: allow
"#,
        );
    }

    #[test]
    fn match_modes_and_value_matchers_round_trip() {
        round_trip(
            r#"
agent:
  state_schema: {notes: {type: list}, count: {type: int}}
model: [{text: hi}]
expect:
  token_usage: {prompt_tokens: {gte: 1}, total_tokens: {absent: true}}
  state:
    notes: {contains: [a]}
    count: {gte: 1, lte: 2}
    other: {equals: {gte: 1}}
    plain: {a: [1]}
  last_message:
    text: {contains: hi}
    tool_calls: {excludes: [search, {tool: fetch, id: c1}]}
    meta: {contains: {finish_reason: stop}}
  hooks: {in_order: [before_run, "on_exit:x"], excludes: [after_run]}
  tools_run: {any_order: [a, b], contains: [a]}
  trace:
    - {kind: hook, point: on_exit, name: x, step: {gte: 1}}
    - {kind: max_steps}
"#,
        );
    }

    #[test]
    fn sees_round_trips_on_replies_and_error_entries() {
        round_trip(
            r#"
model:
  - text: hi
    sees:
      messages:
        - {role: user, text: q, meta: {a: 1}}
        - {role: tool, content: [{tool_call_result: {result: r, origin: {tool_name: t, arguments: {}, id: c}, error: false}}]}
      message_count: 2
      last_message: {role: tool, text: {absent: true}}
      contains: r
      roles: [user, tool]
      tools: [t]
  - error: boom
    sees: {tools: []}
  - text: bye
"#,
        );
    }

    #[test]
    fn characters_yaml_does_not_print_are_escaped() {
        let mut out = String::new();
        write_string("a\u{85}b\u{7f}\u{2028}\u{1}é😀", &mut out);
        assert_eq!(out, "\"a\\u0085b\\u007f\\u2028\\u0001é😀\"");
    }
}
