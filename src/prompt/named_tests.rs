//! Jinja2's tests that minijinja lacks or reads otherwise: the comparison
//! tests as Python's operators (`x is lt 3`, [`compare::TESTS`]),
//! `callable`, `sequence`, `odd`, `even` and `divisibleby` (Python's `%`
//! of any value, with its `TypeError` for one it does not take), and
//! `filter` and `test`, which ask whether a string names one of Jinja2's
//! filters or tests (and are false for anything else).

use super::bound_method;
use super::compare;
use super::jinja2::{FILTERS, TESTS};
use super::pystr::{self, is_dict};
use super::render::py_mod;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, State};

/// Registers the tests of this module over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    for (name, operator) in compare::TESTS {
        env.add_test(name, move |left: JinjaValue, right: JinjaValue| {
            compare::test(operator, &left, &right)
        });
    }
    env.add_test("callable", |value: JinjaValue| is_callable(&value));
    env.add_test("sequence", |value: JinjaValue| is_sequence(&value));
    // Python's `isinstance(value, abc.Mapping)`: a dict, no namespace,
    // loop or macro (minijinja's read as maps).
    env.add_test("mapping", |value: JinjaValue| is_dict(&value));
    env.add_test("iterable", |value: JinjaValue| is_iterable(&value));
    env.add_test("odd", |state: &mut State, value: JinjaValue| {
        remainder_is(state, value, JinjaValue::from(2), 1)
    });
    env.add_test("even", |state: &mut State, value: JinjaValue| {
        remainder_is(state, value, JinjaValue::from(2), 0)
    });
    env.add_test(
        "divisibleby",
        |state: &mut State, value: JinjaValue, num: JinjaValue| remainder_is(state, value, num, 0),
    );
    env.add_test("filter", |value: JinjaValue| named(&value, &FILTERS));
    env.add_test("test", |value: JinjaValue| named(&value, &TESTS));
}

/// Jinja2's `value % divisor == remainder` (`odd`, `even`,
/// `divisibleby`): Python's `%`, so a string is formatted (`'a' is odd` is
/// `TypeError: not all arguments converted during string formatting`) and
/// a list, a namespace or an iterator is Python's `TypeError`.
fn remainder_is(
    state: &mut State,
    value: JinjaValue,
    divisor: JinjaValue,
    remainder: i64,
) -> Result<bool, Error> {
    // The left operand raises first; a string formats whatever it is given.
    let value = compare::read_named(value)?;
    let divisor = if value.kind() == ValueKind::String {
        compare::unnamed(&divisor)
    } else {
        compare::read_named(divisor)?
    };
    let left = py_mod(state, None, None, value, divisor)?;
    compare::equal(&left, &JinjaValue::from(remainder))
}

/// Whether `value` is one of `names` (Python's `value in environment.filters`:
/// `TypeError` for a value it cannot hash).
fn named(value: &JinjaValue, names: &[&str]) -> Result<bool, Error> {
    if let kind @ ("dict" | "list") = pystr::python_type(value) {
        return Err(pystr::type_error(format!("unhashable type: '{kind}'")));
    }
    Ok(value.as_str().is_some_and(|name| names.contains(&name)))
}

/// Python's `callable(value)`: a function, a macro, a bound method, a
/// loop (Jinja2's `LoopContext` calls itself recursively), and Jinja2's
/// `Undefined`, whose call raises; no dict, list, string, number or
/// namespace.
fn is_callable(value: &JinjaValue) -> bool {
    value.is_undefined()
        || bound_method::is_bound_method(value)
        || value.kind() == ValueKind::Plain
        || super::render::is_loop(value)
        || super::render::is_macro(value)
}

/// Jinja2's `iterable` test, Python's `iter(value)`: anything but a
/// number, a boolean, `None`, a namespace, a macro or a bound method
/// (`Undefined` iterates as empty).
fn is_iterable(value: &JinjaValue) -> bool {
    !matches!(
        value.kind(),
        ValueKind::Number | ValueKind::Bool | ValueKind::None
    ) && pystr::opaque_type(value).is_none()
}

/// Jinja2's `sequence` test: whether Python can take the value's `len()`
/// and has `__getitem__` for it: a string, a list, a tuple, a dict,
/// `bytes`, and `Undefined`; no number, iterator, namespace or loop.
fn is_sequence(value: &JinjaValue) -> bool {
    match value.kind() {
        ValueKind::String | ValueKind::Seq | ValueKind::Bytes | ValueKind::Undefined => true,
        ValueKind::Map => is_dict(value),
        _ => false,
    }
}
