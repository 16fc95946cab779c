//! Jinja2's number filters as Python computes them: `int` and `float`
//! (Python's `int()` and `float()` of a string, with Jinja2's fallbacks to
//! a default), and the `TypeError` texts of `abs` and `length` for a
//! value Python refuses (`round` is [`round_filter`]'s).
//!
//! minijinja's `int` and `float` parse a string as Rust does and fail on
//! what is not a number, where Jinja2 gives the default (`'n/a'|float` is
//! `0.0`); they read neither Python's underscores (`'1_000'`) nor its
//! whitespace, and `'inf'|int` was the largest 128-bit integer.

use super::generator;
use super::message_tag::is_py_space;
use super::pystr::{self, python_type, type_error};
use super::pystr_unicode;
use super::python_math::too_large;
use super::render::{self, haystack_error};
use super::round_filter;
use super::signature::Signature;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error};

/// Jinja2's `do_int(value, default=0, base=10)`.
const INT: Signature = Signature {
    function: "do_int",
    leading: 1,
    parameters: &["default", "base"],
    required: 0,
};

/// Jinja2's `do_float(value, default=0.0)`.
const FLOAT: Signature = Signature {
    function: "do_float",
    leading: 1,
    parameters: &["default"],
    required: 0,
};

/// Registers the filters of this module over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    env.add_filter("int", int);
    env.add_filter("float", float);
    env.add_filter("abs", abs);
    env.add_filter("round", round_filter::round);
    env.add_filter("length", length);
    env.add_filter("count", length);
}

/// Python's default `sys.get_int_max_str_digits()`.
const MAX_STR_DIGITS: usize = 4300;

/// Why Python's `int()` or `float()` refused a value: the two Jinja2
/// catches, and an overflow, which `int` catches only on its second try.
enum Refused {
    Caught,
    Overflow(String),
    Other(Error),
}

/// Jinja2's `int`: `int(value, base)` of a string, `int(value)` of
/// anything else, then `int(float(value))`, then `default`.
fn int(
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let mut bound = INT.bind(&positional, &kwargs)?.into_iter();
    let default = bound.next().flatten().unwrap_or(JinjaValue::from(0));
    let base = bound.next().flatten().unwrap_or(JinjaValue::from(10));
    let first = match value.as_str().filter(|_| value.kind() == ValueKind::String) {
        Some(text) => int_of_str(text, &base),
        None => int_of(&value),
    };
    match first {
        Ok(n) => return Ok(n),
        Err(Refused::Caught) => {}
        Err(Refused::Overflow(message)) => return Err(haystack_error(message)),
        Err(Refused::Other(error)) => return Err(error),
    }
    match float_of(&value).and_then(int_of_float) {
        Ok(n) => Ok(n),
        Err(Refused::Other(error)) => Err(error),
        Err(_) => Ok(default),
    }
}

/// Jinja2's `float`: `float(value)`, else `default`.
fn float(
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let default = FLOAT
        .bind(&positional, &kwargs)?
        .into_iter()
        .next()
        .flatten();
    match float_of(&value) {
        Ok(f) => Ok(JinjaValue::from(f)),
        Err(Refused::Other(error)) => Err(error),
        Err(_) => Ok(default.unwrap_or(JinjaValue::from(0.0))),
    }
}

/// Python's `int(value)` of a value that is not a string.
fn int_of(value: &JinjaValue) -> Result<JinjaValue, Refused> {
    match value.kind() {
        ValueKind::Bool => Ok(JinjaValue::from(i64::from(value.is_true()))),
        ValueKind::Number if value.is_integer() => Ok(value.clone()),
        ValueKind::Number => int_of_float(f64::try_from(value.clone()).unwrap_or(f64::NAN)),
        ValueKind::Undefined => Err(Refused::Other(undefined())),
        _ => Err(Refused::Caught),
    }
}

