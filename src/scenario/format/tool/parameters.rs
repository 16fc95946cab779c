//! `parameters`: the tool's JSON Schema; arguments are not validated
//! against it.

use serde_json::{Map, Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<Map<String, Value>> {
    field.json_map()
}

/// The default `parameters`: `{type: object, properties: {}}`.
pub(crate) fn default() -> Map<String, Value> {
    match json!({"type": "object", "properties": {}}) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub(super) fn write(parameters: &Map<String, Value>) -> Value {
    Value::Object(parameters.clone())
}

pub(super) fn schema() -> Value {
    json!({
        "description": "JSON Schema, optional. Default: {type: object, properties: {}}; arguments are not validated against it.",
        "type": "object",
    })
}
