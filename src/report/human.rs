//! The report people read.

use super::Summary;
use super::diff::json_diff;
use crate::outcome::{Failure, Outcome, Status};
use std::fmt::Write;

/// One outcome: a status line, then, for a run that failed, its cause (the
/// expectations it left unchecked follow from it), then each failure (with
/// a diff for lists and maps).
pub fn human_outcome(outcome: &Outcome) -> String {
    let tag = match outcome.status {
        Status::Pass => "PASS ",
        Status::Fail => "FAIL ",
        Status::Error | Status::Invalid => "ERROR",
    };
    let mut out = format!("{tag} {}  ({})\n", outcome.file, outcome.scenario);
    if matches!(outcome.status, Status::Error | Status::Invalid) {
        if let Some(error) = &outcome.error {
            let _ = writeln!(out, "      {error}");
        }
    }
    for failure in &outcome.failures {
        for line in failure_text(failure).lines() {
            let _ = writeln!(out, "      {line}");
        }
    }
    out
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
