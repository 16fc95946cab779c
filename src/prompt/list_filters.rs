//! Jinja2's `sort`, `dictsort`, `unique`, `min` and `max` with their positional
//! arguments (`items|sort(true)` is `reverse=True`), which minijinja's take
//! only by keyword: the arguments are bound as Python binds them
//! ([`Signature`]) and handed to the filter by name (`min`, `max` and
//! `unique` are Python's own: [`aggregate_filters`]). `sort` and
//! `dictsort` order their keys as Python's `sorted` does
//! ([`python_sort::sorted`]): minijinja orders any two values, Python raises
//! `TypeError` for a list of a number and a string.

use super::aggregate_filters::{self, Extreme};
use super::budget;
use super::generator;
use super::getitem;
use super::iterating_filters;
use super::python_sort;
use super::render::haystack_error;
use super::signature::{Hints, Signature};
use minijinja::value::{Kwargs, Rest, Tuple, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};

/// `do_sort(environment, value, reverse=False, case_sensitive=False,
/// attribute=None)`.
const SORT: Signature = Signature {
    function: "do_sort",
    leading: 2,
    parameters: &["reverse", "case_sensitive", "attribute"],
    required: 0,
};

/// `do_unique(environment, value, case_sensitive=False, attribute=None)`.
const UNIQUE: Signature = Signature {
    function: "sync_do_unique",
    leading: 2,
    parameters: &["case_sensitive", "attribute"],
    required: 0,
};

/// `do_min(environment, value, case_sensitive=False, attribute=None)`.
const MIN: Signature = Signature {
    function: "do_min",
    leading: 2,
    parameters: &["case_sensitive", "attribute"],
    required: 0,
};

/// `do_max(environment, value, case_sensitive=False, attribute=None)`.
const MAX: Signature = Signature {
    function: "do_max",
    leading: 2,
    parameters: &["case_sensitive", "attribute"],
    required: 0,
};

/// A filter that takes its arguments by keyword.
type Filter = fn(&State, JinjaValue, Kwargs) -> Result<JinjaValue, Error>;

/// Jinja2's `do_sum(environment, iterable, attribute=None, start=0)`.
const SUM: Signature = Signature {
    function: "sync_do_sum",
    leading: 2,
    parameters: &["attribute", "start"],
    required: 0,
};

/// Jinja2's `do_dictsort(value, case_sensitive=False, by='key',
/// reverse=False)`.
const DICTSORT: Signature = Signature {
    function: "do_dictsort",
    leading: 1,
    parameters: &["case_sensitive", "by", "reverse"],
    required: 0,
};

/// Registers the filters of this module over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    env.add_filter(
        "dictsort",
        |state: &State, value: JinjaValue, positional: Rest<JinjaValue>, kwargs: Kwargs| {
            let hints = Hints::take(&kwargs)?;
            let bound = DICTSORT.bind(&positional, &kwargs)?;
            let [case_sensitive, by, reverse] =
                <[Option<JinjaValue>; 3]>::try_from(bound).unwrap_or_else(|_| [None, None, None]);
            dictsort(
                state,
                (&value, &hints),
                case_sensitive.is_some_and(|c| c.is_true()),
                by.unwrap_or_else(|| JinjaValue::from("key")),
                reverse.is_some_and(|r| r.is_true()),
            )
        },
    );
    bound(env, "sort", &SORT, sort);
    bound(env, "unique", &UNIQUE, |state, value, kwargs| {
        generator::generator(
            "sync_do_unique",
            &aggregate_filters::unique(state, value, kwargs)?,
        )
    });
    bound(env, "sum", &SUM, aggregate_filters::sum);
    bound(env, "min", &MIN, |state, value, kwargs| {
        aggregate_filters::extreme(state, value, kwargs, Extreme::Min)
    });
    bound(env, "max", &MAX, |state, value, kwargs| {
        aggregate_filters::extreme(state, value, kwargs, Extreme::Max)
    });
}

/// `name` as `filter` over its arguments bound by `signature`. An argument
/// not given is left out; one given as `none` is handed on (a filter that
/// reads `Option` reads it as not given, `sum` reads its `start=none`).
fn bound(
    env: &mut Environment<'static>,
    name: &'static str,
    signature: &'static Signature,
    filter: Filter,
) {
    env.add_filter(
        name,
        move |state: &State, value: JinjaValue, positional: Rest<JinjaValue>, kwargs: Kwargs| {
            let hints = Hints::take(&kwargs)?;
            let bound = signature.bind(&positional, &kwargs)?;
            let pairs: Vec<(&str, JinjaValue)> = signature
                .parameters
                .iter()
                .zip(bound)
                .filter_map(|(name, value)| value.map(|v| (*name, v)))
                .chain(hints.keyword())
                .collect();
            filter(state, value, Kwargs::from_iter(pairs))
        },
    );
}

