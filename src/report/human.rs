//! The report people read.

use super::Summary;
use super::diff::json_diff;
use crate::outcome::{Outcome, Status};
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
        let _ = writeln!(out, "      {}", failure.message);
        if let (Some(expected), Some(actual)) = (&failure.expected, &failure.actual) {
            if let Some(diff) = json_diff(expected, actual) {
                out.push_str("        --- expected / +++ actual\n");
                for line in diff.lines() {
                    let _ = writeln!(out, "        {line}");
                }
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
