//! YAML 1.2 core-schema resolution of plain scalars, and the core tags.
//!
//! A plain (unquoted) scalar is null, a boolean, an integer or a float when it
//! matches the core schema's patterns, else a string. `.inf` and `.nan` are
//! floats in YAML but not JSON values, so they are reported instead.

use serde_json::Number;

use super::node::NodeValue;

/// Why a scalar could not be read.
#[derive(Debug, PartialEq)]
pub(crate) enum ScalarError {
    /// `.nan`, `.inf` or a number beyond a double's range.
    NonFinite,
    /// A core tag whose text does not match it (`!!int abc`).
    TagMismatch { expected: &'static str },
    /// A tag outside the core schema.
    UnsupportedTag,
}

/// The value of a plain scalar.
pub(crate) fn resolve_plain(text: &str) -> Result<NodeValue, ScalarError> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(NodeValue::Null),
        "true" | "True" | "TRUE" => return Ok(NodeValue::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(NodeValue::Bool(false)),
        _ => {}
    }
    if let Some(number) = resolve_number(text)? {
        return Ok(NodeValue::Number(number));
    }
    Ok(NodeValue::String(text.to_owned()))
}

/// The value of a scalar written with a tag (`!!str 12`); `suffix` is the
/// core tag's name, or `None` for a tag outside the core schema.
pub(crate) fn resolve_tagged(suffix: Option<&str>, text: &str) -> Result<NodeValue, ScalarError> {
    let value = match suffix {
        Some("str") => return Ok(NodeValue::String(text.to_owned())),
        Some(_) => resolve_plain(text)?,
        None => return Err(ScalarError::UnsupportedTag),
    };
    let (matches, expected) = match (suffix, &value) {
        (Some("null"), v) => (matches!(v, NodeValue::Null), "null"),
        (Some("bool"), v) => (matches!(v, NodeValue::Bool(_)), "a boolean"),
        (Some("int"), NodeValue::Number(n)) => (!n.is_f64(), "an integer"),
        (Some("int"), _) => (false, "an integer"),
        (Some("float"), v) => (matches!(v, NodeValue::Number(_)), "a number"),
        _ => return Err(ScalarError::UnsupportedTag),
    };
    if matches {
        Ok(value)
    } else {
        Err(ScalarError::TagMismatch { expected })
    }
}

fn resolve_number(text: &str) -> Result<Option<Number>, ScalarError> {
    // Every number form (and `.inf`, `.nan`) starts with a sign, a digit
    // or a dot: other text is a string, without the checks below.
    if !text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
        return Ok(None);
    }
    let lower = text.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, ".inf" | ".nan") && lower.len() - unsigned.len() <= 1 {
        return Err(ScalarError::NonFinite);
    }
    if let Some(digits) = text.strip_prefix("0o") {
        return Ok(radix_int(digits, 8));
    }
    if let Some(digits) = text.strip_prefix("0x") {
        return Ok(radix_int(digits, 16));
    }
    if is_decimal_int(text) {
        // Exact at any size, as Python's `int` (with `exact-integers`).
        return Ok(crate::value::python_number(text));
    }
    if is_float(text) {
        let value: f64 = text.parse().map_err(|_| ScalarError::NonFinite)?;
        return Number::from_f64(value)
            .filter(|_| value.is_finite())
            .map(Some)
            .ok_or(ScalarError::NonFinite);
    }
    Ok(None)
}

fn radix_int(digits: &str, radix: u32) -> Option<Number> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    i64::from_str_radix(digits, radix)
        .map(Number::from)
        .or_else(|_| u64::from_str_radix(digits, radix).map(Number::from))
        .ok()
        .or_else(|| {
            u128::from_str_radix(digits, radix)
                .ok()
                .and_then(Number::from_u128)
        })
}

/// `[-+]?[0-9]+`
fn is_decimal_int(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            all_digits(int) && all_digits(frac) && !(int.is_empty() && frac.is_empty())
        }
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = match exponent {
        Some(exp) => {
            let digits = exp.strip_prefix(['-', '+']).unwrap_or(exp);
            !digits.is_empty() && all_digits(digits)
        }
        None => true,
    };
    mantissa_ok && exponent_ok
}

fn all_digits(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Option<String> {
        match resolve_plain(text) {
            Ok(NodeValue::Number(n)) => Some(n.to_string()),
            _ => None,
        }
    }

    #[test]
    fn core_schema_words_resolve_to_null_and_booleans() {
        assert_eq!(resolve_plain("~"), Ok(NodeValue::Null));
        assert_eq!(resolve_plain("True"), Ok(NodeValue::Bool(true)));
        assert_eq!(
            resolve_plain("yes"),
            Ok(NodeValue::String("yes".to_owned()))
        );
    }

    #[test]
    fn integers_and_floats_follow_the_core_schema() {
        assert_eq!(number("12").as_deref(), Some("12"));
        assert_eq!(number("-3").as_deref(), Some("-3"));
        assert_eq!(number("0x1f").as_deref(), Some("31"));
        assert_eq!(number("0o17").as_deref(), Some("15"));
        assert_eq!(number("1.5").as_deref(), Some("1.5"));
        assert_eq!(number(".5").as_deref(), Some("0.5"));
        assert_eq!(number("1e3").as_deref(), Some("1000.0"));
        assert_eq!(number("1."), Some("1.0".to_owned()));
        assert_eq!(number("."), None);
        assert_eq!(number("1.2.3"), None);
        assert_eq!(number("0x"), None);
        assert_eq!(number("1_000"), None);
    }

    #[test]
    fn infinities_and_nan_are_not_json_numbers() {
        for text in [".inf", "-.Inf", "+.INF", ".nan", ".NaN", "1e999"] {
            assert_eq!(resolve_plain(text), Err(ScalarError::NonFinite), "{text}");
        }
    }

    #[test]
    fn core_tags_check_their_text() {
        assert_eq!(
            resolve_tagged(Some("str"), "12"),
            Ok(NodeValue::String("12".to_owned()))
        );
        assert_eq!(
            resolve_tagged(Some("int"), "abc"),
            Err(ScalarError::TagMismatch {
                expected: "an integer"
            })
        );
        assert_eq!(resolve_tagged(None, "x"), Err(ScalarError::UnsupportedTag));
    }
}
