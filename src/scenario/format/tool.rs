//! `tools`: scripted tools and the results they return, call by call.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::agent::handlers;
use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};
use crate::scripted::ScriptedResult;
use crate::tool::{OutputsToString, StateOutput};

/// A scripted tool (`tools:` entry).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolScript {
    /// `name`.
    pub name: String,
    /// `description` (default `""`).
    pub description: String,
    /// `parameters`, a JSON Schema (default `{type: object, properties: {}}`);
    /// arguments are not validated against it.
    pub parameters: Map<String, Value>,
    /// `results`: one per call, in call order.
    pub results: Vec<ScriptedResult>,
    /// `repeat_last`: past the end of `results`, repeat the last one.
    pub repeat_last: bool,
    /// `inputs_from_state`: state key -> parameter the tool receives.
    pub inputs_from_state: IndexMap<String, String>,
    /// `outputs_to_state`: state key <- result key, merged with a handler.
    pub outputs_to_state: IndexMap<String, StateOutput>,
    /// `outputs_to_string`: which part of the result becomes the message text.
    pub outputs_to_string: Option<OutputsToString>,
}

/// The default `parameters`: `{type: object, properties: {}}`.
pub(crate) fn default_parameters() -> Map<String, Value> {
    match json!({"type": "object", "properties": {}}) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub(crate) fn read_tool(field: &Field<'_>) -> Read<ToolScript> {
    let mut map = field.map()?;
    let name = map.required("name")?.string()?;
    let description = match map.get("description") {
        Some(f) => f.string()?,
        None => String::new(),
    };
    let parameters = match map.get("parameters") {
        Some(f) => f.json_map()?,
        None => default_parameters(),
    };
    let results = match map.get("results") {
        Some(f) => f.seq()?.iter().map(read_result).collect::<Read<_>>()?,
        None => Vec::new(),
    };
    let repeat_last = match map.get("repeat_last") {
        Some(f) => f.bool()?,
        None => false,
    };
    let mut inputs_from_state = IndexMap::new();
    if let Some(f) = map.get("inputs_from_state") {
        for (key, param) in f.entries()? {
            inputs_from_state.insert(key.to_owned(), param.string()?);
        }
    }
    let mut outputs_to_state = IndexMap::new();
    if let Some(f) = map.get("outputs_to_state") {
        for (key, entry) in f.entries()? {
            outputs_to_state.insert(key.to_owned(), read_state_output(&entry)?);
        }
    }
    let outputs_to_string = match map.get("outputs_to_string") {
        Some(f) => Some(read_outputs_to_string(&f)?),
        None => None,
    };
    map.finish()?;
    Ok(ToolScript {
        name,
        description,
        parameters,
        results,
        repeat_last,
        inputs_from_state,
        outputs_to_state,
        outputs_to_string,
    })
}

/// One `outputs_to_state` entry; null options (`received:` alone) read as `{}`.
fn read_state_output(field: &Field<'_>) -> Read<StateOutput> {
    if field.is_null() {
        return Ok(StateOutput {
            source: None,
            handler: None,
        });
    }
    let mut map = field.map()?;
    let source = match map.get("source") {
        Some(f) => Some(f.string()?),
        None => None,
    };
    let handler = match map.get("handler") {
        Some(f) => Some(f.variant(&handlers())?),
        None => None,
    };
    map.finish()?;
    Ok(StateOutput { source, handler })
}

/// `{source: KEY}` (or `{}`: the whole result), else the multiple-output
/// form `{out: {source: KEY}, ...}`. Handlers are Python callables in
/// Haystack, so only `source` is read.
fn read_outputs_to_string(field: &Field<'_>) -> Read<OutputsToString> {
    let mut map = field.map()?;
    if map.has("source") || map.keys().is_empty() {
        let source = match map.get("source") {
            Some(f) => Some(f.string()?),
            None => None,
        };
        map.finish()?;
        return Ok(OutputsToString::Single { source });
    }
    let mut outputs = IndexMap::new();
    for (key, entry) in field.entries()? {
        let mut output = entry.map()?;
        let source = output.required("source")?.string()?;
        output.finish()?;
        outputs.insert(key.to_owned(), source);
    }
    Ok(OutputsToString::Multiple(outputs))
}

const RESULT_SHAPE: &str =
    "a string, `{json: VALUE}`, `{error: MESSAGE}` or `{echo_arguments: true}`";

fn read_result(field: &Field<'_>) -> Read<ScriptedResult> {
    if let Some(text) = field.as_str() {
        return Ok(ScriptedResult::Text(text.to_owned()));
    }
    let mut map = field.map().map_err(|_| field.wrong_type(RESULT_SHAPE))?;
    let json = map.get("json");
    let error = map.get("error");
    let echo = map.get("echo_arguments");
    map.finish()?;
    match (json, error, echo) {
        (Some(f), None, None) => Ok(ScriptedResult::Json(f.json())),
        (None, Some(f), None) => Ok(ScriptedResult::Error(f.string()?)),
        (None, None, Some(f)) => {
            if f.bool()? {
                Ok(ScriptedResult::EchoArguments)
            } else {
                Err(f.wrong_type("`true` (remove the entry for another result)"))
            }
        }
        _ => Err(field.error(ScenarioErrorKind::NeedsOneOf {
            keys: vec![
                "json".to_owned(),
                "error".to_owned(),
                "echo_arguments".to_owned(),
            ],
            exactly: true,
        })),
    }
}
