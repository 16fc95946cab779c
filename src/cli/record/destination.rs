//! Where `record` writes: every check made before the first live call, and
//! a write that replaces the destination only once the recording is whole.

use crate::cli::ExitCode;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The checked output path, with a temporary file already created beside it
/// (so an unwritable folder is found before any live call). The temporary
/// file is removed unless [`Destination::commit`] renames it into place.
#[derive(Debug)]
pub(super) struct Destination {
    path: PathBuf,
    temporary: PathBuf,
    file: Option<File>,
}

/// Why the output cannot be written, with the exit code it ends with.
#[derive(Debug)]
pub(super) struct Refused {
    pub(super) message: String,
    pub(super) code: ExitCode,
}

fn usage(message: String) -> Refused {
    Refused {
        message,
        code: ExitCode::Usage,
    }
}

impl Destination {
    /// Checks `path` as the output for a recording of `input`: a `.json`
    /// name, not the input itself, not a symbolic link, not a folder, in a
    /// folder that exists and can be written, and not an existing file
    /// unless `force`.
    pub(super) fn prepare(path: &Path, input: &Path, force: bool) -> Result<Self, Refused> {
        let shown = path.display();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            return Err(usage(format!(
                "the recording is written as JSON: give an --output ending in `.json`, got `{shown}`"
            )));
        }
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        if !folder.is_dir() {
            return Err(usage(format!(
                "the folder `{}` of --output `{shown}` does not exist; create it first",
                folder.display()
            )));
        }
        if let Ok(existing) = std::fs::symlink_metadata(path) {
            if existing.file_type().is_symlink() {
                return Err(usage(format!(
                    "`{shown}` is a symbolic link, which `record` does not write through; \
                     give the path of the file itself as --output"
                )));
            }
            if existing.is_dir() {
                return Err(usage(format!(
                    "`{shown}` is a folder; give a `.json` file as --output"
                )));
            }
            let same_as_input = match (path.canonicalize(), input.canonicalize()) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            };
            if same_as_input {
                return Err(usage(format!(
                    "`{shown}` is the input scenario; give another --output (even --force \
                     does not overwrite the input)"
                )));
            }
            if !force {
                return Err(usage(format!(
                    "`{shown}` exists; pass --force to overwrite it"
                )));
            }
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temporary = folder.join(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .map_err(|error| Refused {
                message: format!(
                    "cannot write in the folder `{}` of --output: {error}",
                    folder.display()
                ),
                code: ExitCode::OutputFailed,
            })?;
        Ok(Destination {
            path: path.to_owned(),
            temporary,
            file: Some(file),
        })
    }

    /// Writes `text` and moves it into place; renaming replaces the
    /// destination itself, never a file a link would point to.
    pub(super) fn commit(mut self, text: &str) -> std::io::Result<()> {
        if let Some(mut file) = self.file.take() {
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
        }
        std::fs::rename(&self.temporary, &self.path)
    }
}

impl Drop for Destination {
    fn drop(&mut self) {
        // Committed: the temporary file was renamed away; else remove it.
        let _ = std::fs::remove_file(&self.temporary);
    }
}
