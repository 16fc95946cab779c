//! Jinja2's string filters over a value that is not a string.
//!
//! Jinja2's `upper`, `lower`, `title`, `capitalize`, `trim`, `striptags`
//! and `wordcount` print such a value first
//! (`soft_str`, Python's `str()`: `[1, 'A']` for `[1, 'a']|upper`).
//! minijinja's print it their own way, whole, before anything pays for it:
//! a list doubled 40 times around a 1 MB string was gigabytes. Here the
//! value is printed as Python prints it, within what the rendering has
//! left ([`show::python_str`]), and handed to the same filter.
//!
//! `replace` and `indent` are Jinja2's own here: `replace` prints its
//! value and arguments as `str()` and replaces as Python's `str.replace`;
//! `indent` adds a newline to its value (Python's `+=`, whose errors it
//! raises for a value that is not a string) and splits it at Python's line
//! boundaries. What they build is paid for before it is built.

use super::budget;
use super::generator;
use super::pystr::{self, type_error};
use super::pystr_builtin;
use super::render::haystack_error;
use super::show;
use super::signature::{Hints, Signature};
use super::textwrap::{FloatSlice, Wrapper};
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, State};

/// Jinja2's `do_indent(s, width=4, first=False, blank=False)`.
const INDENT: Signature = Signature {
    function: "do_indent",
    leading: 1,
    parameters: &["width", "first", "blank"],
    required: 0,
};

/// Jinja2's `do_truncate(env, s, length=255, killwords=False, end='...',
/// leeway=None)`.
const TRUNCATE: Signature = Signature {
    function: "do_truncate",
    leading: 2,
    parameters: &["length", "killwords", "end", "leeway"],
    required: 0,
};

/// Jinja2's `do_wordwrap(environment, s, width=79, break_long_words=True,
/// wrapstring=None, break_on_hyphens=True)`.
const WORDWRAP: Signature = Signature {
    function: "do_wordwrap",
    leading: 2,
    parameters: &[
        "width",
        "break_long_words",
        "wrapstring",
        "break_on_hyphens",
    ],
    required: 0,
};

/// Jinja2's `do_replace(eval_ctx, s, old, new, count=None)`.
const REPLACE: Signature = Signature {
    function: "do_replace",
    leading: 2,
    parameters: &["old", "new", "count"],
    required: 2,
};

/// Registers the filters of this module over minijinja's (and its
/// companion crate's) own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    use minijinja::filters;
    wrap(env, "upper", JinjaValue::from_function(filters::upper));
    wrap(env, "lower", JinjaValue::from_function(filters::lower));
    wrap(env, "title", JinjaValue::from_function(filters::title));
    wrap(
        env,
        "capitalize",
        JinjaValue::from_function(filters::capitalize),
    );
    wrap(env, "trim", JinjaValue::from_function(filters::trim));
    wrap(
        env,
        "striptags",
        JinjaValue::from_function(minijinja_contrib::filters::striptags),
    );
    wrap(
        env,
        "wordcount",
        JinjaValue::from_function(minijinja_contrib::filters::wordcount),
    );
    env.add_filter("indent", indent);
    env.add_filter("replace", replace);
    env.add_filter("truncate", truncate);
    env.add_filter("wordwrap", wordwrap);
}

/// Jinja2's `indent`: each line after the first (and the first too with
/// `first`) indented by `width` spaces, or by `width` when it is a
/// string; blank lines too with `blank`.
fn indent(
    state: &State,
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let hints = Hints::take(&kwargs)?;
    let mut bound = INDENT.bind(&positional, &kwargs)?.into_iter();
    let (width, first, blank) = (
        bound.next().flatten(),
        bound.next().flatten(),
        bound.next().flatten(),
    );
    // `" " * width` first (its TypeError, its MemoryError), then
    // `s += "\n"`.
    hints.check("width", width.as_ref())?;
    let indention = match width {
        None => "    ".to_owned(),
        Some(width) if width.kind() == ValueKind::String => {
            width.as_str().unwrap_or_default().to_owned()
        }
        Some(width) => spaces(state, &width)?,
    };
    hints.check("", Some(&value))?;
    let text = with_newline(&value)?;
    let lines = pystr_builtin::split_lines(&text, false);
    let most = text
        .len()
        .saturating_add((lines.len() + 1).saturating_mul(indention.len() + 1));
    budget::ensure_bytes(state, most)?;
    let blank = blank.is_some_and(|b| b.is_true());
    let mut out = String::new();
    if first.is_some_and(|f| f.is_true()) {
        out.push_str(&indention);
    }
    for (index, line) in lines.iter().enumerate() {
        if index > 0 {
            out.push('\n');
            if blank || !line.is_empty() {
                out.push_str(&indention);
            }
        }
        out.push_str(line);
    }
    Ok(text_like(&value, out))
}

