//! The `Scenario` type and the reading of the top level.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use super::agent::{AgentSpec, read_agent};
use super::error::ScenarioErrorKind;
use super::expect::{Expect, read_expect};
use super::hook::{HookEntry, Place, read_hook};
use super::model::{ModelReply, read_reply};
use super::reader::{Field, Read};
use super::run::{RunSpec, read_run};
use super::suggest;
use super::tool::{ToolScript, read_tool};

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
    /// `run`.
    pub run: RunSpec,
    /// `expect`.
    pub expect: Expect,
}

pub(crate) fn read_scenario(root: &Field<'_>, origin: &str) -> Read<Scenario> {
    let mut map = root
        .map()
        .map_err(|_| root.wrong_type("a map of scenario keys (with at least `model`)"))?;
    let version = match map.get("version") {
        Some(f) => {
            let version = f.i64()?;
            if !SUPPORTED_VERSIONS.contains(&version) {
                return Err(f.error(ScenarioErrorKind::UnsupportedVersion {
                    found: version,
                    supported: SUPPORTED_VERSIONS.to_vec(),
                }));
            }
            version
        }
        None => 1,
    };
    let name = match map.get("name") {
        Some(f) => f.string()?,
        None => file_stem(origin),
    };
    let description = map
        .get("description")
        .map(|f| f.opt_string())
        .transpose()?
        .flatten();
    let agent = match map.get("agent") {
        Some(f) => read_agent(&f)?,
        None => AgentSpec::default(),
    };
    let tools = match map.get("tools") {
        Some(f) => f.seq()?.iter().map(read_tool).collect::<Read<_>>()?,
        None => Vec::new(),
    };
    let mut shared_hooks = IndexMap::new();
    if let Some(f) = map.get("shared_hooks") {
        for (key, entry) in f.entries()? {
            shared_hooks.insert(key.to_owned(), read_hook(&entry, Place::SharedDefinition)?);
        }
    }
    let mut hooks = IndexMap::new();
    if let Some(f) = map.get("hooks") {
        for (point, entries) in f.entries()? {
            let list = entries.seq()?;
            let mut read = Vec::with_capacity(list.len());
            for entry in &list {
                let hook = read_hook(entry, Place::HookPoint)?;
                check_shared(entry, &hook, &shared_hooks)?;
                read.push(hook);
            }
            hooks.insert(point.to_owned(), read);
        }
    }
    let run = match map.get("run") {
        Some(f) => read_run(&f, &agent.state_schema)?,
        None => RunSpec::default(),
    };
    let expect = match map.get("expect") {
        Some(f) => read_expect(&f)?,
        None => Expect::default(),
    };
    let model = map
        .required("model")?
        .seq()?
        .iter()
        .map(read_reply)
        .collect::<Read<_>>()?;
    map.finish()?;
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
        run,
        expect,
    })
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
