//! Token accounting: `token_usage` and `context_tokens`.

use crate::message::ChatMessage;
use crate::state::State;
use crate::state::keys;
use serde_json::{Map, Number, Value};

/// Folds every reply's `meta.usage` map into `token_usage` (a recursive sum).
pub(crate) fn record_llm_usage(state: &mut State, replies: &[ChatMessage]) {
    let mut current: Option<Value> = None;
    for reply in replies {
        if let Some(usage @ Value::Object(_)) = reply.meta_get("usage") {
            let base =
                current
                    .take()
                    .unwrap_or_else(|| match state.data().get(keys::TOKEN_USAGE) {
                        Some(v) if truthy_map_or_value(v) => v.clone(),
                        _ => Value::Object(Map::new()),
                    });
            current = Some(accumulate(base, usage));
        }
    }
    if let Some(total) = current {
        state.put(keys::TOKEN_USAGE, total);
    }
}

/// Python's `current or {}`: an empty map or a falsy value becomes `{}`.
fn truthy_map_or_value(value: &Value) -> bool {
    crate::value::truthy(value)
}

/// Haystack's `_accumulate_usage`: maps merge recursively, numbers add
/// (booleans count as 0/1), anything else takes the new value.
pub(crate) fn accumulate(current: Value, new: &Value) -> Value {
    match (current, new) {
        (Value::Object(mut current), Value::Object(new)) => {
            // Updated in place: existing keys keep their position, as in a
            // Python dict (`Map::remove` would move the last key into the gap).
            for (key, value) in new {
                match current.get_mut(key) {
                    Some(existing) => *existing = accumulate(existing.take(), value),
                    None => {
                        current.insert(key.clone(), value.clone());
                    }
                }
            }
            Value::Object(current)
        }
        (current, new) => match (as_number(&current), as_number(new)) {
            (Some(a), Some(b)) => add(a, b),
            _ => new.clone(),
        },
    }
}

#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

fn as_number(value: &Value) -> Option<Num> {
    match value {
        Value::Bool(b) => Some(Num::Int(i128::from(*b))),
        Value::Number(n) => Some(match n.as_i128().filter(|_| !n.is_f64()) {
            Some(i) => Num::Int(i),
            None => Num::Float(n.as_f64().unwrap_or(0.0)),
        }),
        _ => None,
    }
}

fn add(a: Num, b: Num) -> Value {
    match (a, b) {
        (Num::Int(a), Num::Int(b)) => match a.checked_add(b).and_then(Number::from_i128) {
            Some(sum) => Value::Number(sum),
            None => float(a as f64 + b as f64),
        },
        (Num::Int(a), Num::Float(b)) => float(a as f64 + b),
        (Num::Float(a), Num::Int(b)) => float(a + b as f64),
        (Num::Float(a), Num::Float(b)) => float(a + b),
    }
}

fn float(value: f64) -> Value {
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// `context_tokens` from the last reply's usage: input + output tokens,
/// written only when non-zero.
pub(crate) fn record_context_tokens(state: &mut State, replies: &[ChatMessage]) {
    let Some(Value::Object(usage)) = replies.last().and_then(|r| r.meta_get("usage")) else {
        return;
    };
    let tokens = first_numeric(usage, &["prompt_tokens", "input_tokens"])
        + first_numeric(usage, &["completion_tokens", "output_tokens"]);
    if tokens != 0 {
        state.put(keys::CONTEXT_TOKENS, Value::Number(tokens.into()));
    }
}

/// The first numeric value under `keys` (booleans skipped, floats truncated).
pub(crate) fn first_numeric(usage: &Map<String, Value>, keys: &[&str]) -> i64 {
    for key in keys {
        if let Some(Value::Number(n)) = usage.get(*key) {
            return n
                .as_i64()
                .unwrap_or_else(|| n.as_f64().map_or(0, |f| f.trunc() as i64));
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_sums_recursively_and_non_numbers_take_the_new_value() {
        let a = json!({"prompt_tokens": 5, "details": {"cached": 1}, "model": "a", "x": 5});
        let b = json!({"prompt_tokens": 2.5, "details": {"cached": 2}, "model": "b", "x": null});
        assert_eq!(
            accumulate(a, &b),
            json!({"prompt_tokens": 7.5, "details": {"cached": 3}, "model": "b", "x": null})
        );
    }

    #[test]
    fn booleans_add_as_integers() {
        assert_eq!(accumulate(json!(true), &json!(true)), json!(2));
    }

    #[test]
    fn context_tokens_ignore_total_and_skip_booleans() {
        let usage = json!({"total_tokens": 300, "prompt_tokens": true, "input_tokens": 10, "completion_tokens": 9.9});
        let map = usage.as_object().unwrap();
        assert_eq!(
            first_numeric(map, &["prompt_tokens", "input_tokens"])
                + first_numeric(map, &["completion_tokens", "output_tokens"]),
            19
        );
    }
}
