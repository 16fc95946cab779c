//! Python's renderings of JSON values, which show up inside Haystack's texts.
//!
//! Haystack writes a failed tool call's arguments with Python's `repr` of a
//! dict (`{'query': 'fusion'}`) and a non-string tool result with
//! `json.dumps(value, ensure_ascii=False)`. A harness that claims to behave
//! like Haystack must produce the same bytes, so both are reimplemented here,
//! with `str.format` for the confirmation templates ([`format`]).

use serde_json::{Number, Value};
use std::fmt::Write;

mod exception;
mod float_text;
mod format;
pub(crate) mod printable;
pub(crate) mod pyset;
#[cfg(test)]
mod pyset_cpython;
mod spec;

pub(crate) use printable::is_printable;

pub(crate) use format::format;

/// `repr(value)` for the Python value the JSON value loads as.
pub(crate) fn repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, value);
    out
}

fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_str_repr(out, text),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str_repr(out, key);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
    }
}

/// `json.dumps(value, ensure_ascii=False)` with Python's default separators.
pub(crate) fn json_dumps(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value, false);
    out
}

/// `json.dumps(value)`: as [`json_dumps`], non-ASCII escaped as `\uNNNN`.
pub(crate) fn json_dumps_ascii(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value, true);
    out
}

/// `json.dumps(value, indent=indent)`: each item of a non-empty list or
/// object on a line of its own, `indent` repeated once per level before
/// it, items separated by `,` (Python's separators with an indentation).
pub(crate) fn json_dumps_ascii_indented(value: &Value, indent: &str) -> String {
    let mut out = String::new();
    write_json_indented(&mut out, value, indent, 1);
    out
}

/// How many bytes [`json_dumps_ascii_indented`] adds to
/// [`json_dumps_ascii`] at most, for an indentation of `indent` bytes.
pub(crate) fn json_indent_added(value: &Value, indent: usize) -> u64 {
    fn added(value: &Value, indent: u64, level: u64) -> u64 {
        let items: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => return 0,
        };
        // Each item: a newline and its indentation; the closing one too.
        let line = |level: u64| indent.saturating_mul(level).saturating_add(1);
        items.fold(line(level - 1), |sum, item| {
            sum.saturating_add(line(level))
                .saturating_add(added(item, indent, level + 1))
        })
    }
    added(value, indent as u64, 1)
}

fn write_json_indented(out: &mut String, value: &Value, indent: &str, level: usize) {
    let newline = |out: &mut String, level: usize| {
        out.push('\n');
        for _ in 0..level {
            out.push_str(indent);
        }
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level);
                write_json_indented(out, item, indent, level + 1);
            }
            newline(out, level - 1);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level);
                write_json_str(out, key, true);
                out.push_str(": ");
                write_json_indented(out, item, indent, level + 1);
            }
            newline(out, level - 1);
            out.push('}');
        }
        _ => write_json(out, value, true),
    }
}

fn write_json(out: &mut String, value: &Value, ascii: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_json_str(out, text, ascii),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(out, item, ascii);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json_str(out, key, ascii);
                out.push_str(": ");
                write_json(out, item, ascii);
            }
            out.push('}');
        }
    }
}

fn write_number(out: &mut String, number: &Number) {
    out.push_str(&number_repr(number));
}

/// Python's `repr` of the int or float a JSON number loads as; an integer
/// is exact at any size (its digits, canonical where the number was read).
pub(crate) fn number_repr(number: &Number) -> String {
    match number.as_f64().filter(|_| number.is_f64()) {
        Some(float) => float_repr(float),
        None => number.to_string(),
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed
/// notation for exponents from -4 to 15, else in exponent notation.
pub(crate) fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let formatted = format!("{value:e}");
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
    }
}

fn write_str_repr(out: &mut String, text: &str) {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let code = c as u32;
                let _ = if code <= 0xff {
                    write!(out, "\\x{code:02x}")
                } else if code <= 0xffff {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn write_json_str(out: &mut String, text: &str, ascii: bool) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && (c as u32) > 0x7e) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `repr(set_of_str)`, the items in the order given: a set's own order is
/// [`pyset::PySet`]'s, whose `repr` calls this. An empty set is `set()`.
pub(crate) fn set_of_strings<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items
        .into_iter()
        .map(|item| repr(&Value::String(item.to_owned())))
        .collect();
    if items.is_empty() {
        return "set()".to_owned();
    }
    format!("{{{}}}", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repr_of_a_dict_uses_python_literals_and_single_quotes() {
        let value = json!({"query": "fusion", "n": 3, "deep": true, "none": null, "f": 1.0});
        assert_eq!(
            repr(&value),
            "{'query': 'fusion', 'n': 3, 'deep': True, 'none': None, 'f': 1.0}"
        );
    }

    #[test]
    fn repr_switches_to_double_quotes_when_the_text_holds_only_single_quotes() {
        assert_eq!(repr(&json!("it's")), "\"it's\"");
        assert_eq!(repr(&json!("it's \"x\"")), "'it\\'s \"x\"'");
    }

    #[test]
    fn floats_render_like_python() {
        assert_eq!(float_repr(1e20), "1e+20");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(0.00001), "1e-05");
        assert_eq!(float_repr(-2.5e-7), "-2.5e-07");
        assert_eq!(float_repr(123.456), "123.456");
    }

    #[test]
    fn json_dumps_ascii_escapes_non_ascii_as_utf16_units() {
        assert_eq!(
            json_dumps_ascii(&json!(["é", "😀", "\u{7f}"])),
            "[\"\\u00e9\", \"\\ud83d\\ude00\", \"\\u007f\"]"
        );
    }

    #[test]
    fn json_dumps_keeps_non_ascii_and_uses_spaced_separators() {
        assert_eq!(
            json_dumps(&json!({"a": [1, "é"], "b": {"c": null}})),
            "{\"a\": [1, \"é\"], \"b\": {\"c\": null}}"
        );
    }
}
