//! `token_usage`: matches the outcome's (a plain map: equals).

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::{ABSENT, value_failure};
use crate::outcome::{Failure, RunResult};
use crate::scenario::ValuePattern;
use crate::scenario::reading::{Field, Read, Slot, read_pattern};
use crate::state::{SchemaEntry, keys};

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<ValuePattern> {
    field.map()?;
    read_pattern(field, Slot::Any)
}

pub(crate) fn write(want: &ValuePattern) -> Value {
    want.to_value()
}

pub(crate) fn schema() -> Value {
    json!({
        "description": "equal (a map; values may be matchers)",
        "type": "object",
        "allOf": [crate::schema::value_pattern()],
    })
}

pub(crate) fn check(want: &ValuePattern, result: &RunResult, failures: &mut Vec<Failure>) {
    let got = result
        .field(keys::TOKEN_USAGE)
        .cloned()
        .unwrap_or(Value::Null);
    failures.extend(value_failure(keys::TOKEN_USAGE, want, Some(&got), ABSENT));
}
