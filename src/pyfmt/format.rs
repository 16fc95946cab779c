//! Python's `template.format(**fields)` (CPython 3.11's
//! `Objects/stringlib/unicode_format.h`), over JSON values.
//!
//! Haystack's confirmation strategy renders user-written templates with
//! `str.format`, so a template behaves here as it does there: the same
//! field lookups (`{name[0]}`, `{name[key]}`, `{name.__class__}`), the same
//! nested specs (`{name:>{width}}`), the same exceptions with the same texts.
//! Only what a JSON value can be is modelled: `str`, `int`, `float`, `bool`,
//! `None`, `list`, `dict`, and the type objects `.__class__` reaches.

use super::exception::PyException;
use super::spec::{MAX_RENDERED, PaddingBudget, render};
use super::{float_repr, repr};
use serde_json::Value;
use std::borrow::Cow;

/// PEP 3101's two levels: `{a:{b}}` works, `{a:{b:{c}}}` does not.
const RECURSION_DEPTH: u8 = 2;

/// `template.format(**fields)`: the rendered text, or the exception Python
/// raises, as `Type: message`.
pub(crate) fn format(template: &str, fields: &[(&str, &Value)]) -> Result<String, PyException> {
    let mut budget = PaddingBudget::default();
    build(template, fields, RECURSION_DEPTH, &mut budget)
}

/// A Python object a field lookup can reach.
#[derive(Debug, Clone)]
pub(crate) enum PyObject<'a> {
    /// A value loaded from JSON (`str`, `int`, `float`, `bool`, `None`,
    /// `list`, `dict`).
    Value(Cow<'a, Value>),
    /// A type object, by name (`str`, `dict`, `type`, ...).
    Type(&'static str),
}

impl PyObject<'_> {
    /// `type(obj).__name__`.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            PyObject::Type(_) => "type",
            PyObject::Value(value) => crate::value::type_name(value.as_ref()),
        }
    }

    /// `str(obj)`.
    pub(crate) fn str(&self) -> String {
        match self {
            PyObject::Type(name) => format!("<class '{name}'>"),
            PyObject::Value(value) => match value.as_ref() {
                Value::String(text) => text.clone(),
                Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
                    Some(float) => float_repr(float),
                    None => n.to_string(),
                },
                other => repr(other),
            },
        }
    }

    /// `repr(obj)`.
    fn repr(&self) -> String {
        match self {
            PyObject::Value(value) => repr(value),
            PyObject::Type(_) => self.str(),
        }
    }
}

fn error(kind: &'static str, message: impl Into<String>) -> PyException {
    PyException::new(kind, message)
}

/// `build_string`: literal text and replacement fields, in order.
fn build(
    template: &str,
    fields: &[(&str, &Value)],
    depth: u8,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    if depth == 0 {
        return Err(error("ValueError", "Max string recursion exceeded"));
    }
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let brace = rest.as_bytes()[at];
        let after = &rest[at + 1..];
        if after.as_bytes().first() == Some(&brace) {
            out.push(char::from(brace));
            rest = &after[1..];
            continue;
        }
        if brace == b'}' {
            return Err(error(
                "ValueError",
                "Single '}' encountered in format string",
            ));
        }
        if after.is_empty() {
            return Err(error(
                "ValueError",
                "Single '{' encountered in format string",
            ));
        }
        let (field, next) = parse_field(after)?;
        let text = markup(&field, fields, depth, budget)?;
        if out.len().saturating_add(text.len()) > MAX_RENDERED {
            return Err(error("MemoryError", ""));
        }
        out.push_str(&text);
        rest = next;
    }
    out.push_str(rest);
    Ok(out)
}

/// One `{name!conversion:spec}`, split as `parse_field` splits it.
struct Markup<'t> {
    name: &'t str,
    conversion: Option<char>,
    spec: &'t str,
    spec_has_fields: bool,
}

