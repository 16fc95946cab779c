//! Jinja2's filters over a value of any type whose arguments or lookups
//! minijinja reads otherwise: `default` (also `d`) with Python's parameter
//! names (`default('x', boolean=true)`), and `attr`, which reads Python
//! attributes only (a dict's keys are not its attributes, its methods are).

use super::bound_method;
use super::pystr::{is_dict, python_type, type_error};
use super::signature::{Hints, Signature};
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error};

/// Jinja2's `do_default(value, default_value='', boolean=False)`.
const DEFAULT: Signature = Signature {
    function: "do_default",
    leading: 1,
    parameters: &["default_value", "boolean"],
    required: 0,
};

/// Jinja2's `do_attr(environment, obj, name)`.
const ATTR: Signature = Signature {
    function: "do_attr",
    leading: 2,
    parameters: &["name"],
    required: 1,
};

/// Registers the filters of this module over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    env.add_filter("default", default);
    env.add_filter("d", default);
    env.add_filter("attr", attr);
}

/// `default_value` for an undefined value, or a false one when `boolean`
/// is true (Python's truth: empty, zero, `None`); the value otherwise.
fn default(
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    Hints::take(&kwargs)?;
    let mut bound = DEFAULT.bind(&positional, &kwargs)?.into_iter();
    let fallback = bound.next().flatten().unwrap_or(JinjaValue::from(""));
    let boolean = bound.next().flatten().is_some_and(|b| b.is_true());
    if value.is_undefined() || (boolean && !value.is_true()) {
        return Ok(fallback);
    }
    Ok(value)
}

/// Python's `getattr(obj, name)`: a dict's or a list's method is its bound
/// method, a dict has no other attribute (its keys are not attributes), and
/// any other value is looked up as minijinja does.
fn attr(
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    Hints::take(&kwargs)?;
    let name = ATTR
        .bind(&positional, &kwargs)?
        .into_iter()
        .next()
        .flatten()
        .unwrap_or_default();
    let Some(name) = name.as_str().filter(|_| name.kind() == ValueKind::String) else {
        return Err(type_error(format!(
            "attribute name must be string, not '{}'",
            python_type(&name)
        )));
    };
    if let Some(method) = bound_method::attribute(&value, name) {
        return Ok(method);
    }
    if is_dict(&value) {
        return Ok(JinjaValue::UNDEFINED);
    }
    value.get_attr(name)
}
