//! Jinja2's `environment.getitem(obj, key)` over the harness's values, and
//! what its `Undefined` says when a template uses it: one lookup for
//! `obj[key]` in an operation (`__py_item`), `groupby`'s attribute and
//! `min`/`max`/`unique`/`sum`'s attribute; and Python's refusal to slice
//! what it does not subscript.

use super::pystr;
use super::pystr::type_error;
use minijinja::Error;
use minijinja::value::{Value as JinjaValue, ValueKind};

/// `obj[key]` as Python looks it up: a list or string by an integer (a
/// negative one from the end) and by nothing else, a dict by its key, a
/// name as an attribute; undefined when there is none.
pub(super) fn item(object: &JinjaValue, key: &JinjaValue) -> JinjaValue {
    let sequence = matches!(object.kind(), ValueKind::Seq | ValueKind::String);
    let index = key.as_i64().filter(|_| key.is_integer());
    let found = match (index, object.len()) {
        (Some(index), Some(len)) if index < 0 && sequence => index
            .checked_add(len as i64)
            .filter(|at| *at >= 0)
            .and_then(|at| object.get_item(&JinjaValue::from(at)).ok()),
        // A list or string is indexed by integers only.
        (None, _) if sequence => None,
        _ => object.get_item(key).ok(),
    };
    found.unwrap_or_default()
}

/// Jinja2's `Undefined` message for `key` missing from `owner`: `'dict
/// object' has no attribute 'y'` for a name, `list object has no element
/// 5` for anything else.
pub(super) fn missing(owner: &JinjaValue, key: &JinjaValue) -> String {
    let owner = match pystr::python_type(owner) {
        "NoneType" => "None".to_owned(),
        kind => format!("{kind} object"),
    };
    match key.as_str().filter(|_| key.kind() == ValueKind::String) {
        Some(name) => format!("'{owner}' has no attribute '{name}'"),
        None => format!("{owner} has no element {key}"),
    }
}

/// The object of a slice (`x[1:]`), or Python's `TypeError` when it is a
/// value Python does not slice: `None`, a number or a boolean (`'int'
/// object is not subscriptable`) or a dict (`unhashable type: 'slice'`).
pub(super) fn sliceable(object: JinjaValue) -> Result<JinjaValue, Error> {
    let kind = match object.kind() {
        ValueKind::Map if pystr::is_dict(&object) => {
            return Err(type_error("unhashable type: 'slice'".to_owned()));
        }
        ValueKind::None | ValueKind::Number | ValueKind::Bool => pystr::python_type(&object),
        _ => return Ok(object),
    };
    Err(type_error(format!("'{kind}' object is not subscriptable")))
}
