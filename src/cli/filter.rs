//! `--filter TEXT`: a scenario is taken when its name or its file contains
//! TEXT; a file that does not load, when its path does.

use crate::scenario::{Scenario, ScenarioError};
use std::path::PathBuf;

/// The files `filter` takes, each loaded, in order.
pub(super) fn loaded<'a>(
    files: &'a [PathBuf],
    filter: Option<&'a str>,
) -> impl Iterator<Item = (&'a PathBuf, Result<Scenario, ScenarioError>)> + 'a {
    files.iter().filter_map(move |file| {
        let loaded = Scenario::from_path(file);
        let name = loaded.as_ref().map_or("", |s| s.name.as_str());
        let taken = takes(filter, name, &file.display().to_string());
        taken.then_some((file, loaded))
    })
}

/// Whether `filter` takes the scenario `name` of `file` (an empty name for
/// a file that does not load): every command's `--filter`, one rule.
pub(super) fn takes(filter: Option<&str>, name: &str, file: &str) -> bool {
    filter.is_none_or(|f| name.contains(f) || file.contains(f))
}
