//! The `Scenario` type and the reading of the top level.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use super::agent::{AgentSpec, read_agent};
use super::error::ScenarioErrorKind;
use super::hook::{HookEntry, Place, read_hook};
use super::model::read_reply;
use super::node::{Entry, Node, NodeValue};
use super::python::{NamedModel, PythonSpec, check_model_names, read_clock, read_models};
use super::reader::{Field, Read};
use super::run::{RunSpec, read_run};
use super::sees::{Sees, read_sees};
use super::source_map::SourceMap;
use super::tool::{ToolScript, read_tool};
use crate::expect::{Expect, read_expect};
use crate::scripted::ModelReply;
use crate::wording::suggest;

/// The format versions this loader reads.
pub const SUPPORTED_VERSIONS: &[i64] = &[1];

/// One scripted agent run, as loaded from a scenario file: immutable input
/// to a run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Scenario {
    /// `version` (default 1).
    pub version: i64,
    /// `name` (default: the file stem).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// The file it was loaded from (`None` when loaded from text).
    pub file: Option<PathBuf>,
    /// `agent`.
    pub agent: AgentSpec,
    /// `tools`, in order.
    pub tools: Vec<ToolScript>,
    /// `hooks`: hook point -> entries in run order. Points are not checked
    /// here: an unknown point is an Agent construction error.
    pub hooks: IndexMap<String, Vec<HookEntry>>,
    /// `shared_hooks`: name -> the hook registered wherever `shared: NAME` is.
    pub shared_hooks: IndexMap<String, HookEntry>,
    /// `model`: the chat generator's replies, one per LLM call.
    pub model: Vec<ModelReply>,
    /// `model[i].sees`, by reply index: what the request each reply answers
    /// must show.
    pub sees: BTreeMap<usize, Sees>,
    /// `run`.
    pub run: RunSpec,
    /// `expect`.
    pub expect: Expect,
    /// `python_path`, `clock` and `models`: what the user's Python code
    /// is given (the Haystack engine).
    pub python: PythonSpec,
    /// Where each key is written, kept by the loader for the errors found
    /// after loading (empty for a scenario built in code).
    pub(crate) source: SourceMap,
}

impl Scenario {
    /// Every hook entry, the `shared_hooks` definitions included.
    fn all_hook_entries(&self) -> impl Iterator<Item = &HookEntry> {
        self.hooks
            .values()
            .flatten()
            .chain(self.shared_hooks.values())
    }

