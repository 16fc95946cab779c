//! Jinja2's `environment.getitem(obj, key)` over the harness's values, and
//! what its `Undefined` says when a template uses it: one lookup for
//! `obj[key]` in an operation (`__py_item`), `groupby`'s attribute and
//! `min`/`max`/`unique`/`sum`'s attribute; and Python's slice.

use super::budget;
use super::dict_view;
use super::generator;
use super::groupby;
use super::py_range;
use super::pystr;
use super::pystr::type_error;
use super::python_math::Number;
use super::render::haystack_error;
use minijinja::value::Tuple;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, ErrorKind, State};

/// `obj[key]` as Python looks it up: a list or string by an integer or a
/// boolean (a negative one from the end) and by nothing else, a dict by its key, a
/// name as an attribute; undefined when there is none.
pub(super) fn item(object: &JinjaValue, key: &JinjaValue) -> JinjaValue {
    let sequence = matches!(object.kind(), ValueKind::Seq | ValueKind::String);
    // A boolean is an integer to Python.
    let index = match key.kind() {
        ValueKind::Bool => Some(i64::from(key.is_true())),
        _ => key.as_i64().filter(|_| key.is_integer()),
    };
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

/// Jinja2's `_prepare_attribute_parts(attribute)`, the keys an attribute
/// of `sort`, `groupby`, `min`, `max`, `unique` or `sum` looks up in turn:
/// none for `None`, a string split at dots (its parts of ASCII digits read
/// as indexes), any other value one key (`True` indexes as 1, as in
/// Python).
pub(super) fn attribute_parts(attribute: &JinjaValue) -> Vec<JinjaValue> {
    if attribute.is_none() {
        return Vec::new();
    }
    let Some(text) = attribute
        .as_str()
        .filter(|_| attribute.kind() == ValueKind::String)
    else {
        let key = match attribute.kind() {
            ValueKind::Bool => JinjaValue::from(i64::from(attribute.is_true())),
            _ => attribute.clone(),
        };
        return vec![key];
    };
    text.split('.')
        .map(|part| {
            let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
            match part.parse::<i64>().ok().filter(|_| digits) {
                Some(index) => JinjaValue::from(index),
                None => JinjaValue::from(part),
            }
        })
        .collect()
}

/// Jinja2's `Undefined` message for `key` missing from `owner`: `'dict
/// object' has no attribute 'y'` for a name, `list object has no element
/// 5` for anything else.
pub(super) fn missing(owner: &JinjaValue, key: &JinjaValue) -> String {
    let owner = pystr::object_type_repr(owner);
    match key.as_str().filter(|_| key.kind() == ValueKind::String) {
        Some(name) => format!("'{owner}' has no attribute '{name}'"),
        None => format!("{owner} has no element {key}"),
    }
}

/// Python's `object[start:stop:step]` (`None` for a part not written): a
/// list of a list, a tuple of a tuple, a string of a string (Markup kept
/// safe), `bytes` of `bytes`, the items of another sequence as a list;
/// Python's `TypeError` for a value it does not slice (`None`, a number, a
/// dict) or an index that is no integer, its `ValueError` for a zero step.
pub(super) fn slice(
    state: &State,
    object: JinjaValue,
    start: JinjaValue,
    stop: JinjaValue,
    step: JinjaValue,
) -> Result<JinjaValue, Error> {
    if object.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    match object.kind() {
        ValueKind::Map if pystr::is_dict(&object) => {
            return Err(type_error("unhashable type: 'slice'".to_owned()));
        }
        ValueKind::None
        | ValueKind::Number
        | ValueKind::Bool
        | ValueKind::Map
        | ValueKind::Plain
        | ValueKind::Iterable
            if !matches!(object.kind(), ValueKind::Iterable)
                || dict_view::type_name(&object).is_some()
                || generator::type_name(&object).is_some() =>
        {
            return Err(type_error(format!(
                "'{}' object is not subscriptable",
                pystr::python_type(&object)
            )));
        }
        _ => {}
    }
    let [start, stop, step] = [start, stop, step].map(|part| index(&part));
    // Python bounds a step to `-sys.maxsize` from below.
    let (start, stop, step) = (start?, stop?, step?.unwrap_or(1).max(-i64::MAX));
    if step == 0 {
        return Err(haystack_error(
            "ValueError: slice step cannot be zero".to_owned(),
        ));
    }
    if let Some(text) = object
        .as_str()
        .filter(|_| object.kind() == ValueKind::String)
    {
        let chars: Vec<char> = text.chars().collect();
        let picked: String = positions(chars.len(), start, stop, step)
            .map(|at| chars[at])
            .collect();
        return Ok(if object.is_safe() {
            JinjaValue::from_safe_string(picked)
        } else {
            JinjaValue::from(picked)
        });
    }
    if let Some(bytes) = object
        .as_bytes()
        .filter(|_| object.kind() == ValueKind::Bytes)
    {
        let picked: Vec<u8> = positions(bytes.len(), start, stop, step)
            .map(|at| bytes[at])
            .collect();
        return Ok(JinjaValue::from_bytes(picked));
    }
    if let Some(range) = py_range::of(&object) {
        // A range's slice is a range (`range(5)[1:3]` is `range(1, 3)`).
        let len = object.len().unwrap_or(0);
        let (first, last) = bounds(len, start, stop, step);
        return Ok(JinjaValue::from_object(range.slice(first, last, step)));
    }
    let tuple = groupby::is_tuple(&object);
    let items: Vec<JinjaValue> = groupby::plain(object).try_iter()?.collect();
    budget::ensure_items(state, items.len() as u64, false)?;
    let picked: Vec<JinjaValue> = positions(items.len(), start, stop, step)
        .map(|at| items[at].clone())
        .collect();
    Ok(if tuple {
        JinjaValue::from(Tuple::from(picked))
    } else {
        JinjaValue::from(picked)
    })
}

/// A slice's index: `None`, or an integer (a boolean counts), clamped to
/// the 64 bits no sequence outgrows; Python's `TypeError` for anything
/// else.
fn index(part: &JinjaValue) -> Result<Option<i64>, Error> {
    match Number::of(part) {
        _ if part.is_none() => Ok(None),
        Some(Number::Int(n)) => Ok(Some(
            n.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
        )),
        _ => Err(type_error(
            "slice indices must be integers or None or have an __index__ method".to_owned(),
        )),
    }
}

/// Where `start:stop:step` begins and ends in a sequence of `len` items,
/// as Python's `PySlice_AdjustIndices` bounds them.
fn bounds(len: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> (i64, i64) {
    let len = len as i64;
    let bound = |at: Option<i64>, default: i64| match at {
        None => default,
        Some(at) if at < 0 => (at.saturating_add(len)).max(if step < 0 { -1 } else { 0 }),
        Some(at) => at.min(if step < 0 { len - 1 } else { len }),
    };
    if step > 0 {
        (bound(start, 0), bound(stop, len))
    } else {
        (bound(start, len - 1), bound(stop, -1))
    }
}

/// The positions `start:stop:step` picks from a sequence of `len` items.
fn positions(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> impl Iterator<Item = usize> {
    let (first, last) = bounds(len, start, stop, step);
    let count = if step > 0 && last > first {
        (last - first - 1) / step + 1
    } else if step < 0 && first > last {
        (first - last - 1) / (-step) + 1
    } else {
        0
    };
    (0..count).map(move |k| (first + k * step) as usize)
}

#[cfg(test)]
mod tests {
    use super::positions;

    fn picked(len: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<usize> {
        positions(len, start, stop, step).collect()
    }

    #[test]
    fn slices_pick_what_python_picks() {
        assert_eq!(picked(5, Some(1), None, 1), [1, 2, 3, 4]);
        assert_eq!(picked(5, None, None, -1), [4, 3, 2, 1, 0]);
        assert_eq!(picked(5, Some(-2), None, 1), [3, 4]);
        assert_eq!(picked(5, Some(3), Some(0), -1), [3, 2, 1]);
        assert_eq!(picked(5, None, None, -2), [4, 2, 0]);
        assert_eq!(picked(5, Some(-1), Some(-10), -1), [4, 3, 2, 1, 0]);
        assert_eq!(picked(5, Some(3), Some(1), 1), Vec::<usize>::new());
        assert_eq!(picked(0, None, None, -1), Vec::<usize>::new());
        // The extremes of 64 bits, which Python's indices clamp to.
        for step in [i64::MAX, -i64::MAX] {
            assert_eq!(picked(5, None, None, step).len(), 1);
        }
        assert_eq!(
            picked(5, Some(i64::MIN), Some(i64::MAX), 1),
            [0, 1, 2, 3, 4]
        );
        assert_eq!(
            picked(5, Some(i64::MAX), Some(i64::MIN), -1),
            [4, 3, 2, 1, 0]
        );
    }
}
