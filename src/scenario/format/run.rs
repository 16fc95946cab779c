//! `run`: the inputs of `Agent.run`.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::message::{MessageSpec, read_messages};
use super::reader::{Field, Read};
use crate::agent::RUN_PARAMETERS;
use crate::state::SchemaEntry;
use crate::wording::suggest;

/// The inputs of the run (`run:`).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct RunSpec {
    /// `messages` (default `[]`).
    pub messages: Vec<MessageSpec>,
    /// `hook_context` (default `{}`).
    pub hook_context: Map<String, Value>,
    /// `state`: initial values of `state_schema` keys (Haystack's `**kwargs`).
    pub state: Map<String, Value>,
    /// `async`: run the async path.
    pub is_async: bool,
    /// `tools`: the tools of this run, by name (`None`: every tool).
    pub tools: Option<Vec<String>>,
    /// `variables`: template variables of the prompts (Haystack's `**kwargs`).
    pub variables: Map<String, Value>,
    /// `stream`: the run gets a streaming callback that records every
    /// chunk (async on the async path), for `expect.streamed`.
    pub stream: bool,
    /// `generation_kwargs`: passed to every chat-generator call.
    pub generation_kwargs: Option<Map<String, Value>>,
}

pub(crate) fn read_run(field: &Field<'_>, schema: &IndexMap<String, SchemaEntry>) -> Read<RunSpec> {
    let mut map = field.map()?;
    let mut run = RunSpec::default();
    if let Some(f) = map.get("messages") {
        run.messages = read_messages(&f)?;
    }
    if let Some(f) = map.get("hook_context") {
        run.hook_context = f.json_map()?;
    }
    if let Some(f) = map.get("state") {
        for (key, _) in f.entries()? {
            if !schema.contains_key(key) {
                let schema_keys: Vec<String> = schema.keys().cloned().collect();
                let kind = ScenarioErrorKind::UnknownStateKey {
                    key: key.to_owned(),
                    suggestion: suggest::closest(key, &schema_keys),
                    schema_keys,
                };
                return Err(f.key_error(key, kind));
            }
        }
        run.state = f.json_map()?;
    }
    if let Some(f) = map.get("variables") {
        for (name, _) in f.entries()? {
            let kind = if run.state.contains_key(name) {
                ScenarioErrorKind::VariableAlsoInState {
                    name: name.to_owned(),
                }
            } else if RUN_PARAMETERS.contains(&name) {
                ScenarioErrorKind::VariableIsRunParameter {
                    name: name.to_owned(),
                }
            } else {
                continue;
            };
            return Err(f.key_error(name, kind));
        }
        run.variables = f.json_map()?;
    }
    if let Some(f) = map.get("stream") {
        run.stream = f.bool()?;
    }
    if let Some(f) = map.get("generation_kwargs") {
        run.generation_kwargs = Some(f.json_map()?);
    }
    if let Some(f) = map.get("tools") {
        run.tools = Some(f.strings()?);
    }
    if let Some(f) = map.get("async") {
        run.is_async = f.bool()?;
    }
    map.finish_hinting(&[("is_async", "async")])?;
    Ok(run)
}
