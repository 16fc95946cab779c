//! Python's comparisons in a template: `<`, `<=`, `>`, `>=` as Python
//! orders, in a chain with `==` and `!=` (`__py_compare`), and `in`
//! (`__py_in`).
//!
//! minijinja orders any two values (a list below a number, `none` below
//! everything); Python orders numbers (booleans among them), strings, and
//! lists or tuples item by item, and raises `TypeError: '<' not supported
//! between instances of 'list' and 'int'` for anything else. An undefined
//! operand (one Jinja2's `Undefined` raises on) fails with minijinja's
//! text, as where it is used in other operations; a name or an attribute
//! by a name has Jinja2's text already (`__py_defined`, `__py_attr`).

use super::bound_method;
use super::dict_view;
use super::generator;
use super::groupby;
use super::py_range;
use super::pystr;
use super::python_math::Number;
use super::render::haystack_error;
use minijinja::value::{Object, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Error, ErrorKind, State};
use std::cmp::Ordering;

/// A comparison `operands[0] op operands[1] op operands[2] …` (operand and
/// operator alternating, each operator `<`, `<=`, `>`, `>=`, `==` or
/// `!=`): Python's `a < b and b < c`, stopping at the first that is false.
pub(super) fn compare_chain(operands: Rest<JinjaValue>) -> Result<JinjaValue, Error> {
    let mut items = operands.iter();
    let Some(mut left) = items.next() else {
        return Ok(JinjaValue::from(true));
    };
    while let (Some(operator), Some(right)) = (items.next(), items.next()) {
        let operator = operator.as_str().unwrap_or_default();
        if !holds(operator, left, right)? {
            return Ok(JinjaValue::from(false));
        }
        left = right;
    }
    Ok(JinjaValue::from(true))
}

/// Jinja2's comparison tests (`x is lt 3`, `x is ==(y)`) and the Python
/// operator each is.
pub(super) const TESTS: [(&str, &str); 15] = [
    ("eq", "=="),
    ("equalto", "=="),
    ("==", "=="),
    ("ne", "!="),
    ("!=", "!="),
    ("lt", "<"),
    ("lessthan", "<"),
    ("<", "<"),
    ("le", "<="),
    ("<=", "<="),
    ("gt", ">"),
    ("greaterthan", ">"),
    (">", ">"),
    ("ge", ">="),
    (">=", ">="),
];

/// Python's `left operator right` for one of [`TESTS`]' operators.
pub(super) fn test(operator: &str, left: &JinjaValue, right: &JinjaValue) -> Result<bool, Error> {
    holds(operator, left, right)
}

/// Python's `left == right`.
pub(super) fn equal(left: &JinjaValue, right: &JinjaValue) -> Result<bool, Error> {
    holds("==", left, right)
}

/// Python's `left < right`, or its `TypeError` for values it does not
/// order.
pub(super) fn less(left: &JinjaValue, right: &JinjaValue) -> Result<bool, Error> {
    holds("<", left, right)
}

/// Python's `left > right`, or its `TypeError` for values it does not
/// order.
pub(super) fn greater(left: &JinjaValue, right: &JinjaValue) -> Result<bool, Error> {
    holds(">", left, right)
}

/// An undefined name compared by an ordering, with Jinja2's message for
/// it ([`jinja2::NAMED_FUNCTION`]).
#[derive(Debug)]
struct NamedUndefined(String);

impl Object for NamedUndefined {}

/// `value`, or when it is undefined the name's undefined value that
/// [`holds`] raises `UndefinedError: hint` for.
pub(super) fn named(hint: String, value: JinjaValue) -> JinjaValue {
    if value.is_undefined() {
        return JinjaValue::from_object(NamedUndefined(hint));
    }
    value
}

/// The temp a chain keeps its shared operand in between two comparisons.
const CHAIN_TEMP: &str = "__py_chain";

