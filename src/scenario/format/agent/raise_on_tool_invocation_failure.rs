//! `raise_on_tool_invocation_failure`: Haystack's setting of that name.

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<bool> {
    field.bool()
}

pub(super) fn default() -> bool {
    false
}

pub(super) fn write(raise: &bool) -> Value {
    json!(raise)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "Haystack's `raise_on_tool_invocation_failure`. Default: false.",
        "type": "boolean",
    })
}
