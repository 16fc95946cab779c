//! `tool_concurrency_limit`: Haystack's setting of that name; not
//! range-checked (the Agent rejects a bad value at construction).

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<i64> {
    field.i64()
}

pub(super) fn default() -> i64 {
    4
}

pub(super) fn write(limit: &i64) -> Value {
    json!(limit)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "Haystack's `tool_concurrency_limit`. Default: 4.",
        "type": "integer",
    })
}
