//! Matching a value with a [`ValuePattern`], and saying where it differs.

use super::render;
use crate::scenario::ValuePattern;
use crate::value::json_eq;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Where a value first differs from its pattern.
#[derive(Debug, PartialEq)]
pub(crate) struct Mismatch {
    /// The key path below the matched value (`.prompt_tokens`), empty at it.
    pub(crate) path: String,
    /// What the pattern wants there, in words.
    pub(crate) expected: String,
    /// The value found there; `None` when absent.
    pub(crate) actual: Option<Value>,
}

/// `true` when `actual` (`None`: absent) matches `pattern`.
pub(crate) fn matches(pattern: &ValuePattern, actual: Option<&Value>) -> bool {
    mismatch(pattern, actual).is_none()
}

/// The first place where `actual` (`None`: absent) does not match `pattern`.
pub(crate) fn mismatch(pattern: &ValuePattern, actual: Option<&Value>) -> Option<Mismatch> {
    let here = |expected: String| {
        Some(Mismatch {
            path: String::new(),
            expected,
            actual: actual.cloned(),
        })
    };
    match pattern {
        ValuePattern::Absent(absent) => {
            if actual.is_none() == *absent {
                None
            } else if *absent {
                here("no value".into())
            } else {
                here("a value".into())
            }
        }
        ValuePattern::Equals(want) => match actual {
            Some(got) if json_eq(got, want) => None,
            _ => here(render(want)),
        },
        ValuePattern::Contains(part) => match actual {
            Some(got) if contains(got, part) => None,
            _ => here(format!("a value containing {}", render(part))),
        },
        ValuePattern::Range { gte, lte } => {
            let inside = match actual {
                Some(Value::Number(n)) => {
                    gte.as_ref().is_none_or(|low| at_least(n, low))
                        && lte.as_ref().is_none_or(|high| at_least(high, n))
                }
                _ => false,
            };
            if inside {
                return None;
            }
            let bounds: Vec<String> = [(">=", gte), ("<=", lte)]
                .into_iter()
                .filter_map(|(op, bound)| bound.as_ref().map(|b| format!("{op} {b}")))
                .collect();
            here(format!("a number {}", bounds.join(" and ")))
        }
        ValuePattern::Map(fields) => {
            let Some(Value::Object(got)) = actual else {
                return here(format!("a map matching {}", render(&pattern.to_value())));
            };
            if let Some(extra) = got.keys().find(|key| !fields.contains_key(*key)) {
                return Some(Mismatch {
                    path: format!(".{extra}"),
                    expected: "no such key".into(),
                    actual: got.get(extra).cloned(),
                });
            }
            fields.iter().find_map(|(key, field)| {
                mismatch(field, got.get(key)).map(|inner| Mismatch {
                    path: format!(".{key}{}", inner.path),
                    ..inner
                })
            })
        }
    }
}

/// `{contains: part}`: a substring, list items (or one item), map entries.
fn contains(value: &Value, part: &Value) -> bool {
    match (value, part) {
        (Value::String(text), Value::String(part)) => text.contains(part.as_str()),
        (Value::Array(items), Value::Array(parts)) => parts
            .iter()
            .all(|part| items.iter().any(|item| json_eq(item, part))),
        (Value::Array(items), part) => items.iter().any(|item| json_eq(item, part)),
        (Value::Object(map), Value::Object(parts)) => parts
            .iter()
            .all(|(key, part)| map.get(key).is_some_and(|v| json_eq(v, part))),
        _ => false,
    }
}

/// `a >= b`, exactly for integers of up to 128 bits, as floats otherwise.
fn at_least(a: &Number, b: &Number) -> bool {
    let order = match (a.as_i128(), b.as_i128()) {
        // `as_i128` is `None` for floats: two `Some`s are two integers.
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a
            .as_f64()
            .and_then(|a| b.as_f64().and_then(|b| a.partial_cmp(&b))),
    };
    matches!(order, Some(Ordering::Greater | Ordering::Equal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;
    use serde_json::json;

    fn range(gte: Option<f64>, lte: Option<f64>) -> ValuePattern {
        ValuePattern::Range {
            gte: gte.and_then(Number::from_f64),
            lte: lte.and_then(Number::from_f64),
        }
    }

    #[test]
    fn contains_reads_substrings_list_items_and_map_entries() {
        let contains =
            |part: Value, value: Value| matches(&ValuePattern::Contains(part), Some(&value));
        assert!(contains(json!("fus"), json!("fusion")));
        assert!(!contains(json!("fis"), json!("fusion")));
        assert!(contains(json!(["a", 1.0]), json!(["b", 1, "a"])));
        assert!(contains(json!("b"), json!(["b"])));
        assert!(!contains(json!(["a", "c"]), json!(["a", "b"])));
        assert!(contains(json!({"a": 1}), json!({"a": 1, "b": 2})));
        assert!(!contains(json!({"a": 2}), json!({"a": 1})));
        assert!(!contains(json!("1"), json!(1)));
    }

    #[test]
    fn ranges_are_inclusive_and_want_a_number() {
        let both = range(Some(1.0), Some(3.0));
        assert!(matches(&both, Some(&json!(1))));
        assert!(matches(&both, Some(&json!(3.0))));
        assert!(!matches(&both, Some(&json!(3.5))));
        assert!(!matches(&both, Some(&json!("2"))));
        assert!(!matches(&both, None));
        let low = ValuePattern::Range {
            gte: Some(Number::from(i64::MAX)),
            lte: None,
        };
        assert!(!matches(&low, Some(&json!(i64::MAX - 1))));
        assert!(matches(&low, Some(&json!(i64::MAX))));
    }

    #[test]
    fn absent_true_wants_no_value_and_absent_false_any_value() {
        assert!(matches(&ValuePattern::Absent(true), None));
        assert!(!matches(&ValuePattern::Absent(true), Some(&Value::Null)));
        assert!(matches(&ValuePattern::Absent(false), Some(&Value::Null)));
        assert!(!matches(&ValuePattern::Absent(false), None));
    }

    #[test]
    fn a_map_pattern_names_the_first_key_that_differs() {
        let mut fields = IndexMap::new();
        fields.insert("prompt_tokens".to_owned(), range(Some(10.0), None));
        fields.insert("cached".to_owned(), ValuePattern::Absent(true));
        let pattern = ValuePattern::Map(fields);
        assert!(matches(&pattern, Some(&json!({"prompt_tokens": 12}))));
        assert_eq!(
            mismatch(&pattern, Some(&json!({"prompt_tokens": 3}))),
            Some(Mismatch {
                path: ".prompt_tokens".into(),
                expected: "a number >= 10.0".into(),
                actual: Some(json!(3)),
            })
        );
        assert_eq!(
            mismatch(&pattern, Some(&json!({"prompt_tokens": 12, "cached": 1}))),
            Some(Mismatch {
                path: ".cached".into(),
                expected: "no value".into(),
                actual: Some(json!(1)),
            })
        );
    }
}
