//! Python's `str` methods that minijinja's Python compatibility leaves out
//! (`ljust`, `rjust`, `center`, `zfill`, `expandtabs`, `removeprefix`,
//! `removesuffix`, `partition`, `rpartition`, `index`, `rindex`,
//! `isprintable`, `istitle`, `isdecimal`, `isidentifier`, `casefold`,
//! `swapcase`, `translate`, `encode`; the others, which minijinja-contrib
//! has with other rules, are in `pystr_builtin`), with
//! CPython 3.11's semantics and exception texts, and the checks Python's
//! `str.format` makes on a field's width and precision before it formats
//! (`ValueError: precision too big`, `Too many decimal digits in format
//! string`, `Precision not allowed in integer format specifier`), made here
//! before minijinja's formatter allocates.
//!
//! Every method that pads pays for the string it would build from the
//! rendering's budget before building it ([`budget::ensure_bytes`]),
//! `MemoryError` past it, as Python raises `MemoryError` when the
//! allocation cannot be made.

use super::bound_method;
use super::budget;
use super::dict_view;
use super::generator;
use super::groupby;
use super::namespace;
use super::py_range;
use super::pybytes;
use super::pystr_builtin;
use super::pystr_unicode;
use super::render::{self, haystack_error};
use super::show;
use minijinja::value::{Tuple, Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

/// The method `method` of the string `text`, when it is one of those this
/// module implements.
pub(super) fn string_method(
    state: &State,
    text: &str,
    method: &str,
    args: &[JinjaValue],
) -> Option<Result<JinjaValue, Error>> {
    let result = match method {
        "ljust" | "rjust" | "center" => justify(state, text, method, args),
        "zfill" => zfill(state, text, args),
        "expandtabs" => expandtabs(state, text, args),
        "removeprefix" | "removesuffix" => remove_affix(text, method, args),
        "partition" | "rpartition" => partition(text, method, args),
        "index" | "rindex" => index(text, method, args),
        "isprintable" => no_args(method, args)
            .map(|()| JinjaValue::from(text.chars().all(crate::pyfmt::is_printable))),
        "istitle" => no_args(method, args).map(|()| JinjaValue::from(pystr_unicode::istitle(text))),
        "isdecimal" => {
            no_args(method, args).map(|()| JinjaValue::from(pystr_unicode::isdecimal(text)))
        }
        "isidentifier" => {
            no_args(method, args).map(|()| JinjaValue::from(pystr_unicode::isidentifier(text)))
        }
        "casefold" => no_args(method, args).and_then(|()| {
            budget::ensure_bytes(state, pystr_unicode::casefold_len(text))?;
            Ok(JinjaValue::from(pystr_unicode::casefold(text)))
        }),
        "swapcase" => no_args(method, args).and_then(|()| {
            budget::ensure_bytes(state, pystr_unicode::swapcase_len(text))?;
            Ok(JinjaValue::from(pystr_unicode::swapcase(text)))
        }),
        "translate" => translate(state, text, args),
        "encode" => pybytes::encode(state, text, args),
        _ => return pystr_builtin::string_method(state, text, method, args),
    };
    Some(result)
}

/// The positional arguments, and the names of the keyword arguments.
pub(super) fn split_args(args: &[JinjaValue]) -> (&[JinjaValue], Vec<String>) {
    match args.split_last() {
        Some((last, positional)) if last.is_kwargs() => {
            let names = last
                .try_iter()
                .map(|keys| keys.filter_map(|k| k.as_str().map(str::to_owned)).collect())
                .unwrap_or_default();
            (positional, names)
        }
        _ => (args, Vec::new()),
    }
}

/// Python's `TypeError` with its text.
pub(super) fn type_error(message: String) -> Error {
    haystack_error(format!("TypeError: {message}"))
}

/// Python's `type(value).__name__` for a template value.
pub(super) fn python_type(value: &JinjaValue) -> &'static str {
    if let Some(view) = dict_view::type_name(value) {
        return view;
    }
    if let Some(iterator) = generator::type_name(value) {
        return iterator;
    }
    match value.kind() {
        ValueKind::String => "str",
        ValueKind::Number if value.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::Bool => "bool",
        ValueKind::None => "NoneType",
        ValueKind::Undefined => "Undefined",
        ValueKind::Seq if groupby::is_tuple(value) => "tuple",
        ValueKind::Seq if py_range::of(value).is_some() => "range",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map if is_dict(value) => "dict",
        // Jinja2's own objects, by their Python class.
        ValueKind::Map if namespace::is_namespace(value) => "Namespace",
        ValueKind::Map if render::is_loop(value) => "LoopContext",
        ValueKind::Map if render::is_macro(value) => "Macro",
        ValueKind::Map => "Namespace",
        _ if bound_method::is_bound_method(value) => bound_method::TYPE_NAME,
        _ => "object",
    }
}

/// The Python type of `value` when Python neither iterates it nor takes
/// its `len()`: a bound method, and Jinja2's `Namespace` and `Macro`
/// (minijinja's read as maps of their attributes).
pub(super) fn opaque_type(value: &JinjaValue) -> Option<&'static str> {
    match python_type(value) {
        name @ ("Namespace" | "Macro" | bound_method::TYPE_NAME) => Some(name),
        _ => None,
    }
}

