//! The invariants that need the scenario: registrations, scripted usages,
//! tools, `stop_run` values, `max_agent_steps`, `state_schema`.

use super::outcome_checks::step_count_matches;
use super::usage::sum_usages;
use super::view::{MODEL_REASONS, View};
use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::outcome::{ErrorKind, TraceKind};
use crate::scenario::{Action, HookEntry, Scenario, StateValue};
use crate::scripted::ModelReply;
use crate::state::Handler;
use crate::state::keys;
use crate::value::json_eq;
use indexmap::IndexMap;
use serde_json::{Map, Value};

pub(super) fn check(view: &View<'_>, scenario: &Scenario) -> Vec<Violation> {
    let mut found = Vec::new();
    reserved_state_keys_rejected(view, scenario, &mut found);
    // The rest describe runs of an Agent that was built.
    if view.trace.is_empty() && !view.succeeded() {
        return found;
    }
    let Some(registered) = registered_names(scenario) else {
        return found;
    };
    after_run_once(view, &registered, &mut found);
    removed_tool_calls(view, scenario, &mut found);
    before_run_once(view, &registered, &mut found);
    registration_order(view, &registered, &mut found);
    step_count(view, scenario, &mut found);
    exit_reason(view, scenario, &mut found);
    continue_run(view, scenario, &mut found);
    token_usage(view, scenario, &mut found);
    found
}

/// The trace names of the hooks registered at each point, in order, as the
/// replay names them; `None` when a point is not a hook point (the Agent
/// is not built then).
pub(crate) fn registered_names(scenario: &Scenario) -> Option<IndexMap<String, Vec<String>>> {
    let mut names = IndexMap::new();
    for (point, entries) in &scenario.hooks {
        point.parse::<HookPoint>().ok()?;
        let list: Vec<String> = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| match entry {
                HookEntry::Shared(key) => match scenario.shared_hooks.get(key) {
                    Some(definition) => definition.trace_name(key),
                    None => key.clone(),
                },
                other => other.trace_name(&format!("{point}#{index}")),
            })
            .collect();
        names.insert(point.clone(), list);
    }
    Some(names)
}

/// Every hook entry of the scenario at `point` (shared ones resolved).
fn entries_at<'a>(scenario: &'a Scenario, point: &str) -> Vec<&'a HookEntry> {
    scenario
        .hooks
        .get(point)
        .into_iter()
        .flatten()
        .map(|entry| match entry {
            HookEntry::Shared(key) => scenario.shared_hooks.get(key).unwrap_or(entry),
            other => other,
        })
        .collect()
}

/// `true` when some hook at one of `points` may do what `matches` says:
/// a declarative action that matches, or any custom or ready-made hook.
fn may_do(scenario: &Scenario, points: &[&str], matches: impl Fn(&Action) -> bool) -> bool {
    points.iter().any(|point| {
        entries_at(scenario, point).iter().any(|entry| match entry {
            HookEntry::Declarative { actions, .. } => actions.iter().any(&matches),
            _ => true,
        })
    })
}

fn sets_key(action: &Action, key: &str) -> bool {
    match action {
        Action::Set(values) | Action::Replace(values) => values.contains_key(key),
        _ => false,
    }
}

fn reserved_state_keys_rejected(view: &View<'_>, scenario: &Scenario, found: &mut Vec<Violation>) {
    let reserved: Vec<&str> = scenario
        .agent
        .state_schema
        .keys()
        .map(String::as_str)
        .filter(|k| keys::is_reserved(k))
        .collect();
    let rejected = view.outcome.error.as_ref().is_some_and(|e| match e.kind {
        ErrorKind::ReservedStateKeys => true,
        // An invalid file names each construction error in its text:
        // the Agent's own refusal tells which one came first.
        ErrorKind::Invalid => matches!(
            crate::replay::Replay::new().unexpected_construction_error(scenario),
            Some(crate::agent::AgentError::ReservedStateKeys { .. })
        ),
        _ => false,
    });
    let built = view.succeeded() || !view.trace.is_empty();
    let message = if !reserved.is_empty() && built {
        format!("state_schema defines reserved key(s) {reserved:?}, but the Agent was built")
    } else if !reserved.is_empty() && !rejected {
        let error = match view.error_text() {
            "" => "no error",
            text => text,
        };
        format!(
            "state_schema defines reserved key(s) {reserved:?}, but construction failed otherwise: {error}"
        )
    } else if reserved.is_empty() && rejected {
        "a state_schema without reserved keys was rejected as reserved".to_owned()
    } else {
        return;
    };
    found.push(view.violation(Invariant::ReservedStateKeysRejected, None, message));
}