/// `parse_field`: the field after its `{`, and the text after its `}`.
fn parse_field(text: &str) -> Result<(Markup<'_>, &str), PyException> {
    let mut chars = text.char_indices();
    let mut end_of_name = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => return Err(error("ValueError", "unexpected '{' in field name")),
            // A key in brackets may hold `:`, `!` and `}`.
            '[' => {
                for (_, c) in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
            }
            '}' | ':' | '!' => {
                end_of_name = Some((i, c));
                break;
            }
            _ => {}
        }
    }
    let Some((name_end, stop)) = end_of_name else {
        return Err(error("ValueError", "expected '}' before end of string"));
    };
    let name = &text[..name_end];
    let mut rest = &text[name_end + 1..];
    let mut markup = Markup {
        name,
        conversion: None,
        spec: "",
        spec_has_fields: false,
    };
    if stop == '}' {
        return Ok((markup, rest));
    }
    if stop == '!' {
        let mut chars = rest.chars();
        let Some(conversion) = chars.next() else {
            return Err(error(
                "ValueError",
                "end of string while looking for conversion specifier",
            ));
        };
        markup.conversion = Some(conversion);
        rest = chars.as_str();
        let mut chars = rest.chars();
        match chars.next() {
            Some('}') => return Ok((markup, chars.as_str())),
            Some(':') => rest = chars.as_str(),
            Some(_) => {
                return Err(error(
                    "ValueError",
                    "expected ':' after conversion specifier",
                ));
            }
            None => {}
        }
    }
    let mut count = 1usize;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => {
                markup.spec_has_fields = true;
                count += 1;
            }
            '}' => {
                count -= 1;
                if count == 0 {
                    markup.spec = &rest[..i];
                    return Ok((markup, &rest[i + 1..]));
                }
            }
            _ => {}
        }
    }
    Err(error("ValueError", "unmatched '{' in format spec"))
}

/// `output_markup`: look the field up, convert it, expand and apply its spec.
fn markup(
    markup: &Markup<'_>,
    fields: &[(&str, &Value)],
    depth: u8,
    budget: &mut PaddingBudget,
) -> Result<String, PyException> {
    let object = field_object(markup.name, fields)?;
    let object = match markup.conversion {
        None => object,
        Some('s') => PyObject::Value(Cow::Owned(Value::String(object.str()))),
        Some('r') => PyObject::Value(Cow::Owned(Value::String(object.repr()))),
        Some('a') => PyObject::Value(Cow::Owned(Value::String(ascii(&object.repr())))),
        Some(other) => {
            return Err(error(
                "ValueError",
                format!("Unknown conversion specifier {}", char_for_message(other)),
            ));
        }
    };
    let spec = if markup.spec_has_fields {
        Cow::Owned(build(markup.spec, fields, depth - 1, budget)?)
    } else {
        Cow::Borrowed(markup.spec)
    };
    render(&object, &spec, budget)
}

/// A character in an error text: itself when printable ASCII, else `\xNN`,
/// as CPython's `%c`-or-`\\x%x` choice.
pub(crate) fn char_for_message(c: char) -> String {
    if (c as u32) > 32 && (c as u32) < 127 {
        c.to_string()
    } else {
        format!("\\x{:x}", c as u32)
    }
}

