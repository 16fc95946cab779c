//! Python's view of JSON values: truthiness and equality.

use serde_json::Value;

/// Python's `bool(value)`.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// The value with object keys sorted at every level.
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// JSON-value equality where numbers compare numerically (`1 == 1.0`) and
/// booleans equal only booleans.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() || y.is_f64() {
                return x.as_f64() == y.as_f64();
            }
            match (x.as_i128(), y.as_i128()) {
                (Some(x), Some(y)) => x == y,
                // Beyond 128 bits: canonical decimal digits.
                _ => x.to_string() == y.to_string(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The number a decimal integer or float literal denotes, in the form
/// Python would write it back: an integer exact at any size (with the
/// `exact-integers` feature; the nearest float without it), `+` and leading
/// zeros dropped; a float as the shortest text that reads back to it.
/// `None` for text that is no number, or a float out of range.
pub(crate) fn python_number(text: &str) -> Option<serde_json::Number> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let digits = match digits.trim_start_matches('0') {
            "" => "0",
            trimmed => trimmed,
        };
        if let Some(number) = digits
            .parse::<i128>()
            .ok()
            .and_then(|n| exact_integer(if negative { -n } else { n }))
        {
            return Some(number);
        }
        let canonical = if negative && digits != "0" {
            format!("-{digits}")
        } else {
            digits.to_owned()
        };
        return match canonical.parse::<serde_json::Number>() {
            // Kept as digits (`exact-integers`), or read as a float.
            Ok(number) if !number.is_f64() => Some(number),
            _ => canonical
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64),
        };
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(serde_json::Number::from_f64)
}

/// `n` as a number; with `exact-integers`, its digits are kept in a
/// string of their own length (from an `i64` or a `u64`), not in the 39
/// bytes `Number::from_i128` gives every integer: a file's numbers are
/// read here, and a list of small integers holds millions of them.
fn exact_integer(n: i128) -> Option<serde_json::Number> {
    i64::try_from(n)
        .map(serde_json::Number::from)
        .or_else(|_| u64::try_from(n).map(serde_json::Number::from))
        .ok()
        .or_else(|| serde_json::Number::from_i128(n))
}

/// A value parsed from JSON text with every number in the form Python's
/// `json.loads` then `json.dumps` gives it (`1.50` is `1.5`, `1E5` is
/// `100000.0`, `-0` is `0`), so that parsed values compare and render as
/// in Haystack whatever the text's spelling.
pub(crate) fn canonical_numbers(value: Value) -> Value {
    match value {
        Value::Number(n) => Value::Number(python_number(&n.to_string()).unwrap_or(n)),
        Value::Array(items) => Value::Array(items.into_iter().map(canonical_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, canonical_numbers(v)))
                .collect(),
        ),
        other => other,
    }
}

/// Python's type name for the value a JSON value loads as (`'NoneType'`,
/// `'bool'`, `'int'`, `'float'`, `'str'`, `'list'`, `'dict'`), as Python's
/// `TypeError` and `AttributeError` texts name it.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `value + 1`: the loop's `counter += 1` and
/// `counts.get(name, 0) + 1`. An `int` stays exact, a `float` stays a float
/// (`1.5 + 1 == 2.5`, `1.0 + 1 == 2.0`), a `bool` counts as `0` or `1`;
/// anything else fails with Python's `TypeError` text.
pub(crate) fn add_one(value: &Value) -> Result<Value, PyTypeError> {
    // The common case first: a 64-bit integer is no float, so the float
    // test (a scan of the number's text) is skipped.
    if let Value::Number(n) = value {
        if let Some(sum) = n.as_i64().and_then(|i| i.checked_add(1)) {
            return Ok(Value::from(sum));
        }
    }
    match value {
        Value::Bool(b) => Ok(Value::from(i64::from(*b) + 1)),
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .and_then(|f| serde_json::Number::from_f64(f + 1.0))
            .map(Value::Number)
            .ok_or_else(|| PyTypeError::FloatOverflow(n.clone())),
        Value::Number(n) => Ok(Value::Number(int_add_one(n))),
        other => Err(PyTypeError::AddInt {
            operand: type_name(other),
        }),
    }
}

