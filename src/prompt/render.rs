//! The Jinja2 environment of a prompt, as Haystack's `ChatPromptBuilder`
//! sets it up: values printed as Python's `str()`, the sentinel of content
//! parts escaped (`_finalize`), the message filter building one message per
//! block as `ChatMessageExtension._build_chat_message_json` does, and limits
//! so that a hostile template fails instead of hanging or exhausting memory.

use super::PromptError;
use super::arith;
use super::batch_filters;
use super::bound_method;
use super::budget::{self, FUEL};
use super::compare;
use super::container_methods;
use super::dict_view;
use super::for_loops::ITERABLE_FILTER;
use super::generator;
use super::getitem;
use super::groupby;
use super::iterating_filters;
use super::jinja2;
use super::list_filters;
use super::markup;
use super::message_tag::{MESSAGE_FILTER, is_py_space};
use super::named_tests;
use super::namespace;
use super::number_filters;
use super::py_dict;
use super::py_macro;
use super::py_range;
use super::pybytes;
use super::pypercent;
use super::pystr;
use super::python_math;
use super::select_filters;
use super::show;
use super::signature::Signature;
use super::text_filters;
use super::value_filters;
use crate::message::ChatMessage;
use crate::pyfmt;
use indexmap::IndexMap;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, ErrorKind};
use serde_json::{Map, Value};

/// Nesting depth of macros, includes and blocks.
pub(super) const RECURSION_LIMIT: usize = 100;
/// The one template of an environment.
pub(super) const TEMPLATE: &str = "prompt";

/// A Haystack error raised inside the template (its text is the error).
#[derive(Debug)]
pub(super) struct HaystackError(pub(super) String);

impl std::fmt::Display for HaystackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HaystackError {}

