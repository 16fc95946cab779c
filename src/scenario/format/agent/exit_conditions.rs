//! `exit_conditions`: `"text"` and/or tool names.

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<Vec<String>> {
    field.strings()
}

pub(super) fn default() -> Vec<String> {
    vec!["text".to_owned()]
}

pub(super) fn write(conditions: &[String]) -> Value {
    json!(conditions)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "Haystack's `exit_conditions`: `\"text\"` and/or tool names. Default: [\"text\"].",
        "type": "array",
        "items": {"type": "string"},
    })
}
