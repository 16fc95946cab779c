//! The one wording of a scenario the command line cannot run as a whole:
//! it uses a `custom:` hook, which only a Rust test can register.

use std::path::Path;

/// `FILE: not mutated: it uses `custom: NAME`, a hook only Rust can
/// register; mutate it with `API` and a `Replay` that registers it`, for
/// `command` (`mutate`, `explore`) and the Rust entry point `api` that
/// does the same with the hook registered.
pub(super) fn message(file: &Path, name: &str, command: &str, api: &str) -> String {
    format!(
        "{}: not {command}d: it uses `custom: {name}`, a hook only Rust can register; \
         {command} it with `{api}` and a `Replay` that registers it",
        file.display()
    )
}
