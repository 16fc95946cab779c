//! Jinja2's `batch(value, linecount, fill_with=None)` and `slice(value,
//! slices, fill_with=None)` as Python runs them. Each is a generator
//! ([`generator`]) whose error raises where it is first read, after the
//! lists it gave before (`{{ 'y' if 5|batch(2) }}` holds):
//!
//! - `batch` closes a list when its length equals `linecount` (Python's
//!   `==`: a count that is no number never does, `batch(0)` gives an empty
//!   list first), and fills the last one while its length is below the
//!   count (Python's `<` and list repetition: `TypeError` for a string or
//!   a float count);
//! - `slice` divides the length by the count (`ZeroDivisionError` for 0,
//!   `TypeError` for a string) and gives `range(slices)` lists (none for a
//!   negative count, `TypeError` for a float).

use super::budget;
use super::compare;
use super::generator;
use super::iterating_filters;
use super::pystr::{python_type, type_error};
use super::python_math::Number;
use super::render::haystack_error;
use super::signature::{Hints, Signature};
use minijinja::value::{Kwargs, Rest, Value as JinjaValue};
use minijinja::{Environment, Error, ErrorKind, State};

/// Jinja2's `do_batch(value, linecount, fill_with=None)`.
const BATCH: Signature = Signature {
    function: "do_batch",
    leading: 1,
    parameters: &["linecount", "fill_with"],
    required: 1,
};

/// Jinja2's `sync_do_slice(value, slices, fill_with=None)`.
const SLICE: Signature = Signature {
    function: "sync_do_slice",
    leading: 1,
    parameters: &["slices", "fill_with"],
    required: 1,
};

/// Registers `batch` and `slice` over minijinja's own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    env.add_filter(
        "batch",
        |state: &State, value: JinjaValue, args: Rest<JinjaValue>, kwargs: Kwargs| {
            let (count, fill) = bind(&BATCH, &args, &kwargs)?;
            let lists = batches(state, read(&value), &count, fill);
            generator::generator("do_batch", &JinjaValue::from(lists))
        },
    );
    env.add_filter(
        "slice",
        |state: &State, value: JinjaValue, args: Rest<JinjaValue>, kwargs: Kwargs| {
            let hints = Hints::take(&kwargs)?;
            let (count, fill) = bind(&SLICE, &args, &kwargs)?;
            let lists = slices(state, read(&value), (&count, &hints), fill);
            generator::generator("sync_do_slice", &JinjaValue::from(lists))
        },
    );
}

/// The count and the filler (`None` when not given or `none`) a call
/// binds to `signature`.
fn bind(
    signature: &Signature,
    args: &[JinjaValue],
    kwargs: &Kwargs,
) -> Result<(JinjaValue, Option<JinjaValue>), Error> {
    let mut bound = signature.bind(args, kwargs)?.into_iter();
    let count = bound.next().flatten().unwrap_or_default();
    let fill = bound.next().flatten().filter(|fill| !fill.is_none());
    Ok((count, fill))
}

/// The items of `value` up to the first that fails, and its error (Python's
/// `TypeError` for a value it does not iterate).
fn read(value: &JinjaValue) -> (Vec<JinjaValue>, Option<Error>) {
    if let Some(error) = iterating_filters::not_iterable(value) {
        return (Vec::new(), Some(error));
    }
    let mut items = Vec::new();
    let iter = match value.try_iter() {
        Ok(iter) => iter,
        Err(error) => return (items, Some(error)),
    };
    for item in iter.checked() {
        match item {
            Ok(item) => items.push(item),
            Err(error) => return (items, Some(error)),
        }
    }
    (items, None)
}