/// Whether `value` is a dict (a JSON object or a dict literal of the
/// template), not an object of minijinja's that reads as a map (a
/// namespace, a loop). minijinja keeps a dict as an `IndexMap` under its
/// `preserve_order` feature, which Cargo.toml turns on.
pub(super) fn is_dict(value: &JinjaValue) -> bool {
    value
        .downcast_object_ref::<indexmap::IndexMap<JinjaValue, JinjaValue>>()
        .is_some()
}

/// Jinja2's `object_type_repr`, which its `Undefined` messages name the
/// owner by: `None`, `dict object` for a built-in type, the module and
/// class for Jinja2's own (`jinja2.utils.Namespace object`).
pub(super) fn object_type_repr(value: &JinjaValue) -> String {
    match python_type(value) {
        "NoneType" => "None".to_owned(),
        "Namespace" => "jinja2.utils.Namespace object".to_owned(),
        "LoopContext" => "jinja2.runtime.LoopContext object".to_owned(),
        "Macro" => "jinja2.runtime.Macro object".to_owned(),
        kind => format!("{kind} object"),
    }
}

/// The name of a value's Python type, when the harness knows it: a
/// built-in type's, a dict view's, or Jinja2's own class (`Namespace`,
/// `LoopContext`, `Macro`); not an undefined value, another object of
/// minijinja's, or a lazy sequence of minijinja's (an iterator in Python,
/// `reversed(x)`).
pub(super) fn builtin_type(value: &JinjaValue) -> Option<&'static str> {
    if value.kind() == ValueKind::Iterable
        && dict_view::type_name(value).is_none()
        && generator::type_name(value).is_none()
    {
        return None;
    }
    match python_type(value) {
        "object" | "Undefined" => None,
        name => Some(name),
    }
}

/// The type Argument Clinic names in "argument must be str, not …":
/// `None` for `None`, the type's name otherwise.
pub(super) fn clinic_type(value: &JinjaValue) -> &'static str {
    if value.is_none() {
        "None"
    } else {
        python_type(value)
    }
}

/// An integer argument as C's `ssize_t` (`c_int` when `int_only`):
/// `TypeError` for a value that is not an integer, `OverflowError` past
/// the C type.
pub(super) fn c_integer(value: &JinjaValue, int_only: bool) -> Result<i64, Error> {
    let c_type = if int_only { "int" } else { "ssize_t" };
    let overflow = || {
        haystack_error(format!(
            "OverflowError: Python int too large to convert to C {c_type}"
        ))
    };
    match value.kind() {
        ValueKind::Bool => Ok(i64::from(value.is_true())),
        ValueKind::Number if value.is_integer() => {
            let n = value.as_i64().ok_or_else(overflow)?;
            if int_only && i32::try_from(n).is_err() {
                return Err(overflow());
            }
            Ok(n)
        }
        _ => Err(type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            python_type(value)
        ))),
    }
}

/// The fill character of `ljust`, `rjust` and `center`.
fn fill_char(value: &JinjaValue) -> Result<char, Error> {
    let Some(text) = value.as_str().filter(|_| value.kind() == ValueKind::String) else {
        return Err(type_error(format!(
            "The fill character must be a unicode character, not {}",
            python_type(value)
        )));
    };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(type_error(
            "The fill character must be exactly one character long".to_owned(),
        )),
    }
}

/// `str.ljust(width[, fillchar])`, `str.rjust`, `str.center`.
fn justify(
    state: &State,
    text: &str,
    method: &str,
    args: &[JinjaValue],
) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(format!(
            "str.{method}() takes no keyword arguments"
        )));
    }
    let (width, fill) = match positional {
        [] => {
            return Err(type_error(format!(
                "{method} expected at least 1 argument, got 0"
            )));
        }
        [width] => (width, None),
        [width, fill] => (width, Some(fill)),
        more => {
            return Err(type_error(format!(
                "{method} expected at most 2 arguments, got {}",
                more.len()
            )));
        }
    };
    let width = c_integer(width, false)?;
    let fill = fill.map_or(Ok(' '), fill_char)?;
    let length = text.chars().count();
    let Some(margin) = usize::try_from(width)
        .ok()
        .and_then(|w| w.checked_sub(length))
        .filter(|m| *m > 0)
    else {
        return Ok(JinjaValue::from(text));
    };
    budget::ensure_bytes(
        state,
        text.len()
            .saturating_add(margin.saturating_mul(fill.len_utf8())),
    )?;
    let width = width as usize;
    let left = match method {
        "ljust" => 0,
        "rjust" => margin,
        // CPython's `pad`: the odd column goes left when the width is odd.
        _ => margin / 2 + (margin & width & 1),
    };
    let mut out = String::with_capacity(text.len() + margin * fill.len_utf8());
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(text);
    out.extend(std::iter::repeat_n(fill, margin - left));
    Ok(JinjaValue::from(out))
}

