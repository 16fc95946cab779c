//! Python's format-spec mini-language (CPython 3.11's
//! `Python/formatter_unicode.c`) for the objects a template field reaches.
//!
//! Widths and precisions are bounded as CPython bounds them: a number past
//! `isize::MAX` is `ValueError: Too many decimal digits in format string`.
//! Padding is never allocated from an unchecked width: past
//! [`MAX_PADDING`] characters in one template, rendering raises
//! `MemoryError`, which is what CPython raises for the widths that do not
//! fit in memory.

use super::exception::PyException;
use super::format::{PyObject, char_for_message};
use serde_json::Value;

/// The padding characters one template may add in total (1 Mi) before its
/// rendering raises `MemoryError`.
pub(crate) const MAX_PADDING: usize = 1 << 20;

/// The characters one rendered template may hold (16 Mi bytes) before its
/// rendering raises `MemoryError`: a field repeated many times with a long
/// value is refused before it is built.
pub(crate) const MAX_RENDERED: usize = 1 << 24;

/// The padding a template has added so far.
#[derive(Debug, Default)]
pub(crate) struct PaddingBudget {
    used: usize,
}

impl PaddingBudget {
    fn take(&mut self, padding: usize) -> Result<(), PyException> {
        match self.used.checked_add(padding) {
            Some(total) if total <= MAX_PADDING => {
                self.used = total;
                Ok(())
            }
            _ => Err(PyException::new("MemoryError", "")),
        }
    }
}

fn value_error(message: impl Into<String>) -> PyException {
    PyException::new("ValueError", message)
}