/// `value`, kept for the chain's next comparison ([`jinja2::KEEP_FUNCTION`]).
pub(super) fn keep(state: &mut State, value: JinjaValue) -> JinjaValue {
    state.set_temp(CHAIN_TEMP, value.clone());
    value
}

/// The value [`keep`] kept last ([`jinja2::TAKE_FUNCTION`]): nothing is
/// read between the two, so a chain in an operand or a macro the chain
/// calls has finished with the temp before.
pub(super) fn take(state: &mut State) -> JinjaValue {
    state
        .set_temp(CHAIN_TEMP, JinjaValue::UNDEFINED)
        .unwrap_or_default()
}

/// `value` as an operator reads it: Jinja2's `UndefinedError` when it is
/// an undefined name [`named`] for the operator.
pub(super) fn read_named(value: JinjaValue) -> Result<JinjaValue, Error> {
    match value.downcast_object_ref::<NamedUndefined>() {
        Some(NamedUndefined(hint)) => Err(haystack_error(format!("UndefinedError: {hint}"))),
        None => Ok(value),
    }
}

/// `value`, an undefined name compared by an ordering being undefined.
pub(super) fn unnamed(value: &JinjaValue) -> JinjaValue {
    match value.downcast_object_ref::<NamedUndefined>() {
        Some(_) => JinjaValue::UNDEFINED,
        None => value.clone(),
    }
}

/// How many lists, tuples or dicts deep Python compares two values before
/// its `RecursionError`: its recursion limit (1000 frames) less the frames
/// of Jinja2's rendering under Haystack 3.4.1 (measured: two lists nested
/// 987 deep fail, 986 compare).
const MAX_COMPARE_DEPTH: usize = 986;

/// Python's `left == right`: numbers exactly (`True == 1`), a range only
/// to a range, a dict's view and a bound method as Python's, Jinja2's
/// objects and iterators by identity; two lists, two tuples or two dicts
/// item by item in Python's order, an item the same object as the other's
/// equal without a look inside (CPython's `PyObject_RichCompareBool`), and
/// Python's `RecursionError` past [`MAX_COMPARE_DEPTH`]. The items wait on
/// a stack of their own, not the thread's: a test thread's 2 MiB holds no
/// thousand frames of a debug build.
fn equal_at(left: &JinjaValue, right: &JinjaValue) -> Result<bool, Error> {
    let mut pending = vec![(left.clone(), right.clone(), 1)];
    while let Some((left, right, depth)) = pending.pop() {
        match shallow_equal(&left, &right, depth)? {
            Shallow::Equal => {}
            Shallow::Unequal => return Ok(false),
            Shallow::Items(pairs) => {
                // Last first, so that the first pair is compared first.
                pending.extend(
                    pairs
                        .into_iter()
                        .rev()
                        .map(|(mine, theirs)| (mine, theirs, depth + 1)),
                );
            }
        }
    }
    Ok(true)
}

/// What comparing two values says before their items are compared.
enum Shallow {
    Equal,
    Unequal,
    /// Equal if each pair of items is.
    Items(Vec<(JinjaValue, JinjaValue)>),
}

