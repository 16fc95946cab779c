//! `name`: the tool's name, which the model's tool calls give.

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<String> {
    field.string()
}

pub(super) fn write(name: &str) -> Value {
    json!(name)
}

pub(super) fn schema() -> Value {
    json!({"description": "the tool's name", "type": "string"})
}
