//! `state`: each listed public state key matches (a plain value: equals),
//! read with the key's `state_schema` type.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::{ABSENT, value_failure};
use crate::outcome::{Failure, RunResult};
use crate::scenario::ValuePattern;
use crate::scenario::reading::{Field, Read, Slot, read_pattern};
use crate::state::SchemaEntry;

pub(crate) fn read(
    field: &Field<'_>,
    schema: &IndexMap<String, SchemaEntry>,
) -> Read<IndexMap<String, ValuePattern>> {
    let mut state = IndexMap::new();
    for (key, value) in field.entries()? {
        let slot = schema
            .get(key)
            .map_or(Slot::Any, |entry| Slot::State(entry.ty.clone()));
        state.insert(key.to_owned(), read_pattern(&value, slot)?);
    }
    Ok(state)
}

pub(crate) fn write(want: &IndexMap<String, ValuePattern>) -> Value {
    Value::Object(
        want.iter()
            .map(|(key, pattern)| (key.clone(), pattern.to_value()))
            .collect(),
    )
}

pub(crate) fn schema() -> Value {
    json!({
        "description": "each listed public state key equals (a value, or a matcher: `contains`, `gte`/`lte`, `absent`, `equals`)",
        "type": "object",
        "additionalProperties": crate::schema::value_pattern(),
    })
}

pub(crate) fn check(
    want: &IndexMap<String, ValuePattern>,
    result: &RunResult,
    failures: &mut Vec<Failure>,
) {
    for (key, pattern) in want {
        let got = result.state.get(key);
        failures.extend(value_failure(&format!("state.{key}"), pattern, got, ABSENT));
    }
}
