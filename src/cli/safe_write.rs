//! Writing a command's files safely, one way for every command (`record`,
//! `rebase`, `import --output`, `explore --out`, `generate --out`).
//!
//! - The text goes to a temporary file created exclusively (`O_EXCL`: a
//!   link or a file already at that name is never opened) under a unique
//!   name in the destination's own folder, and is renamed into place once
//!   whole: a failed write leaves nothing, and the old file stays whole.
//!   The temporary file exists only while the text is written: checking a
//!   destination creates one and removes it at once (so an unwritable
//!   folder is found before any work), and the one written is created by
//!   [`Pending::commit`]; a process that aborts or is killed while it works
//!   leaves no file behind.
//! - A new file ([`prepare_new`]) is never a command's own input (compared
//!   after resolving links, and by device and inode: a hard link to an
//!   input is refused too), never a symbolic link or a folder, and never
//!   an existing file unless `--force`. [`check_new`] checks a file the
//!   same way without touching the folder, so that a command writing
//!   several files checks them all before it writes the first.
//! - A file rewritten in place ([`prepare_rewrite`]) is written through a
//!   symbolic link to its target; it keeps its mode (and its owner, where
//!   the process may set it); a file with several hard links is refused
//!   (a rename would split them); and the rename happens only when the
//!   file still holds what was read (an edit saved meanwhile is never lost).
//!
//! Refusals end the command with [`ExitCode::Usage`] (4), as a wrong
//! command line does; a write that fails ends it with
//! [`ExitCode::OutputFailed`] (5).

use super::ExitCode;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a file is not written, with the exit code the command ends with.
#[derive(Debug)]
pub(crate) struct Refused {
    /// What is wrong and what to do instead.
    pub(crate) message: String,
    /// [`ExitCode::Usage`] for a refusal, [`ExitCode::OutputFailed`] for a
    /// write that failed.
    pub(crate) code: ExitCode,
}

fn refused(message: String) -> Refused {
    Refused {
        message,
        code: ExitCode::Usage,
    }
}

fn failed(message: String) -> Refused {
    Refused {
        message,
        code: ExitCode::OutputFailed,
    }
}

/// A destination checked, its folder found writable; [`Pending::commit`]
/// writes a temporary file beside it and renames it into place.
#[derive(Debug)]
pub(crate) struct Pending {
    path: PathBuf,
    /// Names the destination in messages (`--output`, `the file`).
    what: String,
    /// For a rewrite: the text the file held when it was read, and its
    /// metadata (the new file gets its mode and owner).
    rewrite: Option<(Vec<u8>, std::fs::Metadata)>,
}

/// The folder a path is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `existing` (the metadata of a file already at a destination)
/// is the file at `input` under another name: a hard link, which the
/// rename would split, leaving the input's other name with the old text.
#[cfg(unix)]
fn same_inode(existing: &std::fs::Metadata, input: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(input)
        .is_ok_and(|input| (input.dev(), input.ino()) == (existing.dev(), existing.ino()))
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &Path) -> bool {
    false
}

/// How a new file is named in messages, and so what a refusal advises.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Named<'a> {
    /// A path the user gave, named by its flag (`--output`): the advice is
    /// to give another.
    Given(&'a str),
    /// A name the command chose in a folder the user gave: `what` the file
    /// is (`the variant`), `by` the command (`explore`), `folder` the
    /// folder's flag (`--out`): the advice is to remove what is at that
    /// name, or give another folder.
    Chosen {
        what: &'a str,
        by: &'a str,
        folder: &'a str,
    },
}

impl Named<'_> {
    /// What the file is (`--output`, `the variant`).
    fn what(&self) -> &str {
        match self {
            Named::Given(what) | Named::Chosen { what, .. } => what,
        }
    }

    /// What to do about a link at the destination.
    fn instead_of_link(&self) -> String {
        match self {
            Named::Given(what) => format!("give another {what}"),
            Named::Chosen { what, by, folder } => format!(
                "{by} chose this name for {what} in {folder}: remove the link, \
                 or give another {folder}"
            ),
        }
    }
}

