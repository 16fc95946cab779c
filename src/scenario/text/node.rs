//! The spanned tree both parsers build: JSON-shaped values with the line and
//! column of every node and key, so that decoding errors can point at them.

use crate::elide::elide;
use crate::wording::MAX_SHOWN_KEY;
use std::fmt;

/// A 1-based line and column (in characters) in the scenario file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// One value of the file and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub(crate) value: NodeValue,
    pub(crate) pos: Pos,
}

/// The JSON data model: what a scenario file may hold once parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeValue {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Seq(Vec<Node>),
    /// Entries in file order; keys are unique (the parsers reject duplicates).
    Map(Vec<Entry>),
}

/// One key of a map, with the key's own position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) key_pos: Pos,
    pub(crate) value: Node,
}

impl NodeValue {
    /// How the value is named in "found ..." messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            NodeValue::Null => "null",
            NodeValue::Bool(_) => "a boolean",
            NodeValue::Number(n) if n.is_f64() => "a number",
            NodeValue::Number(_) => "an integer",
            NodeValue::String(_) => "a string",
            NodeValue::Seq(_) => "a list",
            NodeValue::Map(_) => "a map",
        }
    }
}

impl Node {
    /// The entries of a map node.
    pub(crate) fn entries(&self) -> Option<&[Entry]> {
        match &self.value {
            NodeValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The node as a JSON value, map key order kept.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.value {
            NodeValue::Null => Value::Null,
            NodeValue::Bool(b) => Value::Bool(*b),
            NodeValue::Number(n) => Value::Number(n.clone()),
            NodeValue::String(s) => Value::String(s.clone()),
            NodeValue::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeValue::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// One step of a key path: a map key or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

/// Where a node sits in the file, rendered like `hooks.on_exit[0].do[1]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyPath(Vec<Segment>);

impl KeyPath {
    pub(crate) fn key(&self, key: &str) -> KeyPath {
        let mut segments = self.0.clone();
        segments.push(Segment::Key(key.to_owned()));
        KeyPath(segments)
    }

    pub(crate) fn index(&self, index: usize) -> KeyPath {
        let mut segments = self.0.clone();
        segments.push(Segment::Index(index));
        KeyPath(segments)
    }

    /// The path of these steps.
    pub(crate) fn of(segments: &[Segment]) -> KeyPath {
        KeyPath(segments.to_vec())
    }

    /// Reads a path as [`Display`](fmt::Display) writes it
    /// (`hooks.on_exit[0].do[1]`, `run.state["a.b c"]`); an empty text is
    /// the top of the file.
    pub(crate) fn parse(text: &str) -> KeyPath {
        let mut segments = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[') {
                let end = after.find(']').unwrap_or(after.len());
                let inside = &after[..end];
                if let Ok(index) = inside.parse::<usize>() {
                    segments.push(Segment::Index(index));
                } else {
                    // A quoted key: its end is the `"]` after the JSON string.
                    let mut stream =
                        serde_json::Deserializer::from_str(after).into_iter::<String>();
                    match stream.next() {
                        Some(Ok(key)) => {
                            let used = stream.byte_offset();
                            segments.push(Segment::Key(key));
                            rest = after[used..].strip_prefix(']').unwrap_or(&after[used..]);
                            continue;
                        }
                        _ => segments.push(Segment::Key(inside.to_owned())),
                    }
                }
                rest = after.get(end + 1..).unwrap_or("");
            } else {
                let rest_key = rest.strip_prefix('.').unwrap_or(rest);
                let end = rest_key.find(['.', '[']).unwrap_or(rest_key.len());
                segments.push(Segment::Key(rest_key[..end].to_owned()));
                rest = &rest_key[end..];
            }
        }
        KeyPath(segments)
    }

    /// The steps from the top of the file.
    pub(crate) fn segments(&self) -> &[Segment] {
        &self.0
    }
}

/// Keys made of letters, digits, `_` and `-` print bare; others are quoted.
fn is_bare(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if is_bare(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(&elide(key, MAX_SHOWN_KEY))?;
                }
                Segment::Key(key) => {
                    let quoted = serde_json::Value::String(key.clone()).to_string();
                    write!(f, "[{}]", elide(&quoted, MAX_SHOWN_KEY))?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_render_keys_dotted_and_indices_in_brackets() {
        let path = KeyPath::default()
            .key("hooks")
            .key("on_exit")
            .index(0)
            .key("do")
            .index(1);
        assert_eq!(path.to_string(), "hooks.on_exit[0].do[1]");
    }

    #[test]
    fn a_written_key_path_reads_back_as_the_same_path() {
        let path = KeyPath::default()
            .key("hooks")
            .key("on_exit")
            .index(0)
            .key("a.b [c]\"")
            .index(12)
            .key("do");
        assert_eq!(KeyPath::parse(&path.to_string()), path);
        assert_eq!(KeyPath::parse(""), KeyPath::default());
    }

    #[test]
    fn key_paths_quote_keys_that_are_not_bare_words() {
        let path = KeyPath::default().key("run").key("state").key("a.b c");
        assert_eq!(path.to_string(), r#"run.state["a.b c"]"#);
    }
}