/// The hook events of a block at `point` match the registrations.
fn block_matches(names: &[&str], registered: &[String], may_stop_early: bool) -> bool {
    let equal =
        names.len() == registered.len() && names.iter().zip(registered).all(|(a, b)| a == b);
    let prefix =
        names.len() <= registered.len() && names.iter().zip(registered).all(|(a, b)| a == b);
    equal || (may_stop_early && prefix)
}

fn registered_at<'a>(registered: &'a IndexMap<String, Vec<String>>, point: &str) -> &'a [String] {
    registered.get(point).map_or(&[], Vec::as_slice)
}

fn after_run_once(
    view: &View<'_>,
    registered: &IndexMap<String, Vec<String>>,
    found: &mut Vec<Violation>,
) {
    let expected = registered_at(registered, "after_run");
    let ran: Vec<&str> = view.trace[view.end..]
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HookStarted { hook, .. } => Some(hook.as_str()),
            _ => None,
        })
        .collect();
    let ok = if view.succeeded() {
        block_matches(&ran, expected, false)
    } else if view.failed_at(HookPoint::AfterRun) {
        !ran.is_empty() && block_matches(&ran, expected, true)
    } else {
        true
    };
    if !ok {
        found.push(view.violation(
            Invariant::AfterRunOnceUnlessFailed,
            Some(view.end),
            format!("after_run ran {ran:?} at the end of the run; registered: {expected:?}"),
        ));
    }
}

/// Counts of declared tools equal their executed calls; an executed call
/// is still in the history when no hook rewrites the history.
fn removed_tool_calls(view: &View<'_>, scenario: &Scenario, found: &mut Vec<Violation>) {
    let Some(Value::Object(counts)) = view.field(keys::TOOL_CALL_COUNTS) else {
        return;
    };
    let ran = view.tool_events();
    for tool in &scenario.tools {
        let counted = counts.get(&tool.name).and_then(Value::as_i64).unwrap_or(0);
        let executed = ran
            .iter()
            .find(|(name, _)| *name == tool.name)
            .map_or(0, |(_, n)| *n);
        if counted != executed as i64 && executed == 0 {
            found.push(view.violation(
                Invariant::RemovedToolCallsDoNotRun,
                None,
                format!(
                    "tool_call_counts[{:?}] is {counted}, but `{}` never ran",
                    tool.name, tool.name
                ),
            ));
        }
    }
    if rewrites_history(scenario) {
        return;
    }
    let Some(result) = view.result else {
        return;
    };
    let ids: Vec<&str> = result
        .messages
        .iter()
        .flat_map(|m| m.tool_calls().filter_map(|c| c.id.as_deref()))
        .collect();
    for (i, event) in view.trace.iter().enumerate() {
        if let TraceKind::ToolFinished {
            tool, id: Some(id), ..
        } = &event.kind
        {
            if !ids.contains(&id.as_str()) {
                found.push(view.violation(Invariant::RemovedToolCallsDoNotRun,
                    Some(i),
                    format!("`{tool}` ran for call {id:?}, which no message of the history holds (a removed call?)"),
                ));
            }
        }
    }
}

/// `true` when a hook may remove messages from the history, or the
/// schema makes `messages` replace instead of append.
fn rewrites_history(scenario: &Scenario) -> bool {
    let replaces = scenario
        .agent
        .state_schema
        .get(keys::MESSAGES)
        .is_some_and(|entry| entry.handler == Some(Handler::ReplaceValues));
    if replaces {
        return true;
    }
    let points: Vec<&str> = HookPoint::ALL.iter().map(|p| p.as_str()).collect();
    may_do(scenario, &points, |action| {
        matches!(
            action,
            Action::PrependMessages(_) | Action::ReplaceMessages(_)
        ) || sets_key(action, keys::MESSAGES)
    })
}

fn before_run_once(
    view: &View<'_>,
    registered: &IndexMap<String, Vec<String>>,
    found: &mut Vec<Violation>,
) {
    let expected = registered_at(registered, "before_run");
    let lead: Vec<&str> = view
        .trace
        .iter()
        .map_while(|e| match &e.kind {
            TraceKind::HookStarted { point, hook, .. } if *point == HookPoint::BeforeRun => {
                Some(hook.as_str())
            }
            _ => None,
        })
        .collect();
    if !block_matches(&lead, expected, view.failed_at(HookPoint::BeforeRun)) {
        found.push(view.violation(
            Invariant::BeforeRunFirstAndOnce,
            Some(0),
            format!("the run began with before_run hooks {lead:?}; registered: {expected:?}"),
        ));
    }
}

