//! JSON text to the spanned tree.
//!
//! `serde_json` checks the text first (so syntax errors read as `serde_json`
//! words them, with their position); a small scanner then walks the valid
//! text to record positions, decoding each string and number with `serde_json`.
//! The YAML parser is not used for JSON: it rejects valid JSON such as
//! surrogate-pair escapes (`"\ud83d\ude00"`).

use hashbrown::DefaultHashBuilder;

use super::budget::{Spent, ValueBudget};
use super::error::{ScenarioError, ScenarioErrorKind};
use super::key_index::KeyIndex;
use super::node::{Entry, KeyPath, Node, NodeValue, Pos, Segment};
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
        path: Vec::new(),
        hasher: DefaultHashBuilder::default(),
    };
    let root = scanner.value(0)?;
    scanner.skip_whitespace();
    if scanner.peek().is_some() {
        return Err(scanner.unexpected());
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
    /// What the tree and the values read so far will take in memory.
    budget: ValueBudget,
    /// The steps from the top of the file to the value being read (a
    /// map's key is moved into its entry once its value is read).
    path: Vec<Segment>,
    /// Hashes the keys of long maps, for their duplicates.
    hasher: DefaultHashBuilder,
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

    /// The key path of the value being read.
    fn key_path(&self) -> KeyPath {
        KeyPath::of(&self.path)
    }

    /// An error at `pos`, in the value being read.
    fn error_at(&self, kind: ScenarioErrorKind, pos: Pos) -> ScenarioError {
        ScenarioError::new(kind, self.origin)
            .with_path(self.key_path().to_string())
            .at(pos.line, pos.column)
    }

    /// An error for text serde_json accepted and this scanner did not; kept
    /// as an error (not a panic) in case the two ever disagree.
    fn unexpected(&self) -> ScenarioError {
        let kind = ScenarioErrorKind::Syntax {
            format: Format::Json,
            message: "unexpected character".to_owned(),
        };
        self.error_at(kind, self.pos())
    }

    /// The error of a value past the budget, at `pos`, the value's place.
    fn charged(&self, charged: Result<(), Spent>, pos: Pos) -> Result<(), ScenarioError> {
        charged
            .map_err(|Spent { limit }| self.error_at(ScenarioErrorKind::ValueBytes { limit }, pos))
    }

    /// Whether reading the scenario copies the value being read out of
    /// the tree: every value but those of `model`, which the loader reads
    /// reply by reply.
    fn copied(&self) -> bool {
        !matches!(self.path.first(), Some(Segment::Key(key)) if key == "model")
    }

    fn value(&mut self, depth: usize) -> Result<Node, ScenarioError> {
        self.skip_whitespace();
        let pos = self.pos();
        let start = self.at;
        // A list or map is charged before its items, a scalar with its text.
        if matches!(self.peek(), Some(b'{' | b'[')) {
            let charged = self.budget.collection(self.copied());
            self.charged(charged, pos)?;
        }
        let value = match self.peek() {
            Some(b'{' | b'[') if depth >= MAX_DEPTH => {
                let kind = ScenarioErrorKind::TooDeep { limit: MAX_DEPTH };
                return Err(self.error_at(kind, pos));
            }
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => NodeValue::String(self.string()?),
            Some(b't') => self.word("true", NodeValue::Bool(true))?,
            Some(b'f') => self.word("false", NodeValue::Bool(false))?,
            Some(b'n') => self.word("null", NodeValue::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.unexpected()),
        };
        if !matches!(value, NodeValue::Seq(_) | NodeValue::Map(_)) {
            let bytes = match &value {
                NodeValue::String(text) => text.len(),
                NodeValue::Number(_) => self.at - start,
                _ => 0,
            };
            let charged = self.budget.scalar(bytes, self.copied());
            self.charged(charged, pos)?;
        }
        Ok(Node { value, pos })
    }

    fn word(&mut self, word: &str, value: NodeValue) -> Result<NodeValue, ScenarioError> {
        if !self.text[self.at..].starts_with(word) {
            return Err(self.unexpected());
        }
        for _ in 0..word.len() {
            self.bump();
        }
        Ok(value)
    }

    fn number(&mut self) -> Result<NodeValue, ScenarioError> {
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
                self.error_at(kind, pos)
            })
    }

    fn string(&mut self) -> Result<String, ScenarioError> {
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
                None => return Err(self.unexpected()),
            }
        }
        self.bump();
        serde_json::from_str(&self.text[start..self.at]).map_err(|_| self.unexpected())
    }

    fn expect(&mut self, byte: u8) -> Result<(), ScenarioError> {
        self.skip_whitespace();
        if self.peek() != Some(byte) {
            return Err(self.unexpected());
        }
        self.bump();
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Result<NodeValue, ScenarioError> {
        self.bump();
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(NodeValue::Seq(items));
        }
        loop {
            self.path.push(Segment::Index(items.len()));
            let item = self.value(depth + 1)?;
            let room = self.budget.room(&mut items);
            self.charged(room, item.pos)?;
            self.path.pop();
            items.push(item);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    // No growth slack kept: the tree lives until the
                    // scenario is read.
                    self.budget.shrink(&mut items);
                    return Ok(NodeValue::Seq(items));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<NodeValue, ScenarioError> {
        self.bump();
        let mut entries: Vec<Entry> = Vec::new();
        let mut index = KeyIndex::default();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(NodeValue::Map(entries));
        }
        let map = self.read_entries(&mut entries, &mut index, depth);
        self.budget.release(index.bytes());
        map?;
        // No growth slack kept: the tree lives until the scenario is read.
        self.budget.shrink(&mut entries);
        Ok(NodeValue::Map(entries))
    }

    /// The entries of a map after its `{`, up to its `}`; `index` finds
    /// their duplicate keys, its bytes charged as it grows.
    fn read_entries(
        &mut self,
        entries: &mut Vec<Entry>,
        index: &mut KeyIndex,
        depth: usize,
    ) -> Result<(), ScenarioError> {
        loop {
            self.skip_whitespace();
            let key_pos = self.pos();
            let key = self.string()?;
            let indexed = index.bytes();
            let first = index.first_position(entries, &self.hasher, &key);
            let copied = self.copied();
            let charged = self
                .budget
                .key(key.len(), copied)
                .and_then(|()| self.budget.charge(index.bytes() - indexed));
            // Checked before the key is a step of the path, so that its
            // errors name it with `KeyPath::key`.
            let at_key = |kind| {
                ScenarioError::new(kind, self.origin)
                    .with_path(self.key_path().key(&key).to_string())
                    .at(key_pos.line, key_pos.column)
            };
            if let Err(Spent { limit }) = charged {
                return Err(at_key(ScenarioErrorKind::ValueBytes { limit }));
            }
            if let Some(first) = first {
                let kind = ScenarioErrorKind::DuplicateKey {
                    key: key.clone(),
                    first_line: first.line,
                    first_column: first.column,
                };
                return Err(at_key(kind));
            }
            self.expect(b':')?;
            self.path.push(Segment::Key(key));
            let value = self.value(depth + 1)?;
            let room = self.budget.room(entries);
            self.charged(room, key_pos)?;
            let Some(Segment::Key(key)) = self.path.pop() else {
                unreachable!("the map's key is the last step of the path");
            };
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
                    return Ok(());
                }
                _ => return Err(self.unexpected()),
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
