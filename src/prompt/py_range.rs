//! Python's `range`, which Jinja2's sandbox gives templates (`safe_range`,
//! at most `MAX_RANGE` items): a sequence of integers that iterates,
//! measures and indexes as a list does, but prints as `range(0, 3)`,
//! slices into another range, equals only a range of the same items, and
//! is refused by orderings, `+`, `*` and `tojson` (minijinja's `range` is
//! a list).

use super::compare;
use super::markup;
use super::pystr::{self, type_error};
use super::python_math::Number;
use super::render::haystack_error;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Rest, Value as JinjaValue};
use minijinja::{Error, State};
use std::fmt;
use std::sync::Arc;

/// Jinja2's `MAX_RANGE`: the most items the sandbox's `range` makes.
const MAX_RANGE: i128 = 100_000;

/// `range(start, stop, step)`, its step never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Range {
    start: i128,
    stop: i128,
    step: i128,
}

impl Range {
    /// How many items it holds.
    fn len(self) -> i128 {
        // Past 127 bits the span saturates, far past `MAX_RANGE`.
        let (span, step) = match self.step > 0 {
            true => (self.stop.saturating_sub(self.start), self.step),
            false => (
                self.start.saturating_sub(self.stop),
                self.step.saturating_neg(),
            ),
        };
        if span <= 0 { 0 } else { (span - 1) / step + 1 }
    }

    /// The item at `index` (from the end when negative).
    fn item(self, index: i128) -> Option<i128> {
        let len = self.len();
        let index = if index < 0 { index + len } else { index };
        (0..len)
            .contains(&index)
            .then(|| self.start + index * self.step)
    }

    /// Where `value` is in the range, when it is an integer of it.
    fn position(self, value: &JinjaValue) -> Option<i128> {
        let Some(Number::Int(n)) = Number::of(value) else {
            return None;
        };
        let offset = n.saturating_sub(self.start);
        (offset % self.step == 0)
            .then(|| offset / self.step)
            .filter(|index| (0..self.len()).contains(index))
    }

    /// The range a slice of this one is, its bounds already fitted to
    /// [`Range::len`] as Python's `slice.indices` fits them.
    pub(super) fn slice(self, first: i64, last: i64, step: i64) -> Range {
        let at = |index: i64| {
            self.start
                .saturating_add(i128::from(index).saturating_mul(self.step))
        };
        Range {
            start: at(first),
            stop: at(last),
            step: self.step.saturating_mul(i128::from(step)),
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            1 => write!(f, "range({}, {})", self.start, self.stop),
            step => write!(f, "range({}, {}, {step})", self.start, self.stop),
        }
    }
}

impl Object for Range {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &JinjaValue) -> Option<JinjaValue> {
        match (Number::of(key), key.as_str()) {
            (Some(Number::Int(index)), _) => self.item(index).map(JinjaValue::from),
            (_, Some("start")) => Some(JinjaValue::from(self.start)),
            (_, Some("stop")) => Some(JinjaValue::from(self.stop)),
            (_, Some("step")) => Some(JinjaValue::from(self.step)),
            _ => None,
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(usize::try_from(self.len()).unwrap_or(0))
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State,
        method: &str,
        args: &[JinjaValue],
    ) -> Result<JinjaValue, Error> {
        if !matches!(method, "count" | "index") {
            return Err(haystack_error(format!(
                "UndefinedError: 'range object' has no attribute '{method}'"
            )));
        }
        let [value] = args else {
            return Err(type_error(format!(
                "range.{method}() takes exactly one argument ({} given)",
                args.len()
            )));
        };
        match method {
            "count" => Ok(JinjaValue::from(match self.position(value) {
                Some(_) => 1,
                None => self.contains(value)?,
            })),
            "index" => match self.position(value) {
                Some(index) => Ok(JinjaValue::from(index)),
                None if self.contains(value)? > 0 => self.find(value),
                None if Number::of(value).is_some_and(|n| matches!(n, Number::Int(_))) => {
                    Err(haystack_error(format!(
                        "ValueError: {} is not in range",
                        markup::repr(state, value)?
                    )))
                }
                None => Err(haystack_error(
                    "ValueError: sequence.index(x): x not in sequence".to_owned(),
                )),
            },
            _ => Ok(JinjaValue::UNDEFINED),
        }
    }
}

impl Range {
    /// How many items equal `value` by Python's `==` (a float, a
    /// boolean): at most one, the items being distinct.
    fn contains(&self, value: &JinjaValue) -> Result<i128, Error> {
        for index in 0..self.len() {
            let item = JinjaValue::from(self.start + index * self.step);
            if compare::equal(&item, value)? {
                return Ok(1);
            }
        }
        Ok(0)
    }

    /// The index of the first item equal to `value`.
    fn find(&self, value: &JinjaValue) -> Result<JinjaValue, Error> {
        for index in 0..self.len() {
            let item = JinjaValue::from(self.start + index * self.step);
            if compare::equal(&item, value)? {
                return Ok(JinjaValue::from(index));
            }
        }
        Ok(JinjaValue::from(-1))
    }
}

/// The range `value` is, if it is one.
pub(super) fn of(value: &JinjaValue) -> Option<Range> {
    value.downcast_object_ref::<Range>().copied()
}

/// Jinja2's `safe_range(*args)`: Python's `range` and its errors, and
/// the sandbox's `OverflowError` past [`MAX_RANGE`] items.
pub(super) fn range(args: Rest<JinjaValue>, kwargs: Kwargs) -> Result<JinjaValue, Error> {
    if let Some(keyword) = kwargs.args().next() {
        return Err(type_error(format!(
            "safe_range() got an unexpected keyword argument '{keyword}'"
        )));
    }
    let integer = |value: &JinjaValue| match Number::of(value) {
        Some(Number::Int(n)) => Ok(n),
        _ => Err(type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            pystr::python_type(value)
        ))),
    };
    if args.len() > 3 {
        return Err(type_error(format!(
            "range expected at most 3 arguments, got {}",
            args.len()
        )));
    }
    let parts = args
        .iter()
        .map(integer)
        .collect::<Result<Vec<i128>, Error>>()?;
    let range = match parts[..] {
        [] => {
            return Err(type_error(
                "range expected at least 1 argument, got 0".to_owned(),
            ));
        }
        [stop] => Range {
            start: 0,
            stop,
            step: 1,
        },
        [start, stop] => Range {
            start,
            stop,
            step: 1,
        },
        [_, _, 0, ..] => {
            return Err(haystack_error(
                "ValueError: range() arg 3 must not be zero".to_owned(),
            ));
        }
        [start, stop, step, ..] => Range { start, stop, step },
    };
    if range.len() > MAX_RANGE {
        return Err(haystack_error(format!(
            "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE ({MAX_RANGE})."
        )));
    }
    Ok(JinjaValue::from_object(range))
}