/// A parsed `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Debug)]
struct Spec {
    fill: char,
    align: char,
    fill_or_align_given: bool,
    sign: Option<char>,
    no_neg_0: bool,
    alternate: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

/// `parse_internal_render_format_spec`.
fn parse(spec: &str, type_name: &str, default_align: char) -> Result<Spec, PyException> {
    let chars: Vec<char> = spec.chars().collect();
    let is_align = |c: char| matches!(c, '<' | '>' | '=' | '^');
    let mut parsed = Spec {
        fill: ' ',
        align: default_align,
        fill_or_align_given: false,
        sign: None,
        no_neg_0: false,
        alternate: false,
        width: 0,
        grouping: None,
        precision: None,
        kind: None,
    };
    let mut i = 0;
    let mut fill_given = false;
    if chars.len() >= 2 && is_align(chars[1]) {
        (parsed.fill, parsed.align) = (chars[0], chars[1]);
        fill_given = true;
        parsed.fill_or_align_given = true;
        i = 2;
    } else if chars.first().copied().is_some_and(is_align) {
        parsed.align = chars[0];
        parsed.fill_or_align_given = true;
        i = 1;
    }
    if let Some(&c) = chars.get(i).filter(|c| matches!(c, '+' | '-' | ' ')) {
        parsed.sign = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'z') {
        parsed.no_neg_0 = true;
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        parsed.alternate = true;
        i += 1;
    }
    if !fill_given && chars.get(i) == Some(&'0') {
        parsed.fill = '0';
        if !parsed.fill_or_align_given && default_align == '>' {
            parsed.align = '=';
        }
        i += 1;
    }
    parsed.width = integer(&chars, &mut i)?.unwrap_or(0);
    if chars.get(i) == Some(&',') {
        parsed.grouping = Some(',');
        i += 1;
    }
    if chars.get(i) == Some(&'_') {
        if parsed.grouping.is_some() {
            return Err(value_error("Cannot specify both ',' and '_'."));
        }
        parsed.grouping = Some('_');
        i += 1;
    }
    if chars.get(i) == Some(&',') && parsed.grouping == Some('_') {
        return Err(value_error("Cannot specify both ',' and '_'."));
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        parsed.precision = Some(
            integer(&chars, &mut i)?
                .ok_or_else(|| value_error("Format specifier missing precision"))?,
        );
    }
    match &chars[i..] {
        [] => {}
        [kind] => parsed.kind = Some(*kind),
        _ => {
            return Err(value_error(format!(
                "Invalid format specifier '{spec}' for object of type '{type_name}'"
            )));
        }
    }
    if let Some(separator) = parsed.grouping {
        let kind = parsed
            .kind
            .unwrap_or(if type_name == "str" { 's' } else { '\0' });
        let allowed = matches!(kind, 'd' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F' | '\0')
            || (separator == '_' && matches!(kind, 'b' | 'o' | 'x' | 'X'));
        if !allowed {
            return Err(value_error(format!(
                "Cannot specify '{separator}' with '{}'.",
                char_for_message(kind)
            )));
        }
    }
    Ok(parsed)
}

/// `get_integer`: the digits at `i`, `None` when there are none.
fn integer(chars: &[char], i: &mut usize) -> Result<Option<usize>, PyException> {
    let start = *i;
    let mut value: usize = 0;
    while let Some(digit) = chars.get(*i).and_then(|c| c.to_digit(10)) {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(digit as usize))
            .filter(|v| *v <= isize::MAX as usize)
            .ok_or_else(|| value_error("Too many decimal digits in format string"))?;
        *i += 1;
    }
    Ok((*i > start).then_some(value))
}

/// `format(object, spec)`.
pub(crate) fn render(
    object: &PyObject<'_>,
    spec: &str,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    if spec.is_empty() {
        return Ok(object.str());
    }
    let type_name = object.type_name();
    let value = match object {
        PyObject::Value(value) => value.as_ref(),
        PyObject::Type(_) => &Value::Null,
    };
    match (object, value) {
        (PyObject::Value(_), Value::String(text)) => render_str(text, spec, budget),
        (PyObject::Value(_), Value::Bool(flag)) => {
            render_int(i128::from(*flag), type_name, spec, budget)
        }
        (PyObject::Value(_), Value::Number(n)) => match (n.is_f64(), n.as_i128(), n.as_f64()) {
            (false, Some(int), _) => render_int(int, type_name, spec, budget),
            (true, _, Some(float)) => render_float(float, spec, budget),
            _ => Ok(object.str()),
        },
        _ => Err(PyException::new(
            "TypeError",
            format!("unsupported format string passed to {type_name}.__format__"),
        )),
    }
}

/// `_PyUnicode_FormatAdvancedWriter` and `format_string_internal`.
fn render_str(text: &str, spec: &str, budget: &mut PaddingBudget) -> Result<String, PyException> {
    let spec = parse(spec, "str", '<')?;
    match spec.kind {
        None | Some('s') => {}
        Some(other) => return Err(unknown_code(other, "str")),
    }
    match spec.sign {
        Some(' ') => return Err(value_error("Space not allowed in string format specifier")),
        Some(_) => return Err(value_error("Sign not allowed in string format specifier")),
        None => {}
    }
    if spec.no_neg_0 {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in string format specifier",
        ));
    }
    if spec.alternate {
        return Err(value_error(
            "Alternate form (#) not allowed in string format specifier",
        ));
    }
    if spec.align == '=' {
        return Err(value_error(
            "'=' alignment not allowed in string format specifier",
        ));
    }
    let body: &str = match spec.precision {
        Some(p) => text
            .char_indices()
            .nth(p)
            .map_or(text, |(at, _)| &text[..at]),
        None => text,
    };
    pad("", body, &spec, budget)
}

/// `format_long_internal` for the presentation types `d`, `x`, `X`, `o`, `b`.
fn render_int(
    value: i128,
    type_name: &str,
    spec: &str,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    let spec = parse(spec, type_name, '>')?;
    let kind = spec.kind.unwrap_or('d');
    match kind {
        'b' | 'c' | 'd' | 'o' | 'x' | 'X' | 'n' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' => {}
        other => return Err(unknown_code(other, type_name)),
    }
    if !matches!(kind, 'd' | 'x' | 'X' | 'o' | 'b') {
        return Err(unsupported_spec(kind, type_name));
    }
    if spec.precision.is_some() {
        return Err(value_error(
            "Precision not allowed in integer format specifier",
        ));
    }
    if spec.no_neg_0 {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in integer format specifier",
        ));
    }
    let magnitude = value.unsigned_abs();
    let (digits, prefix, group) = match kind {
        'x' => (format!("{magnitude:x}"), "0x", 4),
        'X' => (format!("{magnitude:X}"), "0X", 4),
        'o' => (format!("{magnitude:o}"), "0o", 4),
        'b' => (format!("{magnitude:b}"), "0b", 4),
        _ => (magnitude.to_string(), "", 3),
    };
    let mut lead = sign(value < 0, spec.sign).to_owned();
    if spec.alternate {
        lead.push_str(prefix);
    }
    let body = grouped(&digits, spec.grouping, group, &spec)?;
    pad(&lead, &body, &spec, budget)
}

