//! `repeat_last`: past the end of `results`, the tool repeats the last one.

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<bool> {
    field.bool()
}

pub(super) fn default() -> bool {
    false
}

pub(super) fn write(repeat: &bool) -> Value {
    json!(repeat)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "A call past the end of `results` is a scenario error (\"tool `search` was called 3 times; the scenario scripts 2 results\"), unless the tool sets `repeat_last: true`.",
        "type": "boolean",
    })
}