/// `left == right` as far as it is decided without their items, `depth`
/// lists, tuples or dicts inside the comparison ([`equal_at`]).
fn shallow_equal(left: &JinjaValue, right: &JinjaValue, depth: usize) -> Result<Shallow, Error> {
    let decided = |equal: bool| {
        Ok(if equal {
            Shallow::Equal
        } else {
            Shallow::Unequal
        })
    };
    if let (Some(a), Some(b)) = (Number::of(left), Number::of(right)) {
        return decided(a.cmp(b) == Some(Ordering::Equal));
    }
    if py_range::of(left).is_some() != py_range::of(right).is_some() {
        return decided(false);
    }
    if let Some(equal) = dict_view::equal(left, right).or_else(|| bound_method::equal(left, right))
    {
        return decided(equal);
    }
    let (left, right) = (groupby::plain(left.clone()), groupby::plain(right.clone()));
    let same = |a: &JinjaValue, b: &JinjaValue| minijinja::tests::is_sameas(a, b);
    // Jinja2's own objects and iterators define no `==`: each equals
    // itself only.
    let own = |value: &JinjaValue| {
        matches!(
            pystr::python_type(value),
            "Namespace" | "LoopContext" | "Macro"
        ) || generator::type_name(value).is_some()
    };
    if own(&left) || own(&right) {
        return decided(same(&left, &right));
    }
    let kinds = (pystr::builtin_type(&left), pystr::builtin_type(&right));
    let (Some(kind @ ("list" | "tuple" | "dict")), Some(other)) = kinds else {
        return decided(left == right);
    };
    if kind != other || same(&left, &right) {
        return decided(kind == other);
    }
    if depth > MAX_COMPARE_DEPTH {
        return Err(haystack_error(
            "RecursionError: maximum recursion depth exceeded in comparison".to_owned(),
        ));
    }
    if left.len() != right.len() {
        return decided(false);
    }
    let mut pairs = Vec::new();
    if kind == "dict" {
        for key in left.try_iter()? {
            let theirs = right.get_item(&key).unwrap_or_default();
            // A key the other dict lacks (not one holding an undefined value).
            if theirs.is_undefined() && !right.try_iter()?.any(|k| k == key) {
                return decided(false);
            }
            pairs.push((left.get_item(&key).unwrap_or_default(), theirs));
        }
    } else {
        pairs.extend(left.try_iter()?.zip(right.try_iter()?));
    }
    pairs.retain(|(mine, theirs)| !same(mine, theirs));
    Ok(Shallow::Items(pairs))
}

/// Whether `left operator right` holds.
fn holds(operator: &str, left: &JinjaValue, right: &JinjaValue) -> Result<bool, Error> {
    // Python asks the left operand first, then the right one's reflection.
    for operand in [left, right] {
        if let Some(NamedUndefined(hint)) = operand.downcast_object_ref::<NamedUndefined>() {
            if !matches!(operator, "==" | "!=") {
                return Err(haystack_error(format!("UndefinedError: {hint}")));
            }
        }
    }
    let (left, right) = (&unnamed(left), &unnamed(right));
    match operator {
        "==" | "!=" => return Ok(equal_at(left, right)? == (operator == "==")),
        _ => {}
    }
    if left.is_undefined() || right.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    // `None`: unordered (a NaN), where every ordering is false.
    Ok(
        compare(operator, left, right)?.is_some_and(|ordering| match operator {
            "<" => ordering == Ordering::Less,
            "<=" => ordering != Ordering::Greater,
            ">" => ordering == Ordering::Greater,
            _ => ordering != Ordering::Less,
        }),
    )
}

/// How Python orders `left` and `right` (`None` for a NaN), or its
/// `TypeError`.
fn compare(
    operator: &str,
    left: &JinjaValue,
    right: &JinjaValue,
) -> Result<Option<Ordering>, Error> {
    // Jinja2's `Undefined` raises when ordered, inside a list too.
    if left.is_undefined() || right.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    if let (Some(a), Some(b)) = (Number::of(left), Number::of(right)) {
        return Ok(a.cmp(b));
    }
    // Jinja2's own objects define no order.
    let own = |value| {
        matches!(
            pystr::python_type(value),
            "Namespace" | "LoopContext" | "Macro"
        )
    };
    if own(left) || own(right) {
        return Err(haystack_error(format!(
            "TypeError: '{operator}' not supported between instances of '{}' and '{}'",
            pystr::python_type(left),
            pystr::python_type(right)
        )));
    }
    match (pystr::builtin_type(left), pystr::builtin_type(right)) {
        (Some("str"), Some("str")) => {
            if let (Some(x), Some(y)) = (left.as_str(), right.as_str()) {
                return Ok(Some(x.cmp(y)));
            }
        }
        (Some(x), Some(y)) if x == y && (x == "list" || x == "tuple") => {
            let xs: Vec<JinjaValue> = left.try_iter()?.collect();
            let ys: Vec<JinjaValue> = right.try_iter()?.collect();
            // The first pair Python finds unequal (by its `==`: Jinja2's
            // objects equal only themselves, so two namespaces with the
            // same attributes are ordered, and refused, as Python does).
            for (x, y) in xs.iter().zip(&ys) {
                if !equal_at(x, y)? {
                    return compare(operator, x, y);
                }
            }
            return Ok(Some(xs.len().cmp(&ys.len())));
        }
        (Some(x), Some(y)) => {
            return Err(haystack_error(format!(
                "TypeError: '{operator}' not supported between instances of '{x}' and '{y}'"
            )));
        }
        _ => {}
    }
    // A value of no Python built-in type: minijinja's order.
    Ok(Some(left.cmp(right)))
}

