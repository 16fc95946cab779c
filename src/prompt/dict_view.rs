//! A dict's views, as `d.keys()`, `d.values()` and `d.items()` return them
//! in Python: they iterate and measure as the dict does, print as
//! `dict_keys(['a', 'b'])`, and compare as Python compares them (a view of
//! keys or items equals another such view holding the same items, a view
//! of values only itself, and no view equals a list).

use super::pystr;
use minijinja::Error;
use minijinja::value::{Enumerator, Object, ObjectRepr, Tuple, Value as JinjaValue};
use std::sync::Arc;

/// Which view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Keys,
    Values,
    Items,
}

/// One view of `dict`.
#[derive(Debug)]
struct DictView {
    kind: Kind,
    dict: JinjaValue,
}

impl DictView {
    /// The view's items, in the dict's order.
    fn items(&self) -> Vec<JinjaValue> {
        let keys: Vec<JinjaValue> = self
            .dict
            .try_iter()
            .map(Iterator::collect)
            .unwrap_or_default();
        keys.into_iter()
            .map(|key| match self.kind {
                Kind::Keys => key,
                Kind::Values => self.dict.get_item(&key).unwrap_or_default(),
                Kind::Items => {
                    let value = self.dict.get_item(&key).unwrap_or_default();
                    JinjaValue::from(Tuple::from([key, value]))
                }
            })
            .collect()
    }
}

impl Object for DictView {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.items())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        self.dict.len()
    }

    /// A view has no items by index (`d.keys()[0]`: undefined, as
    /// Jinja2's `getitem` gives for Python's `TypeError`): an undefined
    /// value found, so that minijinja does not index the iterable.
    fn get_value(self: &Arc<Self>, _key: &JinjaValue) -> Option<JinjaValue> {
        Some(JinjaValue::UNDEFINED)
    }
}

/// `dict.method(*args)` when `method` is `keys`, `values` or `items` of a
/// dict: its view, or Python's `TypeError` for arguments; `None` for any
/// other call.
pub(super) fn call(
    dict: &JinjaValue,
    method: &str,
    args: &[JinjaValue],
) -> Option<Result<JinjaValue, Error>> {
    let kind = match method {
        "keys" => Kind::Keys,
        "values" => Kind::Values,
        "items" => Kind::Items,
        _ => return None,
    };
    if !pystr::is_dict(dict) {
        return None;
    }
    let (positional, keywords) = pystr::split_args(args);
    if !keywords.is_empty() {
        return Some(Err(pystr::type_error(format!(
            "dict.{method}() takes no keyword arguments"
        ))));
    }
    if !positional.is_empty() {
        return Some(Err(pystr::type_error(format!(
            "dict.{method}() takes no arguments ({} given)",
            positional.len()
        ))));
    }
    Some(Ok(JinjaValue::from_object(DictView {
        kind,
        dict: dict.clone(),
    })))
}

/// The Python type of `value` when it is a view (`dict_keys`).
pub(super) fn type_name(value: &JinjaValue) -> Option<&'static str> {
    Some(match value.downcast_object_ref::<DictView>()?.kind {
        Kind::Keys => "dict_keys",
        Kind::Values => "dict_values",
        Kind::Items => "dict_items",
    })
}

/// Whether Python finds `left == right` when one of them is a view: views
/// of keys or items holding the same items, a view of values only itself;
/// `None` when neither is a view.
pub(super) fn equal(left: &JinjaValue, right: &JinjaValue) -> Option<bool> {
    let (a, b) = (
        left.downcast_object_ref::<DictView>(),
        right.downcast_object_ref::<DictView>(),
    );
    let (a, b) = match (a, b) {
        (None, None) => return None,
        (Some(a), Some(b)) => (a, b),
        _ => return Some(false),
    };
    if a.kind == Kind::Values || b.kind == Kind::Values {
        return Some(std::ptr::eq(a, b));
    }
    let (xs, ys) = (a.items(), b.items());
    Some(xs.len() == ys.len() && xs.iter().all(|x| ys.contains(x)))
}
