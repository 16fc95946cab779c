//! Jinja2's tests that minijinja lacks or reads otherwise: the comparison
//! tests as Python's operators (`x is lt 3`, [`compare::TESTS`]),
//! `callable`, and `filter` and `test`, which ask whether a string names
//! one of Jinja2's filters or tests (and are false for anything else).

use super::bound_method;
use super::compare;
use super::jinja2::{FILTERS, TESTS};
use super::pystr::is_dict;
use minijinja::Environment;
use minijinja::value::{Value as JinjaValue, ValueKind};

/// Registers the tests of this module over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    for (name, operator) in compare::TESTS {
        env.add_test(name, move |left: JinjaValue, right: JinjaValue| {
            compare::test(operator, &left, &right)
        });
    }
    env.add_test("callable", |value: JinjaValue| is_callable(&value));
    env.add_test("filter", |value: JinjaValue| {
        value.as_str().is_some_and(|name| FILTERS.contains(&name))
    });
    env.add_test("test", |value: JinjaValue| {
        value.as_str().is_some_and(|name| TESTS.contains(&name))
    });
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
        || is_macro(value)
}

/// Whether `value` is a macro (minijinja's object, which reads as a map of
/// its `name`, `arguments` and `caller`, the last a boolean).
fn is_macro(value: &JinjaValue) -> bool {
    value.kind() == ValueKind::Map
        && !is_dict(value)
        && value.try_iter().is_ok_and(|keys| {
            keys.map(|key| key.to_string())
                .eq(["name", "arguments", "caller"].map(str::to_owned))
        })
        && value
            .get_attr("caller")
            .is_ok_and(|c| c.kind() == ValueKind::Bool)
}
