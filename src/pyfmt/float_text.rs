//! CPython 3.11's `PyOS_double_to_string` (`Python/pystrtod.c`,
//! `format_float_short`): a float's text for a presentation type and a
//! precision, before the format-spec mini-language pads and groups it.
//!
//! The digits come from Rust's own formatting, which rounds as CPython's
//! `_Py_dg_dtoa` does (exactly, ties to even): `{:e}` for the shortest
//! digits that round-trip (`repr`), `{:.N$e}` for `N + 1` significant
//! digits (`e`, `g`), `{:.N$}` for `N` digits after the point (`f`).

/// How a float is written: the presentation type's code and flags, as
/// `format_float_internal` hands them to `PyOS_double_to_string`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FloatStyle {
    /// `e`, `f`, `g` (their capitals write `E`, `INF`, `NAN`), or `r` for
    /// `repr` (the empty presentation type without a precision).
    pub(crate) code: char,
    /// Digits after the point (`e`, `f`) or significant digits (`g`).
    pub(crate) precision: usize,
    /// `#`: keep the point and `g`'s trailing zeros.
    pub(crate) alternate: bool,
    /// The empty presentation type: `.0` after an integer, and `g`'s switch
    /// to an exponent one digit earlier.
    pub(crate) add_dot_0: bool,
    /// `z`: a result that rounds to zero has no `-`.
    pub(crate) no_neg_0: bool,
}

/// The text of `value` in `style`: a `-` when negative (never for a NaN),
/// then digits, point and exponent as CPython writes them.
pub(crate) fn float_text(value: f64, style: FloatStyle) -> String {
    let upper = style.code.is_ascii_uppercase();
    let code = style.code.to_ascii_lowercase();
    if value.is_nan() {
        return if upper { "NAN" } else { "nan" }.to_owned();
    }
    let negative = value.is_sign_negative();
    if value.is_infinite() {
        let text = if upper { "INF" } else { "inf" };
        return if negative {
            format!("-{text}")
        } else {
            text.to_owned()
        };
    }
    let magnitude = value.abs();
    let (digits, decpt) = match code {
        'e' => significant(magnitude, style.precision + 1),
        'g' => significant(magnitude, style.precision.max(1)),
        'f' => fixed(magnitude, style.precision),
        _ => shortest(magnitude),
    };
    let is_zero = digits == "0";
    let mut out = String::new();
    if negative && !(style.no_neg_0 && is_zero) {
        out.push('-');
    }
    out.push_str(&layout(&digits, decpt, code, style));
    if upper {
        out = out.replace('e', "E");
    }
    out
}

/// `_Py_dg_dtoa` mode 0: the shortest digits that round-trip, without
/// trailing zeros, and the position of the point (`decpt`).
fn shortest(magnitude: f64) -> (String, i64) {
    from_exponent_form(&format!("{magnitude:e}"))
}

/// A double's exact decimal value has at most 767 significant digits, and
/// its last one at most 1,074 places after the point: rounding past these
/// gives the same digits, so no more are asked of Rust's formatting (the
/// zeros a precision asks beyond them come from `layout`).
const SIGNIFICANT_CAP: usize = 800;
const DECIMALS_CAP: usize = 1100;

/// `_Py_dg_dtoa` mode 2: `count` significant digits, trailing zeros dropped.
fn significant(magnitude: f64, count: usize) -> (String, i64) {
    let count = count.min(SIGNIFICANT_CAP);
    from_exponent_form(&format!("{magnitude:.*e}", count - 1))
}

/// `_Py_dg_dtoa` mode 3: the digits up to `decimals` after the point,
/// leading and trailing zeros dropped.
fn fixed(magnitude: f64, decimals: usize) -> (String, i64) {
    let decimals = decimals.min(DECIMALS_CAP);
    let text = format!("{magnitude:.decimals$}");
    let (int, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let all = format!("{int}{fraction}");
    let decpt = int.len() as i64;
    let trimmed = all.trim_start_matches('0');
    let decpt = decpt - (all.len() - trimmed.len()) as i64;
    normalized(trimmed.trim_end_matches('0'), decpt)
}

/// Digits and point from Rust's `d.ddde±X`.
fn from_exponent_form(text: &str) -> (String, i64) {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    normalized(digits.trim_end_matches('0'), exponent + 1)
}

/// A zero is the digit `0` with the point after it, as `_Py_dg_dtoa` gives it.
fn normalized(digits: &str, decpt: i64) -> (String, i64) {
    if digits.is_empty() {
        ("0".to_owned(), 1)
    } else {
        (digits.to_owned(), decpt)
    }
}

/// `format_float_short` after the digits: the slice of the zero-padded
/// digits to write, the point, and the exponent.
fn layout(digits: &str, decpt: i64, code: char, style: FloatStyle) -> String {
    let digits_len = digits.len() as i64;
    let precision = match code {
        'e' => style.precision as i64 + 1,
        'g' => style.precision.max(1) as i64,
        _ => style.precision as i64,
    };
    let mut decpt = decpt;
    let (mut use_exp, mut vdigits_end) = (false, digits_len);
    match code {
        'e' => {
            use_exp = true;
            vdigits_end = precision;
        }
        'f' => vdigits_end = decpt + precision,
        'g' => {
            let limit = if style.add_dot_0 {
                precision - 1
            } else {
                precision
            };
            use_exp = decpt <= -4 || decpt > limit;
            if style.alternate {
                vdigits_end = precision;
            }
        }
        _ => use_exp = decpt <= -4 || decpt > 16,
    }
    let mut exponent = 0;
    if use_exp {
        exponent = decpt - 1;
        decpt = 1;
    }
    let vdigits_start = if decpt <= 0 { decpt - 1 } else { 0 };
    let least = if !use_exp && style.add_dot_0 {
        decpt + 1
    } else {
        decpt
    };
    vdigits_end = vdigits_end.max(least);
    let zeros = |n: i64| "0".repeat(usize::try_from(n).unwrap_or(0));
    let mut out = String::new();
    if decpt <= 0 {
        out.push_str(&zeros(decpt - vdigits_start));
        out.push('.');
        out.push_str(&zeros(-decpt));
    } else {
        out.push_str(&zeros(-vdigits_start));
    }
    if 0 < decpt && decpt <= digits_len {
        let (int, fraction) = digits.split_at(decpt as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(fraction);
    } else {
        out.push_str(digits);
    }
    if digits_len < decpt {
        out.push_str(&zeros(decpt - digits_len));
        out.push('.');
        out.push_str(&zeros(vdigits_end - decpt));
    } else {
        out.push_str(&zeros(vdigits_end - digits_len));
    }
    if out.ends_with('.') && !style.alternate {
        out.pop();
    }
    if use_exp {
        let sign = if exponent < 0 { '-' } else { '+' };
        out.push_str(&format!("e{sign}{:02}", exponent.abs()));
    }
    out
}
