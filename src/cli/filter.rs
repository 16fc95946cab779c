//! `--filter TEXT`: a scenario is taken when its name or its file contains
//! TEXT; a file that does not load, when its path does.

/// Whether `filter` takes the scenario `name` of `file` (an empty name for
/// a file that does not load): every command's `--filter`, one rule.
pub(super) fn takes(filter: Option<&str>, name: &str, file: &str) -> bool {
    filter.is_none_or(|f| name.contains(f) || file.contains(f))
}
