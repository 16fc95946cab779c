//! Python's binary `+` and `*` in a template (`__py_add`, `__py_mul`), and
//! Jinja2's `~` (`__py_concat`): what Jinja2 does, within the rendering's
//! budget.
//!
//! minijinja joins (`a + b`) and repeats (`a * n`) lists lazily and pays
//! nothing for their items, so a list doubled 60 times in a loop is 2^60
//! items long, and whatever reads it next (`join`, an index, printing it)
//! runs for hours. Python builds each list and fails with `MemoryError`
//! when it cannot: here a list an operator makes must fit in what the
//! rendering has left ([`budget::ensure_items`]), and one of unknown length
//! is built, item by item, up to that bound. A string is built here, paid
//! for first ([`budget::ensure_bytes`]). An undefined name is Jinja2's
//! `UndefinedError`; operands of built-in types Python does not add or
//! multiply are its `TypeError`. Any other pair of operands goes to
//! minijinja's own operator (numbers past 64 bits, tuples, booleans).

use super::budget;
use super::dict_view;
use super::generator;
use super::groupby;
use super::py_range;
use super::pystr;
use super::render::haystack_error;
use super::show;
use minijinja::value::{Rest, Value as JinjaValue, ValueKind};
use minijinja::{Error, State};
use std::borrow::Cow;

/// `left + right`, `hints` saying what Jinja2 raises for an undefined name.
pub(super) fn add(
    state: &State,
    hints: [Option<String>; 2],
    left: JinjaValue,
    right: JinjaValue,
) -> Result<JinjaValue, Error> {
    undefined(&hints, &left, &right)?;
    let (left, right) = (groupby::plain(left), groupby::plain(right));
    if let (Some(a), Some(b)) = (plain_str(&left), plain_str(&right)) {
        budget::ensure_bytes(state, a.len().saturating_add(b.len()))?;
        return Ok(JinjaValue::from([a, b].concat()));
    }
    if let (Some(a), Some(b)) = (bytes(&left), bytes(&right)) {
        budget::ensure_bytes(state, a.len().saturating_add(b.len()))?;
        return Ok(JinjaValue::from_bytes([a, b].concat()));
    }
    if let (Some(a), Some(b)) = (int(&left), int(&right)) {
        if let Some(sum) = a.checked_add(b) {
            return Ok(JinjaValue::from(sum));
        }
    }
    if let (Some(a), Some(b)) = (float(&left, &right), float(&right, &left)) {
        return Ok(JinjaValue::from(a + b));
    }
    if list(&left) && list(&right) {
        if let (Some(a), Some(b)) = (left.len(), right.len()) {
            budget::ensure_items(state, (a as u64).saturating_add(b as u64), false)?;
        }
        let joined = native(state, "left + right", left, right)?;
        return bounded(state, joined);
    }
    if let Some(error) = unsupported_add(&left, &right) {
        return Err(pystr::type_error(error));
    }
    native(state, "left + right", left, right)
}

/// Python's `TypeError` text for `left + right` of built-in types it does
/// not add (`None` when it adds them, or a type is not a built-in one).
fn unsupported_add(left: &JinjaValue, right: &JinjaValue) -> Option<String> {
    let (a, b) = (pystr::builtin_type(left)?, pystr::builtin_type(right)?);
    let numeric = |t: &str| matches!(t, "int" | "float" | "bool");
    if a == b && matches!(a, "str" | "list" | "tuple") || numeric(a) && numeric(b) {
        return None;
    }
    Some(match a {
        "str" | "list" | "tuple" => format!("can only concatenate {a} (not \"{b}\") to {a}"),
        _ => format!("unsupported operand type(s) for +: '{a}' and '{b}'"),
    })
}

/// Python's `TypeError` text for `left * right` of built-in types it does
/// not multiply (`None` when it does, or a type is not a built-in one).
fn unsupported_mul(left: &JinjaValue, right: &JinjaValue) -> Option<String> {
    let (a, b) = (pystr::builtin_type(left)?, pystr::builtin_type(right)?);
    let sequence = |t: &str| matches!(t, "str" | "list" | "tuple");
    let integral = |t: &str| matches!(t, "int" | "bool");
    let numeric = |t: &str| integral(t) || t == "float";
    if numeric(a) && numeric(b) || sequence(a) && integral(b) || integral(a) && sequence(b) {
        return None;
    }
    Some(if sequence(a) {
        format!("can't multiply sequence by non-int of type '{b}'")
    } else if sequence(b) {
        format!("can't multiply sequence by non-int of type '{a}'")
    } else {
        format!("unsupported operand type(s) for *: '{a}' and '{b}'")
    })
}

/// `a ~ b ~ …`: each operand as Python's `str()` prints it (printing a
/// list or dict is paid for as it is walked), the whole paid for first.
pub(super) fn concat(state: &State, operands: Rest<JinjaValue>) -> Result<JinjaValue, Error> {
    let mut shown = Vec::with_capacity(operands.len());
    let mut total = 0usize;
    for operand in operands.iter() {
        let text = match operand
            .as_str()
            .filter(|_| operand.kind() == ValueKind::String)
        {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(show::python_str(Some(state), operand)?),
        };
        total = total.saturating_add(text.len());
        budget::ensure_bytes(state, total)?;
        shown.push(text);
    }
    Ok(JinjaValue::from(shown.concat()))
}