/// `do_batch`'s lists, the last an error where Python raises one.
fn batches(
    state: &State,
    (items, failure): (Vec<JinjaValue>, Option<Error>),
    count: &JinjaValue,
    fill: Option<JinjaValue>,
) -> Vec<JinjaValue> {
    // `len(tmp) == linecount`.
    let closes = |len: usize| match Number::of(count) {
        Some(Number::Int(n)) => n == len as i128,
        Some(Number::Float(x)) => x == len as f64,
        None => false,
    };
    let mut lists = Vec::new();
    if let Err(error) = budget::ensure_items(state, (items.len() as u64).saturating_mul(2), false) {
        lists.push(JinjaValue::from(error));
        return lists;
    }
    let mut tmp = Vec::new();
    for item in items {
        if closes(tmp.len()) {
            lists.push(JinjaValue::from(std::mem::take(&mut tmp)));
        }
        tmp.push(item);
    }
    if let Some(error) = failure {
        lists.push(JinjaValue::from(error));
        return lists;
    }
    if tmp.is_empty() {
        return lists;
    }
    if let Some(fill) = fill {
        if let Err(error) = pad(state, &mut tmp, count, fill) {
            lists.push(JinjaValue::from(error));
            return lists;
        }
    }
    lists.push(JinjaValue::from(tmp));
    lists
}

/// `if len(tmp) < linecount: tmp += [fill_with] * (linecount - len(tmp))`.
fn pad(
    state: &State,
    tmp: &mut Vec<JinjaValue>,
    count: &JinjaValue,
    fill: JinjaValue,
) -> Result<(), Error> {
    if !compare::less(&JinjaValue::from(tmp.len()), count)? {
        return Ok(());
    }
    let Some(Number::Int(n)) = Number::of(count) else {
        return Err(type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            python_type(count)
        )));
    };
    // Past `sys.maxsize`, Python cannot repeat a list that many times.
    let Ok(more) = i64::try_from(n - tmp.len() as i128) else {
        return Err(haystack_error(
            "OverflowError: cannot fit 'int' into an index-sized integer".to_owned(),
        ));
    };
    let more = more as u64;
    budget::ensure_items(state, more, false)?;
    tmp.extend(std::iter::repeat_n(fill, more as usize));
    Ok(())
}

/// `do_slice`'s lists, or the error Python raises before the first.
fn slices(
    state: &State,
    (items, failure): (Vec<JinjaValue>, Option<Error>),
    (count, hints): (&JinjaValue, &Hints),
    fill: Option<JinjaValue>,
) -> Vec<JinjaValue> {
    let failed = |error: Error| vec![JinjaValue::from(error)];
    // `seq = list(value)`, then `len(seq) // slices`, then `range(slices)`.
    if let Some(error) = failure {
        return failed(error);
    }
    let zero = |text: &str| haystack_error(format!("ZeroDivisionError: {text}"));
    let count = match Number::of(count) {
        Some(Number::Int(0)) => return failed(zero("integer division or modulo by zero")),
        Some(Number::Int(n)) => n,
        Some(Number::Float(0.0)) => return failed(zero("float floor division by zero")),
        Some(Number::Float(_)) => {
            return failed(type_error(
                "'float' object cannot be interpreted as an integer".to_owned(),
            ));
        }
        None if count.is_undefined() => {
            let error = hints.check("slices", Some(count)).err();
            return failed(error.unwrap_or_else(|| Error::from(ErrorKind::UndefinedError)));
        }
        None => {
            return failed(type_error(format!(
                "unsupported operand type(s) for //: 'int' and '{}'",
                python_type(count)
            )));
        }
    };
    let Ok(count) = u64::try_from(count) else {
        return Vec::new();
    };
    if let Err(error) = budget::ensure_items(state, count.saturating_add(items.len() as u64), false)
    {
        return failed(error);
    }
    // Within the budget, so within memory.
    let count = count as usize;
    let (per_slice, with_extra) = (items.len() / count, items.len() % count);
    let mut lists = Vec::with_capacity(count);
    let mut offset = 0;
    for number in 0..count {
        let start = offset + number * per_slice;
        if number < with_extra {
            offset += 1;
        }
        let end = offset + (number + 1) * per_slice;
        let mut tmp = items[start..end].to_vec();
        if let Some(fill) = fill.as_ref().filter(|_| number >= with_extra) {
            tmp.push(fill.clone());
        }
        lists.push(JinjaValue::from(tmp));
    }
    lists
}