/// An environment holding `source` (already rewritten) as its template.
pub(super) fn environment(source: String) -> Result<Environment<'static>, Error> {
    let mut env = Environment::new();
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(RECURSION_LIMIT);
    env.set_formatter(|out, state, value| {
        if value.is_undefined() {
            return Ok(());
        }
        let text = show::python_str(Some(state), value)?;
        out.write_str(&escape_sentinel(&text))
            .map_err(|e| Error::new(ErrorKind::WriteFailure, e.to_string()))
    });
    // Jinja2's filters and Python's methods on strings, lists and dicts
    // (`d.items()`, `s.upper()`), which Haystack's templates use.
    minijinja_contrib::add_to_environment(&mut env);
    // minijinja's `debug()` prints the whole environment; Jinja2 has no
    // such global, so a call of it is a call of an undefined name.
    env.remove_global("debug");
    env.set_unknown_method_callback(call_method);
    text_filters::add_to(&mut env);
    number_filters::add_to(&mut env);
    list_filters::add_to(&mut env);
    iterating_filters::add_to(&mut env);
    batch_filters::add_to(&mut env);
    select_filters::add_to(&mut env);
    env.add_function("range", py_range::range);
    env.add_function("dict", py_dict::dict);
    env.add_function("namespace", py_dict::namespace);
    env.add_function(namespace::NSREF_FUNCTION, |targets: Rest<JinjaValue>| {
        namespace::check_targets(&targets).map(|()| JinjaValue::from(false))
    });
    env.add_filter(
        namespace::NSREF_FUNCTION,
        |value: JinjaValue, targets: Rest<JinjaValue>| {
            namespace::check_targets(&targets).map(|()| value)
        },
    );
    py_macro::add_to(&mut env);
    groupby::add_to(&mut env);
    value_filters::add_to(&mut env);
    env.add_filter("tojson", tojson);
    env.add_filter("center", center);
    // Jinja2's `string` is Python's `str()`; `join` and `pprint` print the
    // items of a value: each walks it within the budget first.
    env.add_filter("string", |state: &minijinja::State, value: &JinjaValue| {
        show::python_str(Some(state), value)
    });
    env.add_filter("join", join);
    // MarkupSafe's entities, and the filters minijinja does not have.
    env.add_filter("escape", markup::escape);
    env.add_filter("e", markup::escape);
    env.add_filter("forceescape", markup::forceescape);
    env.add_filter("xmlattr", markup::xmlattr);
    env.add_filter("urlencode", markup::urlencode);
    // Jinja2's `list` makes a list of a `bytes` value's integers, and
    // refuses what Python does not iterate.
    env.add_filter("list", |state: &minijinja::State, value: JinjaValue| {
        if let Some(error) = iterating_filters::not_iterable(&value) {
            return Err(error);
        }
        match value
            .as_bytes()
            .filter(|_| value.kind() == ValueKind::Bytes)
        {
            Some(bytes) => Ok(bytes.iter().map(|b| JinjaValue::from(*b)).collect()),
            None => minijinja::filters::list(state, value),
        }
    });
    // MarkupSafe's `Markup(value)`: Python's `str()` of it, within the
    // budget (minijinja's prints it whole first).
    env.add_filter("safe", |state: &minijinja::State, value: &JinjaValue| {
        show::python_str(Some(state), value).map(JinjaValue::from_safe_string)
    });
    env.add_filter("pprint", |state: &minijinja::State, value: &JinjaValue| {
        show::pformat(state, value)
    });
    env.add_filter("format", format_filter);
    env.add_function(jinja2::MOD_FUNCTION, py_mod);
    env.add_function(jinja2::KEY_FUNCTION, py_key);
    env.add_function(jinja2::POS_FUNCTION, py_pos);
    env.add_function(jinja2::NEG_FUNCTION, python_math::negate);
    for (name, op) in [
        (jinja2::SUB_FUNCTION, "-"),
        (jinja2::DIV_FUNCTION, "/"),
        (jinja2::FLOORDIV_FUNCTION, "//"),
        (jinja2::POW_FUNCTION, "**"),
    ] {
        env.add_function(
            name,
            move |state: &minijinja::State, left_hint, right_hint, left, right| {
                python_math::binary(state, op, [left_hint, right_hint], left, right)
            },
        );
    }
    env.add_function(
        jinja2::DEFINED_FUNCTION,
        |hint: String, value: JinjaValue| {
            if value.is_undefined() {
                return Err(haystack_error(format!("UndefinedError: {hint}")));
            }
            Ok(true)
        },
    );
    env.add_function(jinja2::ATTR_FUNCTION, py_attr);
    env.add_function(jinja2::METHOD_FUNCTION, bound_method::attribute_or_method);
    env.add_function(jinja2::ITEM_FUNCTION, py_item);
    env.add_function(jinja2::GETITEM_FUNCTION, py_getitem);
    env.add_function(jinja2::SLICE_FUNCTION, getitem::slice);
    env.add_function(jinja2::CONCAT_FUNCTION, arith::concat);
    env.add_function(jinja2::COMPARE_FUNCTION, compare::compare_chain);
    env.add_function(jinja2::NAMED_FUNCTION, compare::named);
    env.add_function(jinja2::NAMED_ATTR_FUNCTION, named_attr);
    env.add_function(jinja2::NAMED_ITEM_FUNCTION, named_item);
    env.add_function(jinja2::IN_FUNCTION, compare::contains);
    env.add_function(jinja2::KEEP_FUNCTION, compare::keep);
    env.add_function(jinja2::TAKE_FUNCTION, compare::take);
    named_tests::add_to(&mut env);
    env.add_function(
        jinja2::ADD_FUNCTION,
        |state: &minijinja::State, left_hint, right_hint, left, right| {
            arith::add(state, [left_hint, right_hint], left, right)
        },
    );
    env.add_function(
        jinja2::MUL_FUNCTION,
        |state: &minijinja::State, left_hint, right_hint, left, right| {
            arith::mul(state, [left_hint, right_hint], left, right)
        },
    );
    env.add_function(jinja2::LOAD_FUNCTION, py_load);
    env.add_function(jinja2::GENERATOR_BODY_FUNCTION, || -> Result<(), Error> {
        Err(haystack_error(
            "AttributeError: 'generator' object has no attribute 'strip'".to_owned(),
        ))
    });
    env.add_filter(MESSAGE_FILTER, message_filter);
    env.add_filter(ITERABLE_FILTER, iterable);
    // Haystack's environment has no loader: `extends`, `include` and
    // `import` are calls of `py_load` (which fail as Jinja2 fails), and
    // no template can load another, this one included.
    env.set_loader(|_| Err::<Option<String>, _>(no_loader()));
    env.add_template_owned(TEMPLATE, source)?;
    Ok(env)
}

