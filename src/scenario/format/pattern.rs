//! Value matchers: what an expectation compares a value with, when equality
//! says more than what matters.
//!
//! A plain value is compared for equality. A map whose keys are all matcher
//! words is a matcher: `{absent: true}`, `{contains: V}`, `{gte: N}`,
//! `{lte: N}` (both may be given), `{equals: V}` (for a literal map that
//! would otherwise read as a matcher). A map holding a matcher among its
//! values, at any depth of maps, matches a map with the same keys, each
//! value matching (a key whose matcher is `{absent: true}` must be absent).

use indexmap::IndexMap;
use serde_json::{Map, Number, Value};

use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};
use crate::state::ValueType;
use crate::wording::suggest;

/// The keys of a matcher map.
pub(crate) const MATCHER_WORDS: &[&str] = &["absent", "contains", "gte", "lte", "equals"];

/// A value an expectation matches: a plain value or a matcher.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ValuePattern {
    /// A plain value, or `{equals: V}`: JSON-value equality.
    Equals(Value),
    /// A map with a matcher among its values: the same keys (those that
    /// must be absent aside), each value matching.
    Map(IndexMap<String, ValuePattern>),
    /// `{absent: true}`: the value is absent (a state key not in the result,
    /// a message without text); `{absent: false}`: it is present.
    Absent(bool),
    /// `{contains: V}`: a string holding the string V, a list holding V's
    /// items (or V itself when V is not a list), a map holding V's entries.
    Contains(Value),
    /// `{gte: N}`, `{lte: N}` or both: a number in that range.
    Range {
        /// The lower bound, inclusive.
        gte: Option<Number>,
        /// The upper bound, inclusive.
        lte: Option<Number>,
    },
}

/// What the format knows of the value a pattern is matched with, for
/// rejecting a matcher that cannot apply (`gte` on a text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Anything.
    Any,
    /// Text, or no text (a message's `text`).
    Text,
    /// A state key of this `state_schema` type.
    State(ValueType),
}

impl Slot {
    // A file's schema never holds `Optional` (the format cannot name it),
    // so it is taken as `any`.
    fn accepts_numbers(&self) -> bool {
        matches!(
            self,
            Slot::Any
                | Slot::State(
                    ValueType::Int | ValueType::Float | ValueType::Any | ValueType::Optional(_)
                )
        )
    }

    fn accepts_contains(&self) -> bool {
        matches!(
            self,
            Slot::Any
                | Slot::Text
                | Slot::State(
                    ValueType::Str
                        | ValueType::List
                        | ValueType::ChatMessages
                        | ValueType::Dict
                        | ValueType::Any
                        | ValueType::Optional(_)
                )
        )
    }

    fn holds(&self) -> &'static str {
        match self {
            Slot::Any => "any value",
            Slot::Text => "text",
            Slot::State(ValueType::List | ValueType::ChatMessages) => {
                "a list (`state_schema` type `list`)"
            }
            Slot::State(ValueType::Str) => "a string (`state_schema` type `str`)",
            Slot::State(ValueType::Int) => "an integer (`state_schema` type `int`)",
            Slot::State(ValueType::Float) => "a number (`state_schema` type `float`)",
            Slot::State(ValueType::Bool) => "a boolean (`state_schema` type `bool`)",
            Slot::State(ValueType::Dict) => "a map (`state_schema` type `dict`)",
            Slot::State(ValueType::Any | ValueType::Optional(_)) => {
                "any value (`state_schema` type `any`)"
            }
        }
    }
}

/// Reads a value pattern at `field`, for a value of `slot`.
pub(crate) fn read_pattern(field: &Field<'_>, slot: Slot) -> Read<ValuePattern> {
    let Ok(entries) = field.entries() else {
        return Ok(ValuePattern::Equals(field.json()));
    };
    let words: Vec<&str> = entries
        .iter()
        .map(|(key, _)| *key)
        .filter(|key| MATCHER_WORDS.contains(key))
        .collect();
    if !words.is_empty() {
        return read_matcher(field, &entries, &words, slot);
    }
    let mut map = IndexMap::with_capacity(entries.len());
    for (key, value) in &entries {
        map.insert((*key).to_owned(), read_pattern(value, Slot::Any)?);
    }
    if map.values().all(|p| matches!(p, ValuePattern::Equals(_))) {
        Ok(ValuePattern::Equals(field.json()))
    } else {
        Ok(ValuePattern::Map(map))
    }
}

