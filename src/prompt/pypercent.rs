//! Python's `%` formatting of a string (`"%s has %d items" % (who, n)`),
//! which Jinja2 evaluates for a template's `%` operator and its `format`
//! filter, and minijinja has not (its `%` is a number's remainder, its
//! `format` filter pads by bytes). CPython 3.11's `PyUnicode_Format`: the
//! same conversions, flags, `*` widths, `%(key)s` lookups and exceptions.
//! A float's digits go through the template's `str.format` (`{:.2f}`), so
//! they are those `str.format` gives, with its checks; every padding is
//! paid for from the rendering's budget before it is built.

use super::budget;
use super::groupby;
use super::pystr::python_type;
use super::render::{call_method, haystack_error};
use super::show;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

fn type_error(message: &str) -> Error {
    haystack_error(format!("TypeError: {message}"))
}

fn value_error(message: &str) -> Error {
    haystack_error(format!("ValueError: {message}"))
}

/// The arguments of the `%`: a tuple's items, or one value; a mapping
/// (any value but a tuple or string with items, as `PyMapping_Check`) for
/// `%(key)s`.
struct Args<'a> {
    items: Vec<JinjaValue>,
    /// Whether `items` is a tuple's (else the one value, used once).
    tuple: bool,
    next: usize,
    mapping: Option<&'a JinjaValue>,
}

impl Args<'_> {
    fn next(&mut self) -> Result<JinjaValue, Error> {
        let found = self.items.get(self.next).cloned();
        self.next += 1;
        found.ok_or_else(|| type_error("not enough arguments for format string"))
    }
}

