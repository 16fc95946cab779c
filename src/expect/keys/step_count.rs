//! `step_count`: equals the outcome's.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::compare;
use crate::outcome::{Failure, RunResult};
use crate::scenario::reading::{Field, Read};
use crate::state::{SchemaEntry, keys};

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<i64> {
    field.i64()
}

pub(crate) fn write(want: &i64) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({"description": "equal", "type": "integer"})
}

pub(crate) fn check(want: &i64, result: &RunResult, failures: &mut Vec<Failure>) {
    let got = result
        .field(keys::STEP_COUNT)
        .cloned()
        .unwrap_or(Value::Null);
    compare(failures, keys::STEP_COUNT, json!(want), got);
}
