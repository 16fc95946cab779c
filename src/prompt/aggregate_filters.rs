//! Jinja2's `min`, `max`, `unique` and `sum`, as Python runs them: the value
//! iterated as Python iterates it (`'NoneType' object is not iterable`),
//! each item's key read by Jinja2's `make_attrgetter` (an `attribute`
//! path, strings lowercased unless `case_sensitive`), the keys compared as
//! Python's `min`/`max` compare them (`TypeError: '<' not supported
//! between instances of 'str' and 'int'`; an `Undefined` key raises its
//! `UndefinedError` when compared) and remembered as a Python `set`
//! remembers them (`1`, `1.0` and `True` are one key; a list is
//! unhashable).

use super::arith;
use super::budget;
use super::compare;
use super::getitem;
use super::groupby;
use super::iterating_filters;
use super::pystr::{self, type_error};
use super::pystr_unicode::Case;
use super::render::haystack_error;
use super::signature::Hints;
use minijinja::value::{Kwargs, Value as JinjaValue, ValueKind};
use minijinja::{Error, ErrorKind, State};
use std::collections::HashSet;

/// Which of Python's `min` and `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Extreme {
    Min,
    Max,
}

/// Jinja2's `do_min` / `do_max`: the item whose key is the smallest (the
/// largest), the first of equal ones; an undefined value (Jinja2's
/// "No aggregated item, sequence was empty.") for no items.
pub(super) fn extreme(
    state: &State,
    value: JinjaValue,
    kwargs: Kwargs,
    which: Extreme,
) -> Result<JinjaValue, Error> {
    let getter = Getter::of(&kwargs)?;
    let mut items = python_iter(state, &value)?.into_iter().enumerate();
    let Some((_, first)) = items.next() else {
        return Ok(JinjaValue::UNDEFINED);
    };
    let mut best_key = getter.key(0, &first)?;
    let mut best = first;
    for (index, item) in items {
        let key = getter.key(index, &item)?;
        // CPython's `min_max`: `item < best` (`>` for max), the item's key
        // on the left.
        let better = match which {
            Extreme::Min => compare::less(&key.value, &best_key.value),
            Extreme::Max => compare::greater(&key.value, &best_key.value),
        }
        .map_err(|error| undefined_hint(error, &key, &best_key))?;
        if better {
            best = item;
            best_key = key;
        }
    }
    Ok(best)
}

/// Jinja2's `sync_do_unique`: the items in order, each whose key was not
/// seen before (as a list; Jinja2 yields them from a generator).
pub(super) fn unique(
    state: &State,
    value: JinjaValue,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let getter = Getter::of(&kwargs)?;
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    // The keys remembered, paid for as they are: their text, and a slot
    // for each value in them.
    let mut size = Size {
        limit: usize::try_from(budget::bytes_left(state)).unwrap_or(usize::MAX),
        ..Size::default()
    };
    for (index, item) in python_iter(state, &value)?.into_iter().enumerate() {
        let key = getter.key(index, &item)?;
        let key = HashKey::of(&key.value, &mut size)?;
        budget::ensure_bytes(state, size.bytes())?;
        if seen.insert(key) {
            kept.push(item);
        }
    }
    Ok(JinjaValue::from(kept))
}

/// Jinja2's `do_sum(iterable, attribute=None, start=0)`: Python's
/// `sum(items, start)`, adding with Python's `+` (`TypeError` for a string
/// and a number; `sum()` refuses a string or `bytes` start).
pub(super) fn sum(state: &State, value: JinjaValue, kwargs: Kwargs) -> Result<JinjaValue, Error> {
    let attribute = kwargs.get::<Option<JinjaValue>>("attribute")?;
    // `start=none` is Python's `None`, which `sum` adds to (`TypeError`).
    let start = match kwargs.has("start") {
        true => Some(kwargs.get::<JinjaValue>("start")?),
        false => None,
    };
    let items = Hints::take(&kwargs)?;
    kwargs.assert_all_used()?;
    let getter = Getter::new(attribute, false, items);
    let items = python_iter(state, &value)?;
    let mut total = start.unwrap_or(JinjaValue::from(0));
    match total.kind() {
        ValueKind::String => {
            return Err(type_error(
                "sum() can't sum strings [use ''.join(seq) instead]".to_owned(),
            ));
        }
        ValueKind::Bytes => {
            return Err(type_error(
                "sum() can't sum bytes [use b''.join(seq) instead]".to_owned(),
            ));
        }
        _ => {}
    }
    for (index, item) in items.into_iter().enumerate() {
        let key = getter.key(index, &item)?;
        if key.value.is_undefined() {
            // Jinja2's text when the template named it; minijinja's else.
            return Err(match key.hint {
                Some(hint) => haystack_error(format!("UndefinedError: {hint}")),
                None => Error::from(ErrorKind::UndefinedError),
            });
        }
        total = arith::add(state, [None, None], total, key.value)?;
    }
    Ok(total)
}