/// `str.zfill(width)`: zeros after a leading sign.
fn zfill(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(
            "str.zfill() takes no keyword arguments".to_owned(),
        ));
    }
    let [width] = positional else {
        return Err(type_error(format!(
            "str.zfill() takes exactly one argument ({} given)",
            positional.len()
        )));
    };
    let width = c_integer(width, false)?;
    let length = text.chars().count();
    let Some(margin) = usize::try_from(width)
        .ok()
        .and_then(|w| w.checked_sub(length))
        .filter(|m| *m > 0)
    else {
        return Ok(JinjaValue::from(text));
    };
    budget::ensure_bytes(state, text.len().saturating_add(margin))?;
    let (sign, rest) = match text.chars().next() {
        Some(c @ ('+' | '-')) => (Some(c), &text[1..]),
        _ => (None, text),
    };
    let mut out = String::with_capacity(text.len() + margin);
    out.extend(sign);
    out.extend(std::iter::repeat_n('0', margin));
    out.push_str(rest);
    Ok(JinjaValue::from(out))
}

/// `str.expandtabs(tabsize=8)`: each tab up to the next multiple of
/// `tabsize` columns, the column starting again after `\n` and `\r`; a
/// tab size of 0 or less removes the tabs.
fn expandtabs(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if positional.len() + keywords.len() > 1 {
        return Err(type_error(format!(
            "expandtabs() takes at most 1 argument ({} given)",
            positional.len() + keywords.len()
        )));
    }
    let mut tabsize = positional.first().cloned();
    for name in &keywords {
        if name != "tabsize" {
            return Err(type_error(format!(
                "'{name}' is an invalid keyword argument for expandtabs()"
            )));
        }
        tabsize = args
            .last()
            .and_then(|kwargs| kwargs.get_attr("tabsize").ok());
    }
    let tabsize = tabsize.as_ref().map_or(Ok(8), |v| c_integer(v, true))?;
    let tabsize = u64::try_from(tabsize).unwrap_or(0);
    // The length first, so that the budget is checked before building.
    let mut length: u64 = 0;
    let mut column: u64 = 0;
    for c in text.chars() {
        match c {
            '\t' if tabsize > 0 => {
                let spaces = tabsize - column % tabsize;
                length = length.saturating_add(spaces);
                column = column.saturating_add(spaces);
            }
            '\t' => {}
            '\n' | '\r' => {
                length += 1;
                column = 0;
            }
            c => {
                length += c.len_utf8() as u64;
                column += 1;
            }
        }
    }
    budget::ensure_bytes(state, usize::try_from(length).unwrap_or(usize::MAX))?;
    let mut out = String::with_capacity(length as usize);
    let mut column: u64 = 0;
    for c in text.chars() {
        match c {
            '\t' if tabsize > 0 => {
                let spaces = tabsize - column % tabsize;
                out.extend(std::iter::repeat_n(' ', spaces as usize));
                column += spaces;
            }
            '\t' => {}
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    Ok(JinjaValue::from(out))
}

/// The one `str` argument of `removeprefix`, `partition`, `index`, …
fn one_str<'a>(method: &str, args: &'a [JinjaValue], what: &str) -> Result<&'a str, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(format!(
            "str.{method}() takes no keyword arguments"
        )));
    }
    let [value] = positional else {
        return Err(type_error(format!(
            "str.{method}() takes exactly one argument ({} given)",
            positional.len()
        )));
    };
    match value.as_str().filter(|_| value.kind() == ValueKind::String) {
        Some(text) => Ok(text),
        // `removeprefix` and `removesuffix` are Argument Clinic's.
        None if what.contains("argument") => {
            Err(type_error(format!("{what}, not {}", clinic_type(value))))
        }
        None => Err(type_error(format!("{what}, not {}", python_type(value)))),
    }
}

/// The arguments of a method that takes none (`str.isprintable()`,
/// `str.casefold()`, …): Python's `TypeError` for any.
pub(super) fn no_args(method: &str, args: &[JinjaValue]) -> Result<(), Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(format!(
            "str.{method}() takes no keyword arguments"
        )));
    }
    if !positional.is_empty() {
        return Err(type_error(format!(
            "str.{method}() takes no arguments ({} given)",
            positional.len()
        )));
    }
    Ok(())
}

/// What `table[ord(ch)]` gave `str.translate`.
enum Mapped {
    Keep,
    Text(String),
}