/// Python's `" " * width`, paid for first.
pub(super) fn spaces(state: &State, width: &JinjaValue) -> Result<String, Error> {
    let integer =
        width.kind() == ValueKind::Bool || width.kind() == ValueKind::Number && width.is_integer();
    if !integer {
        return Err(type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            pystr::python_type(width)
        )));
    }
    let n = pystr::c_integer(width, false).map_err(|_| {
        haystack_error("OverflowError: cannot fit 'int' into an index-sized integer".to_owned())
    })?;
    let n = usize::try_from(n).unwrap_or(0);
    budget::ensure_bytes(state, n)?;
    Ok(" ".repeat(n))
}

/// Python's `s += "\n"` in `indent`: a string with a newline, or the
/// error Python raises for the value (a list grows by the newline and then
/// has no `splitlines`).
fn with_newline(value: &JinjaValue) -> Result<String, Error> {
    if value.kind() == ValueKind::String {
        return Ok(format!("{}\n", value.as_str().unwrap_or_default()));
    }
    if value.is_undefined() {
        return Err(haystack_error(
            "UndefinedError: the value indented is undefined".to_owned(),
        ));
    }
    let kind = match value.kind() {
        ValueKind::Bytes => "bytes",
        ValueKind::Iterable => generator::type_name(value).unwrap_or("generator"),
        _ => pystr::python_type(value),
    };
    Err(match kind {
        "list" => {
            haystack_error("AttributeError: 'list' object has no attribute 'splitlines'".to_owned())
        }
        "tuple" => type_error("can only concatenate tuple (not \"str\") to tuple".to_owned()),
        "bytes" => type_error("can't concat str to bytes".to_owned()),
        other => type_error(format!(
            "unsupported operand type(s) for +=: '{other}' and 'str'"
        )),
    })
}

/// Jinja2's `replace` (autoescape off, as Haystack renders): Python's
/// `str(s).replace(str(old), str(new), count)`.
fn replace(
    state: &State,
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let mut bound = REPLACE.bind(&positional, &kwargs)?.into_iter();
    let printed = |value: Option<JinjaValue>| -> Result<JinjaValue, Error> {
        let value = value.unwrap_or_default();
        Ok(JinjaValue::from(show::python_str(Some(state), &value)?))
    };
    let text = show::python_str(Some(state), &value)?;
    let old = printed(bound.next().flatten())?;
    let new = printed(bound.next().flatten())?;
    let count = bound
        .next()
        .flatten()
        .filter(|c| !c.is_none())
        .unwrap_or(JinjaValue::from(-1));
    pystr_builtin::replace(state, &text, &[old, new, count])
}

/// `name` as `filter` over its value printed as Python's `str()`.
fn wrap(env: &mut Environment<'static>, name: &'static str, filter: JinjaValue) {
    env.add_filter(
        name,
        move |state: &mut State,
              args: Rest<JinjaValue>,
              kwargs: Kwargs|
              -> Result<JinjaValue, Error> {
            let mut args = args.0;
            // The one keyword these filters take (`trim(chars=…)`) is
            // their second argument.
            let names: Vec<String> = kwargs.args().map(str::to_owned).collect();
            for name in names {
                args.push(kwargs.get::<JinjaValue>(&name)?);
            }
            if let Some(value) = args.first_mut() {
                if value.kind() != ValueKind::String && !value.is_undefined() {
                    *value = JinjaValue::from(show::python_str(Some(&*state), value)?);
                }
            }
            // `trim(chars)` is Python's `str.strip(chars)`.
            let chars = args.get(1).filter(|_| name == "trim");
            if chars.is_some_and(|c| c.kind() != ValueKind::String && !c.is_none()) {
                return Err(type_error("strip arg must be None or str".to_owned()));
            }
            filter.call(state, &args)
        },
    );
}

