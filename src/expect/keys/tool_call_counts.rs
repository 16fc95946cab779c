//! `tool_call_counts`: equals the outcome's.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::compare_field;
use crate::outcome::{Failure, RunResult};
use crate::scenario::reading::{Field, Read};
use crate::state::{SchemaEntry, keys};

pub(crate) fn read(
    field: &Field<'_>,
    _: &IndexMap<String, SchemaEntry>,
) -> Read<IndexMap<String, i64>> {
    field
        .entries()?
        .into_iter()
        .map(|(tool, count)| Ok((tool.to_owned(), count.i64()?)))
        .collect()
}

pub(crate) fn write(want: &IndexMap<String, i64>) -> Value {
    Value::Object(
        want.iter()
            .map(|(tool, count)| (tool.clone(), json!(count)))
            .collect(),
    )
}

pub(crate) fn schema() -> Value {
    json!({
        "description": "equal",
        "type": "object",
        "additionalProperties": {"type": "integer"},
    })
}

pub(crate) fn check(want: &IndexMap<String, i64>, result: &RunResult, failures: &mut Vec<Failure>) {
    compare_field(failures, result, keys::TOOL_CALL_COUNTS, write(want));
}
