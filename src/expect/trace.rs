//! `expect.trace`: the run's events as the event matchers see them.

use super::value::matches;
use crate::outcome::{TraceEvent, TraceKind};
use crate::scenario::{EventKind, EventPattern};
use serde_json::{Map, Value};

/// One event as `{kind, ...fields}`, the fields of
/// [`EventKind::fields`] in that order.
pub(crate) fn views(trace: &[TraceEvent]) -> Vec<Value> {
    let step = |event: &TraceEvent| event.step().cloned().unwrap_or(Value::Null);
    let mut out = Vec::new();
    for (i, event) in trace.iter().enumerate() {
        let (kind, values): (EventKind, Vec<Value>) = match &event.kind {
            TraceKind::HookStarted {
                point, index, hook, ..
            } => {
                let error = trace[i + 1..].iter().find_map(|later| match &later.kind {
                    TraceKind::HookFinished {
                        point: p,
                        index: x,
                        error,
                        ..
                    } if p == point && x == index => {
                        Some(error.clone().map_or(Value::Null, Value::String))
                    }
                    _ => None,
                });
                (
                    EventKind::Hook,
                    vec![
                        point.as_str().into(),
                        hook.clone().into(),
                        (*index).into(),
                        step(event),
                        error.unwrap_or(Value::Null),
                    ],
                )
            }
            TraceKind::LlmStarted {
                messages_in,
                model: None,
                ..
            } => {
                let error = match trace.get(i + 1).map(|next| &next.kind) {
                    Some(TraceKind::LlmFailed { error, .. }) => error.clone().into(),
                    _ => Value::Null,
                };
                (
                    EventKind::Llm,
                    vec![step(event), (*messages_in).into(), error],
                )
            }
            TraceKind::ToolFinished {
                tool,
                id,
                error,
                arguments,
                ..
            } => (
                EventKind::Tool,
                vec![
                    tool.clone().into(),
                    id.clone().map_or(Value::Null, Value::String),
                    Value::Object(arguments.clone()),
                    step(event),
                    (*error).into(),
                ],
            ),
            TraceKind::Exit {
                reason, continues, ..
            } => (
                EventKind::Exit,
                vec![reason.clone(), (*continues).into(), step(event)],
            ),
            TraceKind::Stopped { reason, .. } => {
                (EventKind::Stop, vec![reason.clone(), step(event)])
            }
            TraceKind::MaxStepsReached => (EventKind::MaxSteps, vec![step(event)]),
            _ => continue,
        };
        let mut view = Map::new();
        view.insert("kind".into(), kind.as_str().into());
        for (name, value) in kind.fields().iter().zip(values) {
            view.insert((*name).into(), value);
        }
        out.push(Value::Object(view));
    }
    out
}

/// `true` when the event view is of the pattern's kind.
pub(crate) fn event_matches_kind(pattern: &EventPattern, view: &Value) -> bool {
    view.get("kind").and_then(Value::as_str) == Some(pattern.kind.as_str())
}

/// `true` when the event view is of the pattern's kind and every field the
/// pattern names matches.
pub(crate) fn event_matches(pattern: &EventPattern, view: &Value) -> bool {
    event_matches_kind(pattern, view)
        && pattern
            .fields
            .iter()
            .all(|(name, field)| matches(field, view.get(name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::HookPoint;
    use serde_json::json;

    #[test]
    fn a_hook_view_carries_the_error_of_its_finish() {
        let trace = vec![
            TraceEvent::new(
                Some(json!(1)),
                TraceKind::HookStarted {
                    point: HookPoint::OnExit,
                    index: 0,
                    hook: "require_search".into(),
                },
            ),
            TraceEvent::new(
                Some(json!(1)),
                TraceKind::HookFinished {
                    point: HookPoint::OnExit,
                    index: 0,
                    hook: "require_search".into(),
                    error: Some("boom".into()),
                    tools: None,
                    changes: None,
                    output: None,
                },
            ),
        ];
        assert_eq!(
            views(&trace),
            [
                json!({"kind": "hook", "point": "on_exit", "name": "require_search", "index": 0, "step": 1, "error": "boom"})
            ]
        );
    }

    #[test]
    fn every_kind_lists_exactly_its_fields() {
        let trace = vec![
            TraceEvent::new(
                Some(json!(0)),
                TraceKind::LlmStarted {
                    messages_in: 2,
                    last: None,
                    model: None,
                },
            ),
            TraceEvent::new(
                Some(json!(0)),
                TraceKind::ToolFinished {
                    tool: "search".into(),
                    id: None,
                    error: false,
                    arguments: serde_json::Map::new(),
                    output: None,
                },
            ),
            TraceEvent::new(
                Some(json!(1)),
                TraceKind::Exit {
                    reason: json!("text"),
                    continues: false,
                },
            ),
            TraceEvent::new(
                None,
                TraceKind::Stopped {
                    reason: json!("halt"),
                },
            ),
            TraceEvent::new(None, TraceKind::MaxStepsReached),
        ];
        for view in views(&trace) {
            let kind = view["kind"].as_str().unwrap();
            let (_, kind) = crate::scenario::EVENT_KINDS
                .iter()
                .find(|(name, _)| *name == kind)
                .unwrap();
            let keys: Vec<&str> = view
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys[1..], *kind.fields(), "{view}");
        }
    }
}