/// A method minijinja does not have: Python's `str` methods and
/// `str.format` within the budget, `bytes` methods, then minijinja's
/// Python compatibility.
pub(super) fn call_method(
    state: &mut minijinja::State,
    value: &JinjaValue,
    method: &str,
    args: &[JinjaValue],
) -> Result<JinjaValue, Error> {
    // Python's `str.format` pads to any width: its output is paid for
    // before it is built.
    if let (Some(template), "format", ValueKind::String) = (value.as_str(), method, value.kind()) {
        // minijinja prints a list or dict argument without a budget.
        for arg in args.iter().filter(|a| !a.is_kwargs()) {
            show::ensure_json_fits(state, arg)?;
        }
        let precisions = pystr::check_str_format(state, template, args)?;
        let bound = budget::str_format_bound(template, args)
            .saturating_add(usize::try_from(precisions.bytes).unwrap_or(usize::MAX));
        budget::ensure_bytes(state, bound)?;
        if let Some(error) = precisions.beyond_formatter {
            return Err(error);
        }
        if let Some(rewritten) = precisions.template {
            return minijinja_contrib::pycompat::unknown_method_callback(
                state,
                &JinjaValue::from(rewritten),
                method,
                args,
            );
        }
    }
    if let Some(text) = value.as_str().filter(|_| value.kind() == ValueKind::String) {
        if method == "format_map" {
            return format_map(state, value, args);
        }
        if let Some(result) = pystr::string_method(&*state, text, method, args) {
            return result;
        }
    }
    if let Some(bytes) = value
        .as_bytes()
        .filter(|_| value.kind() == ValueKind::Bytes)
    {
        if let Some(result) = pybytes::bytes_method(&*state, bytes, method, args) {
            return result;
        }
    }
    if let Some(view) = dict_view::call(value, method, args) {
        return view;
    }
    if let Some(result) = container_methods::call(state, value, method, args) {
        return result;
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
        .map_err(|error| no_attribute(value, method).unwrap_or(error))
}

/// Jinja2's error for calling what a value does not have (`x.title()` of
/// a dict): `getattr` gives an `Undefined`, which raises when called. `None`
/// when Python's type has the attribute (the method is one minijinja
/// lacks), the value is undefined (Jinja2 names the variable, which the
/// value does not know), or a dict holds the name as a key.
fn no_attribute(value: &JinjaValue, method: &str) -> Option<Error> {
    const INT: &[&str] = &[
        "as_integer_ratio",
        "bit_count",
        "bit_length",
        "conjugate",
        "denominator",
        "from_bytes",
        "imag",
        "numerator",
        "real",
        "to_bytes",
    ];
    const FLOAT: &[&str] = &[
        "as_integer_ratio",
        "conjugate",
        "fromhex",
        "hex",
        "imag",
        "is_integer",
        "real",
    ];
    let python = pystr::python_type(value);
    let has = match python {
        "list" => bound_method::LIST_METHODS.contains(&method),
        "tuple" => matches!(method, "count" | "index"),
        "dict" => {
            bound_method::DICT_METHODS.contains(&method)
                || value.get_attr(method).is_ok_and(|v| !v.is_undefined())
        }
        "int" | "bool" => INT.contains(&method),
        "float" => FLOAT.contains(&method),
        "str" | "NoneType" => false,
        _ => true,
    };
    if has || method.starts_with('_') {
        return None;
    }
    let owner = pystr::object_type_repr(value);
    Some(haystack_error(format!(
        "UndefinedError: '{owner}' has no attribute '{method}'"
    )))
}

/// `str.format_map(mapping)` as Jinja2's sandbox calls it: one mapping,
/// whose entries are the fields' names (`string.Formatter` indexes an
/// empty tuple for a numbered field).
fn format_map(
    state: &mut minijinja::State,
    value: &JinjaValue,
    args: &[JinjaValue],
) -> Result<JinjaValue, Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, true),
        _ => (args, false),
    };
    if kwargs {
        return Err(haystack_error(
            "TypeError: format_map() takes no keyword arguments".to_owned(),
        ));
    }
    let [mapping] = positional else {
        return Err(haystack_error(format!(
            "TypeError: format_map() takes exactly one argument ({} given)",
            positional.len()
        )));
    };
    let entries: Vec<(String, JinjaValue)> = if mapping.kind() == ValueKind::Map {
        mapping
            .try_iter()?
            .filter_map(|key| {
                let name = key.as_str().filter(|_| key.kind() == ValueKind::String)?;
                Some((name.to_owned(), mapping.get_item(&key).unwrap_or_default()))
            })
            .collect()
    } else {
        Vec::new()
    };
    if mapping.kind() != ValueKind::Map {
        // `mapping[name]` for the first named field.
        if let Some(error) = pystr::first_named_field(value.as_str().unwrap_or_default())
            .map(|_| pystr::not_subscriptable_by_str(mapping))
        {
            return Err(error);
        }
    }
    call_method(
        state,
        value,
        "format",
        &[JinjaValue::from(Kwargs::from_iter(entries))],
    )
}

