//! Checking a run against the scenario's `expect`, in the table's order.
//!
//! ```text
//!  mod.rs    every key, in the table's order
//!  value.rs  a value against a ValuePattern (`state`, `token_usage`, `last_message`)
//!  list.rs   a list in its match modes (`hooks`, `tools_run`, `trace`, `tool_calls`)
//!  trace.rs  the run's events as `expect.trace` matchers see them
//!  sees.rs   `model[i].sees` against the request each reply answered
//! ```

mod list;
mod printed;
mod sees;
pub(crate) use sees::{Listed as SeesListed, difference as sees_difference, listed as sees_listed};
mod trace;
mod value;

use crate::message::{ChatMessage, ToolCall};
use crate::outcome::{Failure, RunResult, TraceEvent};
use crate::pyfmt;
use crate::scenario::{Scenario, ToolCallExpect, UnusedReplies, ValuePattern};
use crate::state::keys;
use crate::value::{json_eq, sorted};
use list::ListCheck;
use serde_json::{Value, json};

const NO_RESULT: &str = "no result to check (the run failed)";
const ABSENT: &str = ", but the key is not in the result";

/// A value rendered for a failure line (sorted keys, Python's separators).
pub(crate) fn render(value: &Value) -> String {
    pyfmt::json_dumps(&sorted(value.clone()))
}

