//! Jinja2's filters that iterate their value, over a value Python does not
//! iterate: `none|first`, `5|list`, `none|join(', ')` raise Python's
//! `TypeError: 'NoneType' object is not iterable` (`last`: "is not
//! reversible"; `dictsort`, which calls `value.items()`, its
//! `AttributeError`), where minijinja's own give an empty result or their
//! own text. An undefined value iterates as empty, as Jinja2's `Undefined`
//! does.

use super::dict_view;
use super::generator;
use super::pystr::{self, python_type, type_error};
use super::render::haystack_error;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, State};

/// How a filter's Python code refuses a value it cannot iterate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// `iter(value)`: `'int' object is not iterable`.
    NotIterable,
    /// `reversed(value)`: `'int' object is not reversible`.
    NotReversible,
    /// `value.items()`: `'list' object has no attribute 'items'`.
    NoItems,
    /// `do_reverse`, which tries `reversed(value)` and then `list(value)`:
    /// `FilterArgumentError: argument must be iterable`.
    NotReversed,
}

/// The filters of minijinja's that iterate their value, and how Jinja2's
/// refuse one they cannot (`join`, `list`, `sort`, `min`, `max`, `sum`,
/// `unique`, `batch` and `slice`, which the harness writes itself, ask
/// [`not_iterable`]).
const ITERATING: &[(&str, Refusal)] = &[
    ("first", Refusal::NotIterable),
    ("last", Refusal::NotReversible),
    ("reverse", Refusal::NotReversed),
];

/// Registers the filters of [`ITERATING`], and `items`, over minijinja's
/// own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    env.add_filter("items", |value: JinjaValue| items(&value));
    for &(name, refusal) in ITERATING {
        let filter = builtin(name);
        env.add_filter(
            name,
            move |state: &mut State, value: JinjaValue, args: Rest<JinjaValue>, kwargs: Kwargs| {
                if let Some(error) = refused(refusal, &value) {
                    return Err(error);
                }
                let kind = python_type(&value);
                let mut all = vec![value];
                all.extend(args.0);
                if kwargs.args().next().is_some() {
                    all.push(JinjaValue::from(kwargs));
                }
                let result = filter.call(state, &all)?;
                match name {
                    "reverse" => reversed(kind, result),
                    _ => Ok(result),
                }
            },
        );
    }
}

/// Jinja2's `do_items`: the pairs of a mapping, none of `Undefined`, and
/// its `TypeError` for anything else (minijinja's reads a namespace, a
/// loop or a macro as a map, and refuses the rest in its own words).
fn items(value: &JinjaValue) -> Result<JinjaValue, Error> {
    if !value.is_undefined() && !pystr::is_dict(value) {
        return Err(type_error(
            "Can only get item pairs from a mapping.".to_owned(),
        ));
    }
    generator::generator("do_items", &minijinja::filters::items(value)?)
}

/// What Jinja2's `do_reverse` returns for a value of type `kind`, given
/// its items reversed: the string, Python's `reversed(value)` (an iterator
/// of the value's own type), or else a list.
fn reversed(kind: &str, items: JinjaValue) -> Result<JinjaValue, Error> {
    let iterator = match kind {
        "str" => return Ok(items),
        "list" => "list_reverseiterator",
        // `Undefined` has a length (0) and items.
        "tuple" | "bytes" | "Undefined" => "reversed",
        "range" => "range_iterator",
        "dict" | "dict_keys" => "dict_reversekeyiterator",
        "dict_values" => "dict_reversevalueiterator",
        "dict_items" => "dict_reverseitemiterator",
        // `list(value)`, whose `TypeError` Jinja2 makes its own.
        _ => {
            let listed = items.try_iter()?.checked().collect::<Result<Vec<_>, _>>();
            return listed.map(JinjaValue::from).map_err(|_| {
                haystack_error("FilterArgumentError: argument must be iterable".to_owned())
            });
        }
    };
    generator::iterator(iterator, None, &items)
}

/// minijinja's own filter of that name.
fn builtin(name: &str) -> JinjaValue {
    use minijinja::filters;
    match name {
        "first" => JinjaValue::from_function(filters::first),
        "reverse" => JinjaValue::from_function(filters::reverse),
        _ => JinjaValue::from_function(filters::last),
    }
}

/// Python's `AttributeError` for `value.items()`, when `value` is a
/// number, a boolean, `None`, a string or a list (`dictsort`).
pub(super) fn no_items(value: &JinjaValue) -> Option<Error> {
    refused(Refusal::NoItems, value)
}

/// Python's `TypeError` for iterating `value`, when it is a number, a
/// boolean or `None`.
pub(super) fn not_iterable(value: &JinjaValue) -> Option<Error> {
    refused(Refusal::NotIterable, value)
}

fn refused(refusal: Refusal, value: &JinjaValue) -> Option<Error> {
    // A bound method (`order.items` not called), a namespace or a macro is
    // no more iterable than a number.
    let scalar = matches!(
        value.kind(),
        ValueKind::None | ValueKind::Number | ValueKind::Bool
    ) || pystr::opaque_type(value).is_some();
    let kind = python_type(value);
    match refusal {
        Refusal::NotIterable if scalar => {
            Some(type_error(format!("'{kind}' object is not iterable")))
        }
        Refusal::NotReversed if scalar => Some(haystack_error(
            "FilterArgumentError: argument must be iterable".to_owned(),
        )),
        Refusal::NotReversible if scalar || generator::type_name(value).is_some() => {
            Some(type_error(format!("'{kind}' object is not reversible")))
        }
        // A namespace reads its attribute `items` (Jinja2's `Namespace`
        // raises `AttributeError` with the name alone).
        Refusal::NoItems if kind == "Namespace" => {
            Some(haystack_error("AttributeError: items".to_owned()))
        }
        Refusal::NoItems
            if scalar
                || kind == "LoopContext"
                || matches!(value.kind(), ValueKind::String | ValueKind::Seq)
                || dict_view::type_name(value).is_some()
                || generator::type_name(value).is_some() =>
        {
            Some(haystack_error(format!(
                "AttributeError: '{kind}' object has no attribute 'items'"
            )))
        }
        _ => None,
    }
}
