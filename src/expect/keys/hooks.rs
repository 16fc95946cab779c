//! `hooks`: the hooks that ran, each `POINT` or `POINT:NAME`, in their
//! match modes (a plain list is the exact sequence).

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
    want.to_value(|hook| json!(hook))
}

pub(crate) fn schema() -> Value {
    list_schema(
        json!({"type": "string"}),
        "the ordered list of hooks that ran, each `POINT` or `POINT:NAME`, equals",
    )
}

pub(crate) fn check(want: &ListExpect<String>, run: &Run<'_>, failures: &mut Vec<Failure>) {
    let ran: Vec<String> = run
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HookStarted { point, hook, .. } => Some(format!("{point}:{hook}")),
            _ => None,
        })
        .collect();
    // `POINT:NAME` is one hook, `POINT` any hook at the point.
    let matches = |w: &String, r: &String| {
        if w.contains(':') {
            r == w
        } else {
            r.split(':').next() == Some(w.as_str())
        }
    };
    check_names("hooks", want, &ran, matches, failures);
}
