//! Expected-versus-actual diffs for failed expectations.

use serde_json::Value;
use similar::{Algorithm, DiffOp, DiffTag, capture_diff_slices};
use std::hash::Hash;

/// The most lines the two sides of a diff may hold, once their common start
/// and end are set aside, for a minimal (Myers) diff: its work grows with
/// the lines times the edits, so two long lists that differ throughout
/// (70,000 hook runs against 9 expected) took minutes. Past it the middle
/// is one change: its lines removed, then the other side's added. A count,
/// not a deadline, so the same input always gives the same diff.
const MINIMAL_DIFF_LINES: usize = 2_000;

/// The operations that turn `old` into `new`: Myers' minimal diff, or,
/// for a long middle (see [`MINIMAL_DIFF_LINES`]), the common start and
/// end kept and the middle replaced whole.
pub(crate) fn ops<T: Hash + Eq + Ord>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let end = old[start..]
        .iter()
        .rev()
        .zip(new[start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_middle, new_middle) = (old.len() - start - end, new.len() - start - end);
    if old_middle + new_middle <= MINIMAL_DIFF_LINES || old_middle == 0 || new_middle == 0 {
        return capture_diff_slices(Algorithm::Myers, old, new);
    }
    let mut ops = Vec::with_capacity(3);
    if start > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: start,
        });
    }
    ops.push(DiffOp::Replace {
        old_index: start,
        old_len: old_middle,
        new_index: start,
        new_len: new_middle,
    });
    if end > 0 {
        ops.push(DiffOp::Equal {
            old_index: start + old_middle,
            new_index: start + new_middle,
            len: end,
        });
    }
    ops
}

/// A line diff of two JSON values, one list item or map entry per line, or
/// `None` unless both are lists or both maps (a matcher against a value, or
/// a scalar, is said whole by the failure's line).
pub(crate) fn json_diff(expected: &Value, actual: &Value) -> Option<String> {
    let comparable =
        (expected.is_array() && actual.is_array()) || (expected.is_object() && actual.is_object());
    if !comparable {
        return None;
    }
    let left = lines(expected);
    let right = lines(actual);
    let mut out = String::new();
    let mut push = |sign: &str, line: &str| {
        out.push_str(sign);
        out.push_str(line);
        out.push('\n');
    };
    for op in ops(&left, &right) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => left[old].iter().for_each(|l| push("  ", l)),
            DiffTag::Delete => left[old].iter().for_each(|l| push("- ", l)),
            DiffTag::Insert => right[new].iter().for_each(|l| push("+ ", l)),
            DiffTag::Replace => {
                left[old].iter().for_each(|l| push("- ", l));
                right[new].iter().for_each(|l| push("+ ", l));
            }
        }
    }
    Some(out)
}

fn lines(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().map(|v| v.to_string()).collect(),
        Value::Object(map) => map.iter().map(|(k, v)| format!("{k}: {v}")).collect(),
        other => vec![other.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_diff_marks_missing_and_extra_items() {
        let diff = json_diff(&json!(["a", "b"]), &json!(["a", "c"])).unwrap();
        assert_eq!(diff, "  \"a\"\n- \"b\"\n+ \"c\"\n");
    }

    #[test]
    fn long_lists_that_differ_throughout_are_one_change_between_their_common_ends() {
        let expected: Vec<Value> = ["a", "b", "c", "z"].iter().map(|s| json!(s)).collect();
        let mut actual = vec![json!("a")];
        actual.extend((0..70_000).map(|i| json!(format!("x{}", i % 3))));
        actual.push(json!("z"));
        let diff = json_diff(&Value::Array(expected), &Value::Array(actual)).unwrap();
        let lines: Vec<&str> = diff.lines().collect();
        assert_eq!(lines.len(), 2 + 2 + 70_000);
        assert_eq!(&lines[..4], ["  \"a\"", "- \"b\"", "- \"c\"", "+ \"x0\""]);
        assert_eq!(lines[lines.len() - 1], "  \"z\"");
    }

    #[test]
    fn a_short_middle_gets_the_minimal_diff() {
        let old = ["a", "b", "c", "d"];
        let new = ["a", "c", "d", "e"];
        assert_eq!(
            ops(&old, &new),
            capture_diff_slices(Algorithm::Myers, &old, &new)
        );
    }

    #[test]
    fn a_matcher_against_a_list_is_not_diffed_line_by_line() {
        assert_eq!(json_diff(&json!({"contains": ["a"]}), &json!(["b"])), None);
        assert_eq!(json_diff(&json!(["a"]), &json!(null)), None);
    }
}