/// `str.translate(table)`: each character looked up by its code point;
/// a missing one (`LookupError`) is kept, `None` deletes it, an integer
/// is a code point, a string replaces it. The result's size is paid for
/// before it is built.
fn translate(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(
            "str.translate() takes no keyword arguments".to_owned(),
        ));
    }
    let [table] = positional else {
        return Err(type_error(format!(
            "str.translate() takes exactly one argument ({} given)",
            positional.len()
        )));
    };
    let lookup = |ch: char| -> Result<Mapped, Error> {
        let key = JinjaValue::from(ch as u32);
        let found = match table.kind() {
            // A list's index past its end (`IndexError`) is kept, and so
            // is every character for a string (`string indices must be
            // integers` is not raised: `ord(ch)` is one).
            ValueKind::Map | ValueKind::Seq => table.get_item(&key).ok(),
            ValueKind::String => {
                let index = ch as u32 as usize;
                table
                    .as_str()
                    .and_then(|t| t.chars().nth(index))
                    .map(JinjaValue::from)
            }
            _ => {
                return Err(type_error(format!(
                    "'{}' object is not subscriptable",
                    python_type(table)
                )));
            }
        };
        let Some(found) = found.filter(|v| !v.is_undefined()) else {
            return Ok(Mapped::Keep);
        };
        match found.kind() {
            ValueKind::None => Ok(Mapped::Text(String::new())),
            ValueKind::String => Ok(Mapped::Text(found.as_str().unwrap_or("").to_owned())),
            ValueKind::Number | ValueKind::Bool
                if found.is_integer() || found.kind() == ValueKind::Bool =>
            {
                let code = if found.kind() == ValueKind::Bool {
                    i64::from(found.is_true())
                } else {
                    found.as_i64().unwrap_or(-1)
                };
                u32::try_from(code)
                    .ok()
                    .and_then(char::from_u32)
                    .map(|c| Mapped::Text(c.to_string()))
                    .ok_or_else(|| {
                        haystack_error(
                            "ValueError: character mapping must be in range(0x110000)".to_owned(),
                        )
                    })
            }
            _ => Err(type_error(
                "character mapping must return integer, None or str".to_owned(),
            )),
        }
    };
    // The size first, so that the budget is checked before building.
    let mut size = 0usize;
    for ch in text.chars() {
        size = size.saturating_add(match lookup(ch)? {
            Mapped::Keep => ch.len_utf8(),
            Mapped::Text(t) => t.len(),
        });
    }
    budget::ensure_bytes(state, size)?;
    let mut out = String::with_capacity(size);
    for ch in text.chars() {
        match lookup(ch)? {
            Mapped::Keep => out.push(ch),
            Mapped::Text(t) => out.push_str(&t),
        }
    }
    Ok(JinjaValue::from(out))
}

/// `str.removeprefix(prefix)`, `str.removesuffix(suffix)`.
fn remove_affix(text: &str, method: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let affix = one_str(method, args, &format!("{method}() argument must be str"))?;
    let rest = if method == "removeprefix" {
        text.strip_prefix(affix)
    } else {
        text.strip_suffix(affix)
    };
    Ok(JinjaValue::from(rest.unwrap_or(text)))
}

/// `str.partition(sep)`, `str.rpartition(sep)`: a 3-tuple.
fn partition(text: &str, method: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let sep = one_str(method, args, "must be str")?;
    if sep.is_empty() {
        return Err(haystack_error("ValueError: empty separator".to_owned()));
    }
    let found = if method == "partition" {
        text.find(sep)
    } else {
        text.rfind(sep)
    };
    let parts = match (found, method) {
        (Some(at), _) => [&text[..at], sep, &text[at + sep.len()..]],
        (None, "partition") => [text, "", ""],
        (None, _) => ["", "", text],
    };
    Ok(JinjaValue::from(Tuple::from(
        parts.map(JinjaValue::from).into_iter().collect::<Vec<_>>(),
    )))
}

/// `str.index(sub[, start[, end]])`, `str.rindex`: the index in
/// characters, or `ValueError: substring not found`.
fn index(text: &str, method: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        // Called with a dict of keywords, as Jinja2 calls, a
        // `METH_VARARGS` method does not name its type.
        return Err(type_error(format!("{method}() takes no keyword arguments")));
    }
    if positional.is_empty() || positional.len() > 3 {
        let bound = if positional.is_empty() {
            "least 1 argument"
        } else {
            "most 3 arguments"
        };
        return Err(type_error(format!(
            "{method}() takes at {bound} ({} given)",
            positional.len()
        )));
    }
    let sub = one_str(method, &positional[..1], "must be str")?;
    let length = text.chars().count() as i64;
    let bound = |value: Option<&JinjaValue>, default: i64| -> Result<i64, Error> {
        let Some(value) = value.filter(|v| !v.is_none()) else {
            return Ok(default);
        };
        let n = match value.kind() {
            ValueKind::Bool => i64::from(value.is_true()),
            ValueKind::Number if value.is_integer() => {
                value
                    .as_i64()
                    .unwrap_or(if value.to_string().starts_with('-') {
                        i64::MIN
                    } else {
                        i64::MAX
                    })
            }
            _ => {
                return Err(type_error(
                    "slice indices must be integers or None or have an __index__ method".to_owned(),
                ));
            }
        };
        Ok(if n < 0 {
            (n.saturating_add(length)).max(0)
        } else {
            n
        })
    };
    let start = bound(positional.get(1), 0)?;
    let end = bound(positional.get(2), length)?.min(length);
    let not_found = || haystack_error("ValueError: substring not found".to_owned());
    if start > length || start > end {
        return Err(not_found());
    }
    let byte = |chars: i64| {
        text.char_indices()
            .nth(chars as usize)
            .map_or(text.len(), |(at, _)| at)
    };
    let (from, to) = (byte(start), byte(end));
    let window = &text[from..to];
    let found = if method == "index" {
        window.find(sub)
    } else {
        window.rfind(sub)
    };
    match found {
        Some(at) => Ok(JinjaValue::from(
            start + window[..at].chars().count() as i64,
        )),
        None => Err(not_found()),
    }
}

