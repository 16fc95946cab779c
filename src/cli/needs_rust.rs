//! The one wording of a scenario the command line cannot run as a whole:
//! it uses a `custom:` hook, which only a test can register (a Rust test on
//! `Replay`, a Python one through the pytest plugin's `hookharness_hooks`).

use crate::scenario::{HookEntry, Scenario};
use std::path::Path;

/// `FILE: not mutated: it uses `custom: NAME`, a hook only Rust can
/// register; mutate it with `API` and a `Replay` that registers it`, for
/// `command` (`mutate`, `explore`) and the Rust entry point `api` that
/// does the same with the hook registered.
pub(super) fn message(file: &Path, name: &str, command: &str, api: &str) -> String {
    format!(
        "{}: not {command}d: it uses `custom: {name}`, a hook your test registers; \
         {command} it with `{api}` and a `Replay` that registers it",
        file.display()
    )
}

/// `check`'s note on a valid file that uses `custom:` hooks: valid, but
/// `hookharness run` can never run it, and how to run it instead.
pub(super) fn note(file: &Path, scenario: &Scenario) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    let entries = scenario.hooks.values().flatten();
    for entry in entries.chain(scenario.shared_hooks.values()) {
        if let HookEntry::Custom(name) = entry {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let first = names.first()?;
    let listed = names
        .iter()
        .map(|n| format!("`custom: {n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!(
        "{}: valid, but it uses {listed}, a hook your test registers, so `hookharness run` cannot \
         run it alone; run it from a Rust test with `Replay::new().custom_hook(\"{first}\", hook)`, \
         or with pytest, your conftest.py's `hookharness_hooks` fixture giving it (docs/pytest.md)",
        file.display()
    ))
}
