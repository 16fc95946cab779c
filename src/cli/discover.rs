//! Finding scenario files under the paths given on the command line.
//!
//! A path given by name is always taken: a folder is searched, anything else
//! is a file to load, so that a missing or unreadable one gets its own error
//! in the report while the other paths still run. Inside a searched folder:
//!
//! - files ending in `.yaml`, `.yml` or `.json` (any case) are scenarios;
//!   a symbolic link to such a file is followed; a `.json` file that is
//!   JSON but no scenario (no top-level `model`: a Haystack `agent.json`
//!   dump, a tool's output) is skipped with a note on stderr;
//! - hidden entries (`.git/`, `.#draft.yaml`) and `target/` are skipped;
//!   name one on the command line to search it;
//! - symbolic links to folders are not followed (no cycles), and FIFOs,
//!   sockets, devices and dangling or looping links are skipped, each with
//!   a warning on stderr.
//!
//! A file found in a folder is taken once, whichever paths reach it
//! (compared after resolving links): not at all when the command line
//! names it, else the file itself over a link to it, else the first found;
//! each path skipped gets a note on stderr.
//!
//! Each folder's entries are taken in name order, so runs list the same
//! files in the same order.

use super::output::errln;
use crate::scenario::not_a_file;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Build output: searching it finds tool and compiler JSON, not scenarios.
const SKIPPED_FOLDERS: [&str; 1] = ["target"];

/// How a file was reached, best first: the path it is kept under when
/// several reach it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reached {
    Named,
    Itself,
    ByLink,
}

/// The scenario files under `paths` (see the module docs).
pub(crate) fn discover(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut found);
        } else {
            found.push((path.clone(), Reached::Named));
        }
    }
    once_each(found)
}

/// `found` with each file once (see the module docs). A path named on the
/// command line is always kept (naming a file twice runs it twice); a path
/// that does not resolve (a missing named file) is kept, for the loader to
/// report.
fn once_each(found: Vec<(PathBuf, Reached)>) -> Vec<PathBuf> {
    let keys: Vec<Option<PathBuf>> = found.iter().map(|(p, _)| p.canonicalize().ok()).collect();
    let mut best: HashMap<&Path, usize> = HashMap::new();
    for (index, key) in keys.iter().enumerate() {
        if let Some(key) = key {
            let kept = best.entry(key).or_insert(index);
            if found[index].1 < found[*kept].1 {
                *kept = index;
            }
        }
    }
    let mut kept = Vec::with_capacity(found.len());
    for (index, (path, reached)) in found.iter().enumerate() {
        match keys[index].as_deref().map(|key| best[key]) {
            Some(chosen) if chosen != index && *reached != Reached::Named => errln!(
                "note: {}: skipped, the same file as {} (each file runs once)",
                path.display(),
                found[chosen].0.display()
            ),
            _ => kept.push(path.clone()),
        }
    }
    kept
}

fn walk(dir: &Path, found: &mut Vec<(PathBuf, Reached)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            errln!(
                "warning: {}: cannot read the folder: {error}",
                dir.display()
            );
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.as_deref().unwrap_or_default();
        if name.starts_with('.') {
            continue;
        }
        // `symlink_metadata` does not follow a link; `metadata` does.
        let Ok(own) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if own.is_dir() {
            if !SKIPPED_FOLDERS.contains(&name) {
                walk(&path, found);
            }
            continue;
        }
        let target = std::fs::metadata(&path);
        if own.is_symlink() && target.as_ref().is_ok_and(std::fs::Metadata::is_dir) {
            errln!(
                "warning: {}: a link to a folder, not followed; name the folder to search it",
                path.display()
            );
            continue;
        }
        if !is_scenario_name(&path) {
            continue;
        }
        match target {
            Ok(target) if target.is_file() => {
                if let Some(note) = not_a_scenario(&path) {
                    errln!("{note}");
                    continue;
                }
                let reached = if own.is_symlink() {
                    Reached::ByLink
                } else {
                    Reached::Itself
                };
                found.push((path, reached));
            }
            Ok(target) => errln!(
                "warning: {}: skipped, not a regular file ({})",
                path.display(),
                not_a_file(&target.file_type())
            ),
            Err(error) => errln!(
                "warning: {}: skipped, a link whose target cannot be read ({error})",
                path.display()
            ),
        }
    }
}

fn is_scenario_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// The note for a `.json` file found in a folder that holds JSON but not a
/// scenario: its top level is not a map with `model`, the one key every
/// scenario has. A file that is not JSON at all is left to the loader,
/// whose error names the place.
fn not_a_scenario(path: &Path) -> Option<String> {
    let json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if !json {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    if value.get("model").is_some() {
        return None;
    }
    let what = if value.get("type").is_some() && value.get("init_parameters").is_some()
        || value.get("components").is_some()
    {
        "a Haystack dump, not a scenario: `hookharness import FILE` writes a scenario from it"
    } else {
        "JSON without a top-level `model`, not a scenario"
    };
    Some(format!(
        "note: {}: skipped, {what}; name the file on the command line to load it anyway",
        path.display()
    ))
}
