//! The report people read.

use super::Summary;
use super::diff::json_diff;
use super::explain::{TAIL_EVENTS, tail};
use crate::outcome::{Failure, Outcome, Status};
use std::fmt::Write;

/// One outcome: a status line, then, for a run that failed, its cause (the
/// expectations it left unchecked follow from it), then each failure (with
/// a diff for lists and maps), then the last events of the run's trace
/// (where it failed, or how it ended), as `hookharness explain` shows them.
///
/// ```
/// use hookharness::replay::Replay;
/// use hookharness::report::human_outcome;
/// use hookharness::scenario::{Format, Scenario};
///
/// let mut scenario = Scenario::from_str(
///     "model: [{text: hi}]\nexpect: {exit_reason: max_agent_steps}",
///     "ends.yaml",
///     Format::Yaml,
/// )?;
/// scenario.file = Some("ends.yaml".into());
/// assert_eq!(
///     human_outcome(&Replay::new().run(&scenario)),
///     "FAIL  ends.yaml  (ends)\n\
///      \x20     exit_reason: expected \"max_agent_steps\", got \"text\"\n\
///      \x20     trace, last events:\n\
///      \x20       run starts with 0 message(s)\n\
///      \x20       [step 0] model receives 0 message(s)\n\
///      \x20           model answers assistant: \"hi\"\n\
///      \x20       [step 1] exit attempt (\"text\"): the run ends\n\
///      \x20       run ends: exit_reason \"text\", step_count 1\n"
/// );
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
pub fn human_outcome(outcome: &Outcome) -> String {
    let tag = match outcome.status {
        Status::Pass => "PASS ",
        Status::Fail => "FAIL ",
        Status::Error | Status::Invalid => "ERROR",
    };
    let mut out = format!("{tag} {}  ({})\n", outcome.file, outcome.scenario);
    if matches!(outcome.status, Status::Error | Status::Invalid) {
        if let Some(error) = &outcome.error {
            // An invalid file may have several errors, one per line.
            for line in error.message.lines() {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    for failure in &outcome.failures {
        for line in failure_text(failure).lines() {
            let _ = writeln!(out, "      {line}");
        }
    }
    if outcome.status != Status::Pass {
        if let Some(tail) = trace_text(outcome) {
            for line in tail.lines() {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    out
}

/// The end of a failed or failing run's trace, under its heading: the
/// human report and the JUnit document show the same lines.
pub(crate) fn trace_text(outcome: &Outcome) -> Option<String> {
    let tail = tail(outcome, TAIL_EVENTS)?;
    let mut out = String::from("trace, last events:");
    for line in tail.lines() {
        let _ = write!(out, "\n  {line}");
    }
    Some(out)
}

/// One failure as people read it: its line, then, when it compares two
/// lists or two maps, a diff of expected against actual. The JUnit report
/// carries the same text.
pub(crate) fn failure_text(failure: &Failure) -> String {
    let mut out = failure.message.clone();
    if let (Some(expected), Some(actual)) = (&failure.expected, &failure.actual) {
        if let Some(diff) = json_diff(expected, actual) {
            out.push_str("\n  --- expected / +++ actual");
            for line in diff.lines() {
                let _ = write!(out, "\n  {line}");
            }
        }
    }
    out
}

/// The closing line: `N passed, N failed, N errors`.
pub fn human_summary(summary: &Summary) -> String {
    format!(
        "{} passed, {} failed, {} errors",
        summary.passed, summary.failed, summary.errors
    )
}
