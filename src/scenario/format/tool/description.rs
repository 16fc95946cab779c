//! `description`: the tool's description, as the model sees it.

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<String> {
    field.string()
}

pub(super) fn default() -> String {
    String::new()
}

pub(super) fn write(description: &str) -> Value {
    json!(description)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "optional. Default: \"\".",
        "type": "string",
    })
}