/// `text % args`.
pub(super) fn percent_format(
    state: &mut State,
    text: &str,
    args: &JinjaValue,
) -> Result<JinjaValue, Error> {
    let tuple = groupby::is_tuple(args);
    let mapping =
        // Jinja2's `Undefined` has `__getitem__`: Python takes it for a
        // mapping (`'a' % x` is `'a'`).
        (!tuple && matches!(args.kind(), ValueKind::Map | ValueKind::Seq | ValueKind::Undefined))
            .then_some(args);
    let mut args = Args {
        items: if tuple {
            args.try_iter()?.collect()
        } else {
            vec![args.clone()]
        },
        tuple,
        next: 0,
        mapping,
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // `%(key)s` makes the mapping the arguments: no positional left.
    let mut keyed = false;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        if chars.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut keyed_value = None;
        if chars.get(i) == Some(&'(') {
            let Some(mapping) = args.mapping else {
                return Err(type_error("format requires a mapping"));
            };
            let mut depth = 1;
            let start = i + 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(value_error("incomplete format key"));
            }
            let key: String = chars[start..i - 1].iter().collect();
            if mapping.kind() != ValueKind::Map {
                return Err(super::pystr::not_subscriptable_by_str(mapping));
            }
            let value = mapping.get_item(&JinjaValue::from(key.as_str()))?;
            if value.is_undefined() {
                return Err(haystack_error(format!(
                    "KeyError: {}",
                    crate::pyfmt::repr(&serde_json::Value::String(key))
                )));
            }
            keyed_value = Some(value);
            keyed = true;
            args.items.clear();
            args.tuple = true;
        }
        let (mut left, mut sign, mut space, mut alternate, mut zero) =
            (false, false, false, false, false);
        while let Some(flag) = chars.get(i) {
            match flag {
                '-' => left = true,
                '+' => sign = true,
                ' ' => space = true,
                '#' => alternate = true,
                '0' => zero = true,
                _ => break,
            }
            i += 1;
        }
        let star = |args: &mut Args| -> Result<i64, Error> {
            let value = args.next()?;
            if value.kind() == ValueKind::Number && value.is_integer()
                || value.kind() == ValueKind::Bool
            {
                budget::ssize(&value)
            } else {
                Err(type_error("* wants int"))
            }
        };
        let number = |i: &mut usize, what: &str| -> Result<Option<u64>, Error> {
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            if start == *i {
                return Ok(None);
            }
            let digits: String = chars[start..*i].iter().collect();
            digits
                .parse::<i64>()
                .map(|n| Some(n as u64))
                .map_err(|_| value_error(&format!("{what} too big")))
        };
        let mut width = if chars.get(i) == Some(&'*') {
            i += 1;
            let n = star(&mut args)?;
            if n < 0 {
                left = true;
            }
            Some(n.unsigned_abs())
        } else {
            number(&mut i, "width")?
        };
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            precision = if chars.get(i) == Some(&'*') {
                i += 1;
                Some(u64::try_from(star(&mut args)?).unwrap_or(0))
            } else {
                Some(number(&mut i, "precision")?.unwrap_or(0))
            };
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&kind) = chars.get(i) else {
            return Err(value_error("incomplete format"));
        };
        let at = i;
        i += 1;
        let value = match keyed_value {
            Some(value) => value,
            None => args.next()?,
        };
        if width == Some(0) {
            width = None;
        }
        let spec = Spec {
            left,
            sign,
            space,
            alternate,
            zero,
            width,
            precision,
        };
        let piece = match kind {
            's' | 'r' | 'a' => {
                let text = match kind {
                    's' => show::python_str(Some(state), &value)?,
                    _ => super::pystr::convert(state, &value, kind)?,
                };
                let text: String = match precision {
                    Some(p) => text
                        .chars()
                        .take(usize::try_from(p).unwrap_or(usize::MAX))
                        .collect(),
                    None => text,
                };
                pad(state, "", &text, &spec, false)?
            }
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => integer(state, &value, kind, &spec)?,
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => float(state, &value, kind, &spec)?,
            'c' => {
                let ch = match value.kind() {
                    ValueKind::Number | ValueKind::Bool
                        if value.is_integer() || value.kind() == ValueKind::Bool =>
                    {
                        let code = i128::try_from(value.clone()).unwrap_or(-1);
                        u32::try_from(code)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| {
                                haystack_error(
                                    "OverflowError: %c arg not in range(0x110000)".to_owned(),
                                )
                            })?
                    }
                    ValueKind::String if value.as_str().is_some_and(|t| t.chars().count() == 1) => {
                        value.as_str().and_then(|t| t.chars().next()).unwrap_or(' ')
                    }
                    _ => return Err(type_error("%c requires int or char")),
                };
                pad(state, "", &ch.to_string(), &spec, false)?
            }
            other => {
                return Err(value_error(&format!(
                    "unsupported format character {} (0x{:x}) at index {at}",
                    crate::pyfmt::repr(&serde_json::Value::String(other.to_string())),
                    other as u32
                )));
            }
        };
        budget::ensure_bytes(state, out.len().saturating_add(piece.len()))?;
        out.push_str(&piece);
    }
    if !keyed
        && args.mapping.is_none()
        && args.next < args.items.len()
        && (args.tuple || args.next == 0)
    {
        return Err(type_error(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(JinjaValue::from(out))
}

struct Spec {
    left: bool,
    sign: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: Option<u64>,
    precision: Option<u64>,
}

/// `prefix` (a sign, `0x`) and `body` padded to the width: spaces on the
/// left, on the right with `-`, zeros after the prefix with `0` when
/// `numeric`. The padded size is paid for before it is built.
fn pad(
    state: &State,
    prefix: &str,
    body: &str,
    spec: &Spec,
    numeric: bool,
) -> Result<String, Error> {
    let length = prefix.chars().count() + body.chars().count();
    let width = spec
        .width
        .map_or(0, |w| usize::try_from(w).unwrap_or(usize::MAX));
    let margin = width.saturating_sub(length);
    budget::ensure_bytes(
        state,
        prefix
            .len()
            .saturating_add(body.len())
            .saturating_add(margin),
    )?;
    let mut out = String::with_capacity(prefix.len() + body.len() + margin);
    if spec.left {
        out.push_str(prefix);
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', margin));
    } else if spec.zero && numeric {
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', margin));
        out.push_str(body);
    } else {
        out.extend(std::iter::repeat_n(' ', margin));
        out.push_str(prefix);
        out.push_str(body);
    }
    Ok(out)
}

/// `%d`, `%i`, `%u`, `%o`, `%x`, `%X`: an integer (a float truncated for
/// the decimal ones), its precision the least digits.
fn integer(state: &State, value: &JinjaValue, kind: char, spec: &Spec) -> Result<String, Error> {
    let decimal = matches!(kind, 'd' | 'i' | 'u');
    let n: i128 = match value.kind() {
        ValueKind::Bool => i128::from(value.is_true()),
        ValueKind::Number if value.is_integer() => i128::try_from(value.clone()).map_err(|_| {
            haystack_error("OverflowError: the integer is past 128 bits".to_owned())
        })?,
        ValueKind::Number if decimal => {
            let float = f64::try_from(value.clone()).unwrap_or(f64::NAN);
            if float.is_nan() {
                return Err(value_error("cannot convert float NaN to integer"));
            }
            if float.is_infinite() {
                return Err(haystack_error(
                    "OverflowError: cannot convert float infinity to integer".to_owned(),
                ));
            }
            float.trunc() as i128
        }
        _ if decimal => {
            return Err(type_error(&format!(
                "%{kind} format: a real number is required, not {}",
                python_type(value)
            )));
        }
        _ => {
            return Err(type_error(&format!(
                "%{kind} format: an integer is required, not {}",
                python_type(value)
            )));
        }
    };
    let magnitude = n.unsigned_abs();
    let mut digits = match kind {
        'o' => format!("{magnitude:o}"),
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    };
    if let Some(precision) = spec.precision {
        let precision = usize::try_from(precision).unwrap_or(usize::MAX);
        if precision > digits.len() {
            budget::ensure_bytes(state, precision)?;
            digits = "0".repeat(precision - digits.len()) + &digits;
        }
    }
    let mut prefix = String::new();
    if n < 0 {
        prefix.push('-');
    } else if spec.sign {
        prefix.push('+');
    } else if spec.space {
        prefix.push(' ');
    }
    if spec.alternate {
        prefix.push_str(match kind {
            'o' => "0o",
            'x' => "0x",
            'X' => "0X",
            _ => "",
        });
    }
    pad(state, &prefix, &digits, spec, true)
}

/// `%e`, `%f`, `%g` (and capitals): the float's digits as the template's
/// `str.format` gives them for the same spec (default precision 6).
fn float(state: &mut State, value: &JinjaValue, kind: char, spec: &Spec) -> Result<String, Error> {
    let number = match value.kind() {
        ValueKind::Bool => JinjaValue::from(f64::from(u8::from(value.is_true()))),
        ValueKind::Number => value.clone(),
        _ => {
            return Err(type_error(&format!(
                "must be real number, not {}",
                python_type(value)
            )));
        }
    };
    let mut format_spec = String::from("{:");
    if spec.left {
        format_spec.push('<');
    }
    if spec.sign {
        format_spec.push('+');
    } else if spec.space {
        format_spec.push(' ');
    }
    if spec.alternate {
        format_spec.push('#');
    }
    if spec.zero && !spec.left {
        format_spec.push('0');
    }
    if let Some(width) = spec.width {
        format_spec.push_str(&width.to_string());
    }
    format_spec.push('.');
    format_spec.push_str(&spec.precision.unwrap_or(6).to_string());
    format_spec.push(kind);
    format_spec.push('}');
    let text = call_method(state, &JinjaValue::from(format_spec), "format", &[number])?;
    Ok(text.as_str().unwrap_or_default().to_owned())
}
