//! Jinja2's `Namespace` (`jinja2.utils.Namespace`): the object
//! `namespace(...)` makes, whose attributes `{% set ns.a = v %}` sets. Its
//! attributes keep the order they were first set in, as the Python dict
//! behind it does (`<Namespace {'b': 1, 'a': 2}>`), and it is true even
//! when empty, as every Python object without `__len__` or `__bool__` is.
//!
//! minijinja assigns an attribute only to its own namespace (kept sorted),
//! so the parser writes the target `ns.a` as `ns.__py_slot.a`
//! ([`SLOT_ATTRIBUTE`]): each assignment reads a fresh minijinja namespace
//! from this one, which receives the one attribute, and this namespace
//! takes the slots' attributes in the order it handed them out before it
//! is next read.

use super::render::haystack_error;
use indexmap::IndexMap;
use minijinja::Error;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value as JinjaValue};
use std::sync::{Arc, Mutex, MutexGuard};

/// The attribute the parser puts between a namespace and the attribute a
/// `{% set %}` assigns (`ns.a` is written `ns.__py_slot.a`).
pub(crate) const SLOT_ATTRIBUTE: &str = "__py_slot";

/// A namespace: its attributes in the order they were first set.
#[derive(Debug, Default)]
pub(super) struct Namespace {
    attributes: Mutex<IndexMap<Arc<str>, JinjaValue>>,
    /// The slots handed out to assignments, oldest first, not yet taken in.
    slots: Mutex<Vec<JinjaValue>>,
}

impl Namespace {
    /// A namespace holding `attributes`, in their order.
    pub(super) fn new(attributes: impl IntoIterator<Item = (Arc<str>, JinjaValue)>) -> Namespace {
        Namespace {
            attributes: Mutex::new(attributes.into_iter().collect()),
            slots: Mutex::default(),
        }
    }

    /// The attributes, with those the slots received taken in, each slot
    /// in the order its assignment ran (a key set again keeps its place,
    /// as in a Python dict).
    fn settled(&self) -> MutexGuard<'_, IndexMap<Arc<str>, JinjaValue>> {
        let slots = std::mem::take(&mut *lock(&self.slots));
        let mut attributes = lock(&self.attributes);
        for slot in slots {
            for key in slot.try_iter().into_iter().flatten() {
                let value = slot.get_attr(key.as_str().unwrap_or_default());
                if let (Some(name), Ok(value)) = (key.as_str(), value) {
                    attributes.insert(Arc::from(name), value);
                }
            }
        }
        attributes
    }
}

/// A lock that a panic elsewhere does not poison for the rendering.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Object for Namespace {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &JinjaValue) -> Option<JinjaValue> {
        let name = key.as_str()?;
        if name == SLOT_ATTRIBUTE {
            let slot = minijinja::functions::namespace(None).ok()?;
            lock(&self.slots).push(slot.clone());
            return Some(slot);
        }
        self.settled().get(name).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let keys = self
            .settled()
            .keys()
            .map(|key| JinjaValue::from(&**key))
            .collect();
        Enumerator::Values(keys)
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.settled().len())
    }

    fn is_true(self: &Arc<Self>) -> bool {
        true
    }
}

/// The function and filter that check the targets of a `{% set %}` of a
/// namespace's attribute: `__py_nsref(ns) or (value)` for `{% set ns.a =
/// value %}` (Jinja2 checks before it computes the value), and
/// `body|__py_nsref(ns)` for `{% set ns.a %}body{% endset %}`. Reading the
/// names also lets a macro that assigns `ns.a` see `ns` (minijinja's macro
/// closes over the names its body reads, not those it assigns into).
pub(crate) const NSREF_FUNCTION: &str = "__py_nsref";

/// Jinja2's `TemplateRuntimeError` unless every target is a namespace.
pub(super) fn check_targets(targets: &[JinjaValue]) -> Result<(), Error> {
    if targets.iter().any(|target| !is_namespace(target)) {
        return Err(haystack_error(
            "TemplateRuntimeError: cannot assign attribute on non-namespace object".to_owned(),
        ));
    }
    Ok(())
}

/// Whether `value` is a namespace.
pub(super) fn is_namespace(value: &JinjaValue) -> bool {
    value.downcast_object_ref::<Namespace>().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot_of(ns: &JinjaValue) -> JinjaValue {
        ns.get_attr(SLOT_ATTRIBUTE).unwrap()
    }

    #[test]
    fn attributes_keep_the_order_they_were_first_set_in() {
        let ns = JinjaValue::from_object(Namespace::new([(Arc::from("b"), JinjaValue::from(1))]));
        for (name, value) in [("z", 2), ("b", 3), ("a", 4)] {
            // What `{% set ns.name = value %}` does, rewritten.
            let slot = slot_of(&ns);
            minijinja::Environment::new()
                .render_str(
                    &format!("{{% set slot.{name} = {value} %}}"),
                    minijinja::context! { slot => slot.clone() },
                )
                .unwrap();
        }
        let keys: Vec<String> = ns.try_iter().unwrap().map(|k| k.to_string()).collect();
        assert_eq!(keys, ["b", "z", "a"]);
        assert_eq!(ns.get_attr("b").unwrap(), JinjaValue::from(3));
    }

    #[test]
    fn an_empty_namespace_is_true() {
        let ns = JinjaValue::from_object(Namespace::default());
        assert!(ns.is_true());
        assert_eq!(ns.len(), Some(0));
    }
}