/// Jinja2's `%`: Python's string formatting when the left side is a
/// string, else the remainder (minijinja's own `%`).
/// `hints` are Jinja2's texts for an operand that is undefined (`'x' is
/// undefined`), when the operand is a name: `Undefined.__mod__` (or
/// `__rmod__`) raises it.
pub(super) fn py_mod(
    state: &mut minijinja::State,
    left_hint: Option<String>,
    right_hint: Option<String>,
    left: JinjaValue,
    right: JinjaValue,
) -> Result<JinjaValue, Error> {
    let hints = [left_hint, right_hint];
    if let Some(text) = left.as_str().filter(|_| left.kind() == ValueKind::String) {
        return pypercent::percent_format(state, text, &right);
    }
    for (index, operand) in [&left, &right].into_iter().enumerate() {
        if operand.is_undefined() {
            if let Some(Some(hint)) = hints.get(index) {
                return Err(haystack_error(format!("UndefinedError: {hint}")));
            }
        }
    }
    // Two integers: Python's remainder takes the divisor's sign, as
    // minijinja's does; anything else (a float, zero) goes to minijinja's
    // own `%`.
    if let (Some(a), Some(b)) = (integer(&left), integer(&right)) {
        if let Some(r) = a.checked_rem(b) {
            let r = if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            };
            return Ok(JinjaValue::from(r));
        }
    }
    let number = |v: &JinjaValue| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    let undefined = left.is_undefined() || right.is_undefined();
    let numbers = number(&left) && number(&right);
    if !undefined && !numbers {
        return Err(haystack_error(format!(
            "TypeError: unsupported operand type(s) for %: '{}' and '{}'",
            pystr::python_type(&left),
            pystr::python_type(&right)
        )));
    }
    let zero = integer(&right) == Some(0) || f64::try_from(right.clone()).is_ok_and(|r| r == 0.0);
    if number(&left) && number(&right) && zero {
        let kind = if integer(&left).is_some() && integer(&right).is_some() {
            "integer modulo by zero"
        } else {
            "float modulo"
        };
        return Err(haystack_error(format!("ZeroDivisionError: {kind}")));
    }
    let remainder = state.env().compile_expression("left % right")?;
    remainder.eval(minijinja::context! { left, right })
}

/// `object.name` where Jinja2's `Undefined` raises (an operand, see
/// [`jinja2::ATTR_FUNCTION`]) or where it may be a Python method (`order.items`
/// not called, [`bound_method`]): the method, which Jinja2's sandbox reads
/// before a key; its `UndefinedError` when a value of a Python built-in
/// type lacks the attribute; minijinja's lookup otherwise.
fn py_attr(object: JinjaValue, name: String) -> Result<JinjaValue, Error> {
    attr_or_missing(&object, &name)?
        .map_err(|message| haystack_error(format!("UndefinedError: {message}")))
}

/// `object.name` as [`py_attr`] reads it, or Jinja2's message for the
/// attribute it lacks.
fn attr_or_missing(object: &JinjaValue, name: &str) -> Result<Result<JinjaValue, String>, Error> {
    if let Some(method) = bound_method::attribute(object, name) {
        return Ok(Ok(method));
    }
    let value = object.get_attr(name)?;
    if !value.is_undefined() || object.is_undefined() {
        return Ok(Ok(value));
    }
    if is_loop(object) {
        // Jinja2's `LoopContext`: its `Undefined` hints at the ends.
        return Ok(Err(match name {
            "previtem" => "there is no previous item".to_owned(),
            "nextitem" => "there is no next item".to_owned(),
            _ => format!(
                "'{}' has no attribute '{name}'",
                pystr::object_type_repr(object)
            ),
        }));
    }
    if matches!(pystr::python_type(object), "object" | "Undefined") {
        return Ok(Ok(value));
    }
    let owner = pystr::object_type_repr(object);
    Ok(Err(format!("'{owner}' has no attribute '{name}'")))
}

/// `object.name` compared by an ordering ([`jinja2::NAMED_ATTR_FUNCTION`]):
/// its value, or the undefined value the comparison raises Jinja2's
/// message for.
fn named_attr(object: JinjaValue, name: String) -> Result<JinjaValue, Error> {
    Ok(attr_or_missing(&object, &name)?
        .unwrap_or_else(|message| compare::named(message, JinjaValue::UNDEFINED)))
}

/// `object[key]` compared by an ordering ([`jinja2::NAMED_ITEM_FUNCTION`]),
/// as [`named_attr`].
fn named_item(object: JinjaValue, key: JinjaValue) -> JinjaValue {
    item_or_missing(&object, &key)
        .unwrap_or_else(|message| compare::named(message, JinjaValue::UNDEFINED))
}

