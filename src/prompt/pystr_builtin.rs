//! Python's `str` methods that minijinja-contrib's Python compatibility
//! has with other rules (`lower`, `upper`, `title`, `capitalize`, the
//! `is…` predicates, `strip`, `split`, `splitlines`, `replace`, `count`,
//! `find`, `startswith`, `join`, …) or lacks (`rsplit`, `maketrans`),
//! with CPython 3.11's semantics, Unicode data and exception texts: the
//! arity, keyword and type errors of each method's argument parsing, the
//! slice indices of `count`, `find` and `startswith`, the whitespace and
//! line breaks of `split`, `strip` and `splitlines`.
//!
//! A method whose result can outgrow its input (`replace`, `join`, the
//! case mappings) pays for it from the rendering's budget before building
//! it ([`budget::ensure_bytes`]), `MemoryError` past it.

use super::budget;
use super::groupby;
use super::pystr::{c_integer, clinic_type, no_args, python_type, split_args, type_error};
use super::pystr_unicode::{self, Case, Predicate};
use super::render::haystack_error;
use indexmap::IndexMap;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

/// The method `method` of the string `text`, when it is one of those this
/// module implements.
pub(super) fn string_method(
    state: &State,
    text: &str,
    method: &str,
    args: &[JinjaValue],
) -> Option<Result<JinjaValue, Error>> {
    if let Some(case) = Case::of_method(method) {
        return Some(no_args(method, args).and_then(|()| {
            budget::ensure_bytes(state, case.len(text))?;
            Ok(JinjaValue::from(case.apply(text)))
        }));
    }
    if let Some(predicate) = Predicate::of_method(method) {
        return Some(no_args(method, args).map(|()| JinjaValue::from(predicate.test(text))));
    }
    let result = match method {
        "islower" | "isupper" => no_args(method, args)
            .map(|()| JinjaValue::from(pystr_unicode::is_cased_as(text, method == "isupper"))),
        "isascii" => no_args(method, args).map(|()| JinjaValue::from(text.is_ascii())),
        "strip" | "lstrip" | "rstrip" => strip(text, method, args),
        "replace" => replace(state, text, args),
        "split" | "rsplit" => split(state, text, method, args),
        "splitlines" => splitlines(state, text, args),
        "count" | "find" | "rfind" => find(text, method, args),
        "startswith" | "endswith" => starts_with(text, method, args),
        "join" => join(state, text, args),
        "maketrans" => maketrans(args),
        _ => return None,
    };
    Some(result)
}

fn as_str(value: &JinjaValue) -> Option<&str> {
    value.as_str().filter(|_| value.kind() == ValueKind::String)
}

/// `str.strip([chars])`, `lstrip`, `rstrip`: Python's whitespace, or the
/// characters given.
fn strip(text: &str, method: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(format!(
            "str.{method}() takes no keyword arguments"
        )));
    }
    if positional.len() > 1 {
        return Err(type_error(format!(
            "{method} expected at most 1 argument, got {}",
            positional.len()
        )));
    }
    let chars: Option<Vec<char>> = match positional.first() {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) => match as_str(v) {
            Some(chars) => Some(chars.chars().collect()),
            None => {
                return Err(type_error(format!("{method} arg must be None or str")));
            }
        },
    };
    let strip_this = |ch: char| match &chars {
        Some(chars) => chars.contains(&ch),
        None => pystr_unicode::is_space(ch),
    };
    let stripped = match method {
        "lstrip" => text.trim_start_matches(strip_this),
        "rstrip" => text.trim_end_matches(strip_this),
        _ => text.trim_matches(strip_this),
    };
    Ok(JinjaValue::from(stripped))
}

/// `str.replace(old, new[, count])`: at most `count` occurrences (all
/// when negative); an empty `old` inserts `new` around each character.
pub(super) fn replace(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(
            "str.replace() takes no keyword arguments".to_owned(),
        ));
    }
    if positional.len() < 2 || positional.len() > 3 {
        let (bound, s) = if positional.len() < 2 {
            ("least 2", "s")
        } else {
            ("most 3", "s")
        };
        return Err(type_error(format!(
            "replace expected at {bound} argument{s}, got {}",
            positional.len()
        )));
    }
    let mut strs = [""; 2];
    for (index, value) in positional[..2].iter().enumerate() {
        strs[index] = as_str(value).ok_or_else(|| {
            type_error(format!(
                "replace() argument {} must be str, not {}",
                index + 1,
                clinic_type(value)
            ))
        })?;
    }
    let [old, new] = strs;
    let count = match positional.get(2) {
        Some(count) => c_integer(count, false)?,
        None => -1,
    };
    let limit = usize::try_from(count).unwrap_or(usize::MAX);
    // The places replaced, in bytes, counted before anything is built.
    let places: Vec<usize> = if old.is_empty() {
        text.char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .take(limit)
            .collect()
    } else {
        text.match_indices(old)
            .map(|(at, _)| at)
            .take(limit)
            .collect()
    };
    let size = (text.len() - places.len() * old.len())
        .saturating_add(places.len().saturating_mul(new.len()));
    budget::ensure_bytes(state, size)?;
    let mut out = String::with_capacity(size);
    let mut from = 0;
    for at in places {
        out.push_str(&text[from..at]);
        out.push_str(new);
        from = at + old.len();
    }
    out.push_str(&text[from..]);
    Ok(JinjaValue::from(out))
}

