//! `llm_calls`: the number of the Agent's chat-generator calls equals.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::{Run, compare};
use crate::outcome::{Failure, TraceEvent, TraceKind};
use crate::scenario::reading::{Field, Read};
use crate::state::SchemaEntry;

pub(crate) fn read(field: &Field<'_>, _: &IndexMap<String, SchemaEntry>) -> Read<i64> {
    field.i64()
}

pub(crate) fn write(want: &i64) -> Value {
    json!(want)
}

pub(crate) fn schema() -> Value {
    json!({"description": "the number of chat-generator calls equals", "type": "integer"})
}

pub(crate) fn check(want: &i64, run: &Run<'_>, failures: &mut Vec<Failure>) {
    compare(failures, "llm_calls", json!(want), json!(count(run.trace)));
}

/// The Agent's own model calls in `trace` (not those of named `models:`).
pub(crate) fn count(trace: &[TraceEvent]) -> usize {
    trace
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::LlmStarted { model: None, .. }))
        .count()
}
