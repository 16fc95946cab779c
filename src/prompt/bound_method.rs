//! A Python method read as an attribute and not called (`order.items` of
//! a dict that also has the key `items`): Jinja2's sandbox prefers the
//! attribute to the key, so the value is the dict's bound method, which
//! is callable, true and defined, and which no filter iterates, measures
//! or writes as JSON (`'builtin_function_or_method' object is not
//! iterable`). The names are the methods of Python's `dict` and `list`.

use minijinja::value::{Object, ObjectRepr, Value as JinjaValue};
use minijinja::{Error, State};
use std::sync::Arc;

/// The methods of Python's `list`.
pub(super) const LIST_METHODS: &[&str] = &[
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse",
    "sort",
];

/// The methods of Python's `dict`.
pub(super) const DICT_METHODS: &[&str] = &[
    "clear",
    "copy",
    "fromkeys",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
];

/// Python's type of a bound method of a built-in type.
pub(super) const TYPE_NAME: &str = "builtin_function_or_method";

/// `owner.name`, not yet called.
#[derive(Debug)]
struct BoundMethod {
    owner: JinjaValue,
    name: String,
    owner_type: &'static str,
}

impl Object for BoundMethod {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    /// The method's call, as `owner.name(...)` calls it.
    fn call(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        args: &[JinjaValue],
    ) -> Result<JinjaValue, Error> {
        self.owner.call_method(state, &self.name, args)
    }

    /// Python's repr, at an address of its own (Python's differs from run
    /// to run).
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<built-in method {} of {} object at 0x7f0000000000>",
            self.name, self.owner_type
        )
    }
}

/// The bound method `owner.name` (not called) when `name` is a Python
/// method of `owner`, a dict or a list; `None` otherwise (a namespace's or
/// a loop's attribute, a dict's key by another name).
pub(super) fn attribute(owner: &JinjaValue, name: &str) -> Option<JinjaValue> {
    let owner_type = match super::pystr::python_type(owner) {
        "dict" if super::pystr::is_dict(owner) && DICT_METHODS.contains(&name) => "dict",
        "list" if LIST_METHODS.contains(&name) => "list",
        _ => return None,
    };
    Some(JinjaValue::from_object(BoundMethod {
        owner: owner.clone(),
        name: name.to_owned(),
        owner_type,
    }))
}

/// Whether `name` is a method of a dict or a list, which an attribute by
/// that name may be ([`attribute`]).
pub(crate) fn is_method_name(name: &str) -> bool {
    DICT_METHODS.contains(&name) || LIST_METHODS.contains(&name)
}

/// Whether Python finds `left == right` when one of them is a bound
/// method: the same method of equal owners; `None` when neither is one.
pub(super) fn equal(left: &JinjaValue, right: &JinjaValue) -> Option<bool> {
    let (a, b) = (
        left.downcast_object_ref::<BoundMethod>(),
        right.downcast_object_ref::<BoundMethod>(),
    );
    match (a, b) {
        (None, None) => None,
        (Some(a), Some(b)) => Some(a.name == b.name && a.owner == b.owner),
        _ => Some(false),
    }
}

/// Whether `value` is a bound method of [`attribute`].
pub(super) fn is_bound_method(value: &JinjaValue) -> bool {
    value.downcast_object_ref::<BoundMethod>().is_some()
}

/// `owner.name` not called ([`crate::prompt::jinja2::METHOD_FUNCTION`]):
/// the bound method when `name` is one of `owner`'s methods, minijinja's
/// attribute otherwise (undefined when `owner` has none).
pub(super) fn attribute_or_method(owner: JinjaValue, name: String) -> Result<JinjaValue, Error> {
    match attribute(&owner, &name) {
        Some(method) => Ok(method),
        None => owner.get_attr(&name),
    }
}
