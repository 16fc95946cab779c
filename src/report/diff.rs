//! Expected-versus-actual diffs for failed expectations.

use serde_json::Value;

/// A line diff of two JSON values, one list item per line, or `None` when
/// neither is a list or a map (a one-line failure says it all).
pub(crate) fn json_diff(expected: &Value, actual: &Value) -> Option<String> {
    if !(expected.is_array() || expected.is_object() || actual.is_array() || actual.is_object()) {
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
}
