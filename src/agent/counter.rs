//! The loop's step counter.
//!
//! Haystack's loop keeps `counter` in a local variable, read once from
//! `step_count` after the `before_run` hooks: an `int` unless a hook left
//! something else there. The common integer is kept as an `i64`, so a step
//! neither parses nor copies a JSON number (with `exact-integers`, a
//! `Number` is its decimal text); anything else keeps Python's arithmetic
//! on the value itself.

use crate::value::{PyTypeError, add_one, less_than, step_number};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum StepCounter {
    /// An `int` that fits 64 bits.
    Int(i64),
    /// A float, a bool, a bigger integer, or a value that is no number
    /// (which fails at the first comparison, as in Python).
    Other(Value),
}

impl StepCounter {
    /// The counter Python reads from `step_count`.
    pub(super) fn from_value(value: Value) -> Self {
        match &value {
            Value::Number(n) if !n.is_f64() => n.as_i64().map_or(Self::Other(value), Self::Int),
            _ => Self::Other(value),
        }
    }

    /// `counter < bound`.
    pub(super) fn less_than(&self, bound: i64) -> Result<bool, PyTypeError> {
        match self {
            Self::Int(n) => Ok(*n < bound),
            Self::Other(value) => less_than(value, bound),
        }
    }

    /// `counter += 1`; returns the new value, for `step_count`.
    pub(super) fn advance(&mut self) -> Result<Value, PyTypeError> {
        let next = match self {
            Self::Int(n) => match n.checked_add(1) {
                Some(next) => Self::Int(next),
                None => Self::Other(add_one(&Value::from(*n))?),
            },
            Self::Other(value) => Self::from_value(add_one(value)?),
        };
        *self = next;
        Ok(self.to_value())
    }

    /// The counter as a JSON value.
    pub(super) fn to_value(&self) -> Value {
        match self {
            Self::Int(n) => Value::from(*n),
            Self::Other(value) => value.clone(),
        }
    }

    /// The `int` for messages and spans (see [`step_number`]).
    pub(super) fn number(&self) -> i64 {
        match self {
            Self::Int(n) => *n,
            Self::Other(value) => step_number(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn advanced(value: Value) -> Value {
        StepCounter::from_value(value).advance().unwrap()
    }

    #[test]
    fn an_integer_counts_in_64_bits_and_writes_an_integer() {
        let mut counter = StepCounter::from_value(json!(41));
        assert_eq!(counter, StepCounter::Int(41));
        assert_eq!(counter.advance(), Ok(json!(42)));
        assert_eq!(counter.number(), 42);
        assert_eq!(counter.less_than(43), Ok(true));
        assert_eq!(counter.less_than(42), Ok(false));
    }

    #[test]
    fn a_float_or_a_bool_adds_as_python_does() {
        assert_eq!(advanced(json!(1.5)), json!(2.5));
        assert_eq!(advanced(json!(true)), json!(2));
        assert_eq!(
            StepCounter::from_value(json!(1.0)),
            StepCounter::Other(json!(1.0))
        );
    }

    #[test]
    fn the_largest_64_bit_integer_still_adds_one() {
        assert_eq!(
            advanced(json!(i64::MAX)).to_string(),
            add_one(&json!(i64::MAX)).unwrap().to_string()
        );
    }

    #[test]
    fn a_value_that_is_no_number_fails_with_python_s_error() {
        let counter = StepCounter::from_value(json!("3"));
        assert_eq!(
            counter.less_than(10).unwrap_err().to_string(),
            "'<' not supported between instances of 'str' and 'int'"
        );
        assert!(StepCounter::from_value(json!(null)).advance().is_err());
    }
}
