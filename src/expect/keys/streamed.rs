//! `streamed`: what a streaming run (`run.stream`) received, in order.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::{Run, compare};
use crate::outcome::Failure;
use crate::scenario::reading::{Field, Read};
use crate::state::SchemaEntry;

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<Vec<Value>> {
    Ok(field.seq()?.iter().map(Field::json).collect())
}

pub(crate) fn write(want: &[Value]) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({
        "description": "what the callback received, in order: a text chunk is its text, a tool-result chunk `{tool_result: TEXT}`, an empty chunk with a finish reason `{finish_reason: R}`",
        "type": "array",
        "items": {
            "oneOf": [
                {"type": "string"},
                {"type": "object", "required": ["tool_result"], "additionalProperties": false,
                 "properties": {"tool_result": {"type": ["string", "null"]}}},
                {"type": "object", "required": ["finish_reason"], "additionalProperties": false,
                 "properties": {"finish_reason": {"type": ["string", "null"]}}},
            ],
        },
    })
}

pub(crate) fn check(want: &[Value], run: &Run<'_>, failures: &mut Vec<Failure>) {
    compare(failures, "streamed", json!(want), json!(run.streamed));
}