/// Python's `TypeError` for an operation of the loop on a value a hook left
/// in a control key, with Python's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PyTypeError {
    /// `value + 1` on a value of this Python type.
    #[error("{}", add_int_text(operand))]
    AddInt {
        /// The value's Python type (`str`, `NoneType`, ...).
        operand: &'static str,
    },
    /// `value < int` on a value of this Python type.
    #[error("'<' not supported between instances of '{operand}' and 'int'")]
    LessThanInt {
        /// The value's Python type.
        operand: &'static str,
    },
    /// `float + 1` beyond what a JSON number holds.
    #[error("cannot add 1 to the float {0}")]
    FloatOverflow(serde_json::Number),
}

fn add_int_text(operand: &str) -> String {
    match operand {
        "str" | "list" => format!(r#"can only concatenate {operand} (not "int") to {operand}"#),
        other => format!("unsupported operand type(s) for +: '{other}' and 'int'"),
    }
}

/// `n + 1` for an integer `Number`, exact at any size.
fn int_add_one(n: &serde_json::Number) -> serde_json::Number {
    // The common case first: 64-bit arithmetic, no 128-bit formatting.
    if let Some(sum) = n.as_i64().and_then(|i| i.checked_add(1)) {
        return serde_json::Number::from(sum);
    }
    if let Some(sum) = n.as_i128().and_then(|i| i.checked_add(1)) {
        if let Some(number) = serde_json::Number::from_i128(sum) {
            return number;
        }
    }
    // Beyond 128 bits: decimal digits, exact where `Number` keeps them.
    let text = n.to_string();
    let sum = match text.strip_prefix('-') {
        Some(magnitude) => {
            let smaller = decimal_step(magnitude, false);
            if smaller == "0" {
                smaller
            } else {
                format!("-{smaller}")
            }
        }
        None => decimal_step(&text, true),
    };
    sum.parse().unwrap_or_else(|_| {
        serde_json::Number::from_f64(n.as_f64().unwrap_or(0.0) + 1.0)
            .unwrap_or_else(|| serde_json::Number::from(0))
    })
}

/// A decimal magnitude plus one (`up`) or minus one (it is at least 1).
fn decimal_step(magnitude: &str, up: bool) -> String {
    let mut digits: Vec<u8> = magnitude.bytes().map(|b| b - b'0').collect();
    let mut i = digits.len();
    loop {
        if i == 0 {
            digits.insert(0, 1);
            break;
        }
        i -= 1;
        match (up, digits[i]) {
            (true, 9) => digits[i] = 0,
            (true, d) => {
                digits[i] = d + 1;
                break;
            }
            (false, 0) => digits[i] = 9,
            (false, d) => {
                digits[i] = d - 1;
                break;
            }
        }
    }
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    match text.trim_start_matches('0') {
        "" => "0".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

/// Python's `value < bound` for an `int` bound: the loop's
/// `counter < max_agent_steps`. Numbers and booleans compare by value;
/// anything else fails with Python's `TypeError` text.
pub(crate) fn less_than(value: &Value, bound: i64) -> Result<bool, PyTypeError> {
    match value {
        Value::Bool(b) => Ok(i64::from(*b) < bound),
        Value::Number(n) => Ok(match n.as_i64().map(i128::from).or_else(|| n.as_i128()) {
            Some(i) if !n.is_f64() => i < i128::from(bound),
            _ => n.as_f64().is_some_and(|f| f < bound as f64),
        }),
        other => Err(PyTypeError::LessThanInt {
            operand: type_name(other),
        }),
    }
}

/// The `int` a step counter holds, for messages and spans: a float is
/// truncated, a bool counts as `0` or `1`, an integer beyond 64 bits
/// saturates.
pub(crate) fn step_number(value: &Value) -> i64 {
    match value {
        Value::Bool(b) => i64::from(*b),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_i128().map(|i| if i < 0 { i64::MIN } else { i64::MAX }))
            .unwrap_or_else(|| n.as_f64().map_or(0, |f| f as i64)),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_one_follows_python_for_every_json_type() {
        assert_eq!(add_one(&json!(1)), Ok(json!(2)));
        assert_eq!(add_one(&json!(1.5)), Ok(json!(2.5)));
        assert_eq!(add_one(&json!(1.0)), Ok(json!(2.0)));
        assert_eq!(add_one(&json!(true)), Ok(json!(2)));
        assert_eq!(add_one(&json!(false)), Ok(json!(1)));
        assert_eq!(add_one(&json!(i64::MAX)), Ok(json!(9223372036854775808u64)));
        assert_eq!(
            add_one(&json!("x")).unwrap_err().to_string(),
            r#"can only concatenate str (not "int") to str"#
        );
        assert_eq!(
            add_one(&json!([1])).unwrap_err().to_string(),
            r#"can only concatenate list (not "int") to list"#
        );
        assert_eq!(
            add_one(&json!(null)).unwrap_err().to_string(),
            "unsupported operand type(s) for +: 'NoneType' and 'int'"
        );
        assert_eq!(
            add_one(&json!({})).unwrap_err().to_string(),
            "unsupported operand type(s) for +: 'dict' and 'int'"
        );
    }

    #[test]
    fn python_numbers_are_canonical() {
        assert_eq!(python_number("+007"), Some(7.into()));
        assert_eq!(python_number("-0"), Some(0.into()));
        assert_eq!(python_number("1.50").unwrap().to_string(), "1.5");
        assert_eq!(python_number("1E5").unwrap().to_string(), "100000.0");
        assert_eq!(python_number("x"), None);
        assert_eq!(python_number("1e400"), None);
        assert_eq!(
            canonical_numbers(serde_json::from_str("[1.50, -0, {\"a\": 2e1}]").unwrap()),
            json!([1.5, 0, {"a": 20.0}])
        );
    }

    #[cfg(feature = "exact-integers")]
    #[test]
    fn integers_beyond_64_bits_stay_exact() {
        let big = python_number("+0100000000000000000000").unwrap();
        assert_eq!(big.to_string(), "100000000000000000000");
        assert!(!big.is_f64());
        let huge = python_number("-1234567890123456789012345678901234567890").unwrap();
        assert_eq!(
            huge.to_string(),
            "-1234567890123456789012345678901234567890"
        );
        assert_eq!(
            add_one(&Value::Number(huge)).unwrap().to_string(),
            "-1234567890123456789012345678901234567889"
        );
        assert_eq!(
            add_one(&Value::Number(
                python_number("99999999999999999999999999999999999999999").unwrap()
            ))
            .unwrap()
            .to_string(),
            "100000000000000000000000000000000000000000"
        );
        assert!(json_eq(&Value::Number(big.clone()), &Value::Number(big)));
        assert!(!json_eq(
            &Value::Number(python_number("100000000000000000000").unwrap()),
            &Value::Number(python_number("100000000000000000001").unwrap())
        ));
    }

    #[test]
    fn decimal_steps_carry_and_borrow() {
        assert_eq!(decimal_step("999", true), "1000");
        assert_eq!(decimal_step("1000", false), "999");
        assert_eq!(decimal_step("1", false), "0");
        assert_eq!(decimal_step("129", true), "130");
    }

    #[test]
    fn less_than_compares_numbers_and_refuses_other_types() {
        assert_eq!(less_than(&json!(1.5), 2), Ok(true));
        assert_eq!(less_than(&json!(2.0), 2), Ok(false));
        assert_eq!(less_than(&json!(true), 2), Ok(true));
        assert_eq!(less_than(&json!(u64::MAX), 2), Ok(false));
        assert_eq!(
            less_than(&json!("x"), 2).unwrap_err().to_string(),
            "'<' not supported between instances of 'str' and 'int'"
        );
        assert_eq!(
            less_than(&json!(null), 2).unwrap_err().to_string(),
            "'<' not supported between instances of 'NoneType' and 'int'"
        );
    }

    #[test]
    fn step_numbers_are_ints_for_messages() {
        assert_eq!(step_number(&json!(2.7)), 2);
        assert_eq!(step_number(&json!(true)), 1);
        assert_eq!(step_number(&json!(-3)), -3);
    }
}
