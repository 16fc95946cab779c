//! JSON text to the spanned tree.
//!
//! `serde_json` checks the text first (so syntax errors read as `serde_json`
//! words them, with their position); a small scanner then walks the valid
//! text to record positions, decoding each string and number with `serde_json`.
//! The YAML parser is not used for JSON: it rejects valid JSON such as
//! surrogate-pair escapes (`"\ud83d\ude00"`).

use std::collections::HashMap;

use super::budget::{Spent, ValueBudget};
use super::error::{ScenarioError, ScenarioErrorKind};
use super::node::{Entry, KeyPath, Node, NodeValue, Pos};
use super::{Format, MAX_DEPTH};

/// Parses one JSON value into the tree.
pub(crate) fn parse(text: &str, origin: &str) -> Result<Node, ScenarioError> {
    if text.trim().is_empty() {
        return Err(ScenarioError::new(ScenarioErrorKind::Empty, origin).at(1, 1));
    }
    if let Err(e) = serde_json::from_str::<Syntax>(text) {
        let message = strip_position(&e.to_string());
        // The text before the error is valid, so the scanner reaches the same
        // place and words these two as the YAML loader does.
        let scanner_words_it =
            message == "recursion limit exceeded" || message == "number out of range";
        if scanner_words_it {
            return scan(text, origin);
        }
        let kind = ScenarioErrorKind::Syntax {
            format: Format::Json,
            message,
        };
        return Err(ScenarioError::new(kind, origin).at(e.line(), e.column().max(1)));
    }
    scan(text, origin)
}

/// What to do about `serde_json`'s syntax messages, by the message's
/// start.
const SYNTAX_HINTS: &[(&str, &str)] = &[
    (
        "unexpected end of hex escape",
        "a `\\u` escape needs four hexadecimal digits, and one between `\\ud800` and \
         `\\udfff` is half of a pair (a high then a low surrogate, `\\ud83d\\ude00`): \
         write both halves, or the character itself",
    ),
    (
        "lone leading surrogate",
        "a `\\u` escape between `\\ud800` and `\\udbff` must be followed by its low half \
         (`\\udc00` to `\\udfff`): write both halves, or the character itself",
    ),
    (
        "invalid escape",
        "a string holds a `\\` escape JSON does not have; write `\\\\` for a backslash",
    ),
    (
        "control character",
        "a string holds a raw control character (a tab, a line break); write it as an \
         escape (`\\t`, `\\n`)",
    ),
    ("trailing comma", "remove the `,` after the last item"),
    (
        "key must be a string",
        "JSON keys are double-quoted strings: quote the key",
    ),
    (
        "EOF while parsing",
        "the text ends inside a value: close its strings, `]` and `}`",
    ),
];

/// What to do about a syntax error `serde_json` reports as `message`.
pub(crate) fn syntax_hint(message: &str) -> Option<&'static str> {
    SYNTAX_HINTS
        .iter()
        .find(|(start, _)| message.starts_with(start))
        .map(|(_, hint)| *hint)
}

fn scan(text: &str, origin: &str) -> Result<Node, ScenarioError> {
    let mut scanner = Scanner {
        text,
        at: 0,
        line: 1,
        column: 1,
        origin,
        budget: ValueBudget::for_text(text),
    };
    let root = scanner.value(&KeyPath::default(), 0)?;
    scanner.skip_whitespace();
    if scanner.peek().is_some() {
        return Err(scanner.unexpected(&KeyPath::default()));
    }
    Ok(root)
}

/// Any JSON value, read through the parser paths `serde_json::Value` takes
/// (so syntax errors are worded as for a `Value`), building nothing: no
/// second tree of the whole file.
struct Syntax;

impl<'de> serde::Deserialize<'de> for Syntax {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SyntaxVisitor)
    }
}

struct SyntaxVisitor;

