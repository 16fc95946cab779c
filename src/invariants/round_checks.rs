//! The invariants the complete trace shows beyond the wire trace: the
//! pending tool calls after the `before_tool` hooks, and `continue_run`
//! when the run finished.

use super::view::View;
use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::scenario::{Action, HookEntry, Scenario};
use crate::state::keys;
use crate::value::json_eq;
use serde_json::Value;

/// Calls the `before_tool` hooks removed do not run, are not counted and
/// fire no tool exit.
pub(super) fn check(view: &View<'_>) -> Vec<Violation> {
    let mut found = Vec::new();
    let invariant = Invariant::RemovedToolCallsDoNotRun;
    for round in view.tool_rounds() {
        let Some(tools) = round.pending else {
            continue;
        };
        let at = Some(round.at);
        for call in &round.ran {
            if !tools.pending.contains(call) {
                found.push(Violation::new(
                    invariant,
                    view.trace,
                    at,
                    format!(
                        "`{}` ran for call {:?}, which the before_tool hooks had removed",
                        call.tool, call.id
                    ),
                ));
            }
        }
        if !tools.pending.is_empty() {
            continue;
        }
        if let Some(after) = round.counts_after {
            if !json_eq(after, &tools.tool_call_counts) {
                found.push(Violation::new(
                    invariant,
                    view.trace,
                    at,
                    format!(
                        "no call was pending, but tool_call_counts went from {} to {after}",
                        tools.tool_call_counts
                    ),
                ));
            }
        }
        if let Some(reason) = round.tool_exit {
            found.push(Violation::new(
                invariant,
                view.trace,
                at,
                format!("no call was pending, but a tool exit on {reason} followed"),
            ));
        }
    }
    found
}

/// `continue_run` is false after the run, unless a hook outside `on_exit`
/// set it and no exit handling followed (only the scenario tells).
pub(super) fn check_continue_run(view: &View<'_>, scenario: &Scenario) -> Vec<Violation> {
    match view.continue_run_at_finish() {
        Some(flag) if *flag != Value::Bool(false) && !leaves_continue_run(scenario) => {
            vec![Violation::new(
                Invariant::ContinueRunIsConsumed,
                view.trace,
                None,
                format!("continue_run is {flag} after the run"),
            )]
        }
        _ => Vec::new(),
    }
}

/// `true` when a declarative hook outside `on_exit` and `after_run` sets
/// `continue_run`: Haystack leaves such a flag in place when no exit
/// handling follows (a stop, `max_agent_steps`, no `on_exit` hooks).
fn leaves_continue_run(scenario: &Scenario) -> bool {
    let points = [
        HookPoint::BeforeRun,
        HookPoint::BeforeLlm,
        HookPoint::BeforeTool,
        HookPoint::AfterTool,
    ];
    points.iter().any(|point| {
        scenario
            .hooks
            .get(point.as_str())
            .into_iter()
            .flatten()
            .any(|entry| {
                let entry = match entry {
                    HookEntry::Shared(key) => scenario.shared_hooks.get(key).unwrap_or(entry),
                    other => other,
                };
                match entry {
                    HookEntry::Declarative { actions, .. } => actions.iter().any(|a| {
                        matches!(a, Action::ContinueRun(true))
                            || matches!(a, Action::Set(m) | Action::Replace(m) if m.contains_key(keys::CONTINUE_RUN))
                    }),
                    _ => false,
                }
            })
    })
}
