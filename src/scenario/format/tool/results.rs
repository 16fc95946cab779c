//! `results`: what the tool returns, one entry per call, in call order.

use serde_json::{Value, json};

use super::super::error::ScenarioErrorKind;
use super::{Field, Read};
use crate::scripted::ScriptedResult;

pub(super) fn read(field: &Field<'_>) -> Read<Vec<ScriptedResult>> {
    field.seq()?.iter().map(read_result).collect()
}

pub(super) fn default() -> Vec<ScriptedResult> {
    Vec::new()
}

pub(super) fn write(results: &[ScriptedResult]) -> Value {
    results
        .iter()
        .map(|result| match result {
            ScriptedResult::Text(text) => json!(text),
            ScriptedResult::Json(value) => json!({"json": value}),
            ScriptedResult::Error(message) => json!({"error": message}),
            ScriptedResult::EchoArguments => json!({"echo_arguments": true}),
        })
        .collect()
}

pub(super) fn schema() -> Value {
    json!({
        "description": "one entry per call, in call order",
        "type": "array",
        "items": {"$ref": "#/definitions/tool_result"},
    })
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

/// The JSON Schema of one result (the `tool_result` definition `schema`
/// refers to).
pub(crate) fn item_schema() -> Value {
    let only = |key: &str, value: Value, description: &str| {
        json!({
            "type": "object",
            "required": [key],
            "additionalProperties": false,
            "properties": {key: value},
            "description": description,
        })
    };
    json!({
        "oneOf": [
            {"type": "string", "description": "the tool returns this text"},
            only("json", json!({}), "a structured result, serialized as Haystack does"),
            only("error", json!({"type": "string"}), "the tool raises; becomes an error tool message"),
            only("echo_arguments", json!({"const": true}), "the tool returns the arguments it was invoked with (those of the call plus those injected from state) as a JSON object"),
        ],
    })
}