/// `left * right`, `hints` saying what Jinja2 raises for an undefined name.
pub(super) fn mul(
    state: &State,
    hints: [Option<String>; 2],
    left: JinjaValue,
    right: JinjaValue,
) -> Result<JinjaValue, Error> {
    undefined(&hints, &left, &right)?;
    let (left, right) = (groupby::plain(left), groupby::plain(right));
    if let (Some(a), Some(b)) = (int(&left), int(&right)) {
        if let Some(product) = a.checked_mul(b) {
            return Ok(JinjaValue::from(product));
        }
    }
    if let (Some(a), Some(b)) = (float(&left, &right), float(&right, &left)) {
        return Ok(JinjaValue::from(a * b));
    }
    if let Some(error) = unsupported_mul(&left, &right) {
        return Err(pystr::type_error(error));
    }
    // A sequence and a count, in either order.
    let (repeated, times) = match (count(&left), count(&right)) {
        (None, Some(n)) => (&left, n),
        (Some(n), None) => (&right, n),
        _ => return native(state, "left * right", left, right),
    };
    let times = u64::try_from(times).unwrap_or(0);
    if let Some(text) = plain_str(repeated) {
        let bytes = (text.len() as u64).saturating_mul(times);
        budget::ensure_bytes(state, usize::try_from(bytes).unwrap_or(usize::MAX))?;
        return Ok(JinjaValue::from(text.repeat(times as usize)));
    }
    if let Some(data) = bytes(repeated) {
        let size = (data.len() as u64).saturating_mul(times);
        budget::ensure_bytes(state, usize::try_from(size).unwrap_or(usize::MAX))?;
        return Ok(JinjaValue::from_bytes(data.repeat(times as usize)));
    }
    if list(repeated) {
        if let Some(len) = repeated.len() {
            budget::ensure_items(state, (len as u64).saturating_mul(times), false)?;
        }
        let product = native(state, "left * right", left, right)?;
        return bounded(state, product);
    }
    native(state, "left * right", left, right)
}

/// The count of a repetition: an integer that fits 64 bits, or a boolean.
fn count(value: &JinjaValue) -> Option<i64> {
    match value.kind() {
        ValueKind::Bool => Some(i64::from(value.is_true())),
        _ => int(value),
    }
}

/// Jinja2's `UndefinedError` for an undefined operand that is a name.
fn undefined(
    hints: &[Option<String>; 2],
    left: &JinjaValue,
    right: &JinjaValue,
) -> Result<(), Error> {
    for (operand, hint) in [left, right].into_iter().zip(hints) {
        if let (true, Some(hint)) = (operand.is_undefined(), hint) {
            return Err(haystack_error(format!("UndefinedError: {hint}")));
        }
    }
    Ok(())
}

/// A string that is not markup (which minijinja escapes when joined).
fn plain_str(value: &JinjaValue) -> Option<&str> {
    (value.kind() == ValueKind::String && !value.is_safe())
        .then(|| value.as_str())
        .flatten()
}

/// A `bytes` value's bytes.
fn bytes(value: &JinjaValue) -> Option<&[u8]> {
    (value.kind() == ValueKind::Bytes)
        .then(|| value.as_bytes())
        .flatten()
}

/// An integer that fits 64 bits (not a boolean).
fn int(value: &JinjaValue) -> Option<i64> {
    (value.kind() == ValueKind::Number && value.is_integer())
        .then(|| value.as_i64())
        .flatten()
}

/// `value` as a float, when it or `other` is one and both are numbers
/// (an integer that fits 64 bits turns into a float, as in Python).
fn float(value: &JinjaValue, other: &JinjaValue) -> Option<f64> {
    let number = |v: &JinjaValue| v.kind() == ValueKind::Number;
    if !number(value) || !number(other) || (value.is_integer() && other.is_integer()) {
        return None;
    }
    if value.is_integer() {
        return int(value).map(|n| n as f64);
    }
    f64::try_from(value.clone()).ok()
}

/// A list or another sequence minijinja makes lazily (not a tuple).
fn list(value: &JinjaValue) -> bool {
    matches!(value.kind(), ValueKind::Seq | ValueKind::Iterable)
        && !groupby::is_tuple(value)
        && dict_view::type_name(value).is_none()
        && py_range::of(value).is_none()
        && generator::type_name(value).is_none()
}

/// minijinja's own operator `expression` over `left` and `right`.
fn native(
    state: &State,
    expression: &str,
    left: JinjaValue,
    right: JinjaValue,
) -> Result<JinjaValue, Error> {
    state
        .env()
        .compile_expression(expression)?
        .eval(minijinja::context! { left, right })
        // Its error located in the template, as minijinja's own operator's.
        .map_err(|e| Error::new(e.kind(), e.detail().unwrap_or_default().to_owned()))
}

/// `value` as it is when its length is known, else built within the budget.
fn bounded(state: &State, value: JinjaValue) -> Result<JinjaValue, Error> {
    if value.len().is_some() {
        return Ok(value);
    }
    let most = budget::bytes_left(state) / budget::BYTES_PER_ITEM;
    let bound = usize::try_from(most)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let items: Vec<JinjaValue> = value.try_iter()?.take(bound).collect();
    if items.len() as u64 > most {
        budget::ensure_items(state, most, true)?;
    }
    Ok(JinjaValue::from(items))
}
