//! What `before_tool` hooks decided about the pending calls sticks: a call
//! a hook removed (a rejection, a drop) never runs afterwards, and a call an
//! approving hook let through runs with the arguments it approved.
//!
//! Read from the complete trace: the calls of each model reply, the calls
//! left pending after each `before_tool` hook (with their arguments), and
//! each call that ran (with its arguments).

use super::view::View;
use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::outcome::{CallRef, TraceKind};
use crate::value::json_eq;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The decision a hook took on one call id.
struct Decided<'a> {
    hook: &'a str,
    /// The wire-trace index of the hook.
    at: Option<usize>,
    /// The approved arguments (for approvals).
    arguments: Map<String, Value>,
}

pub(super) fn check(view: &View<'_>, approvers: &[String]) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut pending: Vec<CallRef> = Vec::new();
    let mut removed: HashMap<String, Decided<'_>> = HashMap::new();
    let mut approved: HashMap<String, Decided<'_>> = HashMap::new();
    for (i, event) in view.outcome.trace.iter().enumerate() {
        match &event.kind {
            TraceKind::LlmFinished { replies, .. } => {
                // A new reply's calls are new decisions, even under an old id.
                pending = replies
                    .last()
                    .map(|m| m.tool_calls().map(CallRef::from).collect())
                    .unwrap_or_default();
                for id in pending.iter().filter_map(|c| c.id.as_deref()) {
                    removed.remove(id);
                    approved.remove(id);
                }
            }
            TraceKind::HookFinished {
                point: HookPoint::BeforeTool,
                hook,
                tools: Some(tools),
                ..
            } => {
                let at = view.wire_index(i);
                for call in &pending {
                    let Some(id) = call.id.as_deref() else {
                        continue;
                    };
                    if !tools.pending.iter().any(|p| p.id.as_deref() == Some(id)) {
                        removed.entry(id.to_owned()).or_insert(Decided {
                            hook,
                            at,
                            arguments: Map::new(),
                        });
                    }
                }
                if approvers.iter().any(|a| a == hook) {
                    for call in &tools.pending {
                        if let Some(id) = call.id.as_deref() {
                            approved.insert(
                                id.to_owned(),
                                Decided {
                                    hook,
                                    at,
                                    arguments: call.arguments.clone(),
                                },
                            );
                        }
                    }
                }
                pending.clone_from(&tools.pending);
            }
            TraceKind::ToolFinished {
                tool,
                id: Some(id),
                arguments,
                ..
            } => {
                let at = view.wire_index(i);
                if let Some(decided) = removed.get(id.as_str()) {
                    found.push(Violation::new(
                        Invariant::RejectedCallsNeverRun,
                        view.trace,
                        at,
                        format!(
                            "`{tool}` ran call {id:?}, which before_tool hook `{}` had removed{}",
                            decided.hook,
                            shown_at(decided.at)
                        ),
                    ));
                }
                if let Some(decided) = approved.get(id.as_str()) {
                    if !json_eq(
                        &Value::Object(decided.arguments.clone()),
                        &Value::Object(arguments.clone()),
                    ) {
                        found.push(Violation::new(
                            Invariant::ApprovedArgumentsRun,
                            view.trace,
                            at,
                            format!(
                                "`{tool}` ran call {id:?} with {}, but `{}`{} approved {}",
                                Value::Object(arguments.clone()),
                                decided.hook,
                                shown_at(decided.at),
                                Value::Object(decided.arguments.clone())
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    found
}

fn shown_at(at: Option<usize>) -> String {
    at.map(|i| format!(" at trace[{i}]")).unwrap_or_default()
}
