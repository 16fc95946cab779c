//! Jinja2's `groupby` and its groups: `sync_do_groupby(environment, value,
//! attribute, default=None, case_sensitive=False)` sorts the items by the
//! attribute as Python's `sorted` does (`TypeError` for keys it does not
//! order, the `UndefinedError` of a missing attribute), groups equal keys
//! and gives each group as a `_GroupTuple(grouper, list)`: a named tuple
//! that prints as a tuple (`(1, [{'a': 1}])`), reads `group.grouper`,
//! `group.list`, `group[0]`, and is a tuple wherever Python asks
//! ([`is_tuple`]). The attribute is a dotted path whose digit parts index
//! (`'0'`, `'a.1'`), or an integer index (`groupby(0)`, `groupby(-1)`).

use super::budget;
use super::getitem;
use super::iterating_filters;
use super::python_sort;
use super::render::haystack_error;
use super::signature::{Hints, Signature};
use minijinja::value::{
    Enumerator, Kwargs, Object, ObjectRepr, Rest, Tuple, Value as JinjaValue, ValueKind,
};
use minijinja::{Environment, Error, ErrorKind, State};
use std::fmt;
use std::sync::Arc;

/// `sync_do_groupby(environment, value, attribute, default=None,
/// case_sensitive=False)`.
const GROUPBY: Signature = Signature {
    function: "sync_do_groupby",
    leading: 2,
    parameters: &["attribute", "default", "case_sensitive"],
    required: 1,
};

/// Registers `groupby` over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    env.add_filter(
        "groupby",
        |state: &State, value: JinjaValue, positional: Rest<JinjaValue>, kwargs: Kwargs| {
            let named = Hints::take(&kwargs)?;
            let bound = GROUPBY.bind(&positional, &kwargs)?;
            let [attribute, default, case_sensitive] =
                <[Option<JinjaValue>; 3]>::try_from(bound).unwrap_or_else(|_| [None, None, None]);
            groupby(
                state,
                (&value, &named),
                &attribute.unwrap_or_default(),
                default.filter(|d| !d.is_none()),
                case_sensitive.is_some_and(|c| c.is_true()),
            )
        },
    );
}

/// Whether Python holds `value` as a tuple: a tuple literal, or a group of
/// `groupby`.
pub(super) fn is_tuple(value: &JinjaValue) -> bool {
    value.is_tuple() || value.downcast_object_ref::<GroupTuple>().is_some()
}

/// `value` with a group of `groupby` as the plain tuple Python compares,
/// adds and repeats it as; any other value as it is.
pub(super) fn plain(value: JinjaValue) -> JinjaValue {
    match value.downcast_object_ref::<GroupTuple>() {
        Some(group) => JinjaValue::from(Tuple::from([group.grouper.clone(), group.list.clone()])),
        None => value,
    }
}

/// One group: Jinja2's `_GroupTuple(grouper, list)`.
#[derive(Debug)]
struct GroupTuple {
    grouper: JinjaValue,
    list: JinjaValue,
}

impl Object for GroupTuple {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &JinjaValue) -> Option<JinjaValue> {
        match (key.as_i64(), key.as_str()) {
            (Some(0 | -2), _) | (None, Some("grouper")) => Some(self.grouper.clone()),
            (Some(1 | -1), _) | (None, Some("list")) => Some(self.list.clone()),
            _ => None,
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(2)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({:?}, {:?})", self.grouper, self.list)
    }
}

/// An item's key: its attribute, `default` for a missing part, lowercased
/// unless `folds` is false. A missing part before the last fails as
/// Jinja2's `Undefined` does when looked into; a missing last part is an
/// undefined key, and the hint of what it says.
fn key(
    (item, hint): (&JinjaValue, Option<String>),
    parts: &[JinjaValue],
    default: Option<&JinjaValue>,
    folds: bool,
) -> Result<(JinjaValue, Option<String>), Error> {
    let mut value = item.clone();
    let mut hint = hint;
    for part in parts {
        if value.is_undefined() {
            // Jinja2's text when the template named it; minijinja's else.
            return Err(match hint {
                Some(missing) => haystack_error(format!("UndefinedError: {missing}")),
                None => Error::from(ErrorKind::UndefinedError),
            });
        }
        let (found, missing) = (getitem::item(&value, part), getitem::missing(&value, part));
        (value, hint) = match (found.is_undefined(), default) {
            (true, Some(default)) => (default.clone(), None),
            (true, None) => (found, Some(missing)),
            (false, _) => (found, None),
        };
    }
    if folds && value.kind() == ValueKind::String {
        if let Some(text) = value.as_str() {
            value = JinjaValue::from(text.to_lowercase());
        }
    }
    Ok((value, hint))
}

/// Jinja2's `groupby`; `named` holds what the names of a list written in
/// the template as the operand say when undefined.
fn groupby(
    state: &State,
    (value, named): (&JinjaValue, &Hints),
    attribute: &JinjaValue,
    default: Option<JinjaValue>,
    case_sensitive: bool,
) -> Result<JinjaValue, Error> {
    if let Some(error) = iterating_filters::not_iterable(value) {
        return Err(error);
    }
    let parts = getitem::attribute_parts(attribute);
    let items: Vec<JinjaValue> = if value.is_undefined() {
        Vec::new()
    } else {
        value.try_iter()?.collect()
    };
    budget::ensure_items(state, (items.len() as u64).saturating_mul(3), false)?;
    let mut keys = Vec::with_capacity(items.len());
    // What each undefined key says when the sort compares it.
    let mut hints = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let named = named.hint(&format!("[{index}]"));
        let (key, hint) = key((item, named), &parts, default.as_ref(), !case_sensitive)?;
        keys.push(key);
        hints.push(hint);
    }
    let order = python_sort::sorted(&keys, false).map_err(|unordered| {
        // `left < right`: the left key's `Undefined` raises first, the
        // right one's when Python asks it back.
        let undefined = [unordered.left, unordered.right]
            .into_iter()
            .find(|&i| keys[i].is_undefined());
        match (
            undefined.and_then(|i| hints[i].as_ref()),
            unordered.error.kind(),
        ) {
            (Some(hint), ErrorKind::UndefinedError) => {
                haystack_error(format!("UndefinedError: {hint}"))
            }
            _ => unordered.error,
        }
    })?;
    let mut groups: Vec<JinjaValue> = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let first = order[start];
        // itertools.groupby: the items after the first whose key equals
        // it (a NaN key is a group of its own).
        let end = order[start + 1..]
            .iter()
            .position(|&i| keys[i] != keys[first])
            .map_or(order.len(), |n| start + 1 + n);
        let grouper = if case_sensitive {
            keys[first].clone()
        } else {
            key((&items[first], None), &parts, default.as_ref(), false)?.0
        };
        let list: Vec<JinjaValue> = order[start..end]
            .iter()
            .map(|&i| items[i].clone())
            .collect();
        groups.push(JinjaValue::from_object(GroupTuple {
            grouper,
            list: JinjaValue::from(list),
        }));
        start = end;
    }
    Ok(JinjaValue::from(groups))
}