/// The most digits of precision minijinja's formatter gives a number
/// (it pads `f` with zeros past it, and fails inside Rust's formatter for
/// the other types).
const MAX_NUMBER_PRECISION: u64 = 65_534;

/// The precision of `g` past which a double prints the same.
const G_PRECISION: u64 = 800;

/// Bytes a number's digits before the point, its sign, grouping and
/// exponent may take (a float's integer part has at most 309 digits).
const NUMBER_SLACK: u64 = 420;

/// What [`check_str_format`] found: the bytes the precisions add to the
/// rendering (to pay for before formatting), and the first precision
/// minijinja's formatter cannot give (refused once the bytes are paid for).
#[derive(Default)]
pub(super) struct Precisions {
    pub(super) bytes: u64,
    pub(super) beyond_formatter: Option<Error>,
    /// The template to give minijinja instead, when it differs.
    pub(super) template: Option<String>,
}

/// What [`check_field`] found of one field.
struct Checked {
    bytes: u64,
    beyond: Option<Error>,
    /// The spec with a `g` precision cut to 800 digits.
    capped_spec: Option<String>,
}

impl Checked {
    fn nothing() -> Self {
        Checked {
            bytes: 0,
            beyond: None,
            capped_spec: None,
        }
    }
}

/// Python's checks of `template.format(*args)`'s fields before minijinja
/// formats it: the exceptions Python raises for a width or precision it
/// refuses, and what the precisions ask for ([`Precisions`]).
pub(super) fn check_str_format(
    state: &mut State,
    template: &str,
    args: &[JinjaValue],
) -> Result<Precisions, Error> {
    let (positional, _) = split_args(args);
    let kwargs = args.last().filter(|a| a.is_kwargs());
    let mut auto = 0usize;
    let (mut numbered, mut manual) = (false, false);
    // A field's name as minijinja reads it (automatic numbers made
    // explicit), and its argument when the harness can tell it.
    let mut resolve = |name: &str| -> (String, Option<JinjaValue>) {
        if name.is_empty() {
            numbered = true;
            auto += 1;
            return ((auto - 1).to_string(), positional.get(auto - 1).cloned());
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            manual = true;
            let arg = name
                .parse::<usize>()
                .ok()
                .and_then(|i| positional.get(i).cloned());
            return (name.to_owned(), arg);
        }
        if name.contains(['.', '[']) {
            manual |= name.starts_with(|c: char| c.is_ascii_digit());
            numbered |= name.starts_with(['.', '[']);
            return (name.to_owned(), None);
        }
        let arg = kwargs
            .and_then(|k| k.get_attr(name).ok())
            .filter(|v| !v.is_undefined());
        (name.to_owned(), arg)
    };
    let mut extra = Precisions::default();
    // The template minijinja formats: nested fields substituted (it reads
    // none), a `g` precision past what it gives cut to what a double has.
    let mut rewritten = String::with_capacity(template.len());
    let mut rewrite = true;
    let mut changed = false;
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        rewritten.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        if let Some(tail) = after.strip_prefix('{') {
            rewritten.push_str("{{");
            rest = tail;
            continue;
        }
        let Some(end) = matching_brace(after) else {
            rewrite = false;
            break;
        };
        let field = &after[..end];
        rest = &after[end + 1..];
        let (name, conversion, spec) = split_field(field);
        missing_argument(name, positional, kwargs)?;
        let automatic = field_head(name).is_empty();
        let (name, arg) = resolve(name);
        if automatic
            && field_head(&name)
                .parse::<usize>()
                .is_ok_and(|i| i >= positional.len())
        {
            return Err(haystack_error(
                "IndexError: tuple index out of range".to_owned(),
            ));
        }
        if let Some(conversion) = conversion {
            // `!r`, `!s`, `!a` make a string of the argument, which the
            // spec formats as a string: written here, as minijinja reads
            // no conversion.
            let Some(arg) = arg else {
                rewrite = false;
                continue;
            };
            let converted = convert(state, &arg, conversion)?;
            let mut expanded = String::new();
            let mut spec_rest = spec;
            while let Some(open) = spec_rest.find('{') {
                expanded.push_str(&spec_rest[..open]);
                let inner = &spec_rest[open + 1..];
                let Some(end) = matching_brace(inner) else {
                    return Ok(extra);
                };
                let (inner_name, _, _) = split_field(&inner[..end]);
                missing_argument(inner_name, positional, kwargs)?;
                match resolve(inner_name).1 {
                    Some(v) if v.kind() == ValueKind::String => {
                        expanded.push_str(v.as_str().unwrap_or(""))
                    }
                    Some(v) if v.is_integer() => expanded.push_str(&v.to_string()),
                    _ => {
                        rewrite = false;
                        continue;
                    }
                }
                spec_rest = &inner[end + 1..];
            }
            expanded.push_str(spec_rest);
            let text = format_str(state, &converted, &expanded)?;
            rewritten.push_str(&text.replace('{', "{{").replace('}', "}}"));
            changed = true;
            continue;
        }
        let arg = arg;
        // The nested fields of the spec (`{:>{width}}`), substituted.
        let mut expanded = String::new();
        let mut known = true;
        let mut spec_rest = spec;
        while let Some(open) = spec_rest.find('{') {
            changed = true;
            expanded.push_str(&spec_rest[..open]);
            let inner = &spec_rest[open + 1..];
            let Some(end) = matching_brace(inner) else {
                return Ok(extra);
            };
            let (inner_name, _, _) = split_field(&inner[..end]);
            missing_argument(inner_name, positional, kwargs)?;
            match resolve(inner_name).1 {
                Some(v) if v.kind() == ValueKind::String => {
                    expanded.push_str(v.as_str().unwrap_or(""))
                }
                Some(v) if v.is_integer() => expanded.push_str(&v.to_string()),
                _ => known = false,
            }
            spec_rest = &inner[end + 1..];
        }
        expanded.push_str(spec_rest);
        if let (Some(text), true, false) = (
            arg.as_ref()
                .filter(|a| a.kind() == ValueKind::String)
                .and_then(|a| a.as_str()),
            known,
            expanded.is_empty(),
        ) {
            // Python pads and cuts a string by characters; minijinja's
            // formatter counts bytes.
            let text = format_str(state, text, &expanded)?;
            rewritten.push_str(&text.replace('{', "{{").replace('}', "}}"));
            changed = true;
            continue;
        }
        if let (Some(container), true) = (
            arg.as_ref().filter(|a| {
                matches!(
                    a.kind(),
                    ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
                )
            }),
            known && expanded.is_empty(),
        ) {
            // `format(value, '')` is `str(value)`: Python's, as printing
            // gives it (an undefined item is `Undefined`).
            let text = show::python_str(Some(state), container)?;
            rewritten.push_str(&text.replace('{', "{{").replace('}', "}}"));
            changed = true;
            continue;
        }
        let mut spec_out = expanded.clone();
        match (arg, known) {
            (Some(arg), true) => {
                let checked = check_field(&arg, &expanded)?;
                extra.bytes = extra.bytes.saturating_add(checked.bytes);
                if extra.beyond_formatter.is_none() {
                    extra.beyond_formatter = checked.beyond;
                }
                if let Some(capped) = checked.capped_spec {
                    spec_out = capped;
                    changed = true;
                }
            }
            _ => rewrite &= spec == expanded,
        }
        if spec_out.contains(['{', '}']) {
            rewrite = false;
        }
        rewritten.push('{');
        rewritten.push_str(&name);
        if let Some(conversion) = conversion {
            rewritten.push('!');
            rewritten.push(conversion);
        }
        if !spec_out.is_empty() {
            rewritten.push(':');
            rewritten.push_str(&spec_out);
        }
        rewritten.push('}');
    }
    rewritten.push_str(rest);
    if rewrite && changed && !(numbered && manual) {
        extra.template = Some(rewritten);
    }
    Ok(extra)
}

