//! `trace`: the run's events, matched by partial event matchers in their
//! match modes (a plain list is the exact sequence of events of every
//! kind).

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::super::Run;
use super::super::list::ListCheck;
use super::super::trace::{event_matches, event_matches_kind, views};
use super::list_schema;
use crate::outcome::Failure;
use crate::scenario::reading::{Field, Read, read_event_pattern, read_list};
use crate::scenario::{EventPattern, ListExpect};
use crate::state::SchemaEntry;

pub(crate) fn read(
    field: &Field<'_>,
    _: &IndexMap<String, SchemaEntry>,
) -> Read<ListExpect<EventPattern>> {
    read_list(field, read_event_pattern)
}

pub(crate) fn write(want: &ListExpect<EventPattern>) -> Value {
    want.to_value(EventPattern::to_value)
}

pub(crate) fn schema() -> Value {
    list_schema(
        json!({"$ref": "#/definitions/event_pattern"}),
        "matches the run's events, each item naming a `kind` and the fields that matter (any field may be a value matcher); a plain list is exact over the events of all six kinds",
    )
}

pub(crate) fn check(want: &ListExpect<EventPattern>, run: &Run<'_>, failures: &mut Vec<Failure>) {
    let events = views(run.trace);
    let check = ListCheck {
        key: "trace",
        actual: &events,
        matches: event_matches,
        show_item: EventPattern::to_value,
        show_actual: Value::clone,
        // A trace is long: a mode's line lists the events of its kinds.
        listed: Some(|items, view| items.iter().any(|item| event_matches_kind(item, view))),
    };
    check.check(want, failures);
}
