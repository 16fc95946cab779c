//! Expected-versus-actual diffs for failed expectations.

use serde_json::Value;

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
    let left: Vec<&str> = left.iter().map(String::as_str).collect();
    let right: Vec<&str> = right.iter().map(String::as_str).collect();
    let diff = similar::TextDiff::from_slices(&left, &right);
    let mut out = String::new();
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Delete => "- ",
            similar::ChangeTag::Insert => "+ ",
            similar::ChangeTag::Equal => "  ",
        };
        out.push_str(sign);
        out.push_str(change.value());
        out.push('\n');
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
    fn a_matcher_against_a_list_is_not_diffed_line_by_line() {
        assert_eq!(json_diff(&json!({"contains": ["a"]}), &json!(["b"])), None);
        assert_eq!(json_diff(&json!(["a"]), &json!(null)), None);
    }
}
