//! A scripted tool call's arguments, kept compact: a `serde_json::Value`
//! takes 72 bytes however short its text, so a recording of tool calls
//! whose arguments hold lists of numbers took more than ten times its
//! file in memory once loaded (docs/robustness.md, "Loader memory"). The
//! arguments are held as bytes here (a tag a value, lengths as LEB128
//! varints, numbers as integers, float bits or their text) and become a
//! map again where the run reads them, each time the same map.

use serde_json::{Map, Number, Value};
use std::fmt;

/// The arguments of a [`ScriptedToolCall`](super::ScriptedToolCall): a
/// JSON map, in the order written, held in a few bytes a value;
/// [`ToolArguments::to_map`] gives the map back as it was given.
///
/// ```
/// use hookharness::scripted::ToolArguments;
/// use serde_json::json;
///
/// let map = json!({"query": "fusion", "ids": [1, -2, 3.5]});
/// let arguments = ToolArguments::from(map.as_object().unwrap().clone());
/// assert_eq!(serde_json::Value::Object(arguments.to_map()), map);
/// ```
#[derive(Clone)]
pub struct ToolArguments(Repr);

#[derive(Clone)]
enum Repr {
    /// The map's encoding (`encode`).
    Compact(Box<[u8]>),
    /// A map holding a number the encoding would not give back the same
    /// (a text serde_json's parser would rewrite): kept as it is.
    Map(Box<Map<String, Value>>),
}

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const STRING: u8 = 3;
const ARRAY: u8 = 4;
const OBJECT: u8 = 5;
/// A non-negative integer, as a varint.
const UNSIGNED: u8 = 6;
/// A negative integer: the varint of `-1 - n`.
const NEGATIVE: u8 = 7;
/// A float: its eight bytes, little-endian.
const FLOAT: u8 = 8;
/// Any other number: its text, as serde_json parses it.
const NUMBER_TEXT: u8 = 9;

impl ToolArguments {
    /// The arguments as a map, in the order they were given.
    #[must_use]
    pub fn to_map(&self) -> Map<String, Value> {
        match &self.0 {
            Repr::Compact(bytes) => {
                let mut reader = Reader { bytes, at: 0 };
                // The bytes were written by `encode` from a map: they read
                // back whole. An empty map stands for what could not.
                debug_assert!(bytes.first() == Some(&OBJECT));
                match reader.value() {
                    Some(Value::Object(map)) => map,
                    _ => Map::new(),
                }
            }
            Repr::Map(map) => (**map).clone(),
        }
    }

    /// `true` when there are no arguments.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            // An empty map is its tag and a zero count.
            Repr::Compact(bytes) => bytes.get(1) == Some(&0),
            Repr::Map(map) => map.is_empty(),
        }
    }
}

impl From<Map<String, Value>> for ToolArguments {
    fn from(map: Map<String, Value>) -> Self {
        let mut bytes = Vec::new();
        if encode_map(&map, &mut bytes) {
            ToolArguments(Repr::Compact(bytes.into_boxed_slice()))
        } else {
            ToolArguments(Repr::Map(Box::new(map)))
        }
    }
}

impl Default for ToolArguments {
    fn default() -> Self {
        ToolArguments::from(Map::new())
    }
}

impl PartialEq for ToolArguments {
    /// As the maps compare (in any order of keys).
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Compact(a), Repr::Compact(b)) if a == b => true,
            _ => self.to_map() == other.to_map(),
        }
    }
}

impl fmt::Debug for ToolArguments {
    /// As the map prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_map(), f)
    }
}

/// Appends `map`'s encoding to `out`; `false` when a number in it would
/// not read back the same.
fn encode_map(map: &Map<String, Value>, out: &mut Vec<u8>) -> bool {
    out.push(OBJECT);
    write_len(map.len(), out);
    map.iter().all(|(key, value)| {
        write_str(key, out);
        encode(value, out)
    })
}

fn encode(value: &Value, out: &mut Vec<u8>) -> bool {
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => return encode_number(n, out),
        Value::String(s) => {
            out.push(STRING);
            write_str(s, out);
        }
        Value::Array(items) => {
            out.push(ARRAY);
            write_len(items.len(), out);
            return items.iter().all(|item| encode(item, out));
        }
        Value::Object(map) => return encode_map(map, out),
    }
    true
}

