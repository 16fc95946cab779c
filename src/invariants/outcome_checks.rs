//! The invariants an outcome shows by itself.

use super::view::{MODEL_REASONS, View, event_point};
use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::outcome::{Outcome, TraceEvent, TraceKind};
use crate::state::keys;
use serde_json::Value;

pub(super) fn check(view: &View<'_>) -> Vec<Violation> {
    let mut found = Vec::new();
    on_exit_skipped_at_max_steps(view, &mut found);
    after_run_once_unless_failed(view, &mut found);
    removed_tool_calls_do_not_run(view, &mut found);
    before_run_first_and_once(view, &mut found);
    hooks_run_in_registration_order(view, &mut found);
    step_count_is_llm_calls(view, &mut found);
    exit_reason_is_known(view, &mut found);
    continue_run_is_consumed(view, &mut found);
    found
}

/// After the last exit of a max-steps ending, no `on_exit` hook runs, and
/// that exit continued.
fn on_exit_skipped_at_max_steps(view: &View<'_>, found: &mut Vec<Violation>) {
    if !view.ended_at_max_steps() {
        return;
    }
    let head = &view.trace[..view.end];
    let last_exit = head
        .iter()
        .rposition(|e| matches!(e.kind, TraceKind::Exit { .. }));
    let from = last_exit.map_or(0, |i| i + 1);
    if let Some(offset) = head[from..]
        .iter()
        .position(|e| event_point(e) == Some(HookPoint::OnExit))
    {
        found.push(
            view.violation(
                Invariant::OnExitSkippedAtMaxSteps,
                Some(from + offset),
                "an on_exit hook ran for the max_agent_steps ending (no exit decision follows it)"
                    .into(),
            ),
        );
    }
    if let Some(i) = last_exit {
        if let TraceKind::Exit {
            continues: false, ..
        } = head[i].kind
        {
            found.push(view.violation(
                Invariant::OnExitSkippedAtMaxSteps,
                Some(i),
                "the run ended at max_agent_steps, but its last exit did not continue".into(),
            ));
        }
    }
}

/// `after_run` hooks are the last events of a run that did not fail, and
/// absent from a run that failed outside `after_run`.
fn after_run_once_unless_failed(view: &View<'_>, found: &mut Vec<Violation>) {
    let early = view.trace[..view.end]
        .iter()
        .position(|e| event_point(e) == Some(HookPoint::AfterRun));
    if view.succeeded() {
        if let Some(i) = early {
            found.push(view.violation(
                Invariant::AfterRunOnceUnlessFailed,
                Some(i),
                "an after_run hook ran before the end of the run".into(),
            ));
        }
    } else if view.failed_while_running() && !view.failed_at(HookPoint::AfterRun) {
        if let Some(i) = view
            .trace
            .iter()
            .position(|e| event_point(e) == Some(HookPoint::AfterRun))
        {
            let error = view.error_text();
            found.push(view.violation(
                Invariant::AfterRunOnceUnlessFailed,
                Some(i),
                format!("an after_run hook ran in a run that failed before after_run: {error}"),
            ));
        }
    }
}

/// Every tool that ran is counted once per call; a tool exit (an exit on a
/// name `tool_call_counts` holds) names a tool that ran without error
/// since the step's LLM call.
fn removed_tool_calls_do_not_run(view: &View<'_>, found: &mut Vec<Violation>) {
    let Some(Value::Object(counts)) = view.field(keys::TOOL_CALL_COUNTS) else {
        return;
    };
    for (tool, ran) in view.tool_events() {
        let counted = counts.get(tool).and_then(Value::as_i64).unwrap_or(0);
        if counted != ran as i64 {
            found.push(view.violation(Invariant::RemovedToolCallsDoNotRun,
                view.last_tool_event(tool),
                format!(
                    "tool_call_counts[{tool:?}] is {counted}, but the trace shows {ran} executed call(s)"
                ),
            ));
        }
    }
    for (i, event) in view.trace.iter().enumerate() {
        let TraceKind::Exit { reason, .. } = &event.kind else {
            continue;
        };
        let Some(reason) = reason.as_str() else {
            continue;
        };
        if MODEL_REASONS.contains(&reason) || !counts.contains_key(reason) {
            continue;
        }
        let step_start = view.trace[..i]
            .iter()
            .rposition(|e| matches!(e.kind, TraceKind::LlmStarted { .. }))
            .map_or(0, |p| p + 1);
        let ran = view.trace[step_start..i]
            .iter()
            .any(|e| matches!(&e.kind, TraceKind::ToolFinished { tool, error: false, .. } if tool == reason));
        if !ran {
            found.push(view.violation(
                Invariant::RemovedToolCallsDoNotRun,
                Some(i),
                format!(
                    "a tool exit on `{reason}` in a step where `{reason}` did not run without error"
                ),
            ));
        }
    }
}

