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
use super::pystr::{self, type_error};
use super::pystr_builtin;
use super::render::haystack_error;
use super::show;
use super::signature::Signature;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, State};

/// Jinja2's `do_indent(s, width=4, first=False, blank=False)`.
const INDENT: Signature = Signature {
    function: "do_indent",
    leading: 1,
    parameters: &["width", "first", "blank"],
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
    let mut bound = INDENT.bind(&positional, &kwargs)?.into_iter();
    let (width, first, blank) = (
        bound.next().flatten(),
        bound.next().flatten(),
        bound.next().flatten(),
    );
    let indention = match width {
        None => "    ".to_owned(),
        Some(width) if width.kind() == ValueKind::String => {
            width.as_str().unwrap_or_default().to_owned()
        }
        Some(width) => spaces(state, &width)?,
    };
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
    Ok(if value.is_safe() {
        JinjaValue::from_safe_string(out)
    } else {
        JinjaValue::from(out)
    })
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
        ValueKind::Iterable => "generator",
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
            filter.call(state, &args)
        },
    );
}
