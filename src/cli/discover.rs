//! Finding scenario files under the paths given on the command line.

use std::path::{Path, PathBuf};

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// The scenario files under `paths`: files as given, folders searched
/// recursively for `.yaml`, `.yml` and `.json`, each folder's files sorted.
pub(crate) fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut found)?;
        } else if path.exists() {
            found.push(path.clone());
        } else {
            return Err(format!(
                "{}: no such file or folder; pass scenario files or folders that hold them",
                path.display()
            ));
        }
    }
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read the folder: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, found)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            found.push(path);
        }
    }
    Ok(())
}