/// `before_run` hooks form the leading block of the trace.
fn before_run_first_and_once(view: &View<'_>, found: &mut Vec<Violation>) {
    let lead = view
        .trace
        .iter()
        .position(|e| event_point(e) != Some(HookPoint::BeforeRun))
        .unwrap_or(view.trace.len());
    if let Some(offset) = view.trace[lead..]
        .iter()
        .position(|e| event_point(e) == Some(HookPoint::BeforeRun))
    {
        found.push(view.violation(
            Invariant::BeforeRunFirstAndOnce,
            Some(lead + offset),
            "a before_run hook ran after the run had started".into(),
        ));
    }
}

/// Each time a point is reached its hooks run in the same order; only the
/// last block of a failed run may stop early.
fn hooks_run_in_registration_order(view: &View<'_>, found: &mut Vec<Violation>) {
    let last = view.trace.len().checked_sub(1);
    let complete = |b: &super::view::Block<'_>| view.succeeded() || Some(b.end()) != last;
    for (n, block) in view.blocks.iter().enumerate() {
        let Some(first) = view.blocks[..n]
            .iter()
            .find(|b| b.point == block.point && complete(b))
        else {
            continue;
        };
        let same = if complete(block) {
            block.names == first.names
        } else {
            first.names.starts_with(&block.names)
        };
        if !same {
            found.push(view.violation(
                Invariant::HooksRunInRegistrationOrder,
                Some(block.start),
                format!(
                    "{} hooks ran as {:?}, but as {:?} at trace[{}]",
                    block.point, block.names, first.names, first.start
                ),
            ));
        }
    }
}

/// With an exit or max-steps ending and no resume (the first LLM call at
/// step 0), `step_count` is the number of LLM calls.
fn step_count_is_llm_calls(view: &View<'_>, found: &mut Vec<Violation>) {
    let exit_ending = view
        .ending_exit()
        .is_some_and(|(_, reason)| Some(reason) == view.exit_reason());
    if !(exit_ending || view.ended_at_max_steps()) {
        return;
    }
    if view.first_llm_step().and_then(Value::as_i64) != Some(0) {
        return;
    }
    step_count_matches(view, found);
}

pub(super) fn step_count_matches(view: &View<'_>, found: &mut Vec<Violation>) {
    let calls = view.llm_calls() as i64;
    let step_count = view.field(keys::STEP_COUNT).cloned().unwrap_or(Value::Null);
    if step_count.as_i64() != Some(calls) {
        found.push(view.violation(
            Invariant::StepCountIsLlmCalls,
            view.last_before_after_run().map(|(i, _)| i),
            format!("step_count is {step_count} after {calls} LLM call(s)"),
        ));
    }
}

/// `exit_reason` is a string, and the reason of the exit the run ended at.
fn exit_reason_is_known(view: &View<'_>, found: &mut Vec<Violation>) {
    if !view.succeeded() {
        return;
    }
    let reason = view
        .field(keys::EXIT_REASON)
        .cloned()
        .unwrap_or(Value::Null);
    if !reason.is_string() {
        found.push(view.violation(
            Invariant::ExitReasonIsKnown,
            None,
            format!("exit_reason is {reason}, not a string"),
        ));
        return;
    }
    if let Some((i, ended)) = view.ending_exit() {
        if reason.as_str() != Some(ended) {
            found.push(view.violation(
                Invariant::ExitReasonIsKnown,
                Some(i),
                format!("the run ended at an exit on `{ended}`, but exit_reason is {reason}"),
            ));
        }
    }
}