/// `get_field_object`: the first name (keyword or positional index), then
/// each `.attr` and `[key]` in turn.
fn field_object<'v>(name: &str, fields: &[(&str, &'v Value)]) -> Result<PyObject<'v>, PyException> {
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let (first, mut rest) = name.split_at(first_end);
    let mut object = match decimal(first)? {
        // There are no positional arguments; `{}` asks for index 0.
        Some(index) => {
            return Err(error(
                "IndexError",
                format!("Replacement index {index} out of range for positional args tuple"),
            ));
        }
        None if first.is_empty() => {
            return Err(error(
                "IndexError",
                "Replacement index 0 out of range for positional args tuple",
            ));
        }
        None => match fields.iter().find(|(key, _)| *key == first) {
            Some((_, value)) => PyObject::Value(Cow::Borrowed(*value)),
            None => return Err(error("KeyError", repr(&Value::String(first.to_owned())))),
        },
    };
    while let Some(lead) = rest.chars().next() {
        let body = &rest[1..];
        let (part, next, is_attribute) = match lead {
            '.' => {
                let end = body.find(['.', '[']).unwrap_or(body.len());
                (&body[..end], &body[end..], true)
            }
            '[' => match body.find(']') {
                Some(end) => (&body[..end], &body[end + 1..], false),
                None => return Err(error("ValueError", "Missing ']' in format string")),
            },
            _ => {
                return Err(error(
                    "ValueError",
                    "Only '.' or '[' may follow ']' in format field specifier",
                ));
            }
        };
        let index = if is_attribute { None } else { decimal(part)? };
        if part.is_empty() {
            return Err(error("ValueError", "Empty attribute in format string"));
        }
        object = if is_attribute {
            attribute(object, part)?
        } else {
            item(object, part, index)?
        };
        rest = next;
    }
    Ok(object)
}

/// CPython's `get_integer` on a field name part: `None` when it is not all
/// ASCII digits (it is then a name or a string key), an error past
/// `isize::MAX`.
fn decimal(text: &str) -> Result<Option<usize>, PyException> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let mut value: usize = 0;
    for digit in text.bytes().map(|b| usize::from(b - b'0')) {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(digit))
            .filter(|v| *v <= isize::MAX as usize)
            .ok_or_else(|| error("ValueError", "Too many decimal digits in format string"))?;
    }
    Ok(Some(value))
}

/// `getattr(obj, name)`: `__class__` on anything, `__name__` and
/// `__qualname__` on a type. Other attributes are methods whose rendering
/// holds a memory address (`<built-in method upper of str object at 0x7f..>`)
/// or long docstrings, which no run can reproduce byte for byte.
fn attribute<'v>(object: PyObject<'v>, name: &str) -> Result<PyObject<'v>, PyException> {
    match (&object, name) {
        (_, "__class__") => Ok(PyObject::Type(object.type_name())),
        (PyObject::Type(type_name), "__name__" | "__qualname__") => Ok(PyObject::Value(
            Cow::Owned(Value::String((*type_name).to_owned())),
        )),
        _ => Err(PyException::unsupported(format!(
            "attribute `.{name}` of a `{}` in a confirmation template: the harness renders \
             `.__class__`, `.__class__.__name__` and `.__class__.__qualname__` only (other \
             attributes render as memory addresses in Python); use the field itself",
            object.type_name()
        ))),
    }
}

/// `obj[key]`: an integer index when `key` is all digits, else a string key.
fn item<'v>(
    object: PyObject<'v>,
    key: &str,
    index: Option<usize>,
) -> Result<PyObject<'v>, PyException> {
    let type_name = object.type_name();
    let value = match object {
        PyObject::Type(name) => {
            return Err(PyException::unsupported(format!(
                "subscripting the type `{name}` in a confirmation template (Python builds a \
                 generic alias or raises); index the field itself"
            )));
        }
        PyObject::Value(value) => value,
    };
    if let (Value::String(text), Some(i)) = (value.as_ref(), index) {
        let c = text
            .chars()
            .nth(i)
            .ok_or_else(|| error("IndexError", "string index out of range"))?;
        return Ok(PyObject::Value(Cow::Owned(Value::String(c.to_string()))));
    }
    child(value, |value| match (value, index) {
        (Value::String(_), _) => Err(error(
            "TypeError",
            "string indices must be integers, not 'str'",
        )),
        (Value::Array(items), Some(i)) => items
            .get(i)
            .ok_or_else(|| error("IndexError", "list index out of range")),
        (Value::Array(_), None) => Err(error(
            "TypeError",
            "list indices must be integers or slices, not str",
        )),
        // JSON keys are strings: an integer key is never found.
        (Value::Object(_), Some(i)) => Err(error("KeyError", i.to_string())),
        (Value::Object(map), None) => map
            .get(key)
            .ok_or_else(|| error("KeyError", repr(&Value::String(key.to_owned())))),
        _ => Err(error(
            "TypeError",
            format!("'{type_name}' object is not subscriptable"),
        )),
    })
    .map(PyObject::Value)
}

