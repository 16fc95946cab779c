//! Jinja2's `map`, `select`, `reject`, `selectattr` and `rejectattr` over
//! minijinja's own, each a generator ([`generator`]). Jinja2's read their
//! value only when it is true (`if value:`): nothing from `none`, `0` or
//! an empty string, Python's
//! `TypeError` for a true value it does not iterate (a number, a
//! namespace); and they look their filter or test up by name at the first
//! item, raising `TemplateRuntimeError: No test named 'x'.` for a name
//! Jinja2 does not have (minijinja's error names no test).

use super::generator;
use super::iterating_filters;
use super::jinja2::{FILTERS, TESTS};
use super::markup;
use super::pystr;
use super::render::haystack_error;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue};
use minijinja::{Environment, State, filters};

/// Each filter, where its filter's or test's name sits among its
/// arguments, whether the name is a test's, and Jinja2's function whose
/// generator it returns.
const SELECTING: [(&str, usize, bool, &str); 5] = [
    ("map", 0, false, "sync_do_map"),
    ("select", 0, true, "select_or_reject"),
    ("reject", 0, true, "select_or_reject"),
    ("selectattr", 1, true, "select_or_reject"),
    ("rejectattr", 1, true, "select_or_reject"),
];

/// Registers the filters of [`SELECTING`] over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    for (name, position, test, function) in SELECTING {
        let filter = match name {
            "map" => JinjaValue::from_function(filters::map),
            "select" => JinjaValue::from_function(filters::select),
            "reject" => JinjaValue::from_function(filters::reject),
            "selectattr" => JinjaValue::from_function(filters::selectattr),
            _ => JinjaValue::from_function(filters::rejectattr),
        };
        env.add_filter(
            name,
            move |state: &mut State, value: JinjaValue, args: Rest<JinjaValue>, kwargs: Kwargs| {
                // Python's truth: a namespace, a macro and a method are
                // true, however many attributes minijinja reads in them.
                if !value.is_true() && pystr::opaque_type(&value).is_none() {
                    return generator::generator(
                        function,
                        &JinjaValue::from(Vec::<JinjaValue>::new()),
                    );
                }
                // A true value Python does not iterate fails where the
                // generator is first read (`if 5|select` holds).
                if let Some(error) = iterating_filters::not_iterable(&value) {
                    let failing = JinjaValue::from(vec![JinjaValue::from(error)]);
                    return generator::generator(function, &failing);
                }
                // `map(attribute='a')` names no filter.
                let by_attribute = name == "map" && kwargs.has("attribute");
                if let Some(named) = args.get(position).filter(|_| !by_attribute) {
                    let known: &[&str] = if test { &TESTS } else { &FILTERS };
                    if !named.as_str().is_some_and(|named| known.contains(&named)) {
                        return Err(haystack_error(format!(
                            "TemplateRuntimeError: No {} named {}.",
                            if test { "test" } else { "filter" },
                            markup::repr(state, named)?
                        )));
                    }
                }
                let mut all = vec![value];
                all.extend(args.0);
                if kwargs.args().next().is_some() {
                    all.push(JinjaValue::from(kwargs));
                }
                generator::generator(function, &filter.call(state, &all)?)
            },
        );
    }
}