/// `format(text, spec)` for a `str`, as CPython's
/// `format_string_internal`: `[[fill]align][0][width][.precision][s]`,
/// padded and cut by characters, with Python's errors for what a string
/// refuses. The padded size is paid for before it is built.
fn format_str(state: &State, text: &str, spec: &str) -> Result<String, Error> {
    let chars: Vec<char> = spec.chars().collect();
    let is_align = |c: &char| matches!(c, '<' | '>' | '=' | '^');
    let (mut fill, align, mut i) = match chars.as_slice() {
        [fill, align, ..] if is_align(align) => (Some(*fill), Some(*align), 2),
        [align, ..] if is_align(align) => (None, Some(*align), 1),
        _ => (None, None, 0),
    };
    let sign = matches!(chars.get(i), Some('+' | '-' | ' '));
    if sign {
        i += 1;
    }
    let no_neg_zero = chars.get(i) == Some(&'z');
    if no_neg_zero {
        i += 1;
    }
    let alternate = chars.get(i) == Some(&'#');
    if alternate {
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        // `0` before the width: fill with zeros unless a fill was given
        // (a string keeps its left alignment).
        fill = fill.or(Some('0'));
        i += 1;
    }
    let digits = |i: &mut usize| -> String {
        let start = *i;
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        chars[start..*i].iter().collect()
    };
    let width = spec_integer(&digits(&mut i))?;
    let grouping = match chars.get(i) {
        Some(c @ (',' | '_')) => {
            i += 1;
            Some(*c)
        }
        _ => None,
    };
    let mut precision = None;
    if chars.get(i) == Some(&'.') {
        i += 1;
        precision = spec_integer(&digits(&mut i))?;
        if precision.is_none() {
            return Err(value_error("Format specifier missing precision"));
        }
    }
    match &chars[i..] {
        [] | ['s'] => {}
        [kind] => {
            return Err(value_error(&format!(
                "Unknown format code '{kind}' for object of type 'str'"
            )));
        }
        _ => {
            return Err(value_error(&format!(
                "Invalid format specifier '{spec}' for object of type 'str'"
            )));
        }
    }
    if let Some(grouping) = grouping {
        return Err(value_error(&format!(
            "Cannot specify '{grouping}' with 's'."
        )));
    }
    if sign {
        return Err(value_error("Sign not allowed in string format specifier"));
    }
    if no_neg_zero {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in string format specifier",
        ));
    }
    if alternate {
        return Err(value_error(
            "Alternate form (#) not allowed in string format specifier",
        ));
    }
    if align == Some('=') {
        return Err(value_error(
            "'=' alignment not allowed in string format specifier",
        ));
    }
    let cut: String;
    let text = match precision {
        Some(p) if (p as usize) < text.chars().count() => {
            cut = text.chars().take(p as usize).collect();
            cut.as_str()
        }
        _ => text,
    };
    let length = text.chars().count();
    let Some(margin) = width
        .and_then(|w| usize::try_from(w).ok())
        .and_then(|w| w.checked_sub(length))
        .filter(|m| *m > 0)
    else {
        return Ok(text.to_owned());
    };
    let fill = fill.unwrap_or(' ');
    budget::ensure_bytes(
        state,
        text.len()
            .saturating_add(margin.saturating_mul(fill.len_utf8())),
    )?;
    let left = match align.unwrap_or('<') {
        '>' => margin,
        '^' => margin / 2,
        _ => 0,
    };
    let mut out = String::with_capacity(text.len() + margin * fill.len_utf8());
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(text);
    out.extend(std::iter::repeat_n(fill, margin - left));
    Ok(out)
}

