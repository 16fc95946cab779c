//! Python's `str()` of a template value, and the size of its JSON, within
//! the bytes the rendering has left.
//!
//! A template can build a value far larger than its memory: `[d, d]`
//! doubled 40 times shares one list, but prints as 2^40 of them. Printing
//! it, or `tojson`, walks the value and stops as soon as the text would
//! pass the budget (`MemoryError`), before it is built; a value nested
//! deeper than Python's `repr` recurses is `RecursionError`, as there.

use super::budget;
use super::pybytes;
use super::render::haystack_error;
use crate::pyfmt;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};
use serde_json::Value;
use std::fmt::Write;

/// How deep `repr` goes before Python's `RecursionError` (CPython's
/// default limit is 1000 frames; a nested list costs about two).
const MAX_DEPTH: usize = 490;

/// Past the limit.
enum Stop {
    TooBig,
    TooDeep,
}

/// `str(value)` as Python prints it, or `MemoryError` past the bytes the
/// rendering has left.
pub(super) fn python_str(state: Option<&State>, value: &JinjaValue) -> Result<String, Error> {
    if let Some(text) = value.as_str().filter(|_| value.kind() == ValueKind::String) {
        return Ok(text.to_owned());
    }
    // Jinja2's `Undefined` prints as nothing.
    if value.is_undefined() {
        return Ok(String::new());
    }
    let limit = state.map_or(u64::MAX, budget::bytes_left);
    // The quick lower bound first, then the text.
    let mut size = 0;
    measure(value, limit, 0, &mut size).map_err(|stop| stopped(stop, size as usize, limit))?;
    let mut out = String::new();
    match write_repr(&mut out, value, limit, 0) {
        Ok(()) => Ok(out),
        Err(stop) => Err(stopped(stop, out.len(), limit)),
    }
}

/// `MemoryError` unless the JSON of `value` fits in the bytes the
/// rendering has left (strings counted by their bytes).
pub(super) fn ensure_json_fits(state: &State, value: &JinjaValue) -> Result<(), Error> {
    let limit = budget::bytes_left(state);
    let mut size = 0;
    measure(value, limit, 0, &mut size).map_err(|stop| stopped(stop, size as usize, limit))
}

fn stopped(stop: Stop, built: usize, limit: u64) -> Error {
    match stop {
        Stop::TooDeep => haystack_error(
            "RecursionError: maximum recursion depth exceeded while getting the repr of an object"
                .to_owned(),
        ),
        Stop::TooBig => haystack_error(format!(
            "MemoryError (the prompt template would print a value of more than {built} bytes, \
             past the {limit} bytes its rendering has left: the harness bounds a rendering \
             to {} bytes; docs/deviations.md, `prompt-template-budget`)",
            budget::FUEL * budget::BYTES_PER_FUEL
        )),
    }
}

fn items(value: &JinjaValue) -> Vec<JinjaValue> {
    value.try_iter().map(Iterator::collect).unwrap_or_default()
}

fn write_repr(out: &mut String, value: &JinjaValue, limit: u64, depth: usize) -> Result<(), Stop> {
    if depth > MAX_DEPTH {
        return Err(Stop::TooDeep);
    }
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::String => {
            let text = value.as_str().unwrap_or_default();
            if (out.len() + text.len()) as u64 >= limit {
                return Err(Stop::TooBig);
            }
            out.push_str(&pyfmt::repr(&Value::String(text.to_owned())));
        }
        ValueKind::Number if value.is_integer() => {
            let _ = write!(out, "{value}");
        }
        ValueKind::Number => {
            let float = f64::try_from(value.clone()).unwrap_or(f64::NAN);
            out.push_str(&if float.is_nan() {
                "nan".to_owned()
            } else if float.is_infinite() {
                if float > 0.0 { "inf" } else { "-inf" }.to_owned()
            } else {
                pyfmt::float_repr(float)
            });
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let tuple = value.is_tuple();
            out.push(if tuple { '(' } else { '[' });
            let items = value.try_iter().map_err(|_| Stop::TooBig)?;
            let mut count = 0;
            for (i, item) in items.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, &item, limit, depth + 1)?;
                count += 1;
                if out.len() as u64 >= limit {
                    return Err(Stop::TooBig);
                }
            }
            if tuple && count == 1 {
                out.push(',');
            }
            out.push(if tuple { ')' } else { ']' });
        }
        ValueKind::Map => {
            out.push('{');
            for (i, key) in items(value).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, &key, limit, depth + 1)?;
                out.push_str(": ");
                let item = value.get_item(&key).unwrap_or_default();
                write_repr(out, &item, limit, depth + 1)?;
                if out.len() as u64 >= limit {
                    return Err(Stop::TooBig);
                }
            }
            out.push('}');
        }
        ValueKind::Bytes => {
            let bytes = value.as_bytes().unwrap_or_default();
            // At most four characters a byte (`\xNN`), and `b''`.
            if (out.len() + bytes.len().saturating_mul(4) + 3) as u64 >= limit {
                return Err(Stop::TooBig);
            }
            out.push_str(&pybytes::bytes_repr(bytes));
        }
        _ => {
            // Macros, objects without a Python form: as before.
            let text = match serde_json::to_value(value) {
                Ok(Value::String(text)) => text,
                Ok(json) => pyfmt::repr(&json),
                Err(_) => value.to_string(),
            };
            out.push_str(&text);
        }
    }
    if out.len() as u64 >= limit {
        return Err(Stop::TooBig);
    }
    Ok(())
}

/// A lower bound of the size of the JSON and of Python's `repr`: the bytes
/// of strings, a byte for a number, and the separators.
fn measure(value: &JinjaValue, limit: u64, depth: usize, size: &mut u64) -> Result<(), Stop> {
    if depth > MAX_DEPTH {
        return Err(Stop::TooDeep);
    }
    *size += match value.kind() {
        ValueKind::String => value.as_str().map_or(0, str::len) as u64 + 2,
        ValueKind::Bytes => value.as_bytes().map_or(0, <[u8]>::len) as u64 + 3,
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => {
            let is_map = value.kind() == ValueKind::Map;
            let Ok(keys) = value.try_iter() else {
                return Ok(());
            };
            *size += 2;
            for key in keys {
                if is_map {
                    measure(&key, limit, depth + 1, size)?;
                    let item = value.get_item(&key).unwrap_or_default();
                    measure(&item, limit, depth + 1, size)?;
                    *size += 4;
                } else {
                    measure(&key, limit, depth + 1, size)?;
                    *size += 2;
                }
                if *size >= limit {
                    return Err(Stop::TooBig);
                }
            }
            0
        }
        // `1`, `None`, `True`: the shortest a scalar prints.
        ValueKind::Number => 1,
        _ => 4,
    };
    if *size >= limit {
        return Err(Stop::TooBig);
    }
    Ok(())
}
