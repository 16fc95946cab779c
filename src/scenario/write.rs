//! Writing a scenario back out: the file a loaded or generated scenario
//! stands for.
//!
//! The text is JSON, which YAML 1.2 reads too, so the same bytes load as a
//! `.yaml` or a `.json` file. Strings escape every character YAML does not
//! take as printable (C0 and C1 controls, DEL, U+2028/U+2029, BOM,
//! non-characters), so a YAML reader sees exactly the JSON string. Each
//! value is written in the form the loader reads back to the same value;
//! defaults are written out, so the file does not depend on them.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::{
    Action, AgentSpec, Expect, ExpectedText, HandlerKind, HookEntry, LastMessageCondition,
    LastMessageExpect, MessageSpec, ModelReply, ResultRewrite, RunSpec, Scenario, SchemaEntrySpec,
    ScriptedResult, ScriptedToolCall, StateValue, StepCountCondition, ToolCallExpect, ToolScript,
    ToolSelection, UnusedReplies, ValueKind, When,
};

impl Scenario {
    /// The scenario as the JSON value of its file: every key the format
    /// defines, in the format's order (`file` is not part of it).
    ///
    /// ```
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("model:\n  - text: hi\n", "hi.yaml", Format::Yaml)?;
    /// let value = scenario.to_value();
    /// assert_eq!(value["name"], "hi");
    /// assert_eq!(value["model"][0]["text"], "hi");
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("version".into(), self.version.into());
        map.insert("name".into(), self.name.clone().into());
        if let Some(description) = &self.description {
            map.insert("description".into(), description.clone().into());
        }
        map.insert("agent".into(), agent(&self.agent));
        map.insert(
            "tools".into(),
            Value::Array(self.tools.iter().map(tool).collect()),
        );
        let hooks = self
            .hooks
            .iter()
            .map(|(point, entries)| {
                (
                    point.clone(),
                    Value::Array(entries.iter().map(hook).collect()),
                )
            })
            .collect();
        map.insert("hooks".into(), Value::Object(hooks));
        if !self.shared_hooks.is_empty() {
            let shared = self
                .shared_hooks
                .iter()
                .map(|(name, entry)| (name.clone(), hook(entry)))
                .collect();
            map.insert("shared_hooks".into(), Value::Object(shared));
        }
        map.insert(
            "model".into(),
            Value::Array(self.model.iter().map(reply).collect()),
        );
        map.insert("run".into(), run(&self.run));
        map.insert("expect".into(), expect(&self.expect));
        Value::Object(map)
    }

    /// The scenario as the text of a scenario file: JSON, indented, which
    /// the loader reads as `.yaml` and as `.json`; loading it gives this
    /// scenario back (with `file` set to where it was loaded from).
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

fn agent(spec: &AgentSpec) -> Value {
    let mut map = Map::new();
    map.insert("max_agent_steps".into(), spec.max_agent_steps.into());
    map.insert("exit_conditions".into(), strings(&spec.exit_conditions));
    if let Some(prompt) = &spec.system_prompt {
        map.insert("system_prompt".into(), prompt.clone().into());
    }
    let schema = spec
        .state_schema
        .iter()
        .map(|(key, entry)| (key.clone(), schema_entry(entry)))
        .collect();
    map.insert("state_schema".into(), Value::Object(schema));
    map.insert(
        "raise_on_tool_invocation_failure".into(),
        spec.raise_on_tool_invocation_failure.into(),
    );
    map.insert(
        "tool_concurrency_limit".into(),
        spec.tool_concurrency_limit.into(),
    );
    Value::Object(map)
}

fn schema_entry(entry: &SchemaEntrySpec) -> Value {
    let ty = match entry.ty {
        ValueKind::List => "list",
        ValueKind::Str => "str",
        ValueKind::Int => "int",
        ValueKind::Float => "float",
        ValueKind::Bool => "bool",
        ValueKind::Dict => "dict",
        ValueKind::Any => "any",
    };
    let mut map = Map::new();
    map.insert("type".into(), ty.into());
    if let Some(handler) = entry.handler {
        let handler = match handler {
            HandlerKind::MergeLists => "merge_lists",
            HandlerKind::ReplaceValues => "replace_values",
        };
        map.insert("handler".into(), handler.into());
    }
    Value::Object(map)
}

fn tool(script: &ToolScript) -> Value {
    let results = script
        .results
        .iter()
        .map(|result| match result {
            ScriptedResult::Text(text) => Value::String(text.clone()),
            ScriptedResult::Json(value) => json!({ "json": value }),
            ScriptedResult::Error(message) => json!({ "error": message }),
        })
        .collect();
    json!({
        "name": script.name,
        "description": script.description,
        "parameters": script.parameters,
        "results": Value::Array(results),
        "repeat_last": script.repeat_last,
    })
}

