//! Python's `sorted(keys, reverse=…)` as the order it leaves the items in:
//! the comparisons CPython's `list.sort` makes, so that keys it cannot
//! order fail with its `TypeError` (naming the same two types in the same
//! order) and keys no order holds for (a NaN among numbers) end where
//! CPython leaves them.
//!
//! A list of fewer than 64 items is sorted as CPython sorts it: a run
//! counted from the start (reversed when descending), then a binary
//! insertion of each item after it. A longer one is merged by a stable
//! merge sort that, like CPython's, only ever asks "is this less than
//! that": the same order for keys that are ordered, an error for a pair
//! it meets that Python does not order, and never a panic for keys that
//! are not (Rust's own sort checks that its order is total).

use super::compare;
use minijinja::Error;
use minijinja::value::Value as JinjaValue;

/// Below this many items CPython's `list.sort` is one run extended by
/// binary insertion (its `MIN_MERGE`).
const INSERTION_ONLY: usize = 64;

/// A pair of keys Python does not order: its error, and the indexes of
/// the keys, the one it asked `<` of first.
#[derive(Debug)]
pub(super) struct Unordered {
    pub(super) error: Error,
    pub(super) left: usize,
    pub(super) right: usize,
}

impl From<Unordered> for Error {
    fn from(unordered: Unordered) -> Error {
        unordered.error
    }
}

/// The indexes of `keys` in the order `sorted(keys, reverse=reverse)`
/// gives them (stable: equal keys keep their order), or Python's error for
/// the first pair of keys it does not order.
pub(super) fn sorted(keys: &[JinjaValue], reverse: bool) -> Result<Vec<usize>, Unordered> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    // `list.sort(reverse=True)` reverses the list, sorts it and reverses
    // it again, so that equal keys keep their order.
    if reverse {
        order.reverse();
    }
    let less = |left: usize, right: usize| {
        compare::less(&keys[left], &keys[right]).map_err(|error| Unordered { error, left, right })
    };
    if order.len() < INSERTION_ONLY {
        insertion_sort(&mut order, less)?;
    } else {
        merge_sort(&mut order, less)?;
    }
    if reverse {
        order.reverse();
    }
    Ok(order)
}

/// CPython's `count_run` from the start, then `binarysort` of the rest.
fn insertion_sort(
    order: &mut [usize],
    less: impl Fn(usize, usize) -> Result<bool, Unordered>,
) -> Result<(), Unordered> {
    let n = order.len();
    if n < 2 {
        return Ok(());
    }
    let mut run = 2;
    if less(order[1], order[0])? {
        while run < n && less(order[run], order[run - 1])? {
            run += 1;
        }
        order[..run].reverse();
    } else {
        while run < n && !less(order[run], order[run - 1])? {
            run += 1;
        }
    }
    for start in run..n {
        let pivot = order[start];
        let (mut low, mut high) = (0, start);
        while low < high {
            let middle = low + (high - low) / 2;
            if less(pivot, order[middle])? {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        order[low..=start].rotate_right(1);
    }
    Ok(())
}

/// A stable bottom-up merge sort that decides by `less` alone.
fn merge_sort(
    order: &mut Vec<usize>,
    less: impl Fn(usize, usize) -> Result<bool, Unordered>,
) -> Result<(), Unordered> {
    let n = order.len();
    let mut width = 1;
    let mut merged = Vec::with_capacity(n);
    while width < n {
        merged.clear();
        for start in (0..n).step_by(2 * width) {
            let middle = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, middle);
            while i < middle && j < end {
                // The right item goes first only when it is less: equal
                // keys keep their order.
                if less(order[j], order[i])? {
                    merged.push(order[j]);
                    j += 1;
                } else {
                    merged.push(order[i]);
                    i += 1;
                }
            }
            merged.extend_from_slice(&order[i..middle]);
            merged.extend_from_slice(&order[j..end]);
        }
        std::mem::swap(order, &mut merged);
        width *= 2;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(items: &[f64]) -> Vec<JinjaValue> {
        items.iter().map(|x| JinjaValue::from(*x)).collect()
    }

    #[test]
    fn equal_keys_keep_their_order_either_way() {
        let keys = values(&[2.0, 1.0, 2.0, 1.0]);
        assert_eq!(sorted(&keys, false).unwrap(), vec![1, 3, 0, 2]);
        assert_eq!(sorted(&keys, true).unwrap(), vec![0, 2, 1, 3]);
    }

    #[test]
    fn a_nan_stays_where_cpython_leaves_it() {
        // Python: sorted([nan, 1, nan, 0]) is [nan, 1, nan, 0].
        let keys = values(&[f64::NAN, 1.0, f64::NAN, 0.0]);
        assert_eq!(sorted(&keys, false).unwrap(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn long_lists_with_nans_sort_without_a_panic() {
        let items: Vec<f64> = (0..500)
            .map(|i| {
                if i % 7 == 0 {
                    f64::NAN
                } else {
                    f64::from(i % 13)
                }
            })
            .collect();
        let order = sorted(&values(&items), false).unwrap();
        let mut seen = order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
    }

    #[test]
    fn long_ordered_lists_are_sorted_stably() {
        let items: Vec<f64> = (0..300).map(|i| f64::from((i * 37) % 11)).collect();
        let order = sorted(&values(&items), false).unwrap();
        for pair in order.windows(2) {
            let (a, b) = (items[pair[0]], items[pair[1]]);
            assert!(a < b || (a == b && pair[0] < pair[1]));
        }
    }
}