/// `format_float_internal` for the empty presentation type without a
/// precision: `repr(float)` with a sign, grouping and padding.
fn render_float(value: f64, spec: &str, budget: &mut PaddingBudget) -> Result<String, PyException> {
    let spec = parse(spec, "float", '>')?;
    match spec.kind {
        None => {}
        Some(kind @ ('e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%')) => {
            return Err(unsupported_spec(kind, "float"));
        }
        Some(other) => return Err(unknown_code(other, "float")),
    }
    if spec.precision.is_some() || spec.alternate {
        return Err(PyException::unsupported(
            "a precision or `#` for a float in a confirmation template; convert it with `!s` \
             and format the text"
                .to_owned(),
        ));
    }
    let value = if spec.no_neg_0 && value == 0.0 {
        0.0
    } else {
        value
    };
    let text = super::float_repr(value.abs());
    let int_end = text.find(['.', 'e']).unwrap_or(text.len());
    let body = format!(
        "{}{}",
        grouped(&text[..int_end], spec.grouping, 3, &spec)?,
        &text[int_end..]
    );
    pad(
        sign(value.is_sign_negative(), spec.sign),
        &body,
        &spec,
        budget,
    )
}

fn sign(negative: bool, requested: Option<char>) -> &'static str {
    match (negative, requested) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        (false, _) => "",
    }
}

/// Digits with a separator every `every` from the right.
fn grouped(
    digits: &str,
    separator: Option<char>,
    every: usize,
    spec: &Spec,
) -> Result<String, PyException> {
    let Some(separator) = separator else {
        return Ok(digits.to_owned());
    };
    if spec.fill == '0' && spec.align == '=' {
        // Python also groups the zeros of the padding (`01,234,567`).
        return Err(PyException::unsupported(
            "zero padding (`0`) together with a digit separator (`,` or `_`) in a confirmation \
             template; drop one of them"
                .to_owned(),
        ));
    }
    let mut out = String::with_capacity(digits.len() * 2);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % every == 0 {
            out.push(separator);
        }
        out.push(c);
    }
    Ok(out)
}

/// `calc_padding` and the fill: `lead` (sign, prefix) then `body`, padded
/// to the width; `=` pads between them.
fn pad(
    lead: &str,
    body: &str,
    spec: &Spec,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    let len = lead.chars().count() + body.chars().count();
    let padding = spec.width.saturating_sub(len);
    budget.take(padding)?;
    let (left, right) = match spec.align {
        '>' | '=' => (padding, 0),
        '^' => (padding / 2, padding - padding / 2),
        _ => (0, padding),
    };
    let fill = |n: usize| std::iter::repeat_n(spec.fill, n);
    let mut out = String::with_capacity(lead.len() + body.len() + padding * spec.fill.len_utf8());
    if spec.align == '=' {
        out.push_str(lead);
        out.extend(fill(left));
    } else {
        out.extend(fill(left));
        out.push_str(lead);
    }
    out.push_str(body);
    out.extend(fill(right));
    Ok(out)
}

fn unknown_code(code: char, type_name: &str) -> PyException {
    value_error(format!(
        "Unknown format code '{}' for object of type '{type_name}'",
        char_for_message(code)
    ))
}

fn unsupported_spec(kind: char, type_name: &str) -> PyException {
    PyException::unsupported(format!(
        "the presentation type `{kind}` for a `{type_name}` in a confirmation template; \
         convert the field with `!s` and format the text"
    ))
}
