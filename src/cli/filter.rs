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
        let taken =
            filter.is_none_or(|f| name.contains(f) || file.display().to_string().contains(f));
        taken.then_some((file, loaded))
    })
}