/// `item in container` (`negated`: `not in`), as Python searches: a
/// substring of a string, an item of a list or tuple, a key of a dict (a
/// list or dict is no key: `TypeError: unhashable type`); nothing in an
/// undefined value; `TypeError` for a container of another built-in type.
pub(super) fn contains(
    negated: bool,
    item: JinjaValue,
    container: JinjaValue,
) -> Result<JinjaValue, Error> {
    // An operand an ordering of the same chain compares too.
    let (item, container) = (unnamed(&item), unnamed(&container));
    let found = match (pystr::builtin_type(&container), container.is_undefined()) {
        (_, true) => false,
        (Some("str"), _) => match (item.kind(), item.as_str(), container.as_str()) {
            (ValueKind::String, Some(needle), Some(text)) => text.contains(needle),
            _ => {
                return Err(haystack_error(format!(
                    "TypeError: 'in <string>' requires string as left operand, not {}",
                    pystr::python_type(&item)
                )));
            }
        },
        (Some(kind), _)
            if generator::type_name(&container).is_some()
                || matches!(
                    kind,
                    "list" | "tuple" | "range" | "dict_keys" | "dict_values" | "dict_items"
                ) =>
        {
            let mut found = false;
            for x in container.try_iter()?.checked() {
                let x = x?;
                if holds("==", &x, &item)? {
                    found = true;
                    break;
                }
            }
            found
        }
        (Some("dict"), _) => {
            if let Some(kind) = unhashable(&item) {
                return Err(haystack_error(format!(
                    "TypeError: unhashable type: '{kind}'"
                )));
            }
            container.get_item(&item).is_ok_and(|v| !v.is_undefined())
        }
        (Some(other), _) => {
            return Err(haystack_error(format!(
                "TypeError: argument of type '{other}' is not iterable"
            )));
        }
        _ => container.try_iter()?.any(|x| x == item),
    };
    Ok(JinjaValue::from(found != negated))
}

/// Python's `TypeError: unhashable type: 'list'` for a key it cannot hash.
pub(super) fn ensure_hashable(value: &JinjaValue) -> Result<(), Error> {
    match unhashable(value) {
        Some(kind) => Err(haystack_error(format!(
            "TypeError: unhashable type: '{kind}'"
        ))),
        None => Ok(()),
    }
}

/// Whether `item` is `value` or equal to it, as CPython's
/// `PyObject_RichCompareBool` asks (`list.count`, `list.index`).
pub(super) fn same_or_equal(item: &JinjaValue, value: &JinjaValue) -> Result<bool, Error> {
    Ok(minijinja::tests::is_sameas(item, value) || equal(item, value)?)
}

/// The type that makes `value` unhashable in Python (a list or dict, or a
/// tuple holding one).
fn unhashable(value: &JinjaValue) -> Option<&'static str> {
    match pystr::builtin_type(value)? {
        "list" => Some("list"),
        "dict" => Some("dict"),
        "tuple" => value.try_iter().ok()?.find_map(|x| unhashable(&x)),
        _ => None,
    }
}
