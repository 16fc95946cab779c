//! Python's iterators, which Jinja2's filters return: `map`, `select`,
//! `reject`, `selectattr`, `rejectattr`, `unique`, `batch`, `slice` and
//! `items` are generators, and `reverse` of a list is a
//! `list_reverseiterator`. An iterator iterates once (a second loop over
//! the same value finds what the first left), is always true (`{% if
//! docs|select %}` holds for an empty result), has no length, is not
//! subscriptable, and equals only itself; minijinja's results are lists
//! that iterate again and again.

use minijinja::Error;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value as JinjaValue, ValueIter};
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

/// An iterator of Python's: its type, the function whose generator it is
/// (for its `repr`), and the items it has yet to give.
pub(super) struct Generator {
    type_name: &'static str,
    function: Option<&'static str>,
    pending: Mutex<Pending>,
}

/// The items an iterator has yet to give: some already read ahead (to
/// measure a value before it is printed), then the rest.
#[derive(Default)]
struct Pending {
    read: VecDeque<JinjaValue>,
    rest: Option<ValueIter>,
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.type_name)
    }
}

impl Generator {
    /// The next item, taking it from the iterator.
    fn next(&self) -> Option<JinjaValue> {
        let mut pending = self.pending.lock().ok()?;
        if let Some(item) = pending.read.pop_front() {
            return Some(item);
        }
        pending.rest.as_mut()?.next()
    }
}

impl Object for Generator {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let this = Arc::clone(self);
        Enumerator::Iter(Box::new(std::iter::from_fn(move || this.next())))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        None
    }

    /// No item by position (Python: not subscriptable; Jinja2's `getitem`
    /// gives undefined), and no attribute: minijinja would take the
    /// iterator's items to find one.
    fn get_value(self: &Arc<Self>, _key: &JinjaValue) -> Option<JinjaValue> {
        Some(JinjaValue::UNDEFINED)
    }

    fn is_true(self: &Arc<Self>) -> bool {
        true
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", repr(self))
    }
}

/// Python's `repr` of an iterator, at the one address every run prints.
fn repr(generator: &Generator) -> String {
    match generator.function {
        Some(function) => format!("<generator object {function} at 0x7f0000000000>"),
        None => format!("<{} object at 0x7f0000000000>", generator.type_name),
    }
}

/// The generator `function` makes of `value`'s items (`select_or_reject`
/// for `select`), read when it is iterated.
pub(super) fn generator(function: &'static str, value: &JinjaValue) -> Result<JinjaValue, Error> {
    iterator("generator", Some(function), value)
}

/// An iterator of Python type `type_name` over `value`'s items.
pub(super) fn iterator(
    type_name: &'static str,
    function: Option<&'static str>,
    value: &JinjaValue,
) -> Result<JinjaValue, Error> {
    let rest = value.try_iter()?;
    Ok(JinjaValue::from_object(Generator {
        type_name,
        function,
        pending: Mutex::new(Pending {
            read: VecDeque::new(),
            rest: Some(rest),
        }),
    }))
}

/// The Python type of `value` when it is an iterator (`generator`,
/// `list_reverseiterator`).
pub(super) fn type_name(value: &JinjaValue) -> Option<&'static str> {
    value
        .downcast_object_ref::<Generator>()
        .map(|generator| generator.type_name)
}

/// Python's `repr` of `value` when it is an iterator.
pub(super) fn repr_of(value: &JinjaValue) -> Option<String> {
    value.downcast_object_ref::<Generator>().map(repr)
}

/// The items an iterator has yet to give, read ahead without taking them
/// (what printing or measuring it would meet).
pub(super) fn remaining(value: &JinjaValue) -> Option<Vec<JinjaValue>> {
    let generator = value.downcast_object_ref::<Generator>()?;
    let mut pending = generator.pending.lock().ok()?;
    if let Some(rest) = pending.rest.take() {
        pending.read.extend(rest);
    }
    Some(pending.read.iter().cloned().collect())
}
