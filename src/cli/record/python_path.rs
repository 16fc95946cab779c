//! A recording written to another folder than its input keeps importing the
//! same Python code: `python_path` is relative to the scenario file's
//! folder, so each entry is rewritten relative to the output's folder (and
//! the default, the input's own folder, is written out).

use std::path::{Component, Path};

/// `entries` (relative to the folder of `input`, `["."]` when empty) as
/// the same folders relative to the folder of `output`; unchanged when both
/// files are in one folder. An entry naming a folder that does not exist,
/// or an absolute one, is kept as written.
pub(super) fn moved(entries: &[String], input: &Path, output: &Path) -> Vec<String> {
    let folder = |file: &Path| {
        let parent = file.parent().filter(|p| !p.as_os_str().is_empty());
        parent.unwrap_or(Path::new(".")).canonicalize().ok()
    };
    let (Some(from), Some(to)) = (folder(input), folder(output)) else {
        return entries.to_vec();
    };
    if from == to {
        return entries.to_vec();
    }
    let defaulted = [".".to_owned()];
    let entries = if entries.is_empty() {
        &defaulted[..]
    } else {
        entries
    };
    entries
        .iter()
        .map(|entry| {
            if Path::new(entry).is_absolute() {
                return entry.clone();
            }
            match from.join(entry).canonicalize() {
                Ok(target) => relative(&target, &to),
                Err(_) => entry.clone(),
            }
        })
        .collect()
}

/// `target` relative to `base` (both canonical), with `/` between parts.
fn relative(target: &Path, base: &Path) -> String {
    let target: Vec<Component<'_>> = target.components().collect();
    let base: Vec<Component<'_>> = base.components().collect();
    let shared = target.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); base.len() - shared];
    parts.extend(
        target[shared..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        return ".".to_owned();
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tree(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("hh-python-path-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["project/scenarios", "project/code", "out/deep"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        root
    }

    #[test]
    fn entries_follow_the_recording_to_its_folder() {
        let root = tree("moved");
        let input = root.join("project/scenarios/a.yaml");
        let output = root.join("out/deep/a.json");
        let moved = moved(&["../code".to_owned(), ".".to_owned()], &input, &output);
        assert_eq!(moved, ["../../project/code", "../../project/scenarios"]);
        // The default, the input's folder, is written out.
        assert_eq!(
            super::moved(&[], &input, &output),
            ["../../project/scenarios"]
        );
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_recording_beside_its_input_keeps_the_entries_as_written() {
        let root = tree("beside");
        let input = root.join("project/scenarios/a.yaml");
        let output = root.join("project/scenarios/a.recorded.json");
        assert_eq!(moved(&["../code".to_owned()], &input, &output), ["../code"]);
        assert!(moved(&[], &input, &output).is_empty());
        // A folder that does not exist is kept as written.
        let elsewhere = root.join("out/a.json");
        assert_eq!(
            moved(&["nowhere".to_owned()], &input, &elsewhere),
            ["nowhere"]
        );
        let _ = std::fs::remove_dir_all(root);
    }
}
