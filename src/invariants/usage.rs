//! The expected `token_usage`: Haystack's recursive sum of usage maps,
//! written here apart from the loop's own accounting so that the two check
//! each other.

use serde_json::{Map, Number, Value};

/// The `token_usage` a run reports after replies with these usages, in
/// order: maps are summed key by key, recursively; numbers add (booleans
/// count as 0 and 1, an integer plus a float is a float); any other value
/// is replaced by the newer one; keys keep their first position.
///
/// ```
/// use hookharness::invariants::sum_usages;
/// use serde_json::json;
///
/// let a = json!({"prompt_tokens": 5, "details": {"cached": 1}, "model": "a"});
/// let b = json!({"prompt_tokens": 2, "details": {"cached": 2}, "model": "b", "flag": true});
/// let total = sum_usages([a.as_object().unwrap(), b.as_object().unwrap()]);
/// assert_eq!(total, json!({"prompt_tokens": 7, "details": {"cached": 3}, "model": "b", "flag": true}));
/// assert_eq!(sum_usages([]), json!({}));
/// ```
pub fn sum_usages<'a>(usages: impl IntoIterator<Item = &'a Map<String, Value>>) -> Value {
    let mut total = Map::new();
    for usage in usages {
        merge(&mut total, usage);
    }
    Value::Object(total)
}

fn merge(total: &mut Map<String, Value>, usage: &Map<String, Value>) {
    for (key, new) in usage {
        let Some(old) = total.get_mut(key) else {
            total.insert(key.clone(), new.clone());
            continue;
        };
        if let (Value::Object(old), Value::Object(new)) = (&mut *old, new) {
            merge(old, new);
            continue;
        }
        *old = plus(old, new).unwrap_or_else(|| new.clone());
    }
}

/// `old + new` when both are numbers (booleans included).
fn plus(old: &Value, new: &Value) -> Option<Value> {
    let int = |v: &Value| match v {
        Value::Bool(b) => Some(i128::from(*b)),
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    };
    let float = |v: &Value| match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    if let (Some(a), Some(b)) = (int(old), int(new)) {
        let sum = a + b;
        return Some(match i64::try_from(sum) {
            Ok(i) => Value::from(i),
            Err(_) => u64::try_from(sum).map_or_else(
                |_| Number::from_f64(sum as f64).map_or(Value::Null, Value::Number),
                Value::from,
            ),
        });
    }
    let (a, b) = (float(old)?, float(new)?);
    Some(Number::from_f64(a + b).map_or(Value::Null, Value::Number))
}