/// Whether `value` is a macro: the template's ([`py_macro`]), or a call
/// block's `caller` (minijinja's object, which reads as a map of its
/// `name`, `arguments` and `caller`, the last a boolean).
pub(super) fn is_macro(value: &JinjaValue) -> bool {
    if py_macro::is_macro(value) {
        return true;
    }
    value.kind() == ValueKind::Map
        && !pystr::is_dict(value)
        && !namespace::is_namespace(value)
        && value.try_iter().is_ok_and(|keys| {
            keys.map(|key| key.to_string())
                .eq(["name", "arguments", "caller"].map(str::to_owned))
        })
        && value
            .get_attr("caller")
            .is_ok_and(|c| c.kind() == ValueKind::Bool)
}

/// Whether `value` is a `{% for %}` loop's `loop` (minijinja's object,
/// which reads as a map of its attributes).
pub(super) fn is_loop(value: &JinjaValue) -> bool {
    value.kind() == ValueKind::Map
        && value.as_object().is_some()
        && !namespace::is_namespace(value)
        && ["index0", "revindex0", "depth0"]
            .iter()
            .all(|name| value.get_attr(name).is_ok_and(|v| !v.is_undefined()))
}

/// `object[key]` where Jinja2's `Undefined` raises (see
/// [`jinja2::ITEM_FUNCTION`]): its `UndefinedError` when a value of a
/// Python built-in type lacks the item (`'dict object' has no attribute
/// 'y'` for a string key, `list object has no element 5` for another);
/// minijinja's lookup otherwise.
fn py_item(object: JinjaValue, key: JinjaValue) -> Result<JinjaValue, Error> {
    item_or_missing(&object, &key)
        .map_err(|message| haystack_error(format!("UndefinedError: {message}")))
}

/// `object[key]` for a subscript that is no literal
/// ([`jinja2::GETITEM_FUNCTION`]): Jinja2's `getitem`; minijinja's
/// `UndefinedError` when `object` is undefined, as its own item raises.
fn py_getitem(object: JinjaValue, key: JinjaValue) -> Result<JinjaValue, Error> {
    if object.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    Ok(getitem::item(&object, &key))
}

/// `object[key]` as [`py_item`] reads it, or Jinja2's message for the item
/// it lacks.
fn item_or_missing(object: &JinjaValue, key: &JinjaValue) -> Result<JinjaValue, String> {
    let value = getitem::item(object, key);
    if !value.is_undefined()
        || object.is_undefined()
        || matches!(pystr::python_type(object), "object" | "Undefined")
    {
        return Ok(value);
    }
    Err(getitem::missing(object, key))
}

/// An integer operand of `%` (a boolean counts as 0 or 1, as in Python).
fn integer(value: &JinjaValue) -> Option<i128> {
    match value.kind() {
        ValueKind::Bool => Some(i128::from(value.is_true())),
        ValueKind::Number if value.is_integer() => i128::try_from(value.clone()).ok(),
        _ => None,
    }
}

/// A dict literal's key, as Python hashes it: a list or dict (or a tuple
/// holding one) is `TypeError: unhashable type`.
fn py_key(key: JinjaValue) -> Result<JinjaValue, Error> {
    fn unhashable(value: &JinjaValue) -> Option<&'static str> {
        match value.kind() {
            ValueKind::Map => Some("dict"),
            ValueKind::Seq if groupby::is_tuple(value) => value
                .try_iter()
                .ok()
                .and_then(|mut items| items.find_map(|item| unhashable(&item))),
            ValueKind::Seq | ValueKind::Iterable => Some("list"),
            _ => None,
        }
    }
    match unhashable(&key) {
        Some(kind) => Err(haystack_error(format!(
            "TypeError: unhashable type: '{kind}'"
        ))),
        None => Ok(key),
    }
}

/// Jinja2's error for a template loaded without a loader.
fn no_loader() -> Error {
    haystack_error("TypeError: no loader for this environment specified".to_owned())
}

/// What a tag loading a template raises in Haystack's environment, which
/// has no loader: `extends`, `import` and `from` call `get_template`
/// (`TypeError`); `include` calls it for a name, else `select_template`,
/// which refuses an empty list (`TemplatesNotFound`, which `ignore missing`
/// ignores) and what is not iterable before it would load the first name.
fn py_load(name: JinjaValue, include: bool, ignore_missing: bool) -> Result<JinjaValue, Error> {
    if !include || matches!(name.kind(), ValueKind::String | ValueKind::Undefined) {
        return Err(no_loader());
    }
    if !name.is_true() {
        if ignore_missing {
            return Ok(JinjaValue::from(""));
        }
        return Err(haystack_error(
            "TemplatesNotFound: Tried to select from an empty list of templates.".to_owned(),
        ));
    }
    match name.kind() {
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable | ValueKind::Bytes => {
            Err(no_loader())
        }
        _ => Err(haystack_error(format!(
            "TypeError: '{}' object is not iterable",
            pystr::python_type(&name)
        ))),
    }
}