/// Jinja2's `sort`: a list's items in the order Python's `sorted` leaves
/// them ([`python_sort::sorted`]: its `TypeError` for keys it does not
/// order, case-insensitive unless asked, as Jinja2's); minijinja's sort
/// for what Python iterates otherwise (a string's characters, a dict's
/// keys).
fn sort(state: &State, value: JinjaValue, kwargs: Kwargs) -> Result<JinjaValue, Error> {
    let reverse = kwargs.get::<Option<JinjaValue>>("reverse")?;
    let case_sensitive = kwargs.get::<Option<JinjaValue>>("case_sensitive")?;
    // An undefined attribute is a key no item has (Python: `Undefined`).
    let attribute = match kwargs.has("attribute") {
        true => Some(kwargs.get::<JinjaValue>("attribute")?),
        false => None,
    };
    if let Some(error) = iterating_filters::not_iterable(&value) {
        return Err(error);
    }
    let listed = matches!(value.kind(), ValueKind::Seq | ValueKind::Iterable);
    if listed {
        let paths = attribute_paths(attribute.as_ref());
        // Jinja2's key is the list of the item's attributes (the item
        // itself without one), each lowercased when a string and the sort
        // is not case-sensitive.
        let folds = !case_sensitive.as_ref().is_some_and(JinjaValue::is_true);
        let mut keys = Vec::new();
        // What Jinja2's `Undefined` for a missing attribute says when the
        // sort compares it.
        let mut missing: Option<String> = None;
        // The lowercased copies of string keys: these keys, and minijinja's
        // sort's own, paid for before they are made.
        let mut folded = 0usize;
        let items: Vec<JinjaValue> = value.try_iter()?.checked().collect::<Result<_, _>>()?;
        budget::ensure_items(state, (items.len() as u64).saturating_mul(3), false)?;
        for item in &items {
            let mut key = Vec::new();
            for path in &paths {
                let mut part = item.clone();
                for key in path {
                    let owner = part;
                    part = getitem::item(&owner, key);
                    if part.is_undefined() && !owner.is_undefined() && missing.is_none() {
                        missing = Some(getitem::missing(&owner, key));
                    }
                }
                key.push(
                    match part
                        .as_str()
                        .filter(|_| folds && part.kind() == ValueKind::String)
                    {
                        Some(text) => {
                            folded = folded.saturating_add(text.len().saturating_mul(2));
                            budget::ensure_bytes(state, folded)?;
                            JinjaValue::from(text.to_lowercase())
                        }
                        None => part,
                    },
                );
            }
            keys.push(JinjaValue::from(key));
        }
        let reverse = reverse.as_ref().is_some_and(JinjaValue::is_true);
        let order = python_sort::sorted(&keys, reverse).map_err(|unordered| {
            match (&missing, unordered.error.kind()) {
                (Some(hint), ErrorKind::UndefinedError) => {
                    haystack_error(format!("UndefinedError: {hint}"))
                }
                _ => unordered.error,
            }
        })?;
        return Ok(JinjaValue::from(
            order
                .into_iter()
                .map(|i| items[i].clone())
                .collect::<Vec<_>>(),
        ));
    }
    let pairs = [
        ("reverse", reverse),
        ("case_sensitive", case_sensitive),
        ("attribute", attribute.filter(|a| !a.is_undefined())),
    ];
    let given = pairs
        .into_iter()
        .filter_map(|(name, value)| value.map(|v| (name, v)));
    minijinja::filters::sort(state, value, Kwargs::from_iter(given))
}

/// Jinja2's `dictsort`: the dict's items as `(key, value)` tuples, sorted
/// as Python's `sorted` sorts them by the key or the value (lowercased when
/// a string, unless `case_sensitive`), with its `TypeError` for keys it
/// does not order.
fn dictsort(
    state: &State,
    (value, hints): (&JinjaValue, &Hints),
    case_sensitive: bool,
    by: JinjaValue,
    reverse: bool,
) -> Result<JinjaValue, Error> {
    let position = if by == JinjaValue::from("key") {
        0
    } else if by == JinjaValue::from("value") {
        1
    } else {
        return Err(haystack_error(
            "FilterArgumentError: You can only sort by either \"key\" or \"value\"".to_owned(),
        ));
    };
    // `by` first, then `value.items()` (an undefined value raises there).
    hints.check("", Some(value))?;
    if let Some(error) = iterating_filters::no_items(value) {
        return Err(error);
    }
    if value.kind() != ValueKind::Map {
        // An undefined value, or one minijinja refuses in its own words.
        return minijinja::filters::dictsort(value, Kwargs::from_iter([("by", by)]));
    }
    let pairs: Vec<[JinjaValue; 2]> = value
        .try_iter()?
        .map(|key| {
            let item = value.get_item(&key).unwrap_or_default();
            [key, item]
        })
        .collect();
    budget::ensure_items(state, (pairs.len() as u64).saturating_mul(4), false)?;
    let mut keys: Vec<JinjaValue> = Vec::with_capacity(pairs.len());
    let mut folded = 0usize;
    for pair in &pairs {
        let key = &pair[position];
        keys.push(
            match key
                .as_str()
                .filter(|_| !case_sensitive && key.kind() == ValueKind::String)
            {
                Some(text) => {
                    folded = folded.saturating_add(text.len());
                    budget::ensure_bytes(state, folded)?;
                    JinjaValue::from(text.to_lowercase())
                }
                None => key.clone(),
            },
        );
    }
    let order = python_sort::sorted(&keys, reverse)?;
    Ok(JinjaValue::from(
        order
            .into_iter()
            .map(|i| JinjaValue::from(Tuple::from(pairs[i].clone())))
            .collect::<Vec<_>>(),
    ))
}

/// The attribute paths of a sort's key, as Jinja2's `make_multi_attrgetter`
/// reads them: a string split at commas (`"a.b,c"` is `[[a, b], [c]]`),
/// any other value one path (no attribute is one empty path).
fn attribute_paths(attribute: Option<&JinjaValue>) -> Vec<Vec<JinjaValue>> {
    let Some(attribute) = attribute else {
        return vec![Vec::new()];
    };
    match attribute
        .as_str()
        .filter(|_| attribute.kind() == ValueKind::String)
    {
        Some(text) => text
            .split(',')
            .map(|path| getitem::attribute_parts(&JinjaValue::from(path)))
            .collect(),
        None => vec![getitem::attribute_parts(attribute)],
    }
}