    /// The `custom:` names the scenario uses, in file order.
    #[must_use]
    pub fn custom_hook_names(&self) -> Vec<&str> {
        self.all_hook_entries()
            .filter_map(|entry| match entry {
                HookEntry::Custom(name) => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// `true` when the scenario runs the user's Python code (a `python:`
    /// hook or agent, or an Agent the pytest plugin registers): only the
    /// Haystack engine runs it.
    #[must_use]
    pub fn needs_python(&self) -> bool {
        self.agent.python.is_some()
            || self.agent.custom.is_some()
            || self
                .all_hook_entries()
                .any(|entry| matches!(entry, HookEntry::Python { .. }))
    }
}

/// Reads the scenario at `root`. `model_items`, when given, are the items
/// of the `model` list taken out of the tree (which keeps an empty list in
/// their place): each is dropped once read, so that the tree and the
/// replies built from it are not both whole in memory; their `sees`
/// entries are kept in `sees_entries`, by reply index, for the source map.
pub(crate) fn read_scenario(
    root: &Field<'_>,
    origin: &str,
    model_items: Option<Vec<Node>>,
    sees_entries: &mut BTreeMap<usize, Entry>,
) -> Read<Scenario> {
    let mut map = root
        .map()
        .map_err(|_| root.wrong_type("a map of scenario keys (with at least `model`)"))?;
    // Every key first, in the format's order, so that an unknown key is
    // reported before anything inside the known ones.
    let version = map.get("version");
    let name = map.get("name");
    let description = map.get("description");
    let agent = map.get("agent");
    let tools = map.get("tools");
    let hooks = map.get("hooks");
    let model = map.required("model")?;
    let run = map.get("run");
    let expect = map.get("expect");
    let shared = map.get("shared_hooks");
    let python_path = map.get("python_path");
    let clock = map.get("clock");
    let models = map.get("models");
    map.finish()?;
    let mut python = PythonSpec::default();
    if let Some(f) = python_path {
        for entry in f.seq()? {
            let value = entry.string()?;
            if value.contains('\0') {
                return Err(entry.error(ScenarioErrorKind::PythonPathNul { value }));
            }
            python.python_path.push(value);
        }
    }
    if let Some(f) = clock {
        python.clock = Some(read_clock(&f)?);
    }
    if let Some(f) = models {
        python.models = read_models(&f)?;
    }

    let version = match version {
        Some(f) => read_version(&f)?,
        None => 1,
    };
    let name = match name {
        Some(f) => f.string()?,
        None => file_stem(origin),
    };
    let description = description.map(|f| f.opt_string()).transpose()?.flatten();
    let agent_field = agent;
    let agent = match &agent_field {
        Some(f) => read_agent(f)?,
        None => AgentSpec::default(),
    };
    let tools = match tools {
        Some(f) => f.seq()?.iter().map(read_tool).collect::<Read<_>>()?,
        None => Vec::new(),
    };
    let mut shared_hooks = IndexMap::new();
    if let Some(f) = &shared {
        for (key, entry) in f.entries()? {
            shared_hooks.insert(key.to_owned(), read_hook(&entry, Place::SharedDefinition)?);
        }
    }
    let hooks = match hooks {
        Some(f) => read_hook_points(&f, &shared_hooks, &python.models)?,
        None => IndexMap::new(),
    };
    for (key, entry) in &shared_hooks {
        if let (HookEntry::Python { call, .. }, Some(f)) = (entry, shared.as_ref()) {
            let field = f
                .entries()?
                .into_iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v);
            if let Some(field) = field {
                check_model_names(&field, call, &python.models)?;
            }
        }
    }
    if let (Some(call), Some(f)) = (&agent.python, agent_field.as_ref()) {
        check_model_names(f, call, &python.models)?;
    }
    let mut sees = BTreeMap::new();
    let model = match model_items {
        Some(items) => {
            let mut replies = Vec::with_capacity(items.len());
            for (i, mut item) in items.into_iter().enumerate() {
                if let Some((seen, entry)) = take_sees(&model, &mut item, i)? {
                    sees.insert(i, seen);
                    sees_entries.insert(i, entry);
                }
                replies.push(read_reply(&model.item(&item, i))?);
            }
            replies
        }
        None => model.seq()?.iter().map(read_reply).collect::<Read<_>>()?,
    };
    super::sees::check_chain(&sees, origin)?;
    let run = match run {
        Some(f) => read_run(&f, &agent.state_schema)?,
        None => RunSpec::default(),
    };
    let expect = match expect {
        Some(f) => read_expect(&f, &agent.state_schema)?,
        None => Expect::default(),
    };
    Ok(Scenario {
        version,
        name,
        description,
        file: None,
        agent,
        tools,
        hooks,
        shared_hooks,
        model,
        sees,
        run,
        expect,
        python,
        source: SourceMap::default(),
    })
}

/// Reads and removes the `sees` key of a `model` item, so that the reply
/// is read without it (`sees` is about the request, not the reply; an
/// `{error: ...}` entry may carry it too); the entry removed is returned
/// beside what it reads.
fn take_sees(model: &Field<'_>, item: &mut Node, index: usize) -> Read<Option<(Sees, Entry)>> {
    let Some(at) = item
        .entries()
        .and_then(|e| e.iter().position(|e| e.key == "sees"))
    else {
        return Ok(None);
    };
    let mut sees = {
        let field = model.item(item, index);
        let entries = field.entries()?;
        read_sees(&entries[at].1)?
    };
    let NodeValue::Map(entries) = &mut item.value else {
        return Ok(None);
    };
    let entry = entries.remove(at);
    sees.at = Some((entry.key_pos.line, entry.key_pos.column));
    Ok(Some((sees, entry)))
}

fn read_version(field: &Field<'_>) -> Read<i64> {
    let version = field.i64()?;
    if SUPPORTED_VERSIONS.contains(&version) {
        Ok(version)
    } else {
        Err(field.error(ScenarioErrorKind::UnsupportedVersion {
            found: version,
            supported: SUPPORTED_VERSIONS.to_vec(),
        }))
    }
}

/// `hooks`: point -> entries. Points are kept as written (the Agent checks them).
fn read_hook_points(
    field: &Field<'_>,
    shared: &IndexMap<String, HookEntry>,
    models: &IndexMap<String, NamedModel>,
) -> Read<IndexMap<String, Vec<HookEntry>>> {
    let mut hooks = IndexMap::new();
    for (point, entries) in field.entries()? {
        let list = entries.seq()?;
        let mut read = Vec::with_capacity(list.len());
        for entry in &list {
            let hook = read_hook(entry, Place::HookPoint)?;
            check_shared(entry, &hook, shared)?;
            if let HookEntry::Python { call, .. } = &hook {
                check_model_names(entry, call, models)?;
            }
            read.push(hook);
        }
        hooks.insert(point.to_owned(), read);
    }
    Ok(hooks)
}

/// `shared: NAME` must name a `shared_hooks` entry.
fn check_shared(
    entry: &Field<'_>,
    hook: &HookEntry,
    shared: &IndexMap<String, HookEntry>,
) -> Read<()> {
    let HookEntry::Shared(name) = hook else {
        return Ok(());
    };
    if shared.contains_key(name) {
        return Ok(());
    }
    let defined: Vec<String> = shared.keys().cloned().collect();
    Err(entry.key_error(
        "shared",
        ScenarioErrorKind::UnknownSharedHook {
            name: name.clone(),
            suggestion: suggest::closest(name, &defined),
            defined,
        },
    ))
}

fn file_stem(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| origin.to_owned())
}
