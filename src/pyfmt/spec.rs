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
use super::float_text::{FloatStyle, float_text};
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
            render_int(&Integer::Fits(i128::from(*flag)), type_name, spec, budget)
        }
        (PyObject::Value(_), Value::Number(n)) => match (n.is_f64(), n.as_i128(), n.as_f64()) {
            (false, Some(int), _) => render_int(&Integer::Fits(int), type_name, spec, budget),
            (true, _, Some(float)) => render_float(float, spec, budget),
            _ => render_int(&Integer::Big(&object.str()), type_name, spec, budget),
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

/// An integer to format: one that 128 bits hold, or the text of a larger
/// one (as the scenario wrote it).
enum Integer<'a> {
    Fits(i128),
    Big(&'a str),
}

impl Integer<'_> {
    /// `PyNumber_Float`: the nearest double, ties to even (as `as` and
    /// Rust's parser round), or Python's `OverflowError` past the largest.
    fn to_float(&self) -> Result<f64, PyException> {
        let float = match self {
            Integer::Fits(value) => *value as f64,
            Integer::Big(text) => text.parse().unwrap_or(f64::INFINITY),
        };
        if float.is_infinite() {
            return Err(PyException::new(
                "OverflowError",
                "int too large to convert to float",
            ));
        }
        Ok(float)
    }
}

/// `_PyLong_FormatAdvancedWriter`: `format_long_internal` for the integer
/// presentation types, `format_float_internal` of the number as a float for
/// the others.
fn render_int(
    value: &Integer<'_>,
    type_name: &str,
    spec: &str,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    let spec = parse(spec, type_name, '>')?;
    let kind = spec.kind.unwrap_or('d');
    match kind {
        'b' | 'c' | 'd' | 'o' | 'x' | 'X' | 'n' => {}
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' => {
            return float_number(value.to_float()?, &spec, budget);
        }
        other => return Err(unknown_code(other, type_name)),
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
    let value = match (value, kind) {
        (Integer::Fits(value), 'c') => return render_char(*value, &spec, budget),
        (Integer::Fits(value), _) => *value,
        (Integer::Big(_), 'c') => {
            // `PyLong_AsLong` before the range check.
            return Err(PyException::new(
                "OverflowError",
                "Python int too large to convert to C long",
            ));
        }
        (Integer::Big(text), 'd' | 'n') => {
            let (negative, digits) = match text.strip_prefix('-') {
                Some(digits) => (true, digits),
                None => (false, *text),
            };
            return number(negative, "", (digits, ""), &spec, 3, budget);
        }
        (Integer::Big(_), _) => {
            return Err(PyException::unsupported(format!(
                "the presentation type `{kind}` for an integer past 128 bits in a confirmation \
                 template; write it with `d`, or as a string"
            )));
        }
    };
    let magnitude = value.unsigned_abs();
    let (digits, prefix, group) = match kind {
        'x' => (format!("{magnitude:x}"), "0x", 4),
        'X' => (format!("{magnitude:X}"), "0X", 4),
        'o' => (format!("{magnitude:o}"), "0o", 4),
        'b' => (format!("{magnitude:b}"), "0b", 4),
        _ => (magnitude.to_string(), "", 3),
    };
    let prefix = if spec.alternate { prefix } else { "" };
    number(value < 0, prefix, (&digits, ""), &spec, group, budget)
}

/// `format_long_internal` for `c`: the character of that code point.
fn render_char(
    value: i128,
    spec: &Spec,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    if spec.sign.is_some() {
        return Err(value_error(
            "Sign not allowed with integer format specifier 'c'",
        ));
    }
    if spec.alternate {
        return Err(value_error(
            "Alternate form (#) not allowed with integer format specifier 'c'",
        ));
    }
    if i64::try_from(value).is_err() {
        // `PyLong_AsLong` before the range check.
        return Err(PyException::new(
            "OverflowError",
            "Python int too large to convert to C long",
        ));
    }
    let code = u32::try_from(value)
        .ok()
        .filter(|code| *code <= 0x10_ffff)
        .ok_or_else(|| PyException::new("OverflowError", "%c arg not in range(0x110000)"))?;
    let Some(character) = char::from_u32(code) else {
        return Err(PyException::unsupported(format!(
            "the surrogate code point {code:#x} (`c`) in a confirmation template, which a message \
             cannot hold; write another character"
        )));
    };
    pad("", character.encode_utf8(&mut [0; 4]), spec, budget)
}

/// `_PyFloat_FormatAdvancedWriter`.
fn render_float(value: f64, spec: &str, budget: &mut PaddingBudget) -> Result<String, PyException> {
    let spec = parse(spec, "float", '>')?;
    match spec.kind {
        None | Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%') => {}
        Some(other) => return Err(unknown_code(other, "float")),
    }
    float_number(value, &spec, budget)
}