impl<'de> serde::de::Visitor<'de> for SyntaxVisitor {
    type Value = Syntax;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any json value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Syntax, E> {
        Ok(Syntax)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Syntax, E> {
        Ok(Syntax)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Syntax, E> {
        Ok(Syntax)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Syntax, E> {
        Ok(Syntax)
    }

    fn visit_str<E>(self, _: &str) -> Result<Syntax, E> {
        Ok(Syntax)
    }

    fn visit_unit<E>(self) -> Result<Syntax, E> {
        Ok(Syntax)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Syntax, A::Error> {
        while seq.next_element::<Syntax>()?.is_some() {}
        Ok(Syntax)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Syntax, A::Error> {
        while map.next_key::<Syntax>()?.is_some() {
            map.next_value::<Syntax>()?;
        }
        Ok(Syntax)
    }
}

/// `serde_json` appends " at line L column C"; the loader prints it in front.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

struct Scanner<'t> {
    text: &'t str,
    /// Byte offset.
    at: usize,
    line: usize,
    column: usize,
    origin: &'t str,
    /// What the values read so far will take in memory.
    budget: ValueBudget,
}

impl Scanner<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Moves one byte on; columns count characters, not bytes.
    fn bump(&mut self) {
        if let Some(byte) = self.peek() {
            self.at += 1;
            if byte == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if byte & 0xC0 != 0x80 {
                self.column += 1;
            }
        }
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    /// An error for text serde_json accepted and this scanner did not; kept
    /// as an error (not a panic) in case the two ever disagree.
    fn unexpected(&self, path: &KeyPath) -> ScenarioError {
        let kind = ScenarioErrorKind::Syntax {
            format: Format::Json,
            message: "unexpected character".to_owned(),
        };
        let pos = self.pos();
        ScenarioError::new(kind, self.origin)
            .with_path(path.to_string())
            .at(pos.line, pos.column)
    }

    /// The error of a value past the budget, at `pos`, the value's place.
    fn charged(
        &self,
        charged: Result<(), Spent>,
        path: &KeyPath,
        pos: Pos,
    ) -> Result<(), ScenarioError> {
        charged.map_err(|Spent { limit }| {
            ScenarioError::new(ScenarioErrorKind::ValueBytes { limit }, self.origin)
                .with_path(path.to_string())
                .at(pos.line, pos.column)
        })
    }

    fn value(&mut self, path: &KeyPath, depth: usize) -> Result<Node, ScenarioError> {
        self.skip_whitespace();
        let pos = self.pos();
        let start = self.at;
        // A list or map is charged before its items, a scalar with its text.
        if matches!(self.peek(), Some(b'{' | b'[')) {
            let charged = self.budget.values(1, 0);
            self.charged(charged, path, pos)?;
        }
        let value = match self.peek() {
            Some(b'{' | b'[') if depth >= MAX_DEPTH => {
                let kind = ScenarioErrorKind::TooDeep { limit: MAX_DEPTH };
                return Err(ScenarioError::new(kind, self.origin)
                    .with_path(path.to_string())
                    .at(pos.line, pos.column));
            }
            Some(b'{') => self.object(path, depth)?,
            Some(b'[') => self.array(path, depth)?,
            Some(b'"') => NodeValue::String(self.string(path)?),
            Some(b't') => self.word("true", NodeValue::Bool(true), path)?,
            Some(b'f') => self.word("false", NodeValue::Bool(false), path)?,
            Some(b'n') => self.word("null", NodeValue::Null, path)?,
            Some(b'-' | b'0'..=b'9') => self.number(path)?,
            _ => return Err(self.unexpected(path)),
        };
        if !matches!(value, NodeValue::Seq(_) | NodeValue::Map(_)) {
            let charged = self.budget.values(1, self.at - start);
            self.charged(charged, path, pos)?;
        }
        Ok(Node { value, pos })
    }

    fn word(
        &mut self,
        word: &str,
        value: NodeValue,
        path: &KeyPath,
    ) -> Result<NodeValue, ScenarioError> {
        if !self.text[self.at..].starts_with(word) {
            return Err(self.unexpected(path));
        }
        for _ in 0..word.len() {
            self.bump();
        }
        Ok(value)
    }

    fn number(&mut self, path: &KeyPath) -> Result<NodeValue, ScenarioError> {
        let pos = self.pos();
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.bump();
        }
        let text = &self.text[start..self.at];
        serde_json::from_str::<serde_json::Number>(text)
            .ok()
            .and_then(|n| crate::value::python_number(&n.to_string()))
            .map(NodeValue::Number)
            .ok_or_else(|| {
                // serde_json accepted the syntax, so the value is out of range.
                let kind = ScenarioErrorKind::NonFiniteNumber {
                    text: text.to_owned(),
                };
                ScenarioError::new(kind, self.origin)
                    .with_path(path.to_string())
                    .at(pos.line, pos.column)
            })
    }

    fn string(&mut self, path: &KeyPath) -> Result<String, ScenarioError> {
        let start = self.at;
        self.bump();
        loop {
            match self.peek() {
                Some(b'"') => break,
                Some(b'\\') => {
                    self.bump();
                    self.bump();
                }
                Some(_) => self.bump(),
                None => return Err(self.unexpected(path)),
            }
        }
        self.bump();
        serde_json::from_str(&self.text[start..self.at]).map_err(|_| self.unexpected(path))
    }

    fn expect(&mut self, byte: u8, path: &KeyPath) -> Result<(), ScenarioError> {
        self.skip_whitespace();
        if self.peek() != Some(byte) {
            return Err(self.unexpected(path));
        }
        self.bump();
        Ok(())
    }

    fn array(&mut self, path: &KeyPath, depth: usize) -> Result<NodeValue, ScenarioError> {
        self.bump();
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(NodeValue::Seq(items));
        }
        loop {
            items.push(self.value(&path.index(items.len()), depth + 1)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    // No growth slack kept: the tree lives until the
                    // scenario is read.
                    items.shrink_to_fit();
                    return Ok(NodeValue::Seq(items));
                }
                _ => return Err(self.unexpected(path)),
            }
        }
    }

    fn object(&mut self, path: &KeyPath, depth: usize) -> Result<NodeValue, ScenarioError> {
        self.bump();
        let mut entries = Vec::new();
        let mut seen: HashMap<String, Pos> = HashMap::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(NodeValue::Map(entries));
        }
        loop {
            self.skip_whitespace();
            let key_pos = self.pos();
            let key = self.string(path)?;
            let key_path = path.key(&key);
            let charged = self.budget.key(key.len());
            self.charged(charged, &key_path, key_pos)?;
            if let Some(first) = seen.get(&key) {
                let kind = ScenarioErrorKind::DuplicateKey {
                    key,
                    first_line: first.line,
                    first_column: first.column,
                };
                return Err(ScenarioError::new(kind, self.origin)
                    .with_path(key_path.to_string())
                    .at(key_pos.line, key_pos.column));
            }
            seen.insert(key.clone(), key_pos);
            self.expect(b':', path)?;
            let value = self.value(&key_path, depth + 1)?;
            entries.push(Entry {
                key,
                key_pos,
                value,
            });
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {
                    self.bump();
                    entries.shrink_to_fit();
                    return Ok(NodeValue::Map(entries));
                }
                _ => return Err(self.unexpected(path)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(node: &Node) -> &[Entry] {
        match &node.value {
            NodeValue::Map(entries) => entries,
            other => panic!("map expected, found {other:?}"),
        }
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        let root = parse("{\"é€\": 1,\n  \"b\": [true, null]}", "x.json").unwrap();
        let entries = entries(&root);
        assert_eq!(entries[0].key, "é€");
        assert_eq!(entries[0].value.pos, Pos { line: 1, column: 8 });
        assert_eq!(entries[1].key_pos, Pos { line: 2, column: 3 });
        assert_eq!(entries[1].value.pos, Pos { line: 2, column: 8 });
    }

    #[test]
    fn syntax_errors_carry_serde_json_positions() {
        let error = parse("{\n  \"a\": 1,\n}", "x.json").unwrap_err();
        assert_eq!((error.line(), error.column()), (Some(3), Some(1)));
        assert_eq!(
            error.to_string(),
            "x.json:3:1: invalid json: trailing comma; remove the `,` after the last item"
        );
        assert!(matches!(error.kind(), ScenarioErrorKind::Syntax { .. }));
    }
}