/// Jinja2's unary `+`: a number as it is (`True` as `1`), Python's
/// `TypeError` for anything else.
fn py_pos(value: JinjaValue) -> Result<JinjaValue, Error> {
    match value.kind() {
        ValueKind::Number => Ok(value),
        ValueKind::Bool => Ok(JinjaValue::from(i64::from(value.is_true()))),
        _ => Err(haystack_error(format!(
            "TypeError: bad operand type for unary +: '{}'",
            pystr::python_type(&value)
        ))),
    }
}

/// Jinja2's `format` filter: `value % args`, or `value % kwargs`.
fn format_filter(
    state: &mut minijinja::State,
    value: &JinjaValue,
    args: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let names: Vec<String> = kwargs.args().map(str::to_owned).collect();
    if !args.is_empty() && !names.is_empty() {
        return Err(haystack_error(
            "FilterArgumentError: can't handle positional and keyword arguments at the same time"
                .to_owned(),
        ));
    }
    let text = show::python_str(Some(state), value)?;
    let args = if names.is_empty() {
        JinjaValue::from(minijinja::value::Tuple::from(args.to_vec()))
    } else {
        let map: IndexMap<JinjaValue, JinjaValue> = names
            .iter()
            .map(|name| {
                let v: JinjaValue = kwargs.get(name).unwrap_or_default();
                (JinjaValue::from(name.as_str()), v)
            })
            .collect();
        JinjaValue::from(map)
    };
    pypercent::percent_format(state, &text, &args)
}

/// Haystack's `_finalize`: a printed value cannot forge a content part.
fn escape_sentinel(text: &str) -> String {
    const TAG: &str = "haystack_content_part";
    if !text.contains(TAG) {
        return text.to_owned();
    }
    text.replace(&format!("<{TAG}"), &format!("&lt;{TAG}"))
        .replace(&format!("</{TAG}"), &format!("&lt;/{TAG}"))
}

/// Jinja2's `join`, once the value and the joiner (which Jinja2 prints,
/// `str(d)`, when it is not a string) are known to print within the
/// budget.
fn join(
    state: &mut minijinja::State,
    value: &JinjaValue,
    joiner: Option<JinjaValue>,
    attribute: Option<&str>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    if let Some(error) = iterating_filters::not_iterable(value) {
        return Err(error);
    }
    // An iterator's items, read ahead and left for `join` to take.
    let items = generator::remaining(value).map(JinjaValue::from);
    show::ensure_json_fits(state, items.as_ref().unwrap_or(value))?;
    if let Some(joiner) = joiner.as_ref() {
        show::ensure_json_fits(state, joiner)?;
    }
    let joiner = joiner
        .as_ref()
        .map(|joiner| minijinja::value::StringInput::new(state, joiner))
        .transpose()?;
    // Jinja2's own objects among the items, and lists and dicts holding
    // them, join as Python prints them (`<Namespace {...}>`, `<Macro
    // 'f'>`), not as the maps minijinja holds them in.
    let printed_by_python = |item: &JinjaValue| {
        matches!(item.kind(), ValueKind::Seq | ValueKind::Map)
            || matches!(
                pystr::python_type(item),
                "Namespace" | "LoopContext" | "Macro"
            )
    };
    if attribute.is_none()
        && !kwargs.has("attribute")
        && items.is_none()
        && value.kind() == ValueKind::Seq
        && value
            .try_iter()
            .is_ok_and(|mut all| all.any(|item| printed_by_python(&item)))
    {
        let printed = value
            .try_iter()?
            .map(|item| {
                if printed_by_python(&item) {
                    show::python_str(Some(state), &item).map(JinjaValue::from)
                } else {
                    Ok(item)
                }
            })
            .collect::<Result<Vec<_>, Error>>()?;
        return minijinja::filters::join(state, &JinjaValue::from(printed), joiner, None, kwargs);
    }
    minijinja::filters::join(state, value, joiner, attribute, kwargs)
}

