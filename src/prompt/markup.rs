//! Jinja2's filters built on MarkupSafe's `escape`: `escape` (`e`),
//! `forceescape`, `xmlattr`, and `urlencode`, as Jinja2 3.1 writes them.
//!
//! minijinja's own `escape` writes `'` as `&#x27;` and `"` as `&quot;`;
//! MarkupSafe writes `&#39;` and `&#34;`, and prints a value that is not a
//! string as Python's `str()` first (within the budget, [`show`]).

use super::budget;
use super::iterating_filters;
use super::pystr;
use super::render::haystack_error;
use super::show;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

/// MarkupSafe's `escape(value)`: a safe string as it is, anything else
/// printed and escaped, as a safe string.
pub(super) fn escape(state: &State, value: &JinjaValue) -> Result<JinjaValue, Error> {
    if value.is_safe() {
        return Ok(value.clone());
    }
    forceescape(state, value)
}

/// Jinja2's `forceescape`: a safe string escaped again. The escaped text
/// (6 bytes at most a character) is paid for first.
pub(super) fn forceescape(state: &State, value: &JinjaValue) -> Result<JinjaValue, Error> {
    let text = show::python_str(Some(state), value)?;
    budget::ensure_bytes(state, text.len().saturating_mul(6))?;
    Ok(JinjaValue::from_safe_string(escaped(&text)))
}

/// `text` with MarkupSafe's five entities.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            c => out.push(c),
        }
    }
    out
}

/// Jinja2's `xmlattr(d, autospace=True)`: ` key="value"` for each item
/// whose value is not none or undefined, both escaped; a key holding
/// whitespace, `/`, `>` or `=` is its `ValueError`.
pub(super) fn xmlattr(
    state: &State,
    value: &JinjaValue,
    autospace: Option<JinjaValue>,
) -> Result<JinjaValue, Error> {
    if let Some(error) = iterating_filters::no_items(value) {
        return Err(error);
    }
    if value.kind() != ValueKind::Map {
        return Err(haystack_error(format!(
            "AttributeError: '{}' object has no attribute 'items'",
            pystr::python_type(value)
        )));
    }
    let mut items = Vec::new();
    for key in value.try_iter()? {
        let item = value.get_item(&key)?;
        if item.is_none() || item.is_undefined() {
            continue;
        }
        let name = show::python_str(Some(state), &key)?;
        if name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '/' | '>' | '='))
        {
            return Err(haystack_error(format!(
                "ValueError: Invalid character in attribute name: {}",
                repr(state, &key)?
            )));
        }
        let shown = escape(state, &item)?;
        items.push(format!(
            "{}=\"{}\"",
            escaped(&name),
            shown.as_str().unwrap_or_default()
        ));
    }
    let joined = items.join(" ");
    let autospace = autospace.is_none_or(|a| a.is_true());
    Ok(JinjaValue::from(if autospace && !joined.is_empty() {
        format!(" {joined}")
    } else {
        joined
    }))
}

/// Jinja2's `urlencode`: a string (or any value not iterable) quoted as a
/// URL path (`/` kept), a dict or a list of pairs as a query string.
pub(super) fn urlencode(state: &State, value: &JinjaValue) -> Result<JinjaValue, Error> {
    let iterable = matches!(
        value.kind(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
    );
    if value.kind() == ValueKind::String || !iterable {
        return Ok(JinjaValue::from(quote(
            &show::python_str(Some(state), value)?,
            false,
        )));
    }
    let mut pairs = Vec::new();
    for item in value.try_iter()? {
        let (key, val) = if value.kind() == ValueKind::Map {
            let val = value.get_item(&item)?;
            (item, val)
        } else {
            pair(&item)?
        };
        pairs.push(format!(
            "{}={}",
            quote(&show::python_str(Some(state), &key)?, true),
            quote(&show::python_str(Some(state), &val)?, true)
        ));
    }
    Ok(JinjaValue::from(pairs.join("&")))
}

/// Python's `repr(value)`: the item of a one-item list as Python prints it.
pub(super) fn repr(state: &State, value: &JinjaValue) -> Result<String, Error> {
    let list = show::python_str(Some(state), &JinjaValue::from(vec![value.clone()]))?;
    Ok(list[1..list.len() - 1].to_owned())
}

/// `k, v = item`, as Python unpacks it.
fn pair(item: &JinjaValue) -> Result<(JinjaValue, JinjaValue), Error> {
    let parts: Vec<JinjaValue> = match item.kind() {
        ValueKind::String => item
            .as_str()
            .unwrap_or_default()
            .chars()
            .map(|c| JinjaValue::from(c.to_string()))
            .collect(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => item.try_iter()?.collect(),
        _ => {
            return Err(haystack_error(format!(
                "TypeError: cannot unpack non-iterable {} object",
                pystr::python_type(item)
            )));
        }
    };
    match <[JinjaValue; 2]>::try_from(parts) {
        Ok([key, value]) => Ok((key, value)),
        Err(parts) if parts.len() > 2 => Err(haystack_error(
            "ValueError: too many values to unpack (expected 2)".to_owned(),
        )),
        Err(parts) => Err(haystack_error(format!(
            "ValueError: not enough values to unpack (expected 2, got {})",
            parts.len()
        ))),
    }
}

/// `urllib.parse.quote_from_bytes` of the UTF-8 of `text`: letters,
/// digits, `_.-~` (and `/` unless `query`) kept, the rest `%XX`; in a
/// query, `%20` is `+`.
fn quote(text: &str, query: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(char::from(byte));
            }
            b'/' if !query => out.push('/'),
            b' ' if query => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