fn hook(entry: &HookEntry) -> Value {
    let mut map = Map::new();
    match entry {
        HookEntry::Declarative {
            name,
            when: condition,
            actions,
            allowed_hook_points,
        } => {
            if let Some(name) = name {
                map.insert("name".into(), name.clone().into());
            }
            if *condition != When::default() {
                map.insert("when".into(), when(condition));
            }
            if !actions.is_empty() {
                map.insert(
                    "do".into(),
                    Value::Array(actions.iter().map(action).collect()),
                );
            }
            if let Some(points) = allowed_hook_points {
                map.insert("allowed_hook_points".into(), strings(points));
            }
        }
        HookEntry::ReadyMade { name, kind, params } => {
            if let Some(name) = name {
                map.insert("name".into(), name.clone().into());
            }
            map.insert(kind.as_str().into(), params.clone());
        }
        HookEntry::Shared(name) => {
            map.insert("shared".into(), name.clone().into());
        }
        HookEntry::Custom(name) => {
            map.insert("custom".into(), name.clone().into());
        }
    }
    Value::Object(map)
}

fn when(condition: &When) -> Value {
    let mut map = Map::new();
    if let Some(step) = condition.step_count {
        let value = match step {
            StepCountCondition::Eq(n) => n.into(),
            StepCountCondition::Range { gte, lt } => {
                let mut range = Map::new();
                if let Some(gte) = gte {
                    range.insert("gte".into(), gte.into());
                }
                if let Some(lt) = lt {
                    range.insert("lt".into(), lt.into());
                }
                Value::Object(range)
            }
        };
        map.insert("step_count".into(), value);
    }
    if let Some(reason) = &condition.exit_reason {
        map.insert("exit_reason".into(), reason.clone());
    }
    if !condition.tool_call_counts.is_empty() {
        map.insert(
            "tool_call_counts".into(),
            counts(&condition.tool_call_counts),
        );
    }
    if let Some(last) = &condition.last_message {
        map.insert("last_message".into(), last_message_condition(last));
    }
    if !condition.state.is_empty() {
        map.insert("state".into(), Value::Object(condition.state.clone()));
    }
    if !condition.hook_context.is_empty() {
        map.insert(
            "hook_context".into(),
            Value::Object(condition.hook_context.clone()),
        );
    }
    if let Some(times) = condition.times {
        map.insert("times".into(), times.into());
    }
    Value::Object(map)
}

fn last_message_condition(condition: &LastMessageCondition) -> Value {
    let mut map = Map::new();
    if let Some(role) = condition.role {
        map.insert("role".into(), role.as_str().into());
    }
    if let Some(has) = condition.has_tool_calls {
        map.insert("has_tool_calls".into(), has.into());
    }
    if let Some(text) = &condition.text_contains {
        map.insert("text_contains".into(), text.clone().into());
    }
    Value::Object(map)
}

fn action(action: &Action) -> Value {
    let (name, value) = match action {
        Action::AppendMessages(specs) => ("append_messages", messages(specs)),
        Action::PrependMessages(specs) => ("prepend_messages", messages(specs)),
        Action::ReplaceMessages(specs) => ("replace_messages", messages(specs)),
        Action::Set(values) => ("set", state_values(values)),
        Action::Replace(values) => ("replace", state_values(values)),
        Action::ContinueRun(flag) => ("continue_run", (*flag).into()),
        Action::StopRun(reason) => (
            "stop_run",
            reason.clone().map_or(Value::Null, Value::String),
        ),
        Action::DropToolCalls(ToolSelection::All) => ("drop_tool_calls", "all".into()),
        Action::DropToolCalls(ToolSelection::Named(names)) => ("drop_tool_calls", strings(names)),
        Action::SetToolArguments { tool, arguments } => (
            "set_tool_arguments",
            json!({ "tool": tool, "arguments": arguments }),
        ),
        Action::RewriteToolResults(ResultRewrite::Truncate(n)) => {
            ("rewrite_tool_results", json!({ "truncate": n }))
        }
        Action::RewriteToolResults(ResultRewrite::Replace(text)) => {
            ("rewrite_tool_results", json!({ "replace": text }))
        }
        Action::Fail(message) => ("fail", message.clone().into()),
    };
    let mut map = Map::new();
    map.insert(name.into(), value);
    Value::Object(map)
}

