//! Hook entries: declarative (`when` then `do`), ready-made (tagged by kind),
//! `shared: NAME` and `custom: NAME`. An entry is classified by its keys; an
//! entry that mixes kinds, or is none of them, is an error.

use serde_json::Value;

use super::action::{Action, read_actions};
use super::error::ScenarioErrorKind;
use super::python::{PythonCall, read_python_keys};
use super::reader::{Field, Read};
use super::when::{When, read_when};
use crate::wording::suggest;

/// One hook registered at a hook point (or defined under `shared_hooks`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "a scenario holds a handful of entries, read once; plain fields read better than boxes"
)]
pub enum HookEntry {
    /// A declarative hook: `when` then `do`.
    Declarative {
        /// `name`; unnamed hooks show in the trace as `<point>#<index>`.
        name: Option<String>,
        /// `when`; the default always holds.
        when: When,
        /// `do`, in order; empty by default (a hook that only shows in the trace).
        actions: Vec<Action>,
        /// `allowed_hook_points`; `None` allows every point. Checked by the
        /// Agent at construction, not here.
        allowed_hook_points: Option<Vec<String>>,
    },
    /// A ready-made hook: `{name?, KIND: PARAMS}`.
    ReadyMade {
        /// `name`; unnamed hooks show in the trace as `<point>#<index>`.
        name: Option<String>,
        /// The tag: which Haystack hook.
        kind: ReadyMadeKind,
        /// The constructor parameters, as written (interpreted elsewhere).
        params: Value,
    },
    /// `shared: NAME`: the hook defined under `shared_hooks: {NAME: ...}`.
    Shared(String),
    /// `custom: NAME`: a hook the embedding Rust test registers under NAME.
    Custom(String),
    /// `python: "pkg.module:name"`: the user's own Python hook (the Haystack
    /// engine runs it).
    Python {
        /// `name`; unnamed hooks show in the trace by the object's name.
        name: Option<String>,
        /// The object, its `args` and `models`.
        call: PythonCall,
    },
}

impl HookEntry {
    /// The name the trace shows for this entry: its `name`, else the Python
    /// object's name (for `python:`), the `custom:` or `shared:` name, else
    /// `fallback` (the place, `POINT#INDEX`).
    #[must_use]
    pub fn trace_name(&self, fallback: &str) -> String {
        match self {
            HookEntry::Declarative { name, .. } | HookEntry::ReadyMade { name, .. } => {
                name.clone().unwrap_or_else(|| fallback.to_owned())
            }
            HookEntry::Python { name, call } => {
                name.clone().unwrap_or_else(|| call.short_name().to_owned())
            }
            HookEntry::Custom(name) | HookEntry::Shared(name) => name.clone(),
        }
    }
}

/// The ready-made hooks, named as their tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadyMadeKind {
    /// `token_budget`.
    TokenBudget,
    /// `tool_result_offload`.
    ToolResultOffload,
    /// `compaction`.
    Compaction,
    /// `confirmation`.
    Confirmation,
}

impl ReadyMadeKind {
    /// The tag as written in a scenario.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ReadyMadeKind::TokenBudget => "token_budget",
            ReadyMadeKind::ToolResultOffload => "tool_result_offload",
            ReadyMadeKind::Compaction => "compaction",
            ReadyMadeKind::Confirmation => "confirmation",
        }
    }
}

pub(crate) const READY_MADE: &[(&str, ReadyMadeKind)] = &[
    ("token_budget", ReadyMadeKind::TokenBudget),
    ("tool_result_offload", ReadyMadeKind::ToolResultOffload),
    ("compaction", ReadyMadeKind::Compaction),
    ("confirmation", ReadyMadeKind::Confirmation),
];

/// Every key that marks a hook kind, for suggestions.
const KIND_KEYS: &[&str] = &[
    "name",
    "when",
    "do",
    "allowed_hook_points",
    "token_budget",
    "tool_result_offload",
    "compaction",
    "confirmation",
    "shared",
    "custom",
    "python",
];