/// Python's `int(f)`: truncated; `OverflowError` for an infinity,
/// `ValueError` for NaN.
fn int_of_float(f: f64) -> Result<JinjaValue, Refused> {
    if f.is_nan() {
        return Err(Refused::Caught);
    }
    if f.is_infinite() {
        return Err(Refused::Overflow(
            "OverflowError: cannot convert float infinity to integer".to_owned(),
        ));
    }
    let truncated = f.trunc();
    if truncated.abs() < 9.2e18 {
        return Ok(JinjaValue::from(truncated as i64));
    }
    if truncated.abs() < 1.7e38 {
        return Ok(JinjaValue::from(truncated as i128));
    }
    Err(Refused::Other(too_large()))
}

/// Python's `float(value)`.
fn float_of(value: &JinjaValue) -> Result<f64, Refused> {
    match value.kind() {
        ValueKind::String => parse_float(value.as_str().unwrap_or_default()).ok_or(Refused::Caught),
        ValueKind::Bool => Ok(if value.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(value.clone()).map_err(|_| Refused::Caught),
        ValueKind::Undefined => Err(Refused::Other(undefined())),
        _ => Err(Refused::Caught),
    }
}

/// An undefined value Python computes with: Jinja2 names the variable,
/// which the value does not know (a name is checked before the filter).
fn undefined() -> Error {
    haystack_error("UndefinedError: the value is undefined".to_owned())
}

/// Python's `float(text)`: around Python's whitespace, a decimal number
/// with single underscores between digits, or `inf`, `infinity`, `nan`.
pub(super) fn parse_float(text: &str) -> Option<f64> {
    let text = pystr_unicode::decimal_and_space_to_ascii(text);
    let text = text.trim_matches(is_py_space);
    let (negative, body) = sign(text);
    let special = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(f) = special {
        return Some(if negative { -f } else { f });
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let digits_ok = |part: &str| part.is_empty() || digit_part(part, 10);
    let has_digits = !whole.is_empty() || fraction.is_some_and(|f| !f.is_empty());
    if !has_digits || !digits_ok(whole) || !fraction.is_none_or(digits_ok) {
        return None;
    }
    if let Some(exponent) = exponent {
        let (_, digits) = sign(exponent);
        if digits.is_empty() || !digit_part(digits, 10) {
            return None;
        }
    }
    let plain: String = text.chars().filter(|c| *c != '_').collect();
    plain.parse().ok()
}

/// The sign of a number's text, and the rest.
fn sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

/// Whether `part` is digits of `radix` with single underscores between
/// them.
fn digit_part(part: &str, radix: u32) -> bool {
    !part.starts_with('_')
        && !part.ends_with('_')
        && !part.contains("__")
        && part.chars().all(|c| c == '_' || c.is_digit(radix))
}

/// Python's `int(text, base)`: `Caught` for what it refuses (a base that
/// is not an integer or not 0 or 2 to 36, text that is not a number of
/// that base).
fn int_of_str(text: &str, base: &JinjaValue) -> Result<JinjaValue, Refused> {
    let base = match base.kind() {
        ValueKind::Bool => u32::from(base.is_true()),
        ValueKind::Number if base.is_integer() => base
            .as_i64()
            .and_then(|b| u32::try_from(b).ok())
            .ok_or(Refused::Caught)?,
        _ => return Err(Refused::Caught),
    };
    if base == 1 || base > 36 {
        return Err(Refused::Caught);
    }
    let text = pystr_unicode::decimal_and_space_to_ascii(text);
    let (negative, body) = sign(text.trim_matches(is_py_space));
    let lower = body.to_ascii_lowercase();
    let prefixed = |prefix: &str| {
        lower
            .strip_prefix(prefix)
            .map(|rest| rest.strip_prefix('_').unwrap_or(rest))
    };
    let (radix, digits) = match base {
        0 => match [("0x", 16), ("0o", 8), ("0b", 2)]
            .iter()
            .find_map(|(p, r)| prefixed(p).map(|d| (*r, d)))
        {
            Some(found) => found,
            None if lower.trim_start_matches(['0', '_']).is_empty() && !lower.is_empty() => {
                (10, lower.as_str())
            }
            None if lower.starts_with('0') => return Err(Refused::Caught),
            None => (10, lower.as_str()),
        },
        16 => (16, prefixed("0x").unwrap_or(&lower)),
        8 => (8, prefixed("0o").unwrap_or(&lower)),
        2 => (2, prefixed("0b").unwrap_or(&lower)),
        radix => (radix, lower.as_str()),
    };
    if digits.is_empty() || !digit_part(digits, radix) {
        return Err(Refused::Caught);
    }
    // Python's limit on the digits it converts in a base that is not a
    // power of two (`sys.get_int_max_str_digits()`): a `ValueError`.
    let count = digits.chars().filter(|c| *c != '_').count();
    if !radix.is_power_of_two() && count > MAX_STR_DIGITS {
        return Err(Refused::Caught);
    }
    let mut n: i128 = 0;
    for c in digits.chars().filter(|c| *c != '_') {
        let digit = i128::from(c.to_digit(radix).unwrap_or(0));
        n = n
            .checked_mul(i128::from(radix))
            .and_then(|n| n.checked_add(digit))
            .ok_or(Refused::Other(too_large()))?;
    }
    let n = if negative { -n } else { n };
    Ok(i64::try_from(n).map_or(JinjaValue::from(n), JinjaValue::from))
}

/// Jinja2's `abs`: Python's `abs()`, its `TypeError` for a value that is
/// not a number.
fn abs(value: JinjaValue) -> Result<JinjaValue, Error> {
    match value.kind() {
        ValueKind::Bool => Ok(JinjaValue::from(i64::from(value.is_true()))),
        ValueKind::Number => minijinja::filters::abs(value),
        _ => Err(type_error(format!(
            "bad operand type for abs(): '{}'",
            python_type(&value)
        ))),
    }
}

/// Jinja2's `length` and `count`: Python's `len()`, its `TypeError` for a
/// value without a length.
fn length(value: JinjaValue, rest: Rest<JinjaValue>) -> Result<JinjaValue, Error> {
    if !rest.is_empty() {
        return Err(type_error(format!(
            "len() takes exactly one argument ({} given)",
            rest.len() + 1
        )));
    }
    if value.is_undefined() {
        return Ok(JinjaValue::from(0));
    }
    let sized = pystr::opaque_type(&value).is_none() && generator::type_name(&value).is_none();
    match value.kind() {
        ValueKind::Number | ValueKind::Bool | ValueKind::None => Err(type_error(format!(
            "object of type '{}' has no len()",
            python_type(&value)
        ))),
        _ if !sized => Err(type_error(format!(
            "object of type '{}' has no len()",
            python_type(&value)
        ))),
        // Jinja2's `LoopContext.__len__` is the loop's length.
        _ if render::is_loop(&value) => value.get_attr("length"),
        _ => minijinja::filters::length(&value).map(JinjaValue::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_floats_as_python_does() {
        for (text, expected) in [
            (" 12 ", Some(12.0)),
            ("1_000", Some(1000.0)),
            ("1e3", Some(1000.0)),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            ("+5", Some(5.0)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            ("", None),
            (".", None),
            ("1e", None),
            ("e5", None),
            ("1.5e-3", Some(0.0015)),
            ("0x10", None),
        ] {
            assert_eq!(parse_float(text), expected, "{text:?}");
        }
    }

    #[test]
    fn parses_ints_as_python_does() {
        let int = |text: &str, base: i64| match int_of_str(text, &JinjaValue::from(base)) {
            Ok(value) => value.as_i64(),
            Err(_) => None,
        };
        assert_eq!(int(" -12 ", 10), Some(-12));
        assert_eq!(int("1_000", 10), Some(1000));
        assert_eq!(int("0x_1f", 16), Some(31));
        assert_eq!(int("0b101", 0), Some(5));
        assert_eq!(int("000", 0), Some(0));
        assert_eq!(int("010", 0), None);
        assert_eq!(int("ff", 16), Some(255));
        assert_eq!(int("12.7", 10), None);
        assert_eq!(int("z", 36), Some(35));
        assert_eq!(int("1", 37), None);
    }
}
