//! `model[i].sees`: each reply against the request it answered. A stale
//! replay (a hook change sends the model another conversation) fails here,
//! once, naming the first stale reply, its place in the file, the LLM call
//! and the first message or field that differs.

use super::keys::last_message::check_message as check_last_message;
use super::render;
use crate::message::ChatMessage;
use crate::outcome::Failure;
use crate::replay::SeenRequest;
use crate::scenario::{MessageSpec, Scenario, Sees};
use crate::value::json_eq;
use serde_json::{Value, json};
use std::sync::Arc;

/// The conversation a `sees` lists, message by message; its
/// `previous_messages` are the previous reply's, shared with its list.
pub(crate) type Listed = Vec<Arc<ChatMessage>>;

/// The conversation `sees` (of `model[reply]`) lists: `messages`, or the
/// first `previous_messages` of `previous` (the list of the reply before,
/// with its index) followed by `new_messages`. `None` when it lists none;
/// an error when `previous` does not back its `previous_messages` (loading
/// refuses such a file; a scenario built in code may hold one).
pub(crate) fn listed(
    sees: &Sees,
    reply: usize,
    previous: Option<(usize, &Listed)>,
) -> Option<Result<Listed, String>> {
    let convert = |specs: &[MessageSpec]| -> Vec<Arc<ChatMessage>> {
        // Loading checked that each message converts (replay/build.rs).
        specs
            .iter()
            .filter_map(|s| s.to_message().ok())
            .map(Arc::new)
            .collect()
    };
    if let Some(messages) = &sees.messages {
        return Some(Ok(convert(messages)));
    }
    let (kept, new) = (sees.previous_messages?, sees.new_messages.as_ref()?);
    let before = match previous {
        Some((index, list)) if index + 1 == reply => list.as_slice(),
        _ if kept == 0 => &[],
        _ => {
            return Some(Err(format!(
                "`previous_messages` keeps {kept} messages of the previous reply's `sees`, \
                 which lists none"
            )));
        }
    };
    if kept > before.len() {
        return Some(Err(format!(
            "`previous_messages` keeps {kept} messages of the previous reply's `sees`, which \
             lists {}",
            before.len()
        )));
    }
    let mut list = before[..kept].to_vec();
    list.extend(convert(new));
    Some(Ok(list))
}

/// What the check of the reply before found: its list, the request it
/// answered, and how many first messages of the two were equal. A message
/// shared (the same `Arc`) with it on both sides compares as it did.
struct Before<'a> {
    listed: Option<Listed>,
    sent: Option<&'a [Arc<ChatMessage>]>,
    equal: usize,
}

/// How many first messages of `expected` and `sent` are equal; the first
/// `known` are known to be.
fn equal_prefix(expected: &[Arc<ChatMessage>], sent: &[Arc<ChatMessage>], known: usize) -> usize {
    let differs = |(a, b): (&Arc<ChatMessage>, &Arc<ChatMessage>)| {
        !(Arc::ptr_eq(a, b) || json_eq(&a.to_value(), &b.to_value()))
    };
    known
        + expected[known..]
            .iter()
            .zip(&sent[known..])
            .position(differs)
            .unwrap_or_else(|| expected.len().min(sent.len()) - known)
}

/// The failure of the first reply whose `sees` the request does not match.
pub(crate) fn check(scenario: &Scenario, requests: &[SeenRequest]) -> Option<Failure> {
    let mut before = Before {
        listed: None,
        sent: None,
        equal: 0,
    };
    let mut previous: Option<usize> = None;
    let mut first = None;
    let mut later = 0_usize;
    for (&reply, sees) in &scenario.sees {
        let list = listed(sees, reply, previous.zip(before.listed.as_ref()));
        let request = requests.get(reply);
        let known = match (&list, request, &before.listed, before.sent) {
            (Some(Ok(list)), Some(request), Some(old), Some(old_sent))
                if previous.is_some_and(|p| p + 1 == reply) =>
            {
                list.iter()
                    .zip(old)
                    .zip(request.messages.iter().zip(old_sent))
                    .take(before.equal)
                    .take_while(|((a, b), (c, d))| Arc::ptr_eq(a, b) && Arc::ptr_eq(c, d))
                    .count()
            }
            _ => 0,
        };
        let mut equal = 0;
        if let Some(request) = request {
            let found = match &list {
                Some(Ok(list)) => {
                    equal = equal_prefix(list, &request.messages, known);
                    mismatch(sees, Some(Ok((list, equal))), request)
                }
                Some(Err(problem)) => mismatch(sees, Some(Err(problem)), request),
                None => mismatch(sees, None, request),
            };
            if let Some(found) = found {
                if first.is_none() {
                    first = Some((reply, sees, found));
                } else {
                    later += 1;
                }
            }
        }
        before = Before {
            listed: list.and_then(Result::ok),
            sent: request.map(|r| r.messages.as_slice()),
            equal,
        };
        previous = Some(reply);
    }
    let (reply, sees, found) = first?;
    let later = match later {
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
/// it (`messages[2] differs`); `listed` is what [`listed`] gives for it.
pub(crate) fn difference(
    sees: &Sees,
    listed: Option<Result<&Listed, &str>>,
    request: &SeenRequest,
) -> Option<String> {
    let listed = match listed {
        Some(Ok(list)) => Some(Ok((list, equal_prefix(list, &request.messages, 0)))),
        Some(Err(problem)) => Some(Err(problem)),
        None => None,
    };
    mismatch(sees, listed, request).map(|found| found.what)
}

/// A message in the scenario's form, the same form for both sides of a diff.
fn form(message: &ChatMessage) -> Value {
    crate::scenario::write_message(&MessageSpec::of_message(message))
}

/// The first field of `sees` that `request` does not match; `listed` is
/// the conversation `sees` lists with the count of its first messages equal
/// to the request's, or why it cannot be read.
fn mismatch(
    sees: &Sees,
    listed: Option<Result<(&Listed, usize), &str>>,
    request: &SeenRequest,
) -> Option<Mismatch> {
    let sent = &request.messages;
    match listed {
        Some(Err(problem)) => {
            return Some(Mismatch {
                what: problem.to_owned(),
                expected: None,
                actual: None,
                matcher: None,
            });
        }
        Some(Ok((expected, equal))) => {
            if equal < expected.len().min(sent.len()) {
                return Some(Mismatch::compare(
                    format!("messages[{equal}] differs"),
                    form(&expected[equal]),
                    form(&sent[equal]),
                ));
            }
            if expected.len() != sent.len() {
                let what = if sees.messages.is_some() {
                    "`sees.messages` lists"
                } else {
                    "`sees.previous_messages` and `new_messages` list"
                };
                return Some(Mismatch::compare(
                    format!(
                        "{what} {} messages, the request has {}",
                        expected.len(),
                        sent.len()
                    ),
                    expected.iter().map(|m| form(m)).collect(),
                    sent.iter().map(|m| form(m)).collect(),
                ));
            }
        }
        None => {}
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
    if let Some(want) = &sees.tool_results {
        let got = request.tool_results();
        if *want != got {
            let (want, got) = (json!(want), json!(got));
            return Some(Mismatch::compare(
                format!(
                    "tool_results: expected {}, got {}",
                    render(&want),
                    render(&got)
                ),
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
        check_last_message(last, sent.last().map(|m| &**m), &mut failures);
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