/// An exit that does not continue ends the run; one that continues follows
/// `on_exit` hooks (without them the flag is never read) and is followed by
/// another step unless `max_agent_steps` or a stop ends it.
fn continue_run_is_consumed(view: &View<'_>, found: &mut Vec<Violation>) {
    // Failed runs too: their exits happened before the failure.
    for (i, event) in view.trace[..view.end].iter().enumerate() {
        let TraceKind::Exit { reason, continues } = &event.kind else {
            continue;
        };
        let last = i + 1 == view.end;
        let after_on_exit = i
            .checked_sub(1)
            .is_some_and(|p| event_point(view.trace[p]) == Some(HookPoint::OnExit));
        if *continues && !after_on_exit {
            found.push(view.violation(
                Invariant::ContinueRunIsConsumed,
                Some(i),
                "an exit continued although no on_exit hook ran for it".into(),
            ));
        }
        if !continues && !last {
            found.push(view.violation(
                Invariant::ContinueRunIsConsumed,
                Some(i + 1),
                "the run went on after an exit that did not continue".into(),
            ));
        }
        if *continues
            && last
            && !view.ended_at_max_steps()
            && view.field(keys::EXIT_REASON) == Some(reason)
        {
            found.push(view.violation(
                Invariant::ContinueRunIsConsumed,
                Some(i),
                format!("the run ended at an exit on {reason} that continued"),
            ));
        }
    }
}

/// The first difference between two outcomes of one scenario.
pub(super) fn same_outcome(left: &Outcome, right: &Outcome) -> Vec<Violation> {
    let left_trace: Vec<&TraceEvent> = left.trace.iter().filter(|e| e.on_wire()).collect();
    let (left_wire, right_wire): (Vec<Value>, Vec<Value>) =
        (left.wire_trace().collect(), right.wire_trace().collect());
    let difference = |message: String, at: Option<usize>| {
        vec![Violation::new(
            Invariant::SameOutcome,
            &left_trace,
            at,
            message,
        )]
    };
    let trace_len = left_wire.len().max(right_wire.len());
    for i in 0..trace_len {
        let (a, b) = (left_wire.get(i), right_wire.get(i));
        if a != b {
            let show = |e: Option<&Value>| {
                e.map_or("nothing".to_owned(), |e| {
                    crate::value::sorted(e.clone()).to_string()
                })
            };
            return difference(
                format!("trace[{i}] differs: {} versus {}", show(a), show(b)),
                Some(i.min(left_trace.len().saturating_sub(1))),
            );
        }
    }
    let (mut a, mut b) = (left.to_value(), right.to_value());
    for value in [&mut a, &mut b] {
        if let Value::Object(map) = value {
            map.remove("file");
        }
    }
    if let (Value::Object(a), Value::Object(b)) = (&a, &b) {
        for (key, value) in a {
            if b.get(key) != Some(value) {
                let other = b.get(key).cloned().unwrap_or(Value::Null);
                return difference(format!("`{key}` differs: {value} versus {other}"), None);
            }
        }
    }
    // What the JSON leaves out: the complete trace and the typed error.
    if let Some(i) = (0..left.trace.len().max(right.trace.len()))
        .find(|&i| left.trace.get(i) != right.trace.get(i))
    {
        return difference(
            format!(
                "the complete trace differs at event {i}: {:?} versus {:?}",
                left.trace.get(i),
                right.trace.get(i)
            ),
            None,
        );
    }
    if left.error != right.error {
        return difference(
            format!(
                "the error differs: {:?} versus {:?}",
                left.error, right.error
            ),
            None,
        );
    }
    Vec::new()
}
