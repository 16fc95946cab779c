//! The outcome for snapshot tools: a `Serialize` that any serializer writes
//! as the outcome JSON, numbers as numbers.
//!
//! With the `exact-integers` feature (on by default), serde_json's numbers
//! keep their digits through a private map that only serde_json's own
//! serializer understands: insta's `assert_json_snapshot!(outcome.to_value())`
//! would write every number as `{"$serde_json::private::Number": "2"}`.
//! [`Snapshot`] hands every serializer plain integers and floats instead.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

/// [`Outcome::to_value`](super::Outcome::to_value) as a snapshot tool
/// writes it: the same keys and values, under every feature set, with
/// insta's `assert_json_snapshot!` or `assert_yaml_snapshot!` as with
/// serde_json.
///
/// An integer is written as a 64-bit integer when it fits, else as a
/// 128-bit one (which insta writes whole); a number beyond both is written
/// as the float nearest to it, as serde_json writes it without
/// `exact-integers`.
///
/// ```
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
///
/// let text = "model: [{text: hi, usage: {prompt_tokens: 2, completion_tokens: 1}}]";
/// let scenario = Scenario::from_str(text, "hi.yaml", Format::Yaml)?;
/// let outcome = Replay::new().run(&scenario);
/// // In a test: insta::assert_json_snapshot!(outcome.snapshot());
/// let written = serde_json::to_value(outcome.snapshot()).unwrap();
/// assert_eq!(written["result"]["step_count"], 1);
/// assert_eq!(written, outcome.to_value());
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot(Value);

impl Snapshot {
    pub(super) fn new(value: Value) -> Self {
        Snapshot(value)
    }
}

impl Serialize for Snapshot {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Plain(&self.0).serialize(serializer)
    }
}

/// A JSON value whose numbers are handed to the serializer as primitives.
struct Plain<'a>(&'a Value);

impl Serialize for Plain<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => number(n, serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Plain(item))?;
                }
                seq.end()
            }
            Value::Object(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (key, value) in map {
                    out.serialize_entry(key, &Plain(value))?;
                }
                out.end()
            }
        }
    }
}

fn number<S: Serializer>(n: &Number, serializer: S) -> Result<S::Ok, S::Error> {
    if let Some(u) = n.as_u64() {
        return serializer.serialize_u64(u);
    }
    if let Some(i) = n.as_i64() {
        return serializer.serialize_i64(i);
    }
    let digits = n.to_string();
    if let Ok(u) = digits.parse::<u128>() {
        return serializer.serialize_u128(u);
    }
    if let Ok(i) = digits.parse::<i128>() {
        return serializer.serialize_i128(i);
    }
    match n.as_f64() {
        Some(f) => serializer.serialize_f64(f),
        // serde_json holds no number that is neither an integer nor a
        // float; its digits keep it readable should one appear.
        None => serializer.serialize_str(&digits),
    }
}

#[cfg(test)]
mod tests {
    use super::Snapshot;
    use serde_json::{Value, json};

    fn number(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn integers_and_floats_come_back_as_the_same_numbers() {
        let value =
            json!({"a": [1, -2, 2.5, null, true, "x"], "b": {"c": 18446744073709551615u64}});
        let written = serde_json::to_value(Snapshot::new(value.clone())).unwrap();
        assert_eq!(written, value);
    }

    #[test]
    fn an_integer_past_64_bits_is_written_whole() {
        let big = "123456789012345678901234567890";
        let written = serde_json::to_string(&Snapshot::new(number(big))).unwrap();
        assert_eq!(written, big);
    }

    #[test]
    fn insta_writes_numbers_as_numbers() {
        let value = json!({"n": 2, "x": 2.5, "big": number("123456789012345678901234567890")});
        insta::assert_json_snapshot!(Snapshot::new(value), @r#"
        {
          "n": 2,
          "x": 2.5,
          "big": 123456789012345678901234567890
        }
        "#);
    }
}