/// Checks `path` as a new file of the command, `named` naming it in
/// messages (`--output`): its folder exists, it is none of `inputs` (by
/// path, through links, or as a hard link to one), not a link, not a
/// folder, and not an existing file unless `force`. Nothing is created:
/// a command that writes several files checks each first, so that a
/// refusal leaves none written.
pub(crate) fn check_new(
    path: &Path,
    named: Named<'_>,
    inputs: &[&Path],
    force: bool,
) -> Result<(), Refused> {
    let what = named.what();
    let shown = path.display();
    let folder = folder_of(path);
    if !folder.is_dir() {
        return Err(refused(format!(
            "the folder `{}` of {what} `{shown}` does not exist; create it first",
            folder.display()
        )));
    }
    if inputs.iter().any(|input| same_file(path, input)) {
        return Err(refused(format!(
            "`{shown}` is the input file; give another {what} (even --force \
             does not overwrite the input)"
        )));
    }
    if let Ok(existing) = std::fs::symlink_metadata(path) {
        if existing.file_type().is_symlink() {
            let instead = match named {
                Named::Given(what) => format!("give the path of the file itself as {what}"),
                Named::Chosen { .. } => named.instead_of_link(),
            };
            return Err(refused(format!(
                "`{shown}` is a symbolic link, which is not written through; {instead}"
            )));
        }
        if let Some(input) = inputs.iter().find(|input| same_inode(&existing, input)) {
            return Err(refused(format!(
                "`{shown}` is a hard link to the input file `{}`; {} (even --force \
                 does not overwrite the input)",
                input.display(),
                named.instead_of_link()
            )));
        }
        if existing.is_dir() {
            return Err(refused(format!(
                "`{shown}` is a folder; give a file as {what}"
            )));
        }
        if !force {
            return Err(refused(format!(
                "`{shown}` exists; pass --force to overwrite it"
            )));
        }
    }
    Ok(())
}

/// [`check_new`], and then whether a temporary file can be created in the
/// folder: what [`Pending::commit`] writes.
pub(crate) fn prepare_new(
    path: &Path,
    named: Named<'_>,
    inputs: &[&Path],
    force: bool,
) -> Result<Pending, Refused> {
    check_new(path, named, inputs, force)?;
    let what = named.what();
    probe_folder(path, what)?;
    Ok(Pending {
        path: path.to_owned(),
        what: what.to_owned(),
        rewrite: None,
    })
}

/// Checks `path` for a rewrite of the text `read` from it: through a link
/// to its target, a file with one hard link; the temporary file gets the
/// file's mode and owner.
pub(crate) fn prepare_rewrite(path: &Path, read: &[u8]) -> Result<Pending, Refused> {
    let shown = path.display();
    let target = path
        .canonicalize()
        .map_err(|error| failed(format!("`{shown}` cannot be resolved: {error}")))?;
    let metadata = std::fs::metadata(&target)
        .map_err(|error| failed(format!("`{shown}` cannot be read: {error}")))?;
    if hard_links(&metadata) > 1 {
        return Err(refused(format!(
            "`{shown}` has {} hard links, which a rewrite (a new file renamed into place) \
             would split; copy the file, rebase the copy, and move it back over each link",
            hard_links(&metadata)
        )));
    }
    probe_folder(&target, "the file")?;
    Ok(Pending {
        path: target,
        what: "the file".to_owned(),
        rewrite: Some((read.to_owned(), metadata)),
    })
}

/// Finds out whether a temporary file can be created beside `path`, and
/// removes it at once.
fn probe_folder(path: &Path, what: &str) -> Result<(), Refused> {
    let (temporary, file) = temporary_beside(path, what)?;
    drop(file);
    drop(Temporary(temporary));
    Ok(())
}

/// A temporary file, removed when dropped unless renamed away first.
struct Temporary(PathBuf);

