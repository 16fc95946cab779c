//! `tools_run`: the executed tool names, in their match modes (a plain
//! list is the exact sequence).

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::Run;
use super::super::list::check_names;
use super::list_schema;
use crate::outcome::{Failure, TraceKind};
use crate::scenario::ListExpect;
use crate::scenario::reading::{Field, Read, read_list};
use crate::state::SchemaEntry;

pub(crate) fn read(
    field: &Field<'_>,
    _: &IndexMap<String, SchemaEntry>,
) -> Read<ListExpect<String>> {
    read_list(field, |item| item.string())
}

pub(crate) fn write(want: &ListExpect<String>) -> Value {
    want.to_value(|tool| json!(tool))
}

pub(crate) fn schema() -> Value {
    list_schema(
        json!({"type": "string"}),
        "the ordered list of executed tool names equals",
    )
}

pub(crate) fn check(want: &ListExpect<String>, run: &Run<'_>, failures: &mut Vec<Failure>) {
    let ran: Vec<String> = run
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::ToolFinished { tool, .. } => Some(tool.clone()),
            _ => None,
        })
        .collect();
    check_names("tools_run", want, &ran, |w, r| w == r, failures);
}