/// `set`/`replace` values; message specs are written as messages (the
/// loader reads them back as messages under the `messages` key).
fn state_values(values: &IndexMap<String, StateValue>) -> Value {
    let map = values
        .iter()
        .map(|(key, value)| {
            let value = match value {
                StateValue::Messages(specs) => messages(specs),
                StateValue::Value(value) => value.clone(),
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(map)
}

fn messages(specs: &[MessageSpec]) -> Value {
    Value::Array(specs.iter().map(message).collect())
}

fn message(spec: &MessageSpec) -> Value {
    match spec {
        MessageSpec::Simple {
            role,
            text,
            tool_calls,
            meta,
            name,
        } => {
            let mut map = Map::new();
            map.insert("role".into(), role.as_str().into());
            if let Some(text) = text {
                map.insert("text".into(), text.clone().into());
            }
            if !tool_calls.is_empty() {
                map.insert(
                    "tool_calls".into(),
                    Value::Array(tool_calls.iter().map(tool_call).collect()),
                );
            }
            map.insert("meta".into(), Value::Object(meta.clone()));
            if let Some(name) = name {
                map.insert("name".into(), name.clone().into());
            }
            Value::Object(map)
        }
        MessageSpec::Haystack(value) => value.clone(),
    }
}

fn tool_call(call: &ScriptedToolCall) -> Value {
    let mut map = Map::new();
    map.insert("tool".into(), call.tool.clone().into());
    map.insert("arguments".into(), Value::Object(call.arguments.clone()));
    if let Some(id) = &call.id {
        map.insert("id".into(), id.clone().into());
    }
    Value::Object(map)
}

fn reply(entry: &ModelReply) -> Value {
    match entry {
        ModelReply::Error(message) => json!({ "error": message }),
        ModelReply::Reply {
            text,
            tool_calls,
            usage,
            finish_reason,
        } => {
            let mut map = Map::new();
            if let Some(text) = text {
                map.insert("text".into(), text.clone().into());
            }
            if !tool_calls.is_empty() {
                map.insert(
                    "tool_calls".into(),
                    Value::Array(tool_calls.iter().map(tool_call).collect()),
                );
            }
            if let Some(usage) = usage {
                map.insert("usage".into(), Value::Object(usage.clone()));
            }
            if let Some(reason) = finish_reason {
                map.insert("finish_reason".into(), reason.as_str().into());
            }
            Value::Object(map)
        }
    }
}

fn run(spec: &RunSpec) -> Value {
    json!({
        "messages": messages(&spec.messages),
        "hook_context": spec.hook_context,
        "state": spec.state,
        "async": spec.is_async,
    })
}

fn expect(spec: &Expect) -> Value {
    let mut map = Map::new();
    if let Some(reason) = &spec.exit_reason {
        map.insert("exit_reason".into(), reason.clone().into());
    }
    if let Some(step) = spec.step_count {
        map.insert("step_count".into(), step.into());
    }
    if let Some(usage) = &spec.token_usage {
        map.insert("token_usage".into(), Value::Object(usage.clone()));
    }
    if let Some(tool_counts) = &spec.tool_call_counts {
        map.insert("tool_call_counts".into(), counts(tool_counts));
    }
    if let Some(state) = &spec.state {
        map.insert("state".into(), Value::Object(state.clone()));
    }
    if let Some(last) = &spec.last_message {
        map.insert("last_message".into(), last_message_expect(last));
    }
    if let Some(count) = spec.message_count {
        map.insert("message_count".into(), count.into());
    }
    if let Some(hooks) = &spec.hooks {
        map.insert("hooks".into(), strings(hooks));
    }
    if let Some(calls) = spec.llm_calls {
        map.insert("llm_calls".into(), calls.into());
    }
    if let Some(tools) = &spec.tools_run {
        map.insert("tools_run".into(), strings(tools));
    }
    if let Some(error) = &spec.error {
        map.insert("error".into(), error.clone().into());
    }
    let unused = match spec.unused_replies {
        UnusedReplies::Fail => "fail",
        UnusedReplies::Allow => "allow",
    };
    map.insert("unused_replies".into(), unused.into());
    Value::Object(map)
}

fn last_message_expect(spec: &LastMessageExpect) -> Value {
    let mut map = Map::new();
    if let Some(role) = spec.role {
        map.insert("role".into(), role.as_str().into());
    }
    match &spec.text {
        Some(ExpectedText::NoText) => {
            map.insert("text".into(), Value::Null);
        }
        Some(ExpectedText::Equals(text)) => {
            map.insert("text".into(), text.clone().into());
        }
        None => {}
    }
    if let Some(text) = &spec.text_contains {
        map.insert("text_contains".into(), text.clone().into());
    }
    if let Some(calls) = &spec.tool_calls {
        let calls = calls.iter().map(expected_call).collect();
        map.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(map)
}

fn expected_call(call: &ToolCallExpect) -> Value {
    let mut map = Map::new();
    map.insert("tool".into(), call.tool.clone().into());
    if let Some(arguments) = &call.arguments {
        map.insert("arguments".into(), Value::Object(arguments.clone()));
    }
    if let Some(id) = &call.id {
        map.insert("id".into(), id.clone().map_or(Value::Null, Value::String));
    }
    Value::Object(map)
}

fn counts(counts: &IndexMap<String, i64>) -> Value {
    Value::Object(
        counts
            .iter()
            .map(|(tool, n)| (tool.clone(), (*n).into()))
            .collect(),
    )
}

fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}

/// Indented JSON; empty lists and maps stay on one line.
fn write_value(value: &Value, indent: usize, out: &mut String) {
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
                write_string(key, out);
                out.push_str(": ");
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

fn push_indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
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
    fn characters_yaml_does_not_print_are_escaped() {
        let mut out = String::new();
        write_string("a\u{85}b\u{7f}\u{2028}\u{1}é😀", &mut out);
        assert_eq!(out, "\"a\\u0085b\\u007f\\u2028\\u0001é😀\"");
    }
}
