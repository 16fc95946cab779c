//! The methods of a list, a tuple and a dict that read it (`count`,
//! `index`, `copy`, `get`, `fromkeys`), as Python's, with its argument
//! errors (`list.count() takes exactly one argument (0 given)`), where
//! minijinja has some of them and answers the rest in its own words. The
//! methods that change a value (`append`, `update`) stay refused: a
//! minijinja value does not change (docs/deviations.md).

use super::budget;
use super::compare;
use super::iterating_filters;
use super::markup;
use super::pystr::{self, type_error};
use super::python_math::Number;
use super::render::haystack_error;
use indexmap::IndexMap;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

/// `value.method(*args)` when `value` is a list, a tuple or a dict and the
/// method one of this module's; `None` otherwise.
pub(super) fn call(
    state: &State,
    value: &JinjaValue,
    method: &str,
    args: &[JinjaValue],
) -> Option<Result<JinjaValue, Error>> {
    let owner = match pystr::python_type(value) {
        owner @ ("list" | "tuple" | "dict") => owner,
        _ => return None,
    };
    if !matches!(
        (owner, method),
        ("list" | "tuple", "count" | "index")
            | ("list" | "dict", "copy")
            | ("dict", "get" | "fromkeys")
    ) {
        return None;
    }
    let (args, keywords) = pystr::split_args(args);
    if !keywords.is_empty() {
        return Some(Err(type_error(format!(
            "{owner}.{method}() takes no keyword arguments"
        ))));
    }
    Some(match method {
        "count" => arity_exactly(owner, method, args, 1).and_then(|()| count(value, &args[0])),
        "index" => {
            arity_between(method, args, 1, 3).and_then(|()| index(state, owner, value, args))
        }
        "copy" => arity_exactly(owner, method, args, 0).and_then(|()| copy(state, value)),
        "get" => arity_between(method, args, 1, 2).and_then(|()| get(value, args)),
        _ => arity_between(method, args, 1, 2).and_then(|()| fromkeys(state, args)),
    })
}

/// Python's `TypeError` unless `args` holds exactly `count` arguments
/// (`list.count() takes exactly one argument (0 given)`).
fn arity_exactly(
    owner: &str,
    method: &str,
    args: &[JinjaValue],
    count: usize,
) -> Result<(), Error> {
    if args.len() == count {
        return Ok(());
    }
    let expected = match count {
        0 => "no arguments",
        _ => "exactly one argument",
    };
    Err(type_error(format!(
        "{owner}.{method}() takes {expected} ({} given)",
        args.len()
    )))
}

/// Python's `TypeError` unless `args` holds `least` to `most` arguments
/// (`index expected at least 1 argument, got 0`).
fn arity_between(
    method: &str,
    args: &[JinjaValue],
    least: usize,
    most: usize,
) -> Result<(), Error> {
    let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
    if args.len() < least {
        return Err(type_error(format!(
            "{method} expected at least {least} {}, got {}",
            plural(least),
            args.len()
        )));
    }
    if args.len() > most {
        return Err(type_error(format!(
            "{method} expected at most {most} {}, got {}",
            plural(most),
            args.len()
        )));
    }
    Ok(())
}

/// How many items equal `item`.
fn count(value: &JinjaValue, item: &JinjaValue) -> Result<JinjaValue, Error> {
    let mut found = 0;
    for x in value.try_iter()? {
        if compare::same_or_equal(&x, item)? {
            found += 1;
        }
    }
    Ok(JinjaValue::from(found))
}

/// `index(item, start=0, stop=len)`: where `item` first is, within
/// `start:stop` as a slice bounds them; Python's `ValueError` when it is
/// not there.
fn index(
    state: &State,
    owner: &str,
    value: &JinjaValue,
    args: &[JinjaValue],
) -> Result<JinjaValue, Error> {
    let items: Vec<JinjaValue> = value.try_iter()?.collect();
    let len = items.len() as i128;
    let bound = |at: Option<&JinjaValue>, default: i128| match at.map(Number::of) {
        None => Ok(default),
        Some(Some(Number::Int(n))) => Ok(if n < 0 { (n + len).max(0) } else { n.min(len) }),
        Some(_) => Err(type_error(
            "slice indices must be integers or have an __index__ method".to_owned(),
        )),
    };
    let (start, stop) = (bound(args.get(1), 0)?, bound(args.get(2), len)?);
    for (at, x) in items.iter().enumerate() {
        let at = at as i128;
        if at >= start && at < stop && compare::same_or_equal(x, &args[0])? {
            return Ok(JinjaValue::from(at));
        }
    }
    Err(haystack_error(match owner {
        "tuple" => "ValueError: tuple.index(x): x not in tuple".to_owned(),
        _ => format!(
            "ValueError: {} is not in list",
            markup::repr(state, &args[0])?
        ),
    }))
}

/// A new list or dict of the same items.
fn copy(state: &State, value: &JinjaValue) -> Result<JinjaValue, Error> {
    budget::ensure_items(state, value.len().unwrap_or(0) as u64, false)?;
    Ok(match value.kind() {
        ValueKind::Map => dict(value.try_iter()?.map(|key| {
            let item = value.get_item(&key).unwrap_or_default();
            (key, item)
        })),
        _ => JinjaValue::from(value.try_iter()?.collect::<Vec<_>>()),
    })
}

/// `get(key, default=None)`: Python's `TypeError` for a key it cannot
/// hash.
fn get(value: &JinjaValue, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    compare::ensure_hashable(&args[0])?;
    let item = value.get_item(&args[0]).unwrap_or_default();
    if !item.is_undefined() {
        return Ok(item);
    }
    Ok(args.get(1).cloned().unwrap_or(JinjaValue::from(())))
}

/// `fromkeys(iterable, value=None)`: a dict of the iterable's items, each
/// holding `value`.
fn fromkeys(state: &State, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let keys = &args[0];
    if let Some(error) = iterating_filters::not_iterable(keys) {
        return Err(error);
    }
    let value = args.get(1).cloned().unwrap_or(JinjaValue::from(()));
    let keys: Vec<JinjaValue> = match keys.kind() {
        ValueKind::String => keys
            .as_str()
            .unwrap_or_default()
            .chars()
            .map(JinjaValue::from)
            .collect(),
        _ => keys.try_iter()?.collect(),
    };
    budget::ensure_items(state, keys.len() as u64, false)?;
    for key in &keys {
        compare::ensure_hashable(key)?;
    }
    Ok(dict(keys.into_iter().map(|key| (key, value.clone()))))
}

/// A dict of `entries`, in their order.
fn dict(entries: impl Iterator<Item = (JinjaValue, JinjaValue)>) -> JinjaValue {
    JinjaValue::from_object(entries.collect::<IndexMap<JinjaValue, JinjaValue>>())
}