/// Jinja2's `center(value, width=80)`: Python's `str.center`, whose odd
/// padding goes left when the width is odd. The padding is paid for from
/// the rendering's budget before it is made (`MemoryError` past it).
fn center(
    state: &minijinja::State,
    value: &JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<String, Error> {
    const CENTER: Signature = Signature {
        function: "do_center",
        leading: 1,
        parameters: &["width"],
        required: 0,
    };
    let width = CENTER
        .bind(&positional, &kwargs)?
        .into_iter()
        .next()
        .flatten();
    let text = show::python_str(Some(state), value)?;
    let width = width.as_ref().map_or(Ok(80), budget::ssize)?;
    let length = text.chars().count();
    let Ok(width) = usize::try_from(width) else {
        return Ok(text);
    };
    if width <= length {
        return Ok(text);
    }
    let margin = width - length;
    budget::ensure_bytes(state, text.len().saturating_add(margin))?;
    let left = margin / 2 + (margin & width & 1);
    Ok(format!(
        "{}{text}{}",
        " ".repeat(left),
        " ".repeat(margin - left)
    ))
}

/// Jinja2's `tojson(value, indent=None)`: `json.dumps(value,
/// sort_keys=True, indent=indent)` with `<`, `>`, `&` and `'` escaped for
/// HTML. What an indentation adds is paid for before it is written.
fn tojson(
    state: &minijinja::State,
    value: &JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    const TOJSON: Signature = Signature {
        function: "do_tojson",
        leading: 2,
        parameters: &["indent"],
        required: 0,
    };
    let indent = TOJSON
        .bind(&positional, &kwargs)?
        .into_iter()
        .next()
        .flatten();
    // Python's encoder writes a string whole; for any other value it
    // makes the indentation first (its `OverflowError`, its `MemoryError`),
    // then meets what it cannot encode.
    let indent = match indent.filter(|i| !i.is_none() && value.kind() != ValueKind::String) {
        None => None,
        Some(indent) if indent.kind() == ValueKind::String => {
            Some(indent.as_str().unwrap_or_default().to_owned())
        }
        Some(indent) => Some(text_filters::spaces(state, &indent)?),
    };
    show::ensure_json_tree_fits(state, value)?;
    if let Some(kind) = unserializable(value) {
        return Err(haystack_error(format!(
            "TypeError: Object of type {kind} is not JSON serializable"
        )));
    }
    let json = sort_keys(
        serde_json::to_value(value)
            .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?,
    );
    let text = match indent {
        None => pyfmt::json_dumps_ascii(&json),
        Some(indent) => {
            let compact = pyfmt::json_dumps_ascii(&json).len();
            let added = pyfmt::json_indent_added(&json, indent.len());
            budget::ensure_bytes(
                state,
                usize::try_from(added)
                    .unwrap_or(usize::MAX)
                    .saturating_add(compact),
            )?;
            pyfmt::json_dumps_ascii_indented(&json, &indent)
        }
    };
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => escaped.push_str("\\u003c"),
            '>' => escaped.push_str("\\u003e"),
            '&' => escaped.push_str("\\u0026"),
            '\'' => escaped.push_str("\\u0027"),
            c => escaped.push(c),
        }
    }
    Ok(JinjaValue::from_safe_string(escaped))
}

/// Whether `value` is or holds a `bytes` value (`json.dumps` refuses it).
/// The Python type of the first value inside `value` that `json.dumps`
/// cannot encode: `bytes`, or Jinja2's `Undefined`.
fn unserializable(value: &JinjaValue) -> Option<&'static str> {
    match value.kind() {
        ValueKind::Bytes => Some("bytes"),
        ValueKind::Undefined => Some("Undefined"),
        _ if pystr::opaque_type(value).is_some() => pystr::opaque_type(value),
        _ if is_loop(value) => Some("LoopContext"),
        _ if py_range::of(value).is_some() => Some("range"),
        _ if generator::type_name(value).is_some() => generator::type_name(value),
        _ if dict_view::type_name(value).is_some() => dict_view::type_name(value),
        ValueKind::Seq => value
            .try_iter()
            .ok()?
            .find_map(|item| unserializable(&item)),
        ValueKind::Map => value.try_iter().ok()?.find_map(|key| {
            unserializable(&key)
                .or_else(|| unserializable(&value.get_item(&key).unwrap_or_default()))
        }),
        _ => None,
    }
}

fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

