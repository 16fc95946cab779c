//! `error`: the run fails (at construction or during the run) with an
//! error whose text contains this.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::{Run, render};
use crate::outcome::Failure;
use crate::scenario::reading::{Field, Read};
use crate::state::SchemaEntry;

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<String> {
    field.string()
}

pub(crate) fn write(want: &str) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({
        "description": "the run fails (at construction or during the run) with an error whose text contains this string",
        "type": "string",
    })
}

pub(crate) fn check(want: &str, run: &Run<'_>, failures: &mut Vec<Failure>) {
    match run.error {
        None => failures.push(Failure::line(
            "error",
            format!(
                "error: expected the run to fail with an error containing {}, but it succeeded",
                render(&json!(want))
            ),
        )),
        Some(text) if !text.contains(want) => failures.push(Failure::compare(
            "error",
            format!(
                "error: expected an error containing {}, got {}",
                render(&json!(want)),
                render(&json!(text))
            ),
            json!(want),
            json!(text),
        )),
        Some(_) => {}
    }
}