/// The first part of a field's name (`x` of `x.y[0]`).
fn field_head(name: &str) -> &str {
    &name[..name.find(['.', '[']).unwrap_or(name.len())]
}

/// Python's error for a field whose argument is not given: `string.Formatter`
/// (which Jinja2's sandbox formats with) indexes the positional arguments
/// (`IndexError: tuple index out of range`) or looks the name up in the
/// keyword arguments (`KeyError: 'name'`).
fn missing_argument(
    name: &str,
    positional: &[JinjaValue],
    kwargs: Option<&JinjaValue>,
) -> Result<(), Error> {
    let head = field_head(name);
    if head.is_empty() {
        // An automatic number: counted by the caller's `resolve`; the
        // harness leaves its check to the formatter's own.
        return Ok(());
    }
    if head.bytes().all(|b| b.is_ascii_digit()) {
        if head
            .parse::<usize>()
            .map_or(true, |i| i >= positional.len())
        {
            return Err(haystack_error(
                "IndexError: tuple index out of range".to_owned(),
            ));
        }
        return Ok(());
    }
    let found = kwargs
        .and_then(|k| k.get_attr(head).ok())
        .is_some_and(|v| !v.is_undefined());
    if !found {
        return Err(haystack_error(format!(
            "KeyError: {}",
            crate::pyfmt::repr(&serde_json::Value::String(head.to_owned()))
        )));
    }
    Ok(())
}

/// `!r`, `!s`, `!a` of a field (and `%r`, `%a`): Python's `repr`, `str`
/// and `ascii`.
pub(super) fn convert(state: &State, arg: &JinjaValue, conversion: char) -> Result<String, Error> {
    // Jinja2's `Undefined`: `repr` is its class name, `str` is empty.
    if arg.is_undefined() && matches!(conversion, 'r' | 'a') {
        return Ok("Undefined".to_owned());
    }
    let repr = || -> Result<String, Error> {
        match arg.as_str().filter(|_| arg.kind() == ValueKind::String) {
            Some(text) => {
                budget::ensure_bytes(state, text.len().saturating_mul(4))?;
                Ok(crate::pyfmt::repr(&serde_json::Value::String(
                    text.to_owned(),
                )))
            }
            None => show::python_str(Some(state), arg),
        }
    };
    match conversion {
        's' => show::python_str(Some(state), arg),
        'r' => repr(),
        'a' => {
            let text = repr()?;
            budget::ensure_bytes(state, text.len().saturating_mul(10))?;
            let mut out = String::with_capacity(text.len());
            for ch in text.chars() {
                match ch as u32 {
                    0..=0x7f => out.push(ch),
                    code @ 0x80..=0xff => out.push_str(&format!("\\x{code:02x}")),
                    code @ 0x100..=0xffff => out.push_str(&format!("\\u{code:04x}")),
                    code => out.push_str(&format!("\\U{code:08x}")),
                }
            }
            Ok(out)
        }
        other => Err(value_error(&format!(
            "Unknown conversion specifier {other}"
        ))),
    }
}

/// The first field of a `str.format` template named by a word (`{x}`,
/// `{x.y}`), if any comes before a numbered one.
pub(super) fn first_named_field(template: &str) -> Option<&str> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        if let Some(tail) = after.strip_prefix('{') {
            rest = tail;
            continue;
        }
        let end = matching_brace(after)?;
        let head = field_head(split_field(&after[..end]).0);
        if head.is_empty() || head.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        return Some(head);
    }
    None
}

/// Python's `TypeError` for `value[name]` with a string `name`, when
/// `value` is not a mapping.
pub(super) fn not_subscriptable_by_str(value: &JinjaValue) -> Error {
    type_error(match python_type(value) {
        "list" => "list indices must be integers or slices, not str".to_owned(),
        "tuple" => "tuple indices must be integers or slices, not str".to_owned(),
        "str" => "string indices must be integers, not 'str'".to_owned(),
        other => format!("'{other}' object is not subscriptable"),
    })
}