/// The items of `value` as Python's `iter()` gives them: a string's
/// characters, a dict's keys, nothing from an undefined value (Jinja2's
/// `Undefined.__iter__`), `TypeError` for a number, a boolean or `None`.
fn python_iter(state: &State, value: &JinjaValue) -> Result<Vec<JinjaValue>, Error> {
    if let Some(error) = iterating_filters::not_iterable(value) {
        return Err(error);
    }
    match value.kind() {
        ValueKind::Undefined => Ok(Vec::new()),
        ValueKind::String => {
            let text = value.as_str().unwrap_or_default();
            budget::ensure_items(state, text.len() as u64, false)?;
            Ok(text.chars().map(JinjaValue::from).collect())
        }
        ValueKind::Bytes => Ok(value
            .as_bytes()
            .unwrap_or_default()
            .iter()
            .map(|b| JinjaValue::from(*b))
            .collect()),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => {
            if let Some(len) = value.len() {
                budget::ensure_items(state, len as u64, false)?;
            }
            value.try_iter()?.checked().collect()
        }
        _ => Err(iterating_filters::not_iterable(value).unwrap_or_else(|| {
            type_error(format!(
                "'{}' object is not iterable",
                pystr::python_type(value)
            ))
        })),
    }
}

/// Jinja2's `make_attrgetter(environment, attribute, postprocess=
/// ignore_case if not case_sensitive else None)`.
struct Getter {
    /// `_prepare_attribute_parts(attribute)`: names, and integers for the
    /// parts written in digits.
    parts: Vec<JinjaValue>,
    /// Strings lowercased (`ignore_case`).
    fold: bool,
    /// What the names of a list written in the template as the operand
    /// say when undefined (`[count, topic]|max`).
    items: Hints,
}

/// An item's key, and what Jinja2's `Undefined` says when it is one.
struct Key {
    value: JinjaValue,
    hint: Option<String>,
}

impl Getter {
    /// The getter of `min`, `max` and `unique`: their `attribute`, their
    /// strings lowercased unless `case_sensitive`.
    fn of(kwargs: &Kwargs) -> Result<Getter, Error> {
        let case_sensitive = kwargs.get::<Option<JinjaValue>>("case_sensitive")?;
        let attribute = kwargs.get::<Option<JinjaValue>>("attribute")?;
        let items = Hints::take(kwargs)?;
        kwargs.assert_all_used()?;
        let fold = !case_sensitive.as_ref().is_some_and(JinjaValue::is_true);
        Ok(Getter::new(attribute, fold, items))
    }

    fn new(attribute: Option<JinjaValue>, fold: bool, items: Hints) -> Getter {
        let parts = attribute.map_or_else(Vec::new, |a| getitem::attribute_parts(&a));
        Getter { parts, fold, items }
    }

