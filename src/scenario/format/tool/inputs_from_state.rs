//! `inputs_from_state`: state key -> parameter the tool receives.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<IndexMap<String, String>> {
    let mut inputs = IndexMap::new();
    for (key, param) in field.entries()? {
        inputs.insert(key.to_owned(), param.string()?);
    }
    Ok(inputs)
}

pub(super) fn default() -> IndexMap<String, String> {
    IndexMap::new()
}

pub(super) fn write(inputs: &IndexMap<String, String>) -> Value {
    json!(inputs)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "state key -> parameter the tool receives",
        "type": "object",
        "additionalProperties": {"type": "string"},
    })
}