fn read_matcher(
    field: &Field<'_>,
    entries: &[(&str, Field<'_>)],
    words: &[&str],
    slot: Slot,
) -> Read<ValuePattern> {
    if let Some((other, _)) = entries.iter().find(|(key, _)| !MATCHER_WORDS.contains(key)) {
        return Err(field.key_error(
            other,
            ScenarioErrorKind::MixedMatcherKeys {
                key: (*other).to_owned(),
                matchers: words.iter().map(|w| (*w).to_owned()).collect(),
                suggestion: suggest::closest(other, MATCHER_WORDS),
            },
        ));
    }
    let get = |word: &str| entries.iter().find(|(key, _)| *key == word).map(|(_, f)| f);
    let combinable = words.iter().all(|w| matches!(*w, "gte" | "lte"));
    if words.len() > 1 && !combinable {
        return Err(field.error(ScenarioErrorKind::MatcherCombination {
            keys: words.iter().map(|w| (*w).to_owned()).collect(),
        }));
    }
    let wrong = |word: &str, accepts: &'static str| {
        field.key_error(
            word,
            ScenarioErrorKind::MatcherOnWrongType {
                matcher: word.to_owned(),
                accepts,
                holds: slot.holds(),
            },
        )
    };
    if let Some(f) = get("absent") {
        return f.bool().map(ValuePattern::Absent);
    }
    if let Some(f) = get("equals") {
        return Ok(ValuePattern::Equals(f.json()));
    }
    if let Some(f) = get("contains") {
        if !slot.accepts_contains() {
            return Err(wrong("contains", "strings, lists and maps"));
        }
        if matches!(slot, Slot::Text | Slot::State(ValueType::Str)) {
            return f.string().map(|s| ValuePattern::Contains(Value::String(s)));
        }
        return Ok(ValuePattern::Contains(f.json()));
    }
    if !slot.accepts_numbers() {
        return Err(wrong(words[0], "numbers"));
    }
    let number = |word: &str| -> Read<Option<Number>> {
        get(word)
            .map(|f| match f.json() {
                Value::Number(n) => Ok(n),
                _ => Err(f.wrong_type("a number")),
            })
            .transpose()
    };
    Ok(ValuePattern::Range {
        gte: number("gte")?,
        lte: number("lte")?,
    })
}

impl ValuePattern {
    /// The pattern as the scenario format writes it; loading the result
    /// gives this pattern back.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            ValuePattern::Equals(value) if reads_as_itself(value) => value.clone(),
            ValuePattern::Equals(value) => matcher("equals", value.clone()),
            ValuePattern::Map(map) => Value::Object(
                map.iter()
                    .map(|(key, pattern)| (key.clone(), pattern.to_value()))
                    .collect(),
            ),
            ValuePattern::Absent(absent) => matcher("absent", Value::Bool(*absent)),
            ValuePattern::Contains(value) => matcher("contains", value.clone()),
            ValuePattern::Range { gte, lte } => {
                let mut out = Map::new();
                if let Some(gte) = gte {
                    out.insert("gte".into(), Value::Number(gte.clone()));
                }
                if let Some(lte) = lte {
                    out.insert("lte".into(), Value::Number(lte.clone()));
                }
                Value::Object(out)
            }
        }
    }
}

fn matcher(word: &str, value: Value) -> Value {
    let mut out = Map::new();
    out.insert(word.into(), value);
    Value::Object(out)
}

/// `true` when `value`, written as is, reads back as `Equals(value)`: no
/// map in it (through maps) has a matcher word among its keys.
fn reads_as_itself(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .all(|(key, v)| !MATCHER_WORDS.contains(&key.as_str()) && reads_as_itself(v)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::node::Node;
    use crate::scenario::yaml;
    use serde_json::json;

    fn parse(text: &str) -> Node {
        yaml::parse(text, "p.yaml").unwrap()
    }

    fn read(text: &str, slot: Slot) -> Read<ValuePattern> {
        let node = parse(text);
        read_pattern(&Field::root(&node, "p.yaml"), slot)
    }

    #[test]
    fn plain_values_and_maps_without_matchers_are_equality() {
        assert_eq!(
            read("{a: 1, b: [x]}", Slot::Any).unwrap(),
            ValuePattern::Equals(json!({"a": 1, "b": ["x"]}))
        );
        assert_eq!(
            read("3", Slot::Any).unwrap(),
            ValuePattern::Equals(json!(3))
        );
    }

    #[test]
    fn a_matcher_inside_a_map_makes_the_map_a_pattern() {
        let pattern = read("{prompt_tokens: {gte: 10}, total: 3}", Slot::Any).unwrap();
        let ValuePattern::Map(map) = pattern else {
            panic!("a map pattern")
        };
        assert_eq!(map["total"], ValuePattern::Equals(json!(3)));
        assert!(matches!(map["prompt_tokens"], ValuePattern::Range { .. }));
    }

    #[test]
    fn a_misspelled_matcher_beside_a_matcher_is_a_located_error_with_a_suggestion() {
        let error = read("{gte: 1, lt: 5}", Slot::Any).unwrap_err();
        assert_eq!(
            error.to_string(),
            "p.yaml:1:10: `lt` is not a matcher key, yet `gte` is: did you mean `lte`? (matchers take `absent`, `contains`, `gte`, `lte`, `equals`; write a literal map with such keys as `{equals: {...}}`)"
        );
    }

    #[test]
    fn gte_on_a_text_is_rejected_where_it_is_written() {
        let error = read("{gte: 3}", Slot::Text).unwrap_err();
        assert_eq!(
            error.to_string(),
            "p.yaml:1:2: `gte` applies to numbers, and this value holds text; write a plain value, `equals` or `absent`"
        );
    }

    #[test]
    fn every_pattern_writes_back_as_itself() {
        for text in [
            "{a: {absent: true}, b: {c: {contains: [1]}}}",
            "{equals: {gte: 1}}",
            "{gte: 1, lte: 2.5}",
            "{absent: false}",
            "{equals: {a: {contains: x}}}",
            "[{gte: 1}]",
        ] {
            let pattern = read(text, Slot::Any).unwrap();
            let written = serde_json::to_string(&pattern.to_value()).unwrap();
            assert_eq!(read(&written, Slot::Any).unwrap(), pattern, "{text}");
        }
    }
}
