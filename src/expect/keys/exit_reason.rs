//! `exit_reason`: equals the outcome's.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::compare_field;
use crate::outcome::{Failure, RunResult};
use crate::scenario::reading::{Field, Read};
use crate::state::{SchemaEntry, keys};

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<String> {
    field.string()
}

pub(crate) fn write(want: &str) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({"description": "equals the outcome's `exit_reason`", "type": "string"})
}

pub(crate) fn check(want: &str, result: &RunResult, failures: &mut Vec<Failure>) {
    compare_field(failures, result, keys::EXIT_REASON, json!(want));
}
