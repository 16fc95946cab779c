//! A scenario written to another folder than the one it was read from
//! (`explore --out`): its `python_path` entries are relative to the file's
//! folder, so they are rewritten to reach the same folders from the new one.

use std::path::{Component, Path, PathBuf};

use super::Scenario;

impl Scenario {
    /// This scenario as a file in `to` finds the same Python code as it did
    /// read from `from` (the folder of the file it came from): each
    /// `python_path` entry (the default `.` when none is written) is
    /// rewritten relative to `to`. A scenario without Python is unchanged.
    #[must_use]
    pub fn relocated(mut self, from: &Path, to: &Path) -> Scenario {
        if !self.needs_python() && self.python.python_path.is_empty() {
            return self;
        }
        let (Some(from), Some(to)) = (normal(from), normal(to)) else {
            return self;
        };
        if from == to {
            return self;
        }
        let entries = if self.python.python_path.is_empty() {
            vec![".".to_owned()]
        } else {
            std::mem::take(&mut self.python.python_path)
        };
        self.python.python_path = entries
            .into_iter()
            .map(|entry| match normal(&from.join(&entry)) {
                Some(target) => relative(&to, &target),
                None => entry,
            })
            .collect();
        self
    }
}

/// `path` made absolute and without `.` or `..` (lexically: the loader
/// and the worker join `python_path` entries the same way).
fn normal(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// `target` as a path relative to `base` (both normal), `/`-separated; `.`
/// for the same folder.
fn relative(base: &Path, target: &Path) -> String {
    let base: Vec<Component<'_>> = base.components().collect();
    let target: Vec<Component<'_>> = target.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return target_display(&target);
    }
    let mut parts: Vec<String> = vec!["..".to_owned(); base.len() - common];
    parts.extend(
        target[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

fn target_display(target: &[Component<'_>]) -> String {
    target.iter().collect::<PathBuf>().display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_written_from_the_new_folder_to_the_same_target() {
        let cases = [
            ("/a/b", "/a/b/c", "c"),
            ("/a/b/out", "/a/b", ".."),
            ("/a/b", "/a/b", "."),
            ("/tmp/x", "/work/ex/haystack", "../../work/ex/haystack"),
        ];
        for (base, target, want) in cases {
            assert_eq!(
                relative(Path::new(base), Path::new(target)),
                want,
                "{base} -> {target}"
            );
        }
    }

    #[test]
    fn dots_are_resolved_lexically() {
        assert_eq!(
            normal(Path::new("/a/b/../c/./d")).unwrap(),
            PathBuf::from("/a/c/d")
        );
    }
}
