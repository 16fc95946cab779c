//! `step_count`: equals the outcome's.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::compare_field;
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
    compare_field(failures, result, keys::STEP_COUNT, json!(want));
}
