//! `check`'s report of an Agent construction error the file alone decides
//! (Haystack's `Agent(...)` would raise it before the first step), at the
//! key it comes from when the error names one.

use crate::agent::AgentError;
use crate::hook::HookPoint;
use crate::scenario::{closest, key_position};
use std::path::Path;

/// `FILE[:LINE:COLUMN]: the Agent cannot be built: ERROR; did you mean
/// ...? (or expect the error with `expect.error` to test it)`.
pub(super) fn message(file: &Path, error: &AgentError) -> String {
    let mut place = file.display().to_string();
    let mut hint = "fix the scenario".to_owned();
    if let AgentError::InvalidHookPoint(invalid) = error {
        if let Some((line, column)) = key_position(file, &["hooks", &invalid.0]) {
            place = format!("{place}:{line}:{column}");
        }
        let names = HookPoint::ALL.map(|point| point.as_str());
        if let Some(name) = closest(&invalid.0, names) {
            hint = format!("did you mean `{name}`?");
        }
    }
    let error = error.to_string();
    format!(
        "{place}: the Agent cannot be built: {}; {hint} (or expect the error with \
         `expect.error` to test it)",
        error.trim_end_matches('.')
    )
}