/// A part of a value, borrowed when the value is.
fn child<'v>(
    value: Cow<'v, Value>,
    pick: impl FnOnce(&Value) -> Result<&Value, PyException>,
) -> Result<Cow<'v, Value>, PyException> {
    match value {
        Cow::Borrowed(value) => pick(value).map(Cow::Borrowed),
        Cow::Owned(value) => pick(&value).map(|part| Cow::Owned(part.clone())),
    }
}

/// Python's `ascii()` on a `repr`: non-ASCII as `\x`, `\u` or `\U` escapes.
fn ascii(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        let code = ch as u32;
        let _ = match code {
            0..=0x7f => {
                out.push(ch);
                Ok(())
            }
            0x80..=0xff => write!(out, "\\x{code:02x}"),
            0x100..=0xffff => write!(out, "\\u{code:04x}"),
            _ => write!(out, "\\U{code:08x}"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyfmt::spec;
    use serde_json::json;

    fn render(template: &str) -> Result<String, String> {
        let params = json!({
            "q": "é", "n": 3, "m": -3, "f": 1.5, "z": -0.0, "l": [1, "a"],
            "d": {"x": null}, "t": true, "big": 12345678901234567890u64
        });
        let fields = [
            ("tool_name", &json!("search")),
            ("final_tool_params", &params),
            ("feedback", &json!("it's")),
        ];
        format(template, &fields).map_err(|e| e.to_string())
    }

    /// Every expected value was printed by CPython 3.11's `str.format` with
    /// the same fields (`Type: message` for an exception).
    #[test]
    fn templates_render_and_fail_as_cpython_does() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("'{tool_name}' {{x}}", Ok("'search' {x}")),
            ("{nope}", Err("KeyError: 'nope'")),
            ("{tool_name!r}", Ok("'search'")),
            ("{tool_name!r:>10}", Ok("  'search'")),
            ("{tool_name:^9}|", Ok(" search  |")),
            ("{tool_name:*<8}|", Ok("search**|")),
            ("{tool_name:.3}", Ok("sea")),
            ("{feedback!r}", Ok("\"it's\"")),
            ("{tool_name!s:>7}", Ok(" search")),
            ("{final_tool_params[q]!a}", Ok("'\\xe9'")),
            (
                "{final_tool_params!r}",
                Ok(
                    "{'q': 'é', 'n': 3, 'm': -3, 'f': 1.5, 'z': -0.0, 'l': [1, 'a'], 'd': {'x': None}, 't': True, 'big': 12345678901234567890}",
                ),
            ),
            (
                "{final_tool_params}",
                Ok(
                    "{'q': 'é', 'n': 3, 'm': -3, 'f': 1.5, 'z': -0.0, 'l': [1, 'a'], 'd': {'x': None}, 't': True, 'big': 12345678901234567890}",
                ),
            ),
            (
                "{}",
                Err("IndexError: Replacement index 0 out of range for positional args tuple"),
            ),
            (
                "a { b",
                Err("ValueError: expected '}' before end of string"),
            ),
            (
                "a {",
                Err("ValueError: Single '{' encountered in format string"),
            ),
            (
                "a }",
                Err("ValueError: Single '}' encountered in format string"),
            ),
            (
                "{tool_name!q}",
                Err("ValueError: Unknown conversion specifier q"),
            ),
            (
                "{tool_name:d}",
                Err("ValueError: Unknown format code 'd' for object of type 'str'"),
            ),
            (
                "{final_tool_params:>5}",
                Err("TypeError: unsupported format string passed to dict.__format__"),
            ),
            ("{tool_name[0]}", Ok("s")),
            (
                "{tool_name[-1]}",
                Err("TypeError: string indices must be integers, not 'str'"),
            ),
            (
                "{tool_name[9]}",
                Err("IndexError: string index out of range"),
            ),
            (
                "{tool_name[0:2]}",
                Err("TypeError: string indices must be integers, not 'str'"),
            ),
            ("{tool_name.__class__}", Ok("<class 'str'>")),
            ("{tool_name.__class__.__name__}", Ok("str")),
            ("{tool_name.__class__.__qualname__}", Ok("str")),
            ("{tool_name.__class__.__class__}", Ok("<class 'type'>")),
            (
                "{0}",
                Err("IndexError: Replacement index 0 out of range for positional args tuple"),
            ),
            (
                "{1}",
                Err("IndexError: Replacement index 1 out of range for positional args tuple"),
            ),
            (
                "{0[0]}",
                Err("IndexError: Replacement index 0 out of range for positional args tuple"),
            ),
            (
                "{00}",
                Err("IndexError: Replacement index 0 out of range for positional args tuple"),
            ),
            ("{tool_name[0][0]}", Ok("s")),
            ("{tool_name[00]}", Ok("s")),
            (
                "{tool_name[}",
                Err("ValueError: expected '}' before end of string"),
            ),
            (
                "{tool_name[0]x}",
                Err("ValueError: Only '.' or '[' may follow ']' in format field specifier"),
            ),
            (
                "{tool_name.}",
                Err("ValueError: Empty attribute in format string"),
            ),
            (
                "{tool_name[]}",
                Err("ValueError: Empty attribute in format string"),
            ),
            (
                "{tool_name{}",
                Err("ValueError: unexpected '{' in field name"),
            ),
            (
                "{tool_name[{]}",
                Err("TypeError: string indices must be integers, not 'str'"),
            ),
            (
                "{tool_name!}",
                Err("ValueError: unmatched '{' in format spec"),
            ),
            (
                "{tool_name!r",
                Err("ValueError: unmatched '{' in format spec"),
            ),
            (
                "{tool_name!r[0]}",
                Err("ValueError: expected ':' after conversion specifier"),
            ),
            ("{tool_name[0]!r}", Ok("'s'")),
            ("{ tool_name}", Err("KeyError: ' tool_name'")),
            ("{final_tool_params[q]}", Ok("é")),
            ("{final_tool_params[n]}", Ok("3")),
            ("{final_tool_params[f]}", Ok("1.5")),
            ("{final_tool_params[l]}", Ok("[1, 'a']")),
            ("{final_tool_params[l][1]}", Ok("a")),
            (
                "{final_tool_params[l][5]}",
                Err("IndexError: list index out of range"),
            ),
            (
                "{final_tool_params[l][a]}",
                Err("TypeError: list indices must be integers or slices, not str"),
            ),
            ("{final_tool_params[d]}", Ok("{'x': None}")),
            ("{final_tool_params[d][x]}", Ok("None")),
            ("{final_tool_params[t]}", Ok("True")),
            ("{final_tool_params[zz]}", Err("KeyError: 'zz'")),
            ("{final_tool_params[0]}", Err("KeyError: 0")),
            ("{final_tool_params.__class__}", Ok("<class 'dict'>")),
            ("{final_tool_params[n].__class__}", Ok("<class 'int'>")),
            (
                "{final_tool_params[d][x].__class__}",
                Ok("<class 'NoneType'>"),
            ),
            (
                "{final_tool_params[n][0]}",
                Err("TypeError: 'int' object is not subscriptable"),
            ),
            (
                "{final_tool_params[d][x][0]}",
                Err("TypeError: 'NoneType' object is not subscriptable"),
            ),
            ("{tool_name:>9223372036854775807}", Err("MemoryError")),
            (
                "{tool_name:>9223372036854775808}",
                Err("ValueError: Too many decimal digits in format string"),
            ),
            (
                "{tool_name:.9223372036854775808}",
                Err("ValueError: Too many decimal digits in format string"),
            ),
            ("{tool_name:.9223372036854775807}", Ok("search")),
            (
                "{tool_name:>18446744073709551615}",
                Err("ValueError: Too many decimal digits in format string"),
            ),
            (
                "{tool_name:99999999999999999999999}",
                Err("ValueError: Too many decimal digits in format string"),
            ),
            (
                "{tool_name[99999999999999999999]}",
                Err("ValueError: Too many decimal digits in format string"),
            ),
            (
                "{99999999999999999999}",
                Err("ValueError: Too many decimal digits in format string"),
            ),
            (
                "{final_tool_params[n]:>9223372036854775807}",
                Err("MemoryError"),
            ),
            ("{tool_name:{x}}", Err("KeyError: 'x'")),
            ("{tool_name:>{final_tool_params[n]}}", Ok("search")),
            (
                "{tool_name:{tool_name:{tool_name}}}",
                Err("ValueError: Max string recursion exceeded"),
            ),
            (
                "{tool_name:+}",
                Err("ValueError: Sign not allowed in string format specifier"),
            ),
            (
                "{tool_name: }",
                Err("ValueError: Space not allowed in string format specifier"),
            ),
            (
                "{tool_name:#}",
                Err("ValueError: Alternate form (#) not allowed in string format specifier"),
            ),
            (
                "{tool_name:,}",
                Err("ValueError: Cannot specify ',' with 's'."),
            ),
            (
                "{tool_name:_}",
                Err("ValueError: Cannot specify '_' with 's'."),
            ),
            (
                "{tool_name:,_}",
                Err("ValueError: Cannot specify both ',' and '_'."),
            ),
            (
                "{tool_name:_,}",
                Err("ValueError: Cannot specify both ',' and '_'."),
            ),
            (
                "{tool_name:.}",
                Err("ValueError: Format specifier missing precision"),
            ),
            (
                "{tool_name:z}",
                Err(
                    "ValueError: Negative zero coercion (z) not allowed in string format specifier",
                ),
            ),
            (
                "{tool_name:xs}",
                Err("ValueError: Invalid format specifier 'xs' for object of type 'str'"),
            ),
            (
                "{tool_name:é}",
                Err("ValueError: Unknown format code '\\xe9' for object of type 'str'"),
            ),
            (
                "{tool_name!é}",
                Err("ValueError: Unknown conversion specifier \\xe9"),
            ),
            ("{tool_name:010}", Ok("search0000")),
            (
                "{tool_name:=10}",
                Err("ValueError: '=' alignment not allowed in string format specifier"),
            ),
            ("{tool_name:>00005}", Ok("search")),
            (
                "{final_tool_params[n]:s}",
                Err("ValueError: Unknown format code 's' for object of type 'int'"),
            ),
            (
                "{final_tool_params[n]:.2}",
                Err("ValueError: Precision not allowed in integer format specifier"),
            ),
            (
                "{final_tool_params[n]:z}",
                Err(
                    "ValueError: Negative zero coercion (z) not allowed in integer format specifier",
                ),
            ),
            ("{final_tool_params[n]:>5}", Ok("    3")),
            ("{final_tool_params[f]:.2f}", Ok("1.50")),
            ("{final_tool_params[f]:e}", Ok("1.500000e+00")),
            ("{final_tool_params[f]:.2}", Ok("1.5")),
            ("{final_tool_params[f]:010,.3%}", Ok("0,150.000%")),
            ("{final_tool_params[z]:z.1f}", Ok("0.0")),
            ("{final_tool_params[n]:c}", Ok("\u{3}")),
            (
                "{final_tool_params[big]:010,}",
                Ok("12,345,678,901,234,567,890"),
            ),
            ("{final_tool_params[m]:=+6}", Ok("-    3")),
            ("{final_tool_params[m]:06}", Ok("-00003")),
            ("{final_tool_params[n]:+}", Ok("+3")),
            ("{final_tool_params[n]: }", Ok(" 3")),
            ("{final_tool_params[n]:*^7}", Ok("***3***")),
            ("{final_tool_params[n]:x}", Ok("3")),
            (
                "{final_tool_params[big]:>25}",
                Ok("     12345678901234567890"),
            ),
            (
                "{final_tool_params[big]:,}",
                Ok("12,345,678,901,234,567,890"),
            ),
            ("{final_tool_params[big]:_x}", Ok("ab54_a98c_eb1f_0ad2")),
            ("{final_tool_params[big]:#X}", Ok("0XAB54A98CEB1F0AD2")),
            (
                "{final_tool_params[n]:,x}",
                Err("ValueError: Cannot specify ',' with 'x'."),
            ),
            ("{final_tool_params[t]:>6}", Ok("     1")),
            ("{final_tool_params[t]:d}", Ok("1")),
            ("{final_tool_params[f]:>6}", Ok("   1.5")),
            ("{final_tool_params[f]:+}", Ok("+1.5")),
            ("{final_tool_params[f]:010}", Ok("00000001.5")),
            (
                "{final_tool_params[f]:d}",
                Err("ValueError: Unknown format code 'd' for object of type 'float'"),
            ),
            ("{final_tool_params[z]:>5}", Ok(" -0.0")),
            ("{final_tool_params[z]:z}", Ok("0.0")),
            (
                "{final_tool_params[d][x]:>6}",
                Err("TypeError: unsupported format string passed to NoneType.__format__"),
            ),
            (
                "{final_tool_params[l]:>6}",
                Err("TypeError: unsupported format string passed to list.__format__"),
            ),
            (
                "{tool_name.__class__:>6}",
                Err("TypeError: unsupported format string passed to type.__format__"),
            ),
            ("{final_tool_params.__class__.__name__:>5}", Ok(" dict")),
            ("{final_tool_params[n]!r:>3}", Ok("  3")),
            ("{feedback!a:>8}", Ok("  \"it's\"")),
        ];
        for (template, expected) in cases {
            let expected = expected.map(str::to_owned).map_err(str::to_owned);
            assert_eq!(render(template), expected, "{template}");
        }
    }

    #[test]
    fn a_rendering_past_its_length_budget_raises_memory_error() {
        // 30,000 fields of 100 KB each: 3 GB, with no padding at all.
        let long = Value::String("x".repeat(100_000));
        let template = "{feedback}".repeat(30_000);
        assert_eq!(
            format(&template, &[("feedback", &long)]).map(|t| t.len()),
            Err(PyException::new("MemoryError", ""))
        );
        let within = "{feedback}".repeat(100);
        assert_eq!(
            format(&within, &[("feedback", &long)]).map(|t| t.len()),
            Ok(10_000_000)
        );
    }

    #[test]
    fn a_width_past_the_padding_budget_raises_memory_error_without_allocating() {
        let width = format!("{{tool_name:>{}}}", spec::MAX_PADDING + 7);
        assert_eq!(render(&width), Err("MemoryError".to_owned()));
        let within = format!("{{tool_name:>{}}}", spec::MAX_PADDING);
        assert_eq!(
            render(&within).map(|text| text.len()),
            Ok(spec::MAX_PADDING)
        );
        // The budget is per template, not per field.
        let half = spec::MAX_PADDING / 2 + 10;
        let twice = format!("{{tool_name:>{half}}}{{tool_name:<{half}}}");
        assert_eq!(
            render(&twice).map(|text| text.len()),
            Err("MemoryError".to_owned())
        );
    }

    #[test]
    fn attributes_and_specs_without_a_reproducible_rendering_say_what_to_write() {
        for template in [
            "{tool_name.upper}",
            "{tool_name.__doc__}",
            "{tool_name.__class__[0]}",
        ] {
            let message = render(template).unwrap_err();
            assert!(
                message.starts_with("unsupported in the harness: ") && message.contains('`'),
                "{template}: {message}"
            );
        }
    }
}