/// The first of an integer, a float and a text that gives `n` back.
fn encode_number(n: &Number, out: &mut Vec<u8>) -> bool {
    if let Some(u) = n.as_u64().filter(|&u| Number::from(u) == *n) {
        out.push(UNSIGNED);
        write_u64(u, out);
    } else if let Some(i) = n.as_i64().filter(|&i| i < 0 && Number::from(i) == *n) {
        out.push(NEGATIVE);
        write_u64((-1 - i).unsigned_abs(), out);
    } else if let Some(f) = n
        .as_f64()
        .filter(|&f| Number::from_f64(f).as_ref() == Some(n))
    {
        out.push(FLOAT);
        out.extend_from_slice(&f.to_bits().to_le_bytes());
    } else {
        let text = n.to_string();
        if text.parse::<Number>().ok().as_ref() != Some(n) {
            return false;
        }
        out.push(NUMBER_TEXT);
        write_str(&text, out);
    }
    true
}

fn write_len(len: usize, out: &mut Vec<u8>) {
    write_u64(len as u64, out);
}

/// `n` as a LEB128 varint: seven bits a byte, the high bit set on all
/// but the last.
fn write_u64(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn write_str(s: &str, out: &mut Vec<u8>) {
    write_len(s.len(), out);
    out.extend_from_slice(s.as_bytes());
}

/// Reads what `encode` wrote; `None` past the end or on a byte it does
/// not write.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn take(&mut self, len: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(len)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }

    fn u64(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    fn string(&mut self) -> Option<String> {
        let len = self.len()?;
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes).ok().map(str::to_owned)
    }

    fn value(&mut self) -> Option<Value> {
        Some(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            STRING => Value::String(self.string()?),
            ARRAY => {
                let len = self.len()?;
                // Never more items than bytes left: a count is not trusted
                // with an allocation.
                let mut items = Vec::with_capacity(len.min(self.bytes.len() - self.at));
                for _ in 0..len {
                    items.push(self.value()?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let len = self.len()?;
                let mut map = Map::with_capacity(len.min(self.bytes.len() - self.at));
                for _ in 0..len {
                    let key = self.string()?;
                    let value = self.value()?;
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            UNSIGNED => Value::Number(self.u64()?.into()),
            NEGATIVE => {
                let magnitude = i64::try_from(self.u64()?).ok()?;
                Value::Number((-1 - magnitude).into())
            }
            FLOAT => {
                let bits: [u8; 8] = self.take(8)?.try_into().ok()?;
                Value::Number(Number::from_f64(f64::from_le_bytes(bits))?)
            }
            NUMBER_TEXT => Value::Number(self.string()?.parse().ok()?),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(value: Value) {
        let map = value.as_object().cloned().unwrap_or_default();
        let arguments = ToolArguments::from(map.clone());
        assert!(matches!(arguments.0, Repr::Compact(_)), "{value}");
        let back = arguments.to_map();
        assert_eq!(back, map);
        // Equal as text too: the same keys in the same order, the same
        // numbers written the same.
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
    }

    #[test]
    fn every_kind_of_value_reads_back_the_same() {
        round_trip(json!({}));
        round_trip(json!({"z": null, "a": [true, false, "", "é\u{0}\"x"], "m": {"k": {}}}));
        round_trip(json!({
            "n": [0, 1, 127, 128, 300, u64::MAX, -1, -128, i64::MIN, 0.5, -0.0, 1e300, 2.5e-300]
        }));
        let long = "x".repeat(100_000);
        round_trip(json!({ long.clone(): long }));
    }

    #[test]
    fn numbers_read_from_text_keep_their_text() {
        let text = r#"{"a": [-0, 1E5, 1e+140, 1.50, 100000000000000000000000, -123456789012345678901234567890, 0.30000000000000004]}"#;
        let map: Map<String, Value> = serde_json::from_str(text).unwrap();
        round_trip(Value::Object(map));
    }

    #[test]
    fn arguments_compare_as_maps_and_print_as_maps() {
        let a = ToolArguments::from(json!({"a": 1, "b": 2}).as_object().unwrap().clone());
        let b = ToolArguments::from(json!({"b": 2, "a": 1}).as_object().unwrap().clone());
        let c = ToolArguments::from(json!({"a": 1}).as_object().unwrap().clone());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            format!("{a:?}"),
            format!("{:?}", json!({"a": 1, "b": 2}).as_object().unwrap())
        );
        assert!(ToolArguments::default().is_empty());
        assert!(!c.is_empty());
    }

    #[test]
    fn a_list_of_small_numbers_takes_a_few_bytes_a_number() {
        let numbers: Vec<u32> = (0..20).map(|i| i * 977).collect();
        let arguments = ToolArguments::from(json!({"ids": numbers}).as_object().unwrap().clone());
        let Repr::Compact(bytes) = &arguments.0 else {
            panic!("compact expected");
        };
        // A tag and a varint of up to three bytes a number, where a
        // `Value` takes 72 bytes.
        assert!(bytes.len() <= 2 + 4 + 2 + 20 * 4, "{}", bytes.len());
    }
}
