//! Python's `-`, `/`, `//`, `**` and unary `-` in a template
//! (`__py_sub`, `__py_div`, `__py_floordiv`, `__py_pow`, `__py_neg`).
//!
//! minijinja computes them over numbers as Rust does and names its own
//! errors (`unable to calculate 1 / 0`, `tried to use - operator on
//! unsupported types string and number`); Jinja2 computes them as Python:
//! `ZeroDivisionError: division by zero`, `TypeError: unsupported operand
//! type(s) for -: 'str' and 'int'`, `-true` is `-1`, `0 ** -1` is
//! `ZeroDivisionError`. Integers are 128 bits here (Python's have no bound:
//! docs/deviations.md, `large-integers`); a negative number to a fractional
//! power, complex in Python, is an error naming that.

use super::pystr;
use super::render::haystack_error;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

/// A number as Python computes with it: booleans are integers.
#[derive(Clone, Copy)]
pub(super) enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    /// `value` as a number, when it is one (or a boolean).
    pub(super) fn of(value: &JinjaValue) -> Option<Number> {
        match value.kind() {
            ValueKind::Bool => Some(Number::Int(i128::from(value.is_true()))),
            ValueKind::Number if value.is_integer() => {
                i128::try_from(value.clone()).ok().map(Number::Int)
            }
            ValueKind::Number => f64::try_from(value.clone()).ok().map(Number::Float),
            _ => None,
        }
    }

    /// How Python orders the two numbers: exactly, an integer against a
    /// float too (`2**53 + 1 > 2.0**53`); `None` for a NaN.
    pub(super) fn cmp(self, other: Number) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => Some(a.cmp(&b)),
            (Number::Int(a), Number::Float(b)) => int_float_cmp(a, b),
            (Number::Float(a), Number::Int(b)) => int_float_cmp(b, a).map(|o| o.reverse()),
            (Number::Float(a), Number::Float(b)) => a.partial_cmp(&b),
        }
    }

    /// The number as a float.
    pub(super) fn float(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Float(x) => x,
        }
    }
}

/// How the integer `int` orders against `float`, exactly (CPython's
/// `float_richcompare`); `None` for a NaN.
fn int_float_cmp(int: i128, float: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if float.is_nan() {
        return None;
    }
    // 2**127: past every `i128` (and every infinity).
    const BOUND: f64 = 1.7014118346046923e38;
    let whole = float.trunc();
    if whole >= BOUND {
        return Some(Ordering::Less);
    }
    if whole < -BOUND {
        return Some(Ordering::Greater);
    }
    Some(match int.cmp(&(whole as i128)) {
        Ordering::Equal => 0.0f64
            .partial_cmp(&(float - whole))
            .unwrap_or(Ordering::Equal),
        unequal => unequal,
    })
}

/// An integer as a template value (64 bits where it fits).
pub(super) fn int(n: i128) -> JinjaValue {
    i64::try_from(n).map_or(JinjaValue::from(n), JinjaValue::from)
}

/// Python's exact integer, past what the harness's templates hold.
pub(super) fn too_large() -> Error {
    haystack_error(
        "OverflowError: the integer is past 128 bits, which the harness's templates hold \
         (Python's are unbounded)"
            .to_owned(),
    )
}

fn zero_division(text: &str) -> Error {
    haystack_error(format!("ZeroDivisionError: {text}"))
}