fn registration_order(
    view: &View<'_>,
    registered: &IndexMap<String, Vec<String>>,
    found: &mut Vec<Violation>,
) {
    let last = view.trace.len().checked_sub(1);
    for block in &view.blocks {
        let expected = registered_at(registered, block.point.as_str());
        let may_stop_early = !view.succeeded() && Some(block.end()) == last;
        if !block_matches(&block.names, expected, may_stop_early) {
            found.push(view.violation(
                Invariant::HooksRunInRegistrationOrder,
                Some(block.start),
                format!(
                    "{} hooks ran as {:?}; registered: {expected:?}",
                    block.point, block.names
                ),
            ));
        }
    }
}

/// With no hook that writes `step_count`, `step_count` is the number of LLM
/// calls for every ending (stops included); with only `before_run` hooks
/// that cannot write it, for exit and max-steps endings.
fn step_count(view: &View<'_>, scenario: &Scenario, found: &mut Vec<Violation>) {
    if !view.succeeded() {
        return;
    }
    // Every point but `after_run`, by name: a position in `HookPoint::ALL`
    // would go silently wrong if a point were added.
    let all: Vec<&str> = HookPoint::ALL
        .iter()
        .filter(|p| **p != HookPoint::AfterRun)
        .map(|p| p.as_str())
        .collect();
    let no_writer = !may_do(scenario, &all, |a| sets_key(a, keys::STEP_COUNT));
    let no_resume = !may_do(scenario, &["before_run"], |a| sets_key(a, keys::STEP_COUNT));
    let exit_ending = view
        .ending_exit()
        .is_some_and(|(_, reason)| Some(reason) == view.exit_reason());
    if no_writer || (no_resume && (exit_ending || view.ended_at_max_steps())) {
        step_count_matches(view, found);
    }
}

/// The `stop_run` values the scenario's hooks set; `None` when a custom or
/// ready-made hook may set others.
fn stop_values(scenario: &Scenario) -> Option<Vec<&str>> {
    let mut values = Vec::new();
    for point in HookPoint::ALL {
        for entry in entries_at(scenario, point.as_str()) {
            let HookEntry::Declarative { actions, .. } = entry else {
                return None;
            };
            for action in actions {
                match action {
                    Action::StopRun(Some(value)) => values.push(value.as_str()),
                    Action::Set(map) | Action::Replace(map) => {
                        if let Some(StateValue::Value(value)) = map.get(keys::STOP_RUN) {
                            values.extend(value.as_str());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    Some(values)
}

fn exit_reason(view: &View<'_>, scenario: &Scenario, found: &mut Vec<Violation>) {
    let Some(reason) = view.exit_reason() else {
        return;
    };
    let known = MODEL_REASONS.contains(&reason)
        || reason == "max_agent_steps"
        || scenario
            .tools
            .iter()
            .any(|t| t.name == reason && scenario.agent.exit_conditions.contains(&t.name));
    let stop = match stop_values(scenario) {
        Some(values) => values.contains(&reason),
        None => true,
    };
    if !known && !stop {
        found.push(view.violation(
            Invariant::ExitReasonIsKnown,
            None,
            format!(
                "exit_reason {reason:?} is not text, length, content_filter, max_agent_steps, \
                 a tool exit condition or a stop_run value"
            ),
        ));
    }
}

/// A max-steps ending right after a continued exit happens at
/// `max_agent_steps`.
fn continue_run(view: &View<'_>, scenario: &Scenario, found: &mut Vec<Violation>) {
    if !view.ended_at_max_steps() {
        return;
    }
    let Some((i, event)) = view.last_before_after_run() else {
        return;
    };
    if let TraceKind::Exit {
        continues: true, ..
    } = event.kind
    {
        let step = event.step().cloned().unwrap_or(Value::Null);
        if step.as_i64() != Some(scenario.agent.max_agent_steps) {
            found.push(view.violation(Invariant::ContinueRunIsConsumed,
                Some(i),
                format!(
                    "the run ended at max_agent_steps ({}) right after an exit at step {step} that continued",
                    scenario.agent.max_agent_steps
                ),
            ));
        }
    }
}

fn token_usage(view: &View<'_>, scenario: &Scenario, found: &mut Vec<Violation>) {
    let Some(actual) = view.field(keys::TOKEN_USAGE) else {
        return;
    };
    let consumed = scenario.model.iter().take(view.llm_calls());
    let usages: Vec<&Map<String, Value>> = consumed
        .filter_map(|reply| match reply {
            ModelReply::Reply { usage, .. } => usage.as_ref(),
            ModelReply::Error(_) => None,
        })
        .collect();
    let expected = sum_usages(usages);
    if !json_eq(actual, &expected) {
        found.push(view.violation(
            Invariant::TokenUsageIsScriptedSum,
            None,
            format!(
                "token_usage is {actual}, but the {} consumed replies script {expected}",
                view.llm_calls()
            ),
        ));
    }
}
