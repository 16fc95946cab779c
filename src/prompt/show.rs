//! Python's `str()` of a template value, and the size of its JSON, within
//! the bytes the rendering has left.
//!
//! A template can build a value far larger than its memory: `[d, d]`
//! doubled 40 times shares one list, but prints as 2^40 of them. Printing
//! it, or `tojson`, walks the value and stops as soon as the text would
//! pass the budget (`MemoryError`), before it is built; a value nested
//! deeper than Python's `repr` recurses is `RecursionError`, as there.

use super::budget;
use super::dict_view;
use super::generator;
use super::groupby;
use super::namespace;
use super::py_range;
use super::pybytes;
use super::pystr;
use super::pystr_builtin;
use super::render;
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
    measure(value, limit, 0, 0, &mut size).map_err(|stop| stopped(stop, size as usize, limit))?;
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
    measure(value, limit, 0, 0, &mut size).map_err(|stop| stopped(stop, size as usize, limit))
}

/// What a JSON value the harness builds costs beyond its text, per value:
/// `tojson` turns the template's value into a JSON tree before it writes
/// it, and a list shared many times over (`[l, l, l]`) is one value in the
/// template but a copy of `l` in the tree.
const JSON_VALUE_BYTES: u64 = 48;

/// `MemoryError` unless the JSON tree of `value` and its text fit in the
/// bytes the rendering has left ([`JSON_VALUE_BYTES`] a value, strings by
/// their bytes).
pub(super) fn ensure_json_tree_fits(state: &State, value: &JinjaValue) -> Result<(), Error> {
    let limit = budget::bytes_left(state);
    let mut size = 0;
    measure(value, limit, JSON_VALUE_BYTES, 0, &mut size)
        .map_err(|stop| stopped(stop, size as usize, limit))
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
        ValueKind::None => out.push_str("None"),
        // Jinja2's `Undefined.__repr__`, inside a list or a dict.
        ValueKind::Undefined => out.push_str("Undefined"),
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
        ValueKind::Seq if py_range::of(value).is_some() => {
            let _ = write!(out, "{value}");
        }
        ValueKind::Iterable if generator::type_name(value).is_some() => {
            out.push_str(&generator::repr_of(value).unwrap_or_default());
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let view = dict_view::type_name(value);
            if let Some(view) = view {
                out.push_str(view);
                out.push('(');
            }
            let tuple = groupby::is_tuple(value);
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
            if view.is_some() {
                out.push(')');
            }
        }
        // Jinja2's own objects print as their `__repr__`.
        ValueKind::Map if render::is_loop(value) => {
            let attr = |name| value.get_attr(name).unwrap_or_default();
            let _ = write!(out, "<LoopContext {}/{}>", attr("index"), attr("length"));
        }
        ValueKind::Map if render::is_macro(value) => {
            // A call block's `caller` is Jinja2's macro without a name.
            let name = value.get_attr("name").unwrap_or_default().to_string();
            let _ = match name.as_str() {
                "caller" => write!(out, "<Macro anonymous>"),
                _ => write!(out, "<Macro {}>", pyfmt::repr(&Value::from(name))),
            };
        }
        ValueKind::Map if namespace::is_namespace(value) => {
            out.push_str("<Namespace ");
            write_map(out, value, limit, depth)?;
            out.push('>');
        }
        ValueKind::Map => write_map(out, value, limit, depth)?,
        ValueKind::Bytes => {
            let bytes = value.as_bytes().unwrap_or_default();
            // At most four characters a byte (`\xNN`), and `b''`.
            if (out.len() + bytes.len().saturating_mul(4) + 3) as u64 >= limit {
                return Err(Stop::TooBig);
            }
            out.push_str(&pybytes::bytes_repr(bytes));
        }
        _ => {
            // Objects without a Python form: as before.
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

/// Whether `value` is one of Jinja2's own objects (a namespace, a loop, a
/// macro), which minijinja reads as maps.
fn is_object(value: &JinjaValue) -> bool {
    value.kind() == ValueKind::Map && !pystr::is_dict(value)
}

/// Whether `pprint` writes `value` by its `repr`, on one line: a dict's
/// view, a range, and Jinja2's own objects.
fn own_repr(value: &JinjaValue) -> bool {
    dict_view::type_name(value).is_some()
        || py_range::of(value).is_some()
        || generator::type_name(value).is_some()
        || is_object(value)
}

/// A dict's `repr`: `{'a': 1}`.
fn write_map(out: &mut String, value: &JinjaValue, limit: u64, depth: usize) -> Result<(), Stop> {
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
    Ok(())
}

/// A lower bound of the size of the JSON and of Python's `repr`: the bytes
/// of strings, a byte for a number, and the separators.
fn measure(
    value: &JinjaValue,
    limit: u64,
    per_value: u64,
    depth: usize,
    size: &mut u64,
) -> Result<(), Stop> {
    if depth > MAX_DEPTH {
        return Err(Stop::TooDeep);
    }
    *size += per_value;
    // An iterator prints as its `repr`; what it gives is measured by the
    // filter that reads it (`join`).
    if generator::type_name(value).is_some() {
        *size += 4;
        return Ok(());
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
                    measure(&key, limit, per_value, depth + 1, size)?;
                    let item = value.get_item(&key).unwrap_or_default();
                    measure(&item, limit, per_value, depth + 1, size)?;
                    *size += 4;
                } else {
                    measure(&key, limit, per_value, depth + 1, size)?;
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

/// Python's `pprint.pformat(value)` (width 80, indent 1, dict keys
/// sorted), which Jinja2's `pprint` filter gives: a value whose `repr`
/// fits on its line is written whole, else a dict, list or tuple puts an
/// item on each line and a string splits into quoted chunks at spaces.
/// The text is built within what the rendering has left (`MemoryError`
/// past it).
pub(super) fn pformat(state: &State, value: &JinjaValue) -> Result<String, Error> {
    ensure_json_fits(state, value)?;
    let mut printer = Pretty {
        out: String::new(),
        limit: budget::bytes_left(state),
    };
    match printer.format(value, 0, 0, 1) {
        Ok(()) => Ok(printer.out),
        Err(stop) => Err(stopped(stop, printer.out.len(), printer.limit)),
    }
}

const PPRINT_WIDTH: usize = 80;

struct Pretty {
    out: String,
    limit: u64,
}

/// Python's `len` of a text: its characters.
fn chars(text: &str) -> usize {
    text.chars().count()
}

/// The items of a dict in `pprint`'s order: its `_safe_key`, which
/// compares numbers as numbers and strings as strings, and values that do
/// not compare by the name of their type.
fn sorted_items(value: &JinjaValue) -> Vec<(JinjaValue, JinjaValue)> {
    let rank = |v: &JinjaValue| -> &'static str {
        match v.kind() {
            ValueKind::None | ValueKind::Undefined => "NoneType",
            ValueKind::Bool | ValueKind::Number => "number",
            ValueKind::String => "str",
            ValueKind::Seq if groupby::is_tuple(v) => "tuple",
            _ => "object",
        }
    };
    let mut items: Vec<(JinjaValue, JinjaValue)> = items(value)
        .into_iter()
        .map(|key| {
            let item = value.get_item(&key).unwrap_or_default();
            (key, item)
        })
        .collect();
    items.sort_by(|(a, _), (b, _)| {
        let (ra, rb) = (rank(a), rank(b));
        if ra != rb || ra == "NoneType" || ra == "object" {
            return ra.cmp(rb);
        }
        a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
    });
    items
}

impl Pretty {
    /// `repr(value)` with dict keys sorted (`pprint`'s `safe_repr`), or
    /// `None` once it passes `cap` characters.
    fn short_repr(value: &JinjaValue, cap: usize) -> Option<String> {
        fn walk(out: &mut String, value: &JinjaValue, cap: usize, depth: usize) -> Option<()> {
            if depth > MAX_DEPTH || chars(out) > cap {
                return None;
            }
            // A dict's view, and Jinja2's own objects, are printed by their
            // `repr`, on one line.
            if own_repr(value) {
                return write_repr(out, value, u64::MAX, depth).ok();
            }
            match value.kind() {
                ValueKind::Map => {
                    out.push('{');
                    for (i, (key, item)) in sorted_items(value).iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        walk(out, key, cap, depth + 1)?;
                        out.push_str(": ");
                        walk(out, item, cap, depth + 1)?;
                    }
                    out.push('}');
                }
                ValueKind::Seq | ValueKind::Iterable => {
                    let tuple = groupby::is_tuple(value);
                    let all = items(value);
                    out.push(if tuple { '(' } else { '[' });
                    for (i, item) in all.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        walk(out, item, cap, depth + 1)?;
                    }
                    if tuple && all.len() == 1 {
                        out.push(',');
                    }
                    out.push(if tuple { ')' } else { ']' });
                }
                ValueKind::Undefined => out.push_str("Undefined"),
                _ => {
                    let mut text = String::new();
                    let bound = (cap as u64)
                        .saturating_add(1)
                        .saturating_mul(4)
                        .saturating_add(16);
                    write_repr(&mut text, value, bound, depth).ok()?;
                    out.push_str(&text);
                }
            }
            (chars(out) <= cap).then_some(())
        }
        let mut out = String::new();
        walk(&mut out, value, cap, 0).map(|()| out)
    }

    fn write(&mut self, text: &str) -> Result<(), Stop> {
        self.out.push_str(text);
        if self.out.len() as u64 >= self.limit {
            return Err(Stop::TooBig);
        }
        Ok(())
    }

    /// `PrettyPrinter._format`.
    fn format(
        &mut self,
        value: &JinjaValue,
        indent: usize,
        allowance: usize,
        level: usize,
    ) -> Result<(), Stop> {
        if level > MAX_DEPTH {
            return Err(Stop::TooDeep);
        }
        let max_width = PPRINT_WIDTH.saturating_sub(indent + allowance);
        if let Some(rep) = Self::short_repr(value, max_width) {
            return self.write(&rep);
        }
        if own_repr(value) {
            let mut rep = String::new();
            write_repr(&mut rep, value, self.limit, level)?;
            return self.write(&rep);
        }
        match value.kind() {
            ValueKind::Map => {
                self.write("{")?;
                let items = sorted_items(value);
                let indent = indent + 1;
                let last_index = items.len().saturating_sub(1);
                for (i, (key, item)) in items.iter().enumerate() {
                    let last = i == last_index;
                    let rep = Self::short_repr(key, usize::MAX).unwrap_or_default();
                    self.write(&rep)?;
                    self.write(": ")?;
                    let allowance = if last { allowance + 1 } else { 1 };
                    self.format(item, indent + chars(&rep) + 2, allowance, level + 1)?;
                    if !last {
                        self.write(",\n")?;
                        self.write(&" ".repeat(indent))?;
                    }
                }
                self.write("}")
            }
            ValueKind::Seq | ValueKind::Iterable => {
                let tuple = groupby::is_tuple(value);
                let all = items(value);
                let end = match (tuple, all.len()) {
                    (true, 1) => ",)",
                    (true, _) => ")",
                    _ => "]",
                };
                self.write(if tuple { "(" } else { "[" })?;
                let allowance = allowance + chars(end);
                let indent = indent + 1;
                for (i, item) in all.iter().enumerate() {
                    let last = i + 1 == all.len();
                    if i > 0 {
                        self.write(",\n")?;
                        self.write(&" ".repeat(indent))?;
                    }
                    self.format(item, indent, if last { allowance } else { 1 }, level + 1)?;
                }
                self.write(end)
            }
            ValueKind::String => {
                self.string(value.as_str().unwrap_or_default(), indent, allowance, level)
            }
            _ => {
                let mut text = String::new();
                write_repr(&mut text, value, self.limit, 0)?;
                self.write(&text)
            }
        }
    }

    /// `PrettyPrinter._pprint_str`: the lines of the string, each cut at
    /// spaces into quoted chunks that fit, in parentheses at the top level.
    fn string(
        &mut self,
        text: &str,
        mut indent: usize,
        mut allowance: usize,
        level: usize,
    ) -> Result<(), Stop> {
        let quote = |s: &str| pyfmt::repr(&Value::String(s.to_owned()));
        if level == 1 {
            indent += 1;
            allowance += 1;
        }
        let max_width = PPRINT_WIDTH.saturating_sub(indent);
        let mut max_width1 = max_width;
        let lines = pystr_builtin::split_lines(text, true);
        let mut chunks: Vec<String> = Vec::new();
        let mut rep = String::new();
        for (i, line) in lines.iter().enumerate() {
            rep = quote(line);
            if i == lines.len() - 1 {
                max_width1 = max_width1.saturating_sub(allowance);
            }
            if chars(&rep) <= max_width1 {
                chunks.push(rep.clone());
                continue;
            }
            // `re.findall(r'\S*\s*', line)`: runs of non-space then space.
            let parts = space_parts(line);
            let mut max_width2 = max_width;
            let mut current = String::new();
            for (j, part) in parts.iter().enumerate() {
                let candidate = format!("{current}{part}");
                if j == parts.len() - 1 && i == lines.len() - 1 {
                    max_width2 = max_width2.saturating_sub(allowance);
                }
                if chars(&quote(&candidate)) > max_width2 {
                    if !current.is_empty() {
                        chunks.push(quote(&current));
                    }
                    current = (*part).to_owned();
                } else {
                    current = candidate;
                }
            }
            if !current.is_empty() {
                chunks.push(quote(&current));
            }
        }
        if chunks.len() == 1 {
            return self.write(&rep);
        }
        if level == 1 {
            self.write("(")?;
        }
        for (i, chunk) in chunks.iter().enumerate() {
            if i > 0 {
                self.write("\n")?;
                self.write(&" ".repeat(indent))?;
            }
            self.write(chunk)?;
        }
        if level == 1 {
            self.write(")")?;
        }
        Ok(())
    }
}

/// `re.findall(r'\S*\s*', line)` without its final empty match.
fn space_parts(line: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (at, c) in line.char_indices() {
        let space = c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
        if in_space && !space {
            parts.push(&line[start..at]);
            start = at;
        }
        in_space = space;
    }
    if start < line.len() {
        parts.push(&line[start..]);
    }
    parts
}