pub(crate) fn check(
    scenario: &Scenario,
    result: Option<&RunResult>,
    trace: &[TraceEvent],
    error: Option<&str>,
    streamed: &[Value],
    requests: &[crate::replay::SeenRequest],
) -> Vec<Failure> {
    let expect = &scenario.expect;
    // A stale reply explains whatever else fails: it comes first.
    let mut failures: Vec<Failure> = sees::check(scenario, requests).into_iter().collect();
    let compare = |failures: &mut Vec<Failure>, key: &str, want: Value, got: Value| {
        if !json_eq(&got, &want) {
            failures.push(Failure::compare(
                key,
                format!("{key}: expected {}, got {}", render(&want), render(&got)),
                want,
                got,
            ));
        }
    };
    let field = |key: &str| {
        result
            .and_then(|r| r.field(key))
            .cloned()
            .unwrap_or(Value::Null)
    };

    let scalars = [
        (
            keys::EXIT_REASON,
            expect.exit_reason.clone().map(Value::String),
        ),
        (keys::STEP_COUNT, expect.step_count.map(Value::from)),
        (
            keys::TOOL_CALL_COUNTS,
            expect.tool_call_counts.as_ref().map(|m| {
                Value::Object(
                    m.iter()
                        .map(|(k, v)| (k.clone(), Value::from(*v)))
                        .collect(),
                )
            }),
        ),
    ];
    for (key, want) in scalars {
        if let Some(want) = want {
            if result.is_none() {
                failures.push(Failure::line(key, format!("{key}: {NO_RESULT}")));
            } else {
                compare(&mut failures, key, want, field(key));
            }
        }
    }
    if let Some(want) = &expect.token_usage {
        match result {
            None => failures.push(Failure::line(
                keys::TOKEN_USAGE,
                format!("{}: {NO_RESULT}", keys::TOKEN_USAGE),
            )),
            Some(_) => {
                let got = field(keys::TOKEN_USAGE);
                failures.extend(value_failure(keys::TOKEN_USAGE, want, Some(&got), ABSENT));
            }
        }
    }
    if let Some(state) = &expect.state {
        if let Some(result) = result {
            for (key, want) in state {
                let got = result.state.get(key);
                failures.extend(value_failure(&format!("state.{key}"), want, got, ABSENT));
            }
        } else {
            failures.push(Failure::line("state", format!("state: {NO_RESULT}")));
        }
    }
    if let Some(want) = &expect.last_message {
        match result {
            None => failures.push(Failure::line(
                "last_message",
                format!("last_message: {NO_RESULT}"),
            )),
            Some(result) => check_last_message(want, result.last_message.as_ref(), &mut failures),
        }
    }
    if let Some(want) = expect.message_count {
        if let Some(result) = result {
            let count = result.messages.len();
            compare(
                &mut failures,
                "message_count",
                Value::from(want),
                Value::from(count),
            );
        } else {
            failures.push(Failure::line(
                "message_count",
                format!("message_count: {NO_RESULT}"),
            ));
        }
    }
    // Trace-based expectations hold for failed runs too.
    if let Some(want) = &expect.hooks {
        let ran: Vec<String> = trace
            .iter()
            .filter_map(|e| match e {
                TraceEvent::HookStarted { point, hook, .. } => Some(format!("{point}:{hook}")),
                _ => None,
            })
            .collect();
        let check = ListCheck {
            key: "hooks",
            actual: &ran,
            matches: |w: &String, r: &String| {
                if w.contains(':') {
                    r == w
                } else {
                    r.split(':').next() == Some(w.as_str())
                }
            },
            show_item: |w| json!(w),
            show_actual: |r| json!(r),
            listed: None,
        };
        check.check(want, &mut failures);
    }
    let llm_calls = trace
        .iter()
        .filter(|e| matches!(e, TraceEvent::LlmStarted { model: None, .. }))
        .count();
    if let Some(want) = expect.llm_calls {
        compare(
            &mut failures,
            "llm_calls",
            Value::from(want),
            Value::from(llm_calls),
        );
    }
    if let Some(want) = &expect.tools_run {
        let ran: Vec<String> = trace
            .iter()
            .filter_map(|e| match e {
                TraceEvent::ToolFinished { tool, .. } => Some(tool.clone()),
                _ => None,
            })
            .collect();
        let check = ListCheck {
            key: "tools_run",
            actual: &ran,
            matches: |w: &String, r: &String| w == r,
            show_item: |w| json!(w),
            show_actual: |r| json!(r),
            listed: None,
        };
        check.check(want, &mut failures);
    }
    if let Some(want) = &expect.trace {
        let events = trace::views(trace);
        let check = ListCheck {
            key: "trace",
            actual: &events,
            matches: trace::event_matches,
            show_item: crate::scenario::EventPattern::to_value,
            show_actual: Value::clone,
            // A trace is long: a mode's line lists the events of its kinds.
            listed: Some(|items, view| {
                items
                    .iter()
                    .any(|item| trace::event_matches_kind(item, view))
            }),
        };
        check.check(want, &mut failures);
    }
    if let Some(want) = &expect.streamed {
        compare(&mut failures, "streamed", json!(want), json!(streamed));
    }
    if let Some(want) = &expect.printed {
        printed::check(want, trace, &mut failures);
    }
    if let Some(want) = &expect.error {
        match error {
            None => failures.push(Failure::line(
                "error",
                format!(
                    "error: expected the run to fail with an error containing {}, but it succeeded",
                    render(&json!(want))
                ),
            )),
            Some(text) if !text.contains(want.as_str()) => failures.push(Failure::compare(
                "error",
                format!(
                    "error: expected an error containing {}, got {}",
                    render(&json!(want)),
                    render(&json!(text))
                ),
                json!(want),
                json!(text),
            )),
            Some(_) => {}
        }
    }
    if error.is_none()
        && expect.unused_replies == UnusedReplies::Fail
        && llm_calls < scenario.model.len()
    {
        failures.push(Failure::line(
            "unused_replies",
            crate::scripted::wording::unused(scenario.model.len(), llm_calls),
        ));
    }
    failures
}

fn check_last_message(
    want: &crate::scenario::LastMessageExpect,
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
                let mut map = serde_json::Map::new();
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

/// The failure of `key` when `actual` (`None`: absent) does not match
/// `want`: a line naming the first place that differs, with the whole
/// expectation and the whole value.
fn value_failure(
    key: &str,
    want: &ValuePattern,
    actual: Option<&Value>,
    when_absent: &str,
) -> Option<Failure> {
    let found = value::mismatch(want, actual)?;
    let got = match &found.actual {
        Some(got) => format!(", got {}", render(got)),
        None => when_absent.to_owned(),
    };
    let expected = match want {
        ValuePattern::Equals(value) => value.clone(),
        pattern => pattern.to_value(),
    };
    Some(Failure::compare(
        key.split('.').next().unwrap_or(key),
        format!("{key}{}: expected {}{got}", found.path, found.expected),
        expected,
        actual.cloned().unwrap_or(Value::Null),
    ))
}
