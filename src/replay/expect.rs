//! Checking a run against the scenario's `expect`, in the table's order.

use crate::message::ChatMessage;
use crate::outcome::{Failure, RunError, RunResult, TraceEvent};
use crate::pyfmt;
use crate::scenario::{ExpectedText, Scenario, UnusedReplies};
use crate::state::keys;
use crate::value::{json_eq, sorted};
use serde_json::{Value, json};

const NO_RESULT: &str = "no result to check (the run failed)";

/// A value rendered for a failure line (sorted keys, Python's separators).
pub(crate) fn render(value: &Value) -> String {
    pyfmt::json_dumps(&sorted(value.clone()))
}

pub(crate) fn check(
    scenario: &Scenario,
    result: Option<&RunResult>,
    trace: &[TraceEvent],
    error: Option<&RunError>,
    streamed: &[Value],
) -> Vec<Failure> {
    let error = error.map(|e| e.message.as_str());
    let expect = &scenario.expect;
    let mut failures = Vec::new();
    let compare = |failures: &mut Vec<Failure>, key: &str, want: Value, got: Value| {
        if !json_eq(&got, &want) {
            failures.push(Failure::compare(
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
            keys::TOKEN_USAGE,
            expect.token_usage.clone().map(Value::Object),
        ),
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
                failures.push(Failure::line(format!("{key}: {NO_RESULT}")));
            } else {
                compare(&mut failures, key, want, field(key));
            }
        }
    }
    if let Some(state) = &expect.state {
        if let Some(result) = result {
            let actual = &result.state;
            for (key, want) in state {
                match actual.get(key) {
                    None => failures.push(Failure::line(format!(
                        "state.{key}: expected {}, but the key is not in the result",
                        render(want)
                    ))),
                    Some(got) => compare(
                        &mut failures,
                        &format!("state.{key}"),
                        want.clone(),
                        got.clone(),
                    ),
                }
            }
        } else {
            failures.push(Failure::line(format!("state: {NO_RESULT}")));
        }
    }
    if let Some(want) = &expect.last_message {
        match result {
            None => failures.push(Failure::line(format!("last_message: {NO_RESULT}"))),
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
            failures.push(Failure::line(format!("message_count: {NO_RESULT}")));
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
        let matches = ran.len() == want.len()
            && ran.iter().zip(want).all(|(r, w)| {
                if w.contains(':') {
                    r == w
                } else {
                    r.split(':').next() == Some(w.as_str())
                }
            });
        if !matches {
            let (want, got) = (json!(want), json!(ran));
            failures.push(Failure::compare(
                format!("hooks: expected {}, got {}", render(&want), render(&got)),
                want,
                got,
            ));
        }
    }
    let llm_calls = trace
        .iter()
        .filter(|e| matches!(e, TraceEvent::LlmStarted { .. }))
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
        let ran: Vec<&str> = trace
            .iter()
            .filter_map(|e| match e {
                TraceEvent::ToolFinished { tool, .. } => Some(tool.as_str()),
                _ => None,
            })
            .collect();
        compare(&mut failures, "tools_run", json!(want), json!(ran));
    }
    if let Some(want) = &expect.streamed {
        compare(&mut failures, "streamed", json!(want), json!(streamed));
    }
    if let Some(want) = &expect.error {
        match error {
            None => failures.push(Failure::line(format!(
                "error: expected the run to fail with an error containing {}, but it succeeded",
                render(&json!(want))
            ))),
            Some(text) if !text.contains(want.as_str()) => failures.push(Failure::compare(
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
        failures.push(Failure::line(format!(
            "unused_replies: the scenario scripts {} replies but the run made {llm_calls} LLM calls",
            scenario.model.len()
        )));
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
            "last_message: the run produced no messages".into(),
        ));
        return;
    };
    let text = message
        .text()
        .map_or(Value::Null, |t| Value::String(t.into()));
    if let Some(role) = want.role {
        if message.role().as_str() != role.as_str() {
            failures.push(Failure::line(format!(
                "last_message.role: expected {}, got {}",
                render(&json!(role.as_str())),
                render(&json!(message.role().as_str()))
            )));
        }
    }
    if let Some(expected) = &want.text {
        let want_text = match expected {
            ExpectedText::NoText => Value::Null,
            ExpectedText::Equals(t) => Value::String(t.clone()),
        };
        if want_text != text {
            failures.push(Failure::compare(
                format!(
                    "last_message.text: expected {}, got {}",
                    render(&want_text),
                    render(&text)
                ),
                want_text,
                text.clone(),
            ));
        }
    }
    if let Some(needle) = &want.text_contains {
        if !message.text().is_some_and(|t| t.contains(needle.as_str())) {
            failures.push(Failure::line(format!(
                "last_message.text_contains: expected text containing {}, got {}",
                render(&json!(needle)),
                render(&text)
            )));
        }
    }
    if let Some(calls) = &want.tool_calls {
        let actual: Vec<_> = message.tool_calls().collect();
        let ok = actual.len() == calls.len()
            && calls.iter().zip(&actual).all(|(w, c)| {
                w.tool == c.tool_name
                    && w.arguments.as_ref().is_none_or(|a| {
                        json_eq(
                            &Value::Object(a.clone()),
                            &Value::Object(c.arguments.clone()),
                        )
                    })
                    && w.id.as_ref().is_none_or(|id| c.id == *id)
            });
        if !ok {
            let want_value = Value::Array(
                calls
                    .iter()
                    .map(|w| {
                        let mut map = serde_json::Map::new();
                        map.insert("tool".into(), w.tool.clone().into());
                        if let Some(a) = &w.arguments {
                            map.insert("arguments".into(), Value::Object(a.clone()));
                        }
                        if let Some(id) = &w.id {
                            map.insert("id".into(), id.clone().map_or(Value::Null, Value::String));
                        }
                        Value::Object(map)
                    })
                    .collect(),
            );
            let got = Value::Array(
                actual
                    .iter()
                    .map(|c| json!({"tool": c.tool_name, "arguments": c.arguments, "id": c.id}))
                    .collect(),
            );
            failures.push(Failure::compare(
                format!(
                    "last_message.tool_calls: expected {}, got {}",
                    render(&want_value),
                    render(&got)
                ),
                want_value,
                got,
            ));
        }
    }
}