/// The index of the `}` closing a field whose `{` is just before `text`.
fn matching_brace(text: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A field's name, conversion and spec (`name!r:spec`); a `[...]` in the
/// name is skipped whole, as CPython's `parse_field` does.
fn split_field(field: &str) -> (&str, Option<char>, &str) {
    let bytes = field.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' => {
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
            }
            b'!' | b':' => break,
            _ => {}
        }
        i += 1;
    }
    let i = i.min(field.len());
    let name = &field[..i];
    let mut rest = &field[i..];
    let mut conversion = None;
    if let Some(after) = rest.strip_prefix('!') {
        let mut chars = after.chars();
        conversion = chars.next();
        rest = chars.as_str();
    }
    (name, conversion, rest.strip_prefix(':').unwrap_or(""))
}

fn value_error(message: &str) -> Error {
    haystack_error(format!("ValueError: {message}"))
}

/// A decimal in a spec, as CPython's `get_integer`: past `sys.maxsize`,
/// `ValueError: Too many decimal digits in format string`.
fn spec_integer(digits: &str) -> Result<Option<u64>, Error> {
    if digits.is_empty() {
        return Ok(None);
    }
    match digits.parse::<i64>() {
        Ok(n) => Ok(Some(n as u64)),
        Err(_) => Err(value_error("Too many decimal digits in format string")),
    }
}

/// CPython's `parse_internal_render_format_spec` and the precision checks
/// of `int.__format__` and `float.__format__`, for a `str`, `int`, `bool`
/// or `float` argument: the bytes the precision adds. Anything else is
/// left to minijinja's formatter, which allocates nothing large for it.
fn check_field(arg: &JinjaValue, spec: &str) -> Result<Checked, Error> {
    let python = python_type(arg);
    if !matches!(python, "str" | "int" | "bool" | "float") || spec.is_empty() {
        return Ok(Checked::nothing());
    }
    let chars: Vec<char> = spec.chars().collect();
    let is_align = |c: &char| matches!(c, '<' | '>' | '=' | '^');
    let mut i = match chars.as_slice() {
        [_, align, ..] if is_align(align) => 2,
        [align, ..] if is_align(align) => 1,
        _ => 0,
    };
    let mut alternate = false;
    if matches!(chars.get(i), Some('+' | '-' | ' ')) {
        i += 1;
    }
    if chars.get(i) == Some(&'z') {
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        i += 1;
    }
    let digits = |i: &mut usize| -> String {
        let start = *i;
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        chars[start..*i].iter().collect()
    };
    spec_integer(&digits(&mut i))?;
    if matches!(chars.get(i), Some(',' | '_')) {
        i += 1;
    }
    let mut precision = None;
    let dot = i;
    if chars.get(i) == Some(&'.') {
        i += 1;
        precision = spec_integer(&digits(&mut i))?;
        if precision.is_none() {
            return Err(value_error("Format specifier missing precision"));
        }
    }
    let precision_end = i;
    let kind = match &chars[i..] {
        [] => None,
        [kind] => Some(*kind),
        // "Invalid format specifier": minijinja's formatter refuses it.
        _ => return Ok(Checked::nothing()),
    };
    if let Some(kind) = kind.filter(|k| python == "str" && *k != 's') {
        return Err(value_error(&format!(
            "Unknown format code '{kind}' for object of type 'str'"
        )));
    }
    let Some(precision) = precision else {
        return Ok(Checked::nothing());
    };
    let float_kind = matches!(kind, Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%'));
    match python {
        "int" | "bool" if matches!(kind, None | Some('b' | 'c' | 'd' | 'o' | 'x' | 'X' | 'n')) => {
            Err(value_error(
                "Precision not allowed in integer format specifier",
            ))
        }
        "int" | "bool" if !float_kind => Ok(Checked::nothing()),
        "float" if !(float_kind || matches!(kind, None | Some('n'))) => Ok(Checked::nothing()),
        "str" => Ok(Checked::nothing()),
        _ => {
            if precision > i32::MAX as u64 {
                return Err(value_error("precision too big"));
            }
            // `g` drops trailing zeros: a double has at most 767
            // significant digits, so 800 prints the same.
            let general = matches!(kind, None | Some('g' | 'G' | 'n')) && !alternate;
            let capped_spec = (general && precision > G_PRECISION).then(|| {
                let mut spec: String = chars[..dot + 1].iter().collect();
                spec.push_str(&G_PRECISION.to_string());
                spec.extend(&chars[precision_end..]);
                spec
            });
            let padded_by_minijinja = python == "float" && matches!(kind, Some('f' | 'F'));
            let beyond = (precision > MAX_NUMBER_PRECISION && !padded_by_minijinja && !general).then(|| {
                haystack_error(format!(
                    "a precision of {precision} digits for a number is past the {MAX_NUMBER_PRECISION} \
                     the harness formats (docs/deviations.md, `prompt-template-budget`): use a smaller precision"
                ))
            });
            let digits = if general {
                precision.min(G_PRECISION)
            } else {
                precision
            };
            Ok(Checked {
                bytes: digits.saturating_add(NUMBER_SLACK),
                beyond,
                capped_spec,
            })
        }
    }
}
