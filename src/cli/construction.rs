//! `check`'s report of an Agent construction error the file alone decides
//! (Haystack's `Agent(...)` would raise it before the first step).

use crate::agent::AgentError;
use std::path::Path;

/// `FILE: the Agent cannot be built: ERROR; fix ..., or expect it with
/// `expect.error``.
pub(super) fn message(file: &Path, error: &AgentError) -> String {
    let error = error.to_string();
    format!(
        "{}: the Agent cannot be built: {}; fix the scenario, or expect the error with \
         `expect.error` to test it",
        file.display(),
        error.trim_end_matches('.')
    )
}
