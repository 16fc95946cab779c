//! Jinja2's `round(value, precision=0, method='common')`, as Python runs
//! it:
//!
//! - `common` is Python's `round(value, precision)`: an integer stays an
//!   integer, a float is rounded half to even at the decimal digit (a
//!   precision of `None` rounds to an integer), with Python's `TypeError`
//!   for a value or a precision of another type;
//! - `floor` and `ceil` are `math.floor(value * 10 ** precision) / 10 **
//!   precision`: always a float (`5|round(method='floor')` is `5.0`), with
//!   the errors of each of those operations (`10 ** None`, `None * 1`,
//!   `math.floor('2')`, a float too large for an integer).

use super::arith;
use super::pystr::{python_type, type_error};
use super::python_math::{self, Number};
use super::render::haystack_error;
use super::signature::{Hints, Signature};
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

/// Jinja2's `do_round(value, precision=0, method='common')`.
const ROUND: Signature = Signature {
    function: "do_round",
    leading: 1,
    parameters: &["precision", "method"],
    required: 0,
};

/// The precision past which Python's `round` gives a float back unchanged
/// (or zero, below its negative): beyond any float's digits.
const PRECISION_BOUND: i128 = 10_000;

/// Jinja2's `do_round`.
pub(super) fn round(
    state: &State,
    value: JinjaValue,
    positional: Rest<JinjaValue>,
    kwargs: Kwargs,
) -> Result<JinjaValue, Error> {
    let hints = Hints::take(&kwargs)?;
    let mut bound = ROUND.bind(&positional, &kwargs)?.into_iter();
    let (precision, method) = (bound.next().flatten(), bound.next().flatten());
    let method = match &method {
        None => "common",
        Some(m) => match m.as_str().filter(|_| m.kind() == ValueKind::String) {
            Some(name @ ("common" | "ceil" | "floor")) => name,
            _ => {
                return Err(haystack_error(
                    "FilterArgumentError: method must be common, ceil or floor".to_owned(),
                ));
            }
        },
    };
    let precision = precision.unwrap_or(JinjaValue::from(0));
    if method == "common" {
        common(value, &precision)
    } else {
        directed(state, (value, &hints), precision, method == "floor")
    }
}

/// Python's `round(value, precision)`.
fn common(value: JinjaValue, precision: &JinjaValue) -> Result<JinjaValue, Error> {
    let Some(number) = Number::of(&value) else {
        return Err(type_error(format!(
            "type {} doesn't define __round__ method",
            python_type(&value)
        )));
    };
    if precision.is_none() {
        return match number {
            Number::Int(n) => Ok(python_math::int(n)),
            Number::Float(x) => float_to_int(x.round_ties_even()),
        };
    }
    let Some(Number::Int(digits)) = Number::of(precision) else {
        return Err(type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            python_type(precision)
        )));
    };
    let value = match number {
        Number::Int(n) => python_math::int(n),
        Number::Float(x) => JinjaValue::from(x),
    };
    let digits = digits.clamp(-PRECISION_BOUND, PRECISION_BOUND) as i32;
    minijinja::filters::round(
        value,
        Some(digits),
        None,
        Kwargs::from_iter(Vec::<(&str, JinjaValue)>::new()),
    )
}

/// `math.floor(value * 10 ** precision) / 10 ** precision` (`ceil` for
/// `floor` false).
fn directed(
    state: &State,
    (value, hints): (JinjaValue, &Hints),
    precision: JinjaValue,
    floor: bool,
) -> Result<JinjaValue, Error> {
    // `10 ** precision` first, then `value * …`: an undefined name raises
    // where Python reads it.
    hints.check("precision", Some(&precision))?;
    let scale = python_math::binary(state, "**", [None, None], JinjaValue::from(10), precision)?;
    hints.check("", Some(&value))?;
    let scaled = arith::mul(state, [None, None], value, scale.clone())?;
    let whole = match Number::of(&scaled) {
        Some(Number::Int(n)) => python_math::int(n),
        Some(Number::Float(x)) => {
            let x = if floor { x.floor() } else { x.ceil() };
            float_to_int(x).or_else(|error| {
                // An integral float past 128 bits: Python's integer of
                // it divides as the float itself does.
                if x.is_finite() {
                    Ok(JinjaValue::from(x))
                } else {
                    Err(error)
                }
            })?
        }
        None => {
            return Err(type_error(format!(
                "must be real number, not {}",
                python_type(&scaled)
            )));
        }
    };
    python_math::binary(state, "/", [None, None], whole, scale)
}

/// Python's `int()` of an integral float: `OverflowError` for an infinity,
/// `ValueError` for NaN.
fn float_to_int(x: f64) -> Result<JinjaValue, Error> {
    if x.is_nan() {
        return Err(haystack_error(
            "ValueError: cannot convert float NaN to integer".to_owned(),
        ));
    }
    if x.is_infinite() {
        return Err(haystack_error(
            "OverflowError: cannot convert float infinity to integer".to_owned(),
        ));
    }
    if x.abs() < 1.7e38 {
        return Ok(python_math::int(x as i128));
    }
    Err(python_math::too_large())
}