impl Drop for Temporary {
    fn drop(&mut self) {
        // Renamed into place: nothing is at this name any more.
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(unix)]
fn hard_links(metadata: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(metadata)
}

#[cfg(not(unix))]
fn hard_links(_: &std::fs::Metadata) -> u64 {
    1
}

/// Gives `file` the owner of the file it replaces, where the process may
/// (a file of its own user already has it).
#[cfg(unix)]
fn keep_owner(file: &File, metadata: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let _ = std::os::unix::fs::fchown(file, Some(metadata.uid()), Some(metadata.gid()));
}

#[cfg(not(unix))]
fn keep_owner(_: &File, _: &std::fs::Metadata) {}

/// A new file beside `path`, created exclusively under a name no other
/// file has: `.NAME.PID.N.tmp`.
fn temporary_beside(path: &Path, what: &str) -> Result<(PathBuf, File), Refused> {
    let folder = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for attempt in 0..1000 {
        let temporary = folder.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        match File::options()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => return Ok((temporary, file)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => {
                return Err(failed(format!(
                    "cannot write in the folder `{}` of {what}: {error}",
                    folder.display()
                )));
            }
        }
    }
    Err(failed(format!(
        "cannot find a free temporary name in the folder `{}` of {what}",
        folder.display()
    )))
}

impl Pending {
    /// Writes `text` to a new temporary file and renames it into place. A
    /// rewrite first checks that the file still holds what was read, and
    /// leaves it untouched if not. On any failure the temporary file is
    /// removed.
    pub(crate) fn commit(self, text: &str) -> Result<(), Refused> {
        let shown = self.path.display().to_string();
        let (temporary, mut file) = temporary_beside(&self.path, &self.what)?;
        let temporary = Temporary(temporary);
        if let Some((_, metadata)) = &self.rewrite {
            file.set_permissions(metadata.permissions())
                .map_err(|error| failed(format!("`{shown}`: cannot keep its mode: {error}")))?;
            keep_owner(&file, metadata);
        }
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|error| failed(format!("`{shown}` cannot be written: {error}")))?;
        drop(file);
        if let Some((expected, _)) = &self.rewrite {
            let now = std::fs::read(&self.path)
                .map_err(|error| failed(format!("`{shown}` cannot be read again: {error}")))?;
            if &now != expected {
                return Err(refused(format!(
                    "`{shown}` changed while the command ran; nothing was written: \
                     run the command again on the saved file"
                )));
            }
        }
        std::fs::rename(&temporary.0, &self.path)
            .map_err(|error| failed(format!("`{shown}` cannot be replaced: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "hookharness-safe-write-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_new_file_is_never_an_input_a_link_or_an_existing_file_without_force() {
        let dir = scratch("new");
        let input = dir.join("in.yaml");
        std::fs::write(&input, "a").unwrap();
        let error = prepare_new(&input, Named::Given("--output"), &[&input], true).unwrap_err();
        assert_eq!(error.code, ExitCode::Usage);
        assert!(
            error.message.contains("is the input file"),
            "{}",
            error.message
        );
        let exists = dir.join("out.json");
        std::fs::write(&exists, "old").unwrap();
        let error = prepare_new(&exists, Named::Given("--output"), &[&input], false).unwrap_err();
        assert!(error.message.contains("pass --force"), "{}", error.message);
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            let error = prepare_new(&link, Named::Given("--output"), &[], true).unwrap_err();
            assert!(
                error.message.contains("is the input file")
                    || error.message.contains("symbolic link")
            );
            let error = prepare_new(&link, Named::Given("--output"), &[&exists], true).unwrap_err();
            assert!(error.message.contains("symbolic link"), "{}", error.message);
        }
        let pending = prepare_new(&exists, Named::Given("--output"), &[&input], true).unwrap();
        // Until the commit, no temporary file exists: a process killed while
        // it works leaves nothing.
        let waiting: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(waiting.len(), 2 + usize::from(cfg!(unix)));
        pending.commit("new").unwrap();
        assert_eq!(std::fs::read_to_string(&exists).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(
            left.len(),
            2 + usize::from(cfg!(unix)),
            "no temporary file is left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_rewrite_goes_through_links_keeps_the_mode_and_refuses_a_changed_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("rewrite");
        let real = dir.join("real.yaml");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link.yaml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        // A link planted at a temporary name is never followed.
        let planted = dir.join(format!(".real.yaml.{}.0.tmp", std::process::id()));
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, &planted).unwrap();

        prepare_rewrite(&link, b"old")
            .unwrap()
            .commit("new")
            .unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");

        let pending = prepare_rewrite(&real, b"new").unwrap();
        std::fs::write(&real, "edited meanwhile").unwrap();
        let error = pending.commit("rebased").unwrap_err();
        assert_eq!(error.code, ExitCode::Usage);
        assert!(
            error.message.contains("changed while the command ran"),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "edited meanwhile");

        let hard = dir.join("hard.yaml");
        std::fs::hard_link(&real, &hard).unwrap();
        let error = prepare_rewrite(&real, b"edited meanwhile").unwrap_err();
        assert!(error.message.contains("2 hard links"), "{}", error.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
