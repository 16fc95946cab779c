//! `max_agent_steps`: Haystack's `max_agent_steps`; not range-checked (the
//! Agent rejects a bad value at construction).

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<i64> {
    field.i64()
}

pub(super) fn default() -> i64 {
    100
}

pub(super) fn write(steps: &i64) -> Value {
    json!(steps)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "Haystack's `max_agent_steps`. Default: 100.",
        "type": "integer",
    })
}
