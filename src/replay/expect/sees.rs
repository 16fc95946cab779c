//! `model[i].sees`: each reply against the request it answered. A stale
//! replay (a hook change sends the model another conversation) fails here,
//! once, naming the first stale reply, its place in the file, the LLM call
//! and the first message or field that differs.

use super::{check_last_message, render};
use crate::message::ChatMessage;
use crate::outcome::Failure;
use crate::replay::SeenRequest;
use crate::scenario::{MessageSpec, Scenario, Sees};
use crate::value::json_eq;
use serde_json::{Value, json};

/// The failure of the first reply whose `sees` the request does not match.
pub(crate) fn check(scenario: &Scenario, requests: &[SeenRequest]) -> Option<Failure> {
    let mut stale = scenario.sees.iter().filter_map(|(&reply, sees)| {
        let request = requests.get(reply)?;
        mismatch(sees, request).map(|found| (reply, sees, found))
    });
    let (reply, sees, found) = stale.next()?;
    let later = match stale.count() {
        0 => String::new(),
        1 => " (1 later reply sees another request too)".to_owned(),
        n => format!(" ({n} later replies see another request too)"),
    };
    let file = scenario
        .file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let at = match sees.at {
        Some((line, column)) if file.is_empty() => format!("line {line}, column {column}"),
        Some((line, column)) => format!("{file}:{line}:{column}"),
        None => file.clone(),
    };
    let rebase = if file.is_empty() {
        "hookharness rebase FILE".to_owned()
    } else {
        format!("hookharness rebase {file}")
    };
    let message = match found.matcher {
        // A matcher is the user's claim about the request: rebase keeps it.
        Some(key) => format!(
            "model[{reply}].sees ({at}): LLM call {reply} was sent another request: {}{later}; \
             `sees.{key}` is a matcher, which `hookharness rebase` keeps: if the change is \
             intended, edit it",
            found.what
        ),
        None => format!(
            "model[{reply}].sees ({at}): LLM call {reply} was sent another request: {}{later}; \
             if the change is intended, `{rebase}` rewrites `sees`",
            found.what
        ),
    };
    Some(match (found.expected, found.actual) {
        (Some(expected), Some(actual)) => Failure::compare("sees", message, expected, actual),
        _ => Failure::line("sees", message),
    })
}

/// The first field of `sees` the request does not match.
struct Mismatch {
    what: String,
    expected: Option<Value>,
    actual: Option<Value>,
    /// The matcher's key (`contains`, `last_message`) when the field is a
    /// matcher, not a fact rebase rewrites.
    matcher: Option<&'static str>,
}

impl Mismatch {
    fn compare(what: String, expected: Value, actual: Value) -> Self {
        Mismatch {
            what,
            expected: Some(expected),
            actual: Some(actual),
            matcher: None,
        }
    }
}

/// The first difference between `sees` and `request`, as a failure names
/// it (`messages[2] differs`).
pub(crate) fn difference(sees: &Sees, request: &SeenRequest) -> Option<String> {
    mismatch(sees, request).map(|found| found.what)
}

/// A message in the scenario's form, the same form for both sides of a diff.
fn form(message: &ChatMessage) -> Value {
    crate::scenario::write_message(&MessageSpec::of_message(message))
}

fn mismatch(sees: &Sees, request: &SeenRequest) -> Option<Mismatch> {
    let sent = &request.messages;
    if let Some(specs) = &sees.messages {
        // Loading checked that each message converts (replay/build.rs).
        let expected: Vec<ChatMessage> = specs.iter().filter_map(|s| s.to_message().ok()).collect();
        let differs = |(a, b): (&ChatMessage, &ChatMessage)| !json_eq(&a.to_value(), &b.to_value());
        if let Some(i) = expected.iter().zip(sent).position(differs) {
            return Some(Mismatch::compare(
                format!("messages[{i}] differs"),
                form(&expected[i]),
                form(&sent[i]),
            ));
        }
        if expected.len() != sent.len() {
            return Some(Mismatch::compare(
                format!(
                    "`sees.messages` lists {} messages, the request has {}",
                    expected.len(),
                    sent.len()
                ),
                expected.iter().map(form).collect(),
                sent.iter().map(form).collect(),
            ));
        }
    }
    if let Some(count) = sees.message_count {
        if usize::try_from(count).ok() != Some(sent.len()) {
            return Some(Mismatch::compare(
                format!("message_count: expected {count}, got {}", sent.len()),
                json!(count),
                json!(sent.len()),
            ));
        }
    }
    if let Some(roles) = &sees.roles {
        let want: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
        let got: Vec<&str> = sent.iter().map(|m| m.role().as_str()).collect();
        if want != got {
            let (want, got) = (json!(want), json!(got));
            return Some(Mismatch::compare(
                format!("roles: expected {}, got {}", render(&want), render(&got)),
                want,
                got,
            ));
        }
    }
    if let Some(needle) = &sees.contains {
        let found = sent.iter().any(|m| {
            let results = m.tool_call_results().filter_map(|r| r.result.as_text());
            m.texts()
                .chain(results)
                .any(|t| t.contains(needle.as_str()))
        });
        if !found {
            return Some(Mismatch {
                what: format!(
                    "contains: no message's text (nor tool result) contains {}",
                    render(&json!(needle))
                ),
                expected: None,
                actual: None,
                matcher: Some("contains"),
            });
        }
    }
    if let Some(last) = &sees.last_message {
        let mut failures = Vec::new();
        check_last_message(last, sent.last(), &mut failures);
        if let Some(first) = failures.into_iter().next() {
            return Some(Mismatch {
                what: first.message,
                expected: first.expected,
                actual: first.actual,
                matcher: Some("last_message"),
            });
        }
    }
    if let Some(tools) = &sees.tools {
        if *tools != request.tools {
            let (want, got) = (json!(tools), json!(request.tools));
            return Some(Mismatch::compare(
                format!("tools: expected {}, got {}", render(&want), render(&got)),
                want,
                got,
            ));
        }
    }
    None
}
