//! Match modes for list expectations (`hooks`, `tools_run`, `trace`,
//! `last_message.tool_calls`): a plain list is exact; a map of modes says
//! what matters.

use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};

/// The match modes, in the order they are checked and written.
pub(crate) const MODES: &[&str] = &["in_order", "any_order", "contains", "excludes"];

/// A list expectation: the exact list, or one or more match modes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ListExpect<T> {
    /// A plain list: the same length, item by item.
    Exact(Vec<T>),
    /// `{in_order, any_order, contains, excludes}`: each mode given holds.
    Modes(ListModes<T>),
}

/// The modes of a list expectation; at least one is given.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ListModes<T> {
    /// `in_order`: each item matches a distinct element, in this order
    /// (a subsequence; other elements may come between).
    pub in_order: Option<Vec<T>>,
    /// `any_order`: the same number of elements, each matched by a distinct
    /// item, in any order.
    pub any_order: Option<Vec<T>>,
    /// `contains`: each item matches a distinct element, in any order.
    pub contains: Option<Vec<T>>,
    /// `excludes`: no element matches any item.
    pub excludes: Option<Vec<T>>,
}

impl<T> ListModes<T> {
    /// The modes given, by name, in [`MODES`] order.
    pub(crate) fn given(&self) -> impl Iterator<Item = (&'static str, &Vec<T>)> {
        [
            ("in_order", &self.in_order),
            ("any_order", &self.any_order),
            ("contains", &self.contains),
            ("excludes", &self.excludes),
        ]
        .into_iter()
        .filter_map(|(name, items)| items.as_ref().map(|items| (name, items)))
    }
}

/// Reads a list expectation whose items `item` reads.
pub(crate) fn read_list<T>(
    field: &Field<'_>,
    item: impl Fn(&Field<'_>) -> Read<T>,
) -> Read<ListExpect<T>> {
    if let Ok(items) = field.seq() {
        return items
            .iter()
            .map(&item)
            .collect::<Read<_>>()
            .map(ListExpect::Exact);
    }
    let mut map = field.map().map_err(|_| {
        field.wrong_type(
            "a list, or a map of match modes (`in_order`, `any_order`, `contains`, `excludes`)",
        )
    })?;
    let mut read = |name: &'static str| -> Read<Option<Vec<T>>> {
        map.get(name)
            .map(|f| f.seq()?.iter().map(&item).collect::<Read<_>>())
            .transpose()
    };
    let modes = ListModes {
        in_order: read("in_order")?,
        any_order: read("any_order")?,
        contains: read("contains")?,
        excludes: read("excludes")?,
    };
    map.finish()?;
    if modes.given().next().is_none() {
        return Err(field.error(ScenarioErrorKind::NeedsOneOf {
            keys: MODES.iter().map(|m| (*m).to_owned()).collect(),
            exactly: false,
        }));
    }
    Ok(ListExpect::Modes(modes))
}

impl<T> ListExpect<T> {
    /// The expectation as the scenario format writes it, each item by `item`.
    pub(crate) fn to_value(&self, item: impl Fn(&T) -> Value) -> Value {
        match self {
            ListExpect::Exact(items) => items.iter().map(&item).collect(),
            ListExpect::Modes(modes) => Value::Object(
                modes
                    .given()
                    .map(|(name, items)| (name.to_owned(), items.iter().map(&item).collect()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}