    /// The key of `item`, the operand's item at `index`: each part looked
    /// up as `environment.getitem` looks it up, an undefined owner raising
    /// at once.
    fn key(&self, index: usize, item: &JinjaValue) -> Result<Key, Error> {
        let mut value = item.clone();
        let mut hint = None;
        if item.is_undefined() {
            hint = self.items.hint(&format!("[{index}]"));
        }
        for part in &self.parts {
            if value.is_undefined() {
                return Err(haystack_error(format!(
                    "UndefinedError: {}",
                    hint.unwrap_or_default()
                )));
            }
            let found = getitem::item(&value, part);
            if found.is_undefined() {
                hint = Some(getitem::missing(&value, part));
            }
            value = found;
        }
        if self.fold && value.kind() == ValueKind::String {
            let text = value.as_str().unwrap_or_default();
            value = JinjaValue::from(if text.is_ascii() {
                text.to_ascii_lowercase()
            } else {
                Case::Lower.apply(text)
            });
        }
        Ok(Key { value, hint })
    }
}

/// A comparison that met an undefined key raises that key's
/// `UndefinedError` (the left one's first, as Python asks it first).
fn undefined_hint(error: Error, left: &Key, right: &Key) -> Error {
    if error.kind() != ErrorKind::UndefinedError {
        return error;
    }
    let hint = [left, right]
        .into_iter()
        .find(|key| key.value.is_undefined())
        .and_then(|key| key.hint.clone());
    match hint {
        Some(hint) => haystack_error(format!("UndefinedError: {hint}")),
        None => error,
    }
}

/// A key as a Python `set` tells keys apart: numbers by value (`1`, `1.0`
/// and `True` are one), strings, `None`, tuples of these; every
/// `Undefined` is one key (Jinja2's `Undefined.__eq__`).
#[derive(Debug, PartialEq, Eq, Hash)]
enum HashKey {
    Int(i128),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
    None,
    Undefined,
    Tuple(Vec<HashKey>),
    /// A value of no hashable built-in type: itself only (by its place
    /// among the items, as Python hashes a generator by its identity).
    Other(usize),
}

/// What the keys a `unique` remembers take: their text and their values,
/// and the bytes the rendering has left for them.
#[derive(Debug, Default)]
struct Size {
    text: usize,
    values: usize,
    limit: usize,
}

impl Size {
    /// Bytes a value of a key takes, its slot in a tuple's list included.
    const VALUE_BYTES: usize = 2 * std::mem::size_of::<HashKey>();

    fn bytes(&self) -> usize {
        self.text
            .saturating_add(self.values.saturating_mul(Self::VALUE_BYTES))
    }
}

impl HashKey {
    /// The key of `value`, or Python's `TypeError: unhashable type`;
    /// `size` counts what it holds, which stops a tuple shared many times
    /// over at the budget.
    fn of(value: &JinjaValue, size: &mut Size) -> Result<HashKey, Error> {
        size.values += 1;
        if size.bytes() > size.limit {
            return Err(budget::memory_error(size.bytes(), size.limit as u64));
        }
        Ok(match value.kind() {
            ValueKind::Undefined => HashKey::Undefined,
            ValueKind::None => HashKey::None,
            ValueKind::Bool => HashKey::Int(i128::from(value.is_true())),
            ValueKind::Number if value.is_integer() => {
                HashKey::Int(i128::try_from(value.clone()).unwrap_or_default())
            }
            ValueKind::Number => {
                let float = f64::try_from(value.clone()).unwrap_or(f64::NAN);
                if float.is_finite() && float.fract() == 0.0 && float.abs() < 1e38 {
                    HashKey::Int(float as i128)
                } else {
                    HashKey::Float(float.to_bits())
                }
            }
            ValueKind::String => {
                let text = value.as_str().unwrap_or_default();
                size.text = size.text.saturating_add(text.len());
                HashKey::Str(text.to_owned())
            }
            ValueKind::Bytes => {
                let bytes = value.as_bytes().unwrap_or_default();
                size.text = size.text.saturating_add(bytes.len());
                HashKey::Bytes(bytes.to_vec())
            }
            ValueKind::Seq if groupby::is_tuple(value) => HashKey::Tuple(
                value
                    .try_iter()?
                    .map(|item| HashKey::of(&item, size))
                    .collect::<Result<_, _>>()?,
            ),
            ValueKind::Seq | ValueKind::Map => {
                return Err(type_error(format!(
                    "unhashable type: '{}'",
                    pystr::python_type(value)
                )));
            }
            _ => HashKey::Other(size.values),
        })
    }
}