/// The arguments of a method that also takes them by keyword
/// (`split(sep=None, maxsplit=-1)`, `splitlines(keepends=False)`), in
/// the order of `names`, with Python's errors for too many, unknown or
/// doubled ones.
fn clinic_args(
    method: &str,
    names: &[&str],
    args: &[JinjaValue],
) -> Result<Vec<Option<JinjaValue>>, Error> {
    let (positional, keywords) = split_args(args);
    let given = positional.len() + keywords.len();
    if given > names.len() {
        let s = if names.len() == 1 { "" } else { "s" };
        return Err(type_error(format!(
            "{method}() takes at most {} argument{s} ({given} given)",
            names.len()
        )));
    }
    let mut values: Vec<Option<JinjaValue>> = positional.iter().cloned().map(Some).collect();
    values.resize(names.len(), None);
    let kwargs = args.last().filter(|last| last.is_kwargs());
    for name in &keywords {
        let Some(index) = names.iter().position(|n| n == name) else {
            return Err(type_error(format!(
                "'{name}' is an invalid keyword argument for {method}()"
            )));
        };
        if index < positional.len() {
            return Err(type_error(format!(
                "argument for {method}() given by name ('{name}') and position ({})",
                index + 1
            )));
        }
        values[index] = kwargs.and_then(|k| k.get_item(&JinjaValue::from(name.as_str())).ok());
    }
    Ok(values)
}

/// `str.split(sep=None, maxsplit=-1)`, `str.rsplit`: on runs of Python's
/// whitespace (none at either end) without `sep`, else on each `sep`;
/// `rsplit` splits from the right.
fn split(
    state: &State,
    text: &str,
    method: &str,
    args: &[JinjaValue],
) -> Result<JinjaValue, Error> {
    let values = clinic_args(method, &["sep", "maxsplit"], args)?;
    let maxsplit = match &values[1] {
        Some(value) => c_integer(value, false)?,
        None => -1,
    };
    let sep = match &values[0] {
        Some(value) if !value.is_none() => Some(as_str(value).ok_or_else(|| {
            type_error(format!("must be str or None, not {}", python_type(value)))
        })?),
        _ => None,
    };
    if sep == Some("") {
        return Err(haystack_error("ValueError: empty separator".to_owned()));
    }
    budget::ensure_bytes(state, text.len())?;
    let limit = usize::try_from(maxsplit).unwrap_or(usize::MAX);
    let right = method == "rsplit";
    let parts: Vec<&str> = match sep {
        Some(sep) if right => {
            let mut parts: Vec<&str> = text.rsplitn(limit.saturating_add(1), sep).collect();
            parts.reverse();
            parts
        }
        Some(sep) => text.splitn(limit.saturating_add(1), sep).collect(),
        None if right => {
            let mut parts = Vec::new();
            let mut rest = text;
            for _ in 0..limit {
                rest = rest.trim_end_matches(pystr_unicode::is_space);
                if rest.is_empty() {
                    break;
                }
                let at = rest.rfind(pystr_unicode::is_space).map_or(0, |at| {
                    at + rest[at..].chars().next().map_or(0, char::len_utf8)
                });
                parts.push(&rest[at..]);
                rest = &rest[..at];
            }
            let rest = rest.trim_end_matches(pystr_unicode::is_space);
            if !rest.is_empty() {
                parts.push(rest);
            }
            parts.reverse();
            parts
        }
        None => {
            let mut parts = Vec::new();
            let mut rest = text;
            for _ in 0..limit {
                rest = rest.trim_start_matches(pystr_unicode::is_space);
                if rest.is_empty() {
                    break;
                }
                let at = rest.find(pystr_unicode::is_space).unwrap_or(rest.len());
                parts.push(&rest[..at]);
                rest = &rest[at..];
            }
            let rest = rest.trim_start_matches(pystr_unicode::is_space);
            if !rest.is_empty() {
                parts.push(rest);
            }
            parts
        }
    };
    Ok(parts.into_iter().map(JinjaValue::from).collect())
}