/// `format_float_internal`: the float's text for the presentation type
/// (`float_text`), then sign, grouping and padding. The digits a precision
/// asks for beyond the value's own (`e`, `f`, `%`, `#g`) count against the
/// padding budget, as zeros a width adds do.
fn float_number(
    value: f64,
    spec: &Spec,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    if spec.precision.is_some_and(|p| p > i32::MAX as usize) {
        return Err(value_error("precision too big"));
    }
    let add_dot_0 = spec.kind.is_none();
    let (mut code, mut value, percent) = match spec.kind {
        None => ('r', value, false),
        Some('n') => ('g', value, false),
        Some('%') => ('f', value * 100.0, true),
        Some(kind) => (kind, value, false),
    };
    let precision = match spec.precision {
        None if add_dot_0 => 0,
        None => 6,
        Some(precision) => {
            if code == 'r' {
                code = 'g';
            }
            precision
        }
    };
    if matches!(code, 'e' | 'E' | 'f' | 'F') || (spec.alternate && matches!(code, 'g' | 'G')) {
        budget.take(precision)?;
    }
    if spec.no_neg_0 && value == 0.0 {
        value = 0.0;
    }
    let mut text = float_text(
        value,
        FloatStyle {
            code,
            precision,
            alternate: spec.alternate,
            add_dot_0,
            no_neg_0: spec.no_neg_0,
        },
    );
    if percent {
        text.push('%');
    }
    let (negative, body) = match text.strip_prefix('-') {
        Some(body) => (true, body),
        None => (false, text.as_str()),
    };
    // The digits before the point or the exponent are grouped; `inf` and `nan` have none.
    let int_end = body
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(body.len());
    number(negative, "", body.split_at(int_end), spec, 3, budget)
}

/// `calc_number_widths` and `fill_number`: the sign and prefix, the
/// integer digits `int` grouped (with `0` padding, the zeros are grouped
/// too, as `_PyUnicode_InsertThousandsGrouping` does), then `rest` (a
/// point, a fraction, an exponent, `%`), padded to the width.
fn number(
    negative: bool,
    prefix: &str,
    (int, rest): (&str, &str),
    spec: &Spec,
    group: usize,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    let lead = format!("{}{prefix}", sign(negative, spec.sign));
    let grouped = match spec.grouping {
        Some(separator) if !int.is_empty() => {
            let min_width = if spec.fill == '0' && spec.align == '=' {
                spec.width
                    .saturating_sub(lead.chars().count() + rest.chars().count())
            } else {
                0
            };
            budget.take(min_width.saturating_sub(int.len()))?;
            grouped(int, separator, group, min_width)
        }
        _ => int.to_owned(),
    };
    pad(&lead, &format!("{grouped}{rest}"), spec, budget)
}

fn sign(negative: bool, requested: Option<char>) -> &'static str {
    match (negative, requested) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        (false, _) => "",
    }
}

/// `_PyUnicode_InsertThousandsGrouping`: `digits` with a separator every
/// `every` from the right, led by zeros (grouped too) until the text is
/// `min_width` long.
fn grouped(digits: &str, separator: char, every: usize, min_width: usize) -> String {
    let digits = digits.as_bytes();
    let mut remaining = digits.len();
    let mut min_width = i128::try_from(min_width).unwrap_or(i128::MAX);
    let mut groups: Vec<String> = Vec::new();
    loop {
        let length = every.min(
            remaining
                .max(usize::try_from(min_width.max(0)).unwrap_or(usize::MAX))
                .max(1),
        );
        let taken = length.min(remaining);
        let mut group = "0".repeat(length - taken);
        group.push_str(&String::from_utf8_lossy(
            &digits[remaining - taken..remaining],
        ));
        groups.push(group);
        remaining -= taken;
        min_width -= length as i128;
        if remaining == 0 && min_width <= 0 {
            break;
        }
        min_width -= separator.len_utf8() as i128;
    }
    groups.reverse();
    groups.join(separator.encode_utf8(&mut [0; 4]))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// Every case of `tests/fixtures/cpython/format_specs.json`
    /// (`conformance/make_format_fixtures.py`: CPython 3.11's
    /// `format(value, spec)` of integers, booleans and floats under specs
    /// drawn from the whole mini-language) renders, or fails, as CPython's.
    #[test]
    fn numbers_format_as_cpython_formats_them() {
        let cases: Vec<Value> = serde_json::from_str(include_str!(
            "../../tests/fixtures/cpython/format_specs.json"
        ))
        .expect("the fixture is JSON");
        let mut failures = Vec::new();
        for case in &cases {
            let spec = case["spec"].as_str().unwrap_or_default();
            let object = PyObject::Value(Cow::Borrowed(&case["value"]));
            let got =
                render(&object, spec, &mut PaddingBudget::default()).map_err(|e| e.to_string());
            let want = match case.get("text").and_then(Value::as_str) {
                Some(text) => Ok(text.to_owned()),
                None => Err(case["error"].as_str().unwrap_or_default().to_owned()),
            };
            if got != want {
                failures.push(format!(
                    "format({}, {spec:?}): CPython {want:?}, here {got:?}",
                    case["value"]
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} cases differ:\n{}",
            failures.len(),
            cases.len(),
            failures[..failures.len().min(40)].join("\n")
        );
    }

    #[test]
    fn a_surrogate_code_point_says_a_message_cannot_hold_it() {
        let value = Value::from(0xd800);
        let object = PyObject::Value(Cow::Borrowed(&value));
        let message = render(&object, "c", &mut PaddingBudget::default())
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("unsupported in the harness: the surrogate code point 0xd800"),
            "{message}"
        );
    }

    #[test]
    fn a_precision_past_the_padding_budget_is_a_memory_error() {
        let value = Value::from(1.5);
        let object = PyObject::Value(Cow::Borrowed(&value));
        let error = render(&object, ".2000000f", &mut PaddingBudget::default()).unwrap_err();
        assert_eq!(error.to_string(), "MemoryError");
        let text = render(&object, ".100000000g", &mut PaddingBudget::default()).unwrap();
        assert_eq!(text, "1.5", "`g` drops its zeros: no budget is taken");
        let error = render(&object, ".2147483648f", &mut PaddingBudget::default()).unwrap_err();
        assert_eq!(error.to_string(), "ValueError: precision too big");
    }
}
