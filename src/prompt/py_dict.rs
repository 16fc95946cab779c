//! Jinja2's global `dict`, Python's `dict(arg, **kwargs)`: a dict's items,
//! or the pairs an iterable gives (`dict([('a', 1)])`, `dict(d|items)`,
//! `dict(['ab'])`), then the keywords, a repeated key keeping its first
//! place and its last value; with Python's `TypeError` and `ValueError`
//! for what it cannot read as pairs. Jinja2's `namespace(*args, **kwargs)`
//! takes its attributes from the same `dict(*args, **kwargs)`.

use super::budget;
use super::compare;
use super::iterating_filters;
use super::namespace::Namespace;
use super::pystr::{self, type_error};
use super::render::haystack_error;
use indexmap::IndexMap;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue};
use minijinja::{Error, ErrorKind, State};
use std::sync::Arc;

/// Python's `dict(*args, **kwargs)`.
pub(super) fn dict(
    state: &State,
    args: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    if args.len() > 1 {
        return Err(type_error(format!(
            "dict expected at most 1 argument, got {}",
            args.len()
        )));
    }
    // A key given again keeps its place and takes the new value.
    let mut pairs: IndexMap<JinjaValue, JinjaValue> = IndexMap::new();
    if let Some(arg) = args.first() {
        if arg.is_undefined() {
            // Jinja2's `Undefined` raises when Python asks it for `keys`.
            return Err(Error::from(ErrorKind::UndefinedError));
        }
        if pystr::is_dict(arg) {
            for key in arg.try_iter()? {
                let value = arg.get_item(&key)?;
                pairs.insert(key, value);
            }
        } else {
            if let Some(error) = iterating_filters::not_iterable(arg) {
                return Err(error);
            }
            for (index, element) in arg.try_iter()?.enumerate() {
                let [key, value] = pair(index, &element)?;
                compare::ensure_hashable(&key)?;
                pairs.insert(key, value);
            }
        }
    }
    for name in kwargs.args() {
        pairs.insert(JinjaValue::from(name), kwargs.get::<JinjaValue>(name)?);
    }
    budget::ensure_items(state, (pairs.len() as u64).saturating_mul(2), false)?;
    Ok(JinjaValue::from_object(pairs))
}

/// The element at `index` of `dict`'s argument read as a key and a value.
fn pair(index: usize, element: &JinjaValue) -> Result<[JinjaValue; 2], Error> {
    if iterating_filters::not_iterable(element).is_some() {
        return Err(type_error(format!(
            "cannot convert dictionary update sequence element #{index} to a sequence"
        )));
    }
    let items: Vec<JinjaValue> = element.try_iter()?.collect();
    let length = items.len();
    <[JinjaValue; 2]>::try_from(items).map_err(|_| {
        haystack_error(format!(
            "ValueError: dictionary update sequence element #{index} has length {length}; 2 is required"
        ))
    })
}

/// Jinja2's `namespace(*args, **kwargs)`: a namespace holding
/// `dict(*args, **kwargs)`, in its order (a key that is no string is left
/// out, as minijinja cannot read it as an attribute).
pub(super) fn namespace(
    state: &State,
    args: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let attributes = dict(state, args, kwargs)?;
    let mut pairs = Vec::new();
    for key in attributes.try_iter()? {
        let value = attributes.get_item(&key)?;
        if let Some(name) = key.as_str() {
            pairs.push((Arc::from(name), value));
        }
    }
    Ok(JinjaValue::from_object(Namespace::new(pairs)))
}
