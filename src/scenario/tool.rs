//! `tools`: scripted tools and the results they return, call by call.

use serde_json::{Map, Value, json};

use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};

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
}

/// One scripted tool result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScriptedResult {
    /// A string: the tool returns this text.
    Text(String),
    /// `{json: V}`: the tool returns a structured value.
    Json(Value),
    /// `{error: MESSAGE}`: the tool raises.
    Error(String),
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
    map.finish()?;
    Ok(ToolScript {
        name,
        description,
        parameters,
        results,
        repeat_last,
    })
}

const RESULT_SHAPE: &str = "a string, `{json: VALUE}` or `{error: MESSAGE}`";

fn read_result(field: &Field<'_>) -> Read<ScriptedResult> {
    if let Some(text) = field.as_str() {
        return Ok(ScriptedResult::Text(text.to_owned()));
    }
    let mut map = field.map().map_err(|_| field.wrong_type(RESULT_SHAPE))?;
    let json = map.get("json");
    let error = map.get("error");
    map.finish()?;
    match (json, error) {
        (Some(f), None) => Ok(ScriptedResult::Json(f.json())),
        (None, Some(f)) => Ok(ScriptedResult::Error(f.string()?)),
        _ => Err(field.error(ScenarioErrorKind::NeedsOneOf {
            keys: vec!["json".to_owned(), "error".to_owned()],
            exactly: true,
        })),
    }
}