/// Where an entry is read: `shared_hooks` definitions cannot be `shared:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    HookPoint,
    SharedDefinition,
}

pub(crate) fn read_hook(field: &Field<'_>, place: Place) -> Read<HookEntry> {
    let map = field
        .map()
        .map_err(|_| field.wrong_type("a hook entry (a map)"))?;
    let keys = map.keys();
    let kind_keys: Vec<String> = keys
        .iter()
        .filter(|k| KIND_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    let has = |k: &str| keys.iter().any(|key| key == k);
    for single in ["shared", "custom"] {
        if has(single) {
            if single == "shared" && place == Place::SharedDefinition {
                return Err(field.error(ScenarioErrorKind::NestedSharedHook));
            }
            let mut map = field.map()?;
            let name = map.required(single)?.string()?;
            map.finish()?;
            return Ok(if single == "shared" {
                HookEntry::Shared(name)
            } else {
                HookEntry::Custom(name)
            });
        }
    }
    if has("python") {
        let others: Vec<String> = kind_keys
            .iter()
            .filter(|k| !matches!(k.as_str(), "python" | "name"))
            .cloned()
            .collect();
        if !others.is_empty() {
            let mut keys = vec!["python".to_owned()];
            keys.extend(others);
            return Err(field.error(ScenarioErrorKind::ConflictingHookKinds { keys }));
        }
        let mut map = field.map()?;
        let name = map
            .get("name")
            .map(|f| f.opt_string())
            .transpose()?
            .flatten();
        let call = read_python_keys(&mut map)?;
        map.finish()?;
        return Ok(HookEntry::Python { name, call });
    }
    let tags: Vec<ReadyMadeKind> = READY_MADE
        .iter()
        .filter(|(tag, _)| has(tag))
        .map(|(_, kind)| *kind)
        .collect();
    let declarative = ["when", "do", "allowed_hook_points"].into_iter().any(&has);
    match tags.as_slice() {
        // `{}` is a declarative hook with no name, condition or action.
        [] if !declarative && !has("name") && !keys.is_empty() => {
            let suggestion = keys.iter().find_map(|k| suggest::closest(k, KIND_KEYS));
            Err(field.error(ScenarioErrorKind::UnknownHookKind { keys, suggestion }))
        }
        [] => read_declarative(field),
        [kind] if !declarative => read_ready_made(field, *kind),
        _ => {
            // `name` belongs to declarative and ready-made hooks alike.
            let keys = kind_keys.into_iter().filter(|k| k != "name").collect();
            Err(field.error(ScenarioErrorKind::ConflictingHookKinds { keys }))
        }
    }
}

fn read_declarative(field: &Field<'_>) -> Read<HookEntry> {
    let mut map = field.map()?;
    let name = map
        .get("name")
        .map(|f| f.opt_string())
        .transpose()?
        .flatten();
    let when = match map.get("when") {
        Some(f) => read_when(&f)?,
        None => When::default(),
    };
    let actions = match map.get("do") {
        Some(f) => read_actions(&f)?,
        None => Vec::new(),
    };
    let allowed_hook_points = map
        .get("allowed_hook_points")
        .map(|f| f.strings())
        .transpose()?;
    map.finish_suggesting(KIND_KEYS)?;
    Ok(HookEntry::Declarative {
        name,
        when,
        actions,
        allowed_hook_points,
    })
}

fn read_ready_made(field: &Field<'_>, kind: ReadyMadeKind) -> Read<HookEntry> {
    let mut map = field.map()?;
    let name = map
        .get("name")
        .map(|f| f.opt_string())
        .transpose()?
        .flatten();
    let params = map.required(kind.as_str())?.json();
    map.finish_suggesting(KIND_KEYS)?;
    Ok(HookEntry::ReadyMade { name, kind, params })
}