/// Python's line boundaries (`\r\n` is one).
fn is_line_break(ch: char) -> bool {
    matches!(
        ch,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `str.splitlines(keepends=False)`: at each of Python's line boundaries.
fn splitlines(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let values = clinic_args("splitlines", &["keepends"], args)?;
    let keepends = match &values[0] {
        Some(value) => c_integer(value, true)? != 0,
        None => false,
    };
    budget::ensure_bytes(state, text.len())?;
    let lines = split_lines(text, keepends);
    Ok(lines.into_iter().map(JinjaValue::from).collect())
}

/// Python's `str.splitlines(keepends)`: the lines of `text`, at each of
/// Python's line boundaries (`\r\n` is one), with their ends when
/// `keepends`.
pub(super) fn split_lines(text: &str, keepends: bool) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(is_line_break) {
        let end = if rest[at..].starts_with("\r\n") {
            at + 2
        } else {
            at + rest[at..].chars().next().map_or(1, char::len_utf8)
        };
        lines.push(&rest[..if keepends { end } else { at }]);
        rest = &rest[end..];
    }
    if !rest.is_empty() {
        lines.push(rest);
    }
    lines
}

/// A slice index of `count`, `find` or `startswith`: an integer (clamped
/// to `ssize_t`, as Python's `_PyEval_SliceIndex`), `None` or missing.
fn slice_index(value: Option<&JinjaValue>) -> Result<Option<i64>, Error> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    match value.kind() {
        ValueKind::Bool => Ok(Some(i64::from(value.is_true()))),
        ValueKind::Number if value.is_integer() => Ok(Some(value.as_i64().unwrap_or(
            if value.to_string().starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            },
        ))),
        _ => Err(type_error(
            "slice indices must be integers or None or have an __index__ method".to_owned(),
        )),
    }
}

/// The arguments `(sub, start, end)` of `count`, `find` and `startswith`:
/// the first one as given, `start` and `end` as CPython's
/// `ADJUST_INDICES` leaves them (in characters, within the text).
fn find_args<'a>(
    text: &str,
    method: &str,
    args: &'a [JinjaValue],
) -> Result<(&'a JinjaValue, i64, i64), Error> {
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
    let length = i64::try_from(text.chars().count()).unwrap_or(i64::MAX);
    let start = slice_index(positional.get(1))?.unwrap_or(0);
    let end = slice_index(positional.get(2))?.unwrap_or(i64::MAX);
    let end = if end > length {
        length
    } else if end < 0 {
        end.saturating_add(length).max(0)
    } else {
        end
    };
    let start = if start < 0 {
        start.saturating_add(length).max(0)
    } else {
        start
    };
    Ok((&positional[0], start, end))
}

/// The text between two character indices within it.
fn window(text: &str, start: i64, end: i64) -> &str {
    let byte = |chars: i64| {
        usize::try_from(chars).ok().map_or(0, |chars| {
            text.char_indices()
                .nth(chars)
                .map_or(text.len(), |(at, _)| at)
        })
    };
    &text[byte(start)..byte(end).max(byte(start))]
}

/// `str.count(sub[, start[, end]])`, `str.find`, `str.rfind`.
fn find(text: &str, method: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (sub, start, end) = find_args(text, method, args)?;
    let sub =
        as_str(sub).ok_or_else(|| type_error(format!("must be str, not {}", python_type(sub))))?;
    let sub_length = i64::try_from(sub.chars().count()).unwrap_or(i64::MAX);
    if end - start < sub_length {
        return Ok(JinjaValue::from(if method == "count" { 0 } else { -1 }));
    }
    let slice = window(text, start, end);
    let found = match method {
        "count" if sub.is_empty() => return Ok(JinjaValue::from(end - start + 1)),
        "count" => return Ok(JinjaValue::from(slice.matches(sub).count())),
        "find" => slice.find(sub),
        _ => slice.rfind(sub),
    };
    Ok(JinjaValue::from(found.map_or(-1, |at| {
        start + i64::try_from(slice[..at].chars().count()).unwrap_or(0)
    })))
}

/// `str.startswith(prefix[, start[, end]])`, `str.endswith`: a string or
/// a tuple of strings, tried in order.
fn starts_with(text: &str, method: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (affix, start, end) = find_args(text, method, args)?;
    let matches = |affix: &str| {
        let length = i64::try_from(affix.chars().count()).unwrap_or(i64::MAX);
        if end - start < length {
            return false;
        }
        let slice = window(text, start, end);
        if method == "startswith" {
            slice.starts_with(affix)
        } else {
            slice.ends_with(affix)
        }
    };
    if let Some(affix) = as_str(affix) {
        return Ok(JinjaValue::from(matches(affix)));
    }
    if affix.kind() == ValueKind::Seq && groupby::is_tuple(affix) {
        for item in affix.try_iter()? {
            let Some(item) = as_str(&item) else {
                return Err(type_error(format!(
                    "tuple for {method} must only contain str, not {}",
                    python_type(&item)
                )));
            };
            if matches(item) {
                return Ok(JinjaValue::from(true));
            }
        }
        return Ok(JinjaValue::from(false));
    }
    Err(type_error(format!(
        "{method} first arg must be str or a tuple of str, not {}",
        python_type(affix)
    )))
}

