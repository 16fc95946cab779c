//! `last_message`: the last message of the run matches every given field
//! (`role`, `text`, `text_contains`, `tool_calls`, `tool_result`, `meta`);
//! a reply's `sees.last_message` reads and writes the same form.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::super::list::ListCheck;
use super::super::{render, value_failure};
use crate::message::{ChatMessage, ChatRole, ToolCall};
use crate::outcome::{Failure, RunResult};
use crate::scenario::reading::{Field, Read, Slot, read_list, read_pattern, roles};
use crate::scenario::{ListExpect, ValuePattern};
use crate::state::SchemaEntry;
use crate::value::json_eq;

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

/// `last_message` (and a reply's `sees.last_message`).
pub(crate) fn read_message(field: &Field<'_>) -> Read<LastMessageExpect> {
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

pub(crate) fn read(
    field: &Field<'_>,
    _: &IndexMap<String, SchemaEntry>,
) -> Read<Box<LastMessageExpect>> {
    read_message(field).map(Box::new)
}

/// A text to match (`text`, `tool_result`): a string, null, or a
/// `contains`, `absent` or `equals` matcher.
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

pub(crate) fn write(last: &LastMessageExpect) -> Value {
    let mut map = Map::new();
    if let Some(role) = last.role {
        map.insert("role".into(), json!(role.as_str()));
    }
    if let Some(text) = &last.text {
        map.insert("text".into(), text.to_value());
    }
    if let Some(text) = &last.text_contains {
        map.insert("text_contains".into(), json!(text));
    }
    if let Some(calls) = &last.tool_calls {
        map.insert("tool_calls".into(), calls.to_value(expected_call));
    }
    if let Some(result) = &last.tool_result {
        map.insert("tool_result".into(), result.to_value());
    }
    if let Some(meta) = &last.meta {
        map.insert("meta".into(), meta.to_value());
    }
    Value::Object(map)
}

/// A tool call as the file writes it: its name alone when nothing else
/// is checked.
fn expected_call(call: &ToolCallExpect) -> Value {
    if call.arguments.is_none() && call.id.is_none() {
        return json!(call.tool);
    }
    let mut out = Map::new();
    out.insert("tool".into(), json!(call.tool));
    if let Some(arguments) = &call.arguments {
        out.insert("arguments".into(), Value::Object(arguments.clone()));
    }
    if let Some(id) = &call.id {
        out.insert("id".into(), json!(id));
    }
    Value::Object(out)
}

pub(crate) fn schema() -> Value {
    json!({"$ref": "#/definitions/last_message_expect"})
}

pub(crate) fn check(want: &LastMessageExpect, result: &RunResult, failures: &mut Vec<Failure>) {
    check_message(want, result.last_message.as_ref(), failures);
}

/// The failures of `last` (`None`: no message) against `want`.
pub(crate) fn check_message(
    want: &LastMessageExpect,
    last: Option<&ChatMessage>,
    failures: &mut Vec<Failure>,
) {
    let Some(message) = last else {
        failures.push(Failure::line(
            "last_message",
            "last_message: the run produced no messages".into(),
        ));
        return;
    };
    let text = message
        .text()
        .map_or(Value::Null, |t| Value::String(t.into()));
    if let Some(role) = want.role {
        if message.role().as_str() != role.as_str() {
            failures.push(Failure::line(
                "last_message",
                format!(
                    "last_message.role: expected {}, got {}",
                    render(&json!(role.as_str())),
                    render(&json!(message.role().as_str()))
                ),
            ));
        }
    }
    if let Some(expected) = &want.text {
        // No text is `null` for `text: null` and absent for `{absent: ...}`.
        let actual = match expected {
            ValuePattern::Absent(_) if text.is_null() => None,
            _ => Some(&text),
        };
        failures.extend(value_failure(
            "last_message.text",
            expected,
            actual,
            ", got null",
        ));
    }
    if let Some(expected) = &want.tool_result {
        let result = message
            .tool_call_results()
            .next()
            .and_then(|r| r.result.as_text())
            .map_or(Value::Null, |t| Value::String(t.into()));
        let actual = match expected {
            ValuePattern::Absent(_) if result.is_null() => None,
            _ => Some(&result),
        };
        failures.extend(value_failure(
            "last_message.tool_result",
            expected,
            actual,
            ", got null",
        ));
    }
    if let Some(needle) = &want.text_contains {
        if !message.text().is_some_and(|t| t.contains(needle.as_str())) {
            failures.push(Failure::line(
                "last_message",
                format!(
                    "last_message.text_contains: expected text containing {}, got {}",
                    render(&json!(needle)),
                    render(&text)
                ),
            ));
        }
    }
    if let Some(calls) = &want.tool_calls {
        let actual: Vec<_> = message.tool_calls().collect();
        let check = ListCheck {
            key: "last_message.tool_calls",
            actual: &actual,
            matches: |w: &ToolCallExpect, c: &&ToolCall| {
                w.tool == c.tool_name
                    && w.arguments.as_ref().is_none_or(|a| {
                        json_eq(
                            &Value::Object(a.clone()),
                            &Value::Object(c.arguments.clone()),
                        )
                    })
                    && w.id.as_ref().is_none_or(|id| c.id == *id)
            },
            show_item: |w: &ToolCallExpect| {
                let mut map = Map::new();
                map.insert("tool".into(), w.tool.clone().into());
                if let Some(a) = &w.arguments {
                    map.insert("arguments".into(), Value::Object(a.clone()));
                }
                if let Some(id) = &w.id {
                    map.insert("id".into(), id.clone().map_or(Value::Null, Value::String));
                }
                Value::Object(map)
            },
            show_actual: |c: &&ToolCall| json!({"tool": c.tool_name, "arguments": c.arguments, "id": c.id}),
            listed: None,
        };
        check.check(calls, failures);
    }
    if let Some(meta) = &want.meta {
        let actual = Value::Object(message.meta().clone());
        failures.extend(value_failure("last_message.meta", meta, Some(&actual), ""));
    }
}
