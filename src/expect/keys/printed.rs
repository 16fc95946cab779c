//! `printed`: texts that appear, in this order, in what the user's Python
//! hooks and tools printed or logged (the Haystack engine captures it).

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::Run;
use crate::outcome::Failure;
use crate::scenario::reading::{Field, Read};
use crate::state::SchemaEntry;

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<Vec<String>> {
    field.strings()
}

pub(crate) fn write(want: &[String]) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({
        "description": "each text appears in what hooks and tools printed or logged, in this order (Haystack engine)",
        "type": "array",
        "items": {"type": "string"},
    })
}

pub(crate) fn check(want: &[String], run: &Run<'_>, failures: &mut Vec<Failure>) {
    super::super::printed::check(want, run.trace, failures);
}