/// `left op right` for `op` one of `-`, `/`, `//`, `**`; `hints` say what
/// Jinja2 raises for an undefined name.
pub(super) fn binary(
    state: &State,
    op: &str,
    hints: [Option<String>; 2],
    left: JinjaValue,
    right: JinjaValue,
) -> Result<JinjaValue, Error> {
    for (operand, hint) in [&left, &right].into_iter().zip(&hints) {
        if let (true, Some(hint)) = (operand.is_undefined(), hint) {
            return Err(haystack_error(format!("UndefinedError: {hint}")));
        }
    }
    let (Some(a), Some(b)) = (Number::of(&left), Number::of(&right)) else {
        if let (Some(x), Some(y)) = (pystr::builtin_type(&left), pystr::builtin_type(&right)) {
            let shown = if op == "**" { "** or pow()" } else { op };
            return Err(pystr::type_error(format!(
                "unsupported operand type(s) for {shown}: '{x}' and '{y}'"
            )));
        }
        // A value of no Python built-in type: minijinja's operator.
        let source = match op {
            "-" => "left - right",
            "/" => "left / right",
            "//" => "left // right",
            _ => "left ** right",
        };
        let expression = state.env().compile_expression(source)?;
        return expression.eval(minijinja::context! { left, right });
    };
    match op {
        "-" => Ok(match (a, b) {
            (Number::Int(a), Number::Int(b)) => int(a.checked_sub(b).ok_or_else(too_large)?),
            (a, b) => JinjaValue::from(a.float() - b.float()),
        }),
        "/" => divide(a, b),
        "//" => floor_divide(a, b),
        _ => power(a, b),
    }
}

/// Python's `a / b`.
fn divide(a: Number, b: Number) -> Result<JinjaValue, Error> {
    match (a, b) {
        (Number::Int(_), Number::Int(0)) => Err(zero_division("division by zero")),
        (_, b) if b.float() == 0.0 => Err(zero_division("float division by zero")),
        (a, b) => Ok(JinjaValue::from(a.float() / b.float())),
    }
}

/// Python's `a // b`: the floor of the quotient.
fn floor_divide(a: Number, b: Number) -> Result<JinjaValue, Error> {
    match (a, b) {
        (Number::Int(_), Number::Int(0)) => {
            Err(zero_division("integer division or modulo by zero"))
        }
        (Number::Int(a), Number::Int(b)) => {
            let q = a.checked_div(b).ok_or_else(too_large)?;
            let floored = if a % b != 0 && (a < 0) != (b < 0) {
                q - 1
            } else {
                q
            };
            Ok(int(floored))
        }
        (_, b) if b.float() == 0.0 => Err(zero_division("float floor division by zero")),
        (a, b) => Ok(JinjaValue::from(float_floor_div(a.float(), b.float()))),
    }
}

/// CPython's `float_floor_div` (`float_divmod`'s quotient).
fn float_floor_div(vx: f64, wx: f64) -> f64 {
    let mut m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(wx);
    }
    let _ = m;
    if div != 0.0 {
        let floordiv = div.floor();
        if div - floordiv > 0.5 {
            floordiv + 1.0
        } else {
            floordiv
        }
    } else {
        0.0f64.copysign(vx / wx)
    }
}

/// Python's `a ** b`.
fn power(a: Number, b: Number) -> Result<JinjaValue, Error> {
    if let (Number::Int(base), Number::Int(exponent)) = (a, b) {
        if exponent >= 0 {
            let exponent = u32::try_from(exponent).map_err(|_| too_large())?;
            return base.checked_pow(exponent).map(int).ok_or_else(too_large);
        }
    }
    let (x, y) = (a.float(), b.float());
    if x == 0.0 && y < 0.0 {
        return Err(zero_division("0.0 cannot be raised to a negative power"));
    }
    if x < 0.0 && y.fract() != 0.0 && y.is_finite() {
        return Err(haystack_error(
            "ValueError: a negative number to a fractional power is a complex number in Python, \
             which the harness's templates do not compute"
                .to_owned(),
        ));
    }
    let result = x.powf(y);
    if result.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(haystack_error(
            "OverflowError: (34, 'Numerical result out of range')".to_owned(),
        ));
    }
    Ok(JinjaValue::from(result))
}

/// Python's unary `-value`.
pub(super) fn negate(value: JinjaValue) -> Result<JinjaValue, Error> {
    match Number::of(&value) {
        Some(Number::Int(n)) => n.checked_neg().map(int).ok_or_else(too_large),
        Some(Number::Float(x)) => Ok(JinjaValue::from(-x)),
        None if value.is_undefined() => Err(Error::from(minijinja::ErrorKind::UndefinedError)),
        None => Err(pystr::type_error(format!(
            "bad operand type for unary -: '{}'",
            pystr::python_type(&value)
        ))),
    }
}