/// Jinja2's `truncate`: `s` whole when it is at most `length + leeway`
/// long, else cut to `length - len(end)` (at the last space before it,
/// unless `killwords`) and `end` added, with Python's errors for values it
/// cannot compare, measure, cut or add, in the order Python meets them.
fn truncate(
    state: &State,
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let hints = Hints::take(&kwargs)?;
    let mut bound = TRUNCATE.bind(&positional, &kwargs)?.into_iter();
    let length = bound.next().flatten().unwrap_or(JinjaValue::from(255));
    let killwords = bound.next().flatten().is_some_and(|k| k.is_true());
    let end = bound.next().flatten().unwrap_or(JinjaValue::from("..."));
    let leeway = bound
        .next()
        .flatten()
        .filter(|l| !l.is_none())
        .unwrap_or(JinjaValue::from(5));
    // `assert length >= len(end)`, `assert leeway >= 0`.
    hints.check("length", Some(&length))?;
    // `len(end)` of an undefined `end` is 0; it raises when added.
    let end_len = py_len(&end)?;
    let length_n = compared(&length, ">=")?;
    if length_n < end_len as f64 {
        return Err(haystack_error(format!(
            "AssertionError: expected length >= {end_len}, got {}",
            show::python_str(Some(state), &length)?
        )));
    }
    hints.check("leeway", Some(&leeway))?;
    if compared(&leeway, ">=")? < 0.0 {
        return Err(haystack_error(format!(
            "AssertionError: expected leeway >= 0, got {}",
            show::python_str(Some(state), &leeway)?
        )));
    }
    // `if len(s) <= length + leeway: return s`.
    let leeway_n = compared(&leeway, ">=")?;
    if py_len(&value)? as f64 <= length_n + leeway_n {
        return Ok(value);
    }
    hints.check("end", Some(&end))?;
    let stop = length_n - end_len as f64;
    if length.kind() != ValueKind::Number && length.kind() != ValueKind::Bool
        || !length.is_integer() && length.kind() == ValueKind::Number
    {
        return Err(type_error(
            "slice indices must be integers or None or have an __index__ method".to_owned(),
        ));
    }
    let Some(text) = value.as_str().filter(|_| value.kind() == ValueKind::String) else {
        let kind = pystr::python_type(&value);
        return Err(if killwords {
            type_error(format!(
                "can only concatenate {kind} (not \"{}\") to {kind}",
                pystr::python_type(&end)
            ))
        } else {
            haystack_error(format!(
                "AttributeError: '{kind}' object has no attribute 'rsplit'"
            ))
        });
    };
    let Some(end_text) = end.as_str().filter(|_| end.kind() == ValueKind::String) else {
        return Err(type_error(format!(
            "can only concatenate str (not \"{}\") to str",
            pystr::python_type(&end)
        )));
    };
    let chars = text.chars().count() as i64;
    let stop = stop as i64;
    let stop = if stop < 0 {
        (chars + stop).max(0)
    } else {
        stop.min(chars)
    };
    let cut: String = text.chars().take(stop as usize).collect();
    let kept = if killwords {
        cut.as_str()
    } else {
        cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head)
    };
    let out = format!("{kept}{end_text}");
    Ok(text_like(&value, out))
}

/// `out` as a string, markup when `value` is (Python's `Markup` methods
/// return `Markup`).
fn text_like(value: &JinjaValue, out: String) -> JinjaValue {
    if value.is_safe() {
        JinjaValue::from_safe_string(out)
    } else {
        JinjaValue::from(out)
    }
}

/// Python's `len(value)`: `TypeError` for a value without a length (an
/// undefined one is 0, as Jinja2's `Undefined` says).
fn py_len(value: &JinjaValue) -> Result<usize, Error> {
    if value.is_undefined() {
        return Ok(0);
    }
    match value.kind() {
        ValueKind::String => Ok(value.as_str().unwrap_or_default().chars().count()),
        ValueKind::Seq | ValueKind::Map | ValueKind::Bytes => {
            value.len().ok_or_else(|| no_len(value))
        }
        _ => Err(no_len(value)),
    }
}

