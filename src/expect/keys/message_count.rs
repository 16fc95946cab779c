//! `message_count`: `len(messages)` equals.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::compare;
use crate::outcome::{Failure, RunResult};
use crate::scenario::reading::{Field, Read};
use crate::state::SchemaEntry;

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<i64> {
    field.i64()
}

pub(crate) fn write(want: &i64) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({"description": "`len(messages)` equals", "type": "integer"})
}

pub(crate) fn check(want: &i64, result: &RunResult, failures: &mut Vec<Failure>) {
    compare(
        failures,
        "message_count",
        json!(want),
        json!(result.messages.len()),
    );
}