/// `str.join(iterable)`: strings only, Python's `TypeError` naming the
/// first item that is not one.
fn join(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(
            "str.join() takes no keyword arguments".to_owned(),
        ));
    }
    let [iterable] = positional else {
        return Err(type_error(format!(
            "str.join() takes exactly one argument ({} given)",
            positional.len()
        )));
    };
    let items: Vec<JinjaValue> = match iterable.kind() {
        ValueKind::String => iterable
            .as_str()
            .unwrap_or_default()
            .chars()
            .map(JinjaValue::from)
            .collect(),
        ValueKind::Bytes => iterable
            .as_bytes()
            .unwrap_or_default()
            .iter()
            .map(|b| JinjaValue::from(*b))
            .collect(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable | ValueKind::Undefined => {
            iterable.try_iter()?.collect()
        }
        _ => return Err(type_error("can only join an iterable".to_owned())),
    };
    let mut size = text.len().saturating_mul(items.len().saturating_sub(1));
    for (index, item) in items.iter().enumerate() {
        let Some(item) = as_str(item) else {
            return Err(type_error(format!(
                "sequence item {index}: expected str instance, {} found",
                python_type(item)
            )));
        };
        size = size.saturating_add(item.len());
    }
    budget::ensure_bytes(state, size)?;
    let parts: Vec<&str> = items.iter().filter_map(as_str).collect();
    Ok(JinjaValue::from(parts.join(text)))
}

/// `str.maketrans(x[, y[, z]])`: the table `str.translate` takes, a dict
/// from code points to code points, strings or `None`.
fn maketrans(args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (positional, keywords) = split_args(args);
    if !keywords.is_empty() {
        return Err(type_error(
            "str.maketrans() takes no keyword arguments".to_owned(),
        ));
    }
    if positional.is_empty() || positional.len() > 3 {
        let bound = if positional.is_empty() {
            "least 1 argument"
        } else {
            "most 3 arguments"
        };
        return Err(type_error(format!(
            "maketrans expected at {bound}, got {}",
            positional.len()
        )));
    }
    for (index, value) in positional.iter().enumerate().skip(1) {
        if as_str(value).is_none() {
            return Err(type_error(format!(
                "maketrans() argument {} must be str, not {}",
                index + 1,
                clinic_type(value)
            )));
        }
    }
    let code = |ch: char| JinjaValue::from(ch as u32);
    let mut table: IndexMap<JinjaValue, JinjaValue> = IndexMap::new();
    if let [x, y, rest @ ..] = positional {
        let Some(x) = as_str(x) else {
            return Err(type_error(
                "first maketrans argument must be a string if there is a second argument"
                    .to_owned(),
            ));
        };
        let y = as_str(y).unwrap_or_default();
        if x.chars().count() != y.chars().count() {
            return Err(haystack_error(
                "ValueError: the first two maketrans arguments must have equal length".to_owned(),
            ));
        }
        for (from, to) in x.chars().zip(y.chars()) {
            table.insert(code(from), code(to));
        }
        for ch in rest.iter().filter_map(as_str).flat_map(str::chars) {
            table.insert(code(ch), JinjaValue::from(()));
        }
        return Ok(JinjaValue::from(table));
    }
    let mapping = &positional[0];
    if mapping.kind() != ValueKind::Map {
        return Err(type_error(
            "if you give only one argument to maketrans it must be a dict".to_owned(),
        ));
    }
    for key in mapping.try_iter()? {
        let value = mapping.get_item(&key)?;
        let key = match key.kind() {
            ValueKind::String => {
                let mut chars = key.as_str().unwrap_or_default().chars();
                match (chars.next(), chars.next()) {
                    (Some(ch), None) => code(ch),
                    _ => {
                        return Err(haystack_error(
                            "ValueError: string keys in translate table must be of length 1"
                                .to_owned(),
                        ));
                    }
                }
            }
            ValueKind::Bool => key,
            ValueKind::Number if key.is_integer() => key,
            _ => {
                return Err(type_error(
                    "keys in translate table must be strings or integers".to_owned(),
                ));
            }
        };
        table.insert(key, value);
    }
    Ok(JinjaValue::from(table))
}