fn no_len(value: &JinjaValue) -> Error {
    type_error(format!(
        "object of type '{}' has no len()",
        pystr::python_type(value)
    ))
}

/// A number Python compares with an int by `operator`, or its `TypeError`.
fn compared(value: &JinjaValue, operator: &str) -> Result<f64, Error> {
    match value.kind() {
        ValueKind::Bool => Ok(if value.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(value.clone())
            .map_err(|e| Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())),
        _ => Err(type_error(format!(
            "'{operator}' not supported between instances of '{}' and 'int'",
            pystr::python_type(value)
        ))),
    }
}

/// Jinja2's `wordwrap`: each of the value's lines wrapped at `width` as
/// Python's `textwrap` wraps, joined by `wrapstring` (a newline by
/// default), with Python's errors for a value that is not a string or a
/// width that is not a number, in the order Python meets them. Each break
/// writes `wrapstring`: the most it can build (a break after every
/// character) is paid for first.
fn wordwrap(
    state: &State,
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let hints = Hints::take(&kwargs)?;
    let mut bound = WORDWRAP.bind(&positional, &kwargs)?.into_iter();
    let (width, break_long_words, wrapstring, break_on_hyphens) = (
        bound.next().flatten(),
        bound.next().flatten(),
        bound.next().flatten(),
        bound.next().flatten(),
    );
    // `wrapstring.join(...)`, then `s.splitlines()`, then each line's
    // `textwrap.wrap(line, width=width, ...)`.
    let wrapstring = wrapstring.filter(|w| !w.is_none());
    hints.check("wrapstring", wrapstring.as_ref())?;
    if let Some(w) = wrapstring
        .as_ref()
        .filter(|w| w.kind() != ValueKind::String)
    {
        return Err(no_attribute(w, "join"));
    }
    if value.kind() != ValueKind::String {
        return Err(no_attribute(&value, "splitlines"));
    }
    let text = value.as_str().unwrap_or_default();
    if pystr_builtin::split_lines(text, false).is_empty() {
        return Ok(JinjaValue::from(""));
    }
    hints.check("width", width.as_ref())?;
    let (width, float_width) = match width {
        None => (79.0, false),
        Some(width) => {
            let n = compared(&width, "<=")?;
            if n <= 0.0 {
                return Err(haystack_error(format!(
                    "ValueError: invalid width {} (must be > 0)",
                    show::python_str(Some(state), &width)?
                )));
            }
            (n, width.kind() == ValueKind::Number && !width.is_integer())
        }
    };
    let joiner = wrapstring.as_ref().and_then(|w| w.as_str()).unwrap_or("\n");
    // What it builds, a break after every character at most, and the
    // characters of the line it cuts (4 bytes each).
    let chars = text.chars().count();
    budget::ensure_bytes(
        state,
        text.len()
            .saturating_add(chars.saturating_mul(joiner.len()))
            .saturating_add(chars.saturating_mul(4)),
    )?;
    let break_on_hyphens = break_on_hyphens.unwrap_or(JinjaValue::from(true));
    let wrapper = Wrapper {
        width,
        float_width,
        break_long_words: break_long_words.as_ref().is_none_or(JinjaValue::is_true),
        hyphen_chunks: break_on_hyphens.kind() == ValueKind::Bool && break_on_hyphens.is_true(),
        hyphen_cuts: break_on_hyphens.is_true(),
    };
    let mut out = String::new();
    for (at, line) in pystr_builtin::split_lines(text, false)
        .into_iter()
        .enumerate()
    {
        if at > 0 {
            out.push_str(joiner);
        }
        let lines = wrapper.wrap(line).map_err(|FloatSlice| {
            type_error(
                "slice indices must be integers or None or have an __index__ method".to_owned(),
            )
        })?;
        for (at, line) in lines.iter().enumerate() {
            if at > 0 {
                out.push_str(joiner);
            }
            out.push_str(line);
        }
    }
    Ok(JinjaValue::from(out))
}

/// Python's `AttributeError` for a value's missing method.
fn no_attribute(value: &JinjaValue, method: &str) -> Error {
    let kind = match value.kind() {
        ValueKind::Undefined => "Undefined",
        _ => pystr::python_type(value),
    };
    haystack_error(format!(
        "AttributeError: '{kind}' object has no attribute '{method}'"
    ))
}
