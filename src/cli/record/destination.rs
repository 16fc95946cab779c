//! Where `record` writes: every check made before the first live call, and
//! a write that replaces the destination only once the recording is whole
//! (the shared rules of [`safe_write`](crate::cli::safe_write)).

use crate::cli::ExitCode;
use crate::cli::safe_write::{self, Pending, Refused};
use std::path::Path;

/// The checked output path, with a temporary file already created beside it
/// (so an unwritable folder is found before any live call). The temporary
/// file is removed unless [`Destination::commit`] renames it into place.
#[derive(Debug)]
pub(super) struct Destination(Pending);

impl Destination {
    /// Checks `path` as the output for a recording of `input`: a `.json`
    /// name, not the input itself (nor a hard link to it), not a symbolic
    /// link, not a folder, in a folder that exists and can be written, and
    /// not an existing file unless `force`.
    pub(super) fn prepare(path: &Path, input: &Path, force: bool) -> Result<Self, Refused> {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            return Err(Refused {
                message: format!(
                    "the recording is written as JSON: give an --output ending in `.json`, got `{}`",
                    path.display()
                ),
                code: ExitCode::Usage,
            });
        }
        safe_write::prepare_new(path, safe_write::Named::Given("--output"), &[input], force)
            .map(Destination)
    }

    /// Writes `text` and moves it into place; renaming replaces the
    /// destination itself, never a file a link would point to.
    pub(super) fn commit(self, text: &str) -> Result<(), Refused> {
        self.0.commit(text)
    }
}