/// What a `{% for %}` loop iterates, as Python iterates it: a string as
/// the list of its characters (so that the loop knows its length), and
/// `none`, a number or a boolean raising Python's `TypeError`.
fn iterable(value: JinjaValue) -> Result<JinjaValue, Error> {
    let python_type = match value.kind() {
        ValueKind::String => {
            let text = value.as_str().unwrap_or_default();
            return Ok(text.chars().map(JinjaValue::from).collect());
        }
        // Python iterates `bytes` as integers.
        ValueKind::Bytes => {
            let bytes = value.as_bytes().unwrap_or_default();
            return Ok(bytes.iter().map(|b| JinjaValue::from(*b)).collect());
        }
        ValueKind::None => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number if value.is_integer() => "int",
        ValueKind::Number => "float",
        // An iterator, which the loop takes whole at its start so that it
        // knows its length (`loop.length`, `loop.last`), as Jinja2's
        // `LoopContext` lists it when asked.
        _ if generator::type_name(&value).is_some() => {
            return Ok(JinjaValue::from(value.try_iter()?.collect::<Vec<_>>()));
        }
        _ => match pystr::opaque_type(&value) {
            Some(name) => name,
            None => return Ok(value),
        },
    };
    Err(haystack_error(format!(
        "TypeError: '{python_type}' object is not iterable"
    )))
}

pub(super) fn haystack_error(message: String) -> Error {
    Error::new(ErrorKind::InvalidOperation, message.clone()).with_source(HaystackError(message))
}

/// `{% message %}`: the block's rendered body as one message, written as a
/// JSON line (read back after rendering, as Haystack reads its lines).
fn message_filter(
    state: &minijinja::State,
    body: String,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let role: JinjaValue = kwargs.get("role")?;
    let name: Option<String> = kwargs.get("name")?;
    let meta: Option<JinjaValue> = kwargs.get("meta")?;
    kwargs.assert_all_used()?;
    let text = body.trim_matches(is_py_space);
    if text.is_empty() {
        return Err(haystack_error(format!(
            "Message content in template is empty or contains only whitespace characters. Content: {}",
            pyfmt::repr(&Value::String(body.clone()))
        )));
    }
    let mut message = match role.as_str() {
        Some("user") => ChatMessage::from_user(text),
        Some("system") => ChatMessage::from_system(text),
        Some("assistant") => ChatMessage::from_assistant(text),
        Some("tool") => {
            return Err(haystack_error(
                "Tool message must contain only one tool call result.".to_owned(),
            ));
        }
        _ => {
            return Err(haystack_error(format!(
                "Unsupported role: {}",
                show::python_str(Some(state), &role)?
            )));
        }
    };
    if let Some(meta) = meta {
        show::ensure_json_tree_fits(state, &meta)?;
        if let Ok(Value::Object(map)) = serde_json::to_value(&meta) {
            message = message.with_meta(map);
        }
    }
    if let Some(name) = name {
        message = message.with_name(name);
    }
    let line = serde_json::to_string(&message.to_value()).unwrap_or_default();
    Ok(JinjaValue::from_safe_string(line + "\n"))
}

/// Haystack's `_render_chat_messages_from_str_template` after rendering:
/// every non-blank line is a message in `to_dict()` form.
pub(super) fn read_messages(rendered: &str) -> Result<Vec<ChatMessage>, PromptError> {
    rendered
        .trim_matches(is_py_space)
        .split('\n')
        .map(|line| line.trim_matches(is_py_space))
        .filter(|line| !line.is_empty())
        .map(|line| {
            let value: Value = serde_json::from_str(line).map_err(|_| {
                PromptError::NotAMessage("Expecting value: line 1 column 1 (char 0)".to_owned())
            })?;
            ChatMessage::from_value(&value).map_err(|e| PromptError::NotAMessage(e.to_string()))
        })
        .collect()
}

/// The variables of a render, as a template context.
pub(super) fn context(variables: &Map<String, Value>) -> JinjaValue {
    map_to_jinja(variables)
}

/// A map in its own order (a Python dict keeps insertion order).
fn map_to_jinja(map: &Map<String, Value>) -> JinjaValue {
    let map: IndexMap<JinjaValue, JinjaValue> = map
        .iter()
        .map(|(key, value)| (JinjaValue::from(key.as_str()), to_jinja(value)))
        .collect();
    JinjaValue::from(map)
}

/// A JSON value as a template value, built by hand: with exact integers a
/// JSON number serializes as a private map, which a template must not see.
fn to_jinja(value: &Value) -> JinjaValue {
    match value {
        Value::Null => JinjaValue::from(()),
        Value::Bool(b) => JinjaValue::from(*b),
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                JinjaValue::from(n)
            } else if let Some(n) = number.as_u64() {
                JinjaValue::from(n)
            } else if let Ok(n) = number.to_string().parse::<i128>() {
                JinjaValue::from(n)
            } else {
                JinjaValue::from(number.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(text) => JinjaValue::from(text.as_str()),
        Value::Array(items) => items.iter().map(to_jinja).collect(),
        Value::Object(map) => map_to_jinja(map),
    }
}
