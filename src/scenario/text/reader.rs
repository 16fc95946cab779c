//! Typed reading of the spanned tree: each accessor names the key path and
//! position of what it rejects, and a map reader remembers which keys the
//! format knows at that place, so that any other key is reported with a
//! suggestion instead of being ignored.

use std::rc::Rc;

use serde_json::{Map, Value};

use super::error::{ScenarioError, ScenarioErrorKind};
use super::node::{Entry, KeyPath, Node, NodeValue};
use crate::wording::suggest;

/// One value of the file with its key path.
#[derive(Clone)]
pub(crate) struct Field<'n> {
    pub(crate) node: &'n Node,
    path: Path<'n>,
    origin: &'n str,
}

/// A field's key path as a link to its parent's: a child costs one small
/// allocation, not a copy of every step above it; the path is written out
/// (as a [`KeyPath`]) only for an error.
#[derive(Clone, Default)]
struct Path<'n>(Option<Rc<Link<'n>>>);

struct Link<'n> {
    parent: Path<'n>,
    step: Step<'n>,
}

/// A step of a [`Path`]: a key borrowed from the tree, or a list index.
#[derive(Clone, Copy)]
enum Step<'n> {
    Key(&'n str),
    Index(usize),
}

impl<'n> Path<'n> {
    fn then(&self, step: Step<'n>) -> Path<'n> {
        Path(Some(Rc::new(Link {
            parent: self.clone(),
            step,
        })))
    }

    fn key(&self, key: &'n str) -> Path<'n> {
        self.then(Step::Key(key))
    }

    fn index(&self, index: usize) -> Path<'n> {
        self.then(Step::Index(index))
    }

    fn to_key_path(&self) -> KeyPath {
        let mut steps = Vec::new();
        let mut link = self.0.as_deref();
        while let Some(Link { parent, step }) = link {
            steps.push(*step);
            link = parent.0.as_deref();
        }
        steps
            .iter()
            .rev()
            .fold(KeyPath::default(), |path, step| match step {
                Step::Key(key) => path.key(key),
                Step::Index(index) => path.index(*index),
            })
    }
}

/// The result of reading a scenario part.
pub(crate) type Read<T> = Result<T, ScenarioError>;

impl<'n> Field<'n> {
    pub(crate) fn root(node: &'n Node, origin: &'n str) -> Field<'n> {
        Field {
            node,
            path: Path::default(),
            origin,
        }
    }

    /// Item `index` of this list, for an item held outside the tree.
    pub(crate) fn item<'m>(&self, node: &'m Node, index: usize) -> Field<'m>
    where
        'n: 'm,
    {
        Field {
            node,
            path: self.path.index(index),
            origin: self.origin,
        }
    }

    fn child(&self, node: &'n Node, path: Path<'n>) -> Field<'n> {
        Field {
            node,
            path,
            origin: self.origin,
        }
    }

    /// An error located at this value.
    pub(crate) fn error(&self, kind: ScenarioErrorKind) -> ScenarioError {
        ScenarioError::new(kind, self.origin)
            .with_path(self.path.to_key_path().to_string())
            .at(self.node.pos.line, self.node.pos.column)
    }

    /// An error located at the key `key` of this map (falls back to the map).
    pub(crate) fn key_error(&self, key: &str, kind: ScenarioErrorKind) -> ScenarioError {
        let pos = match &self.node.value {
            NodeValue::Map(entries) => entries.iter().find(|e| e.key == key).map(|e| e.key_pos),
            _ => None,
        }
        .unwrap_or(self.node.pos);
        ScenarioError::new(kind, self.origin)
            .with_path(self.path.to_key_path().key(key).to_string())
            .at(pos.line, pos.column)
    }

    pub(crate) fn wrong_type(&self, expected: &'static str) -> ScenarioError {
        self.error(ScenarioErrorKind::WrongType {
            expected,
            found: self.node.value.describe(),
        })
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self.node.value, NodeValue::Null)
    }

    pub(crate) fn as_str(&self) -> Option<&'n str> {
        match &self.node.value {
            NodeValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn string(&self) -> Read<String> {
        self.as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.wrong_type("a string"))
    }

    /// A string, or `None` for null (keys whose default is "none").
    pub(crate) fn opt_string(&self) -> Read<Option<String>> {
        if self.is_null() {
            Ok(None)
        } else {
            self.string().map(Some)
        }
    }

    pub(crate) fn i64(&self) -> Read<i64> {
        match &self.node.value {
            NodeValue::Number(n) if !n.is_f64() => n.as_i64().ok_or_else(|| {
                self.error(ScenarioErrorKind::WrongType {
                    expected: "an integer",
                    found: "an integer too large for 64 bits",
                })
            }),
            NodeValue::Number(n) => n.as_i64().ok_or_else(|| self.wrong_type("an integer")),
            _ => Err(self.wrong_type("an integer")),
        }
    }

    pub(crate) fn bool(&self) -> Read<bool> {
        match self.node.value {
            NodeValue::Bool(b) => Ok(b),
            _ => Err(self.wrong_type("a boolean (`true` or `false`)")),
        }
    }

    pub(crate) fn seq(&self) -> Read<Vec<Field<'n>>> {
        match &self.node.value {
            NodeValue::Seq(items) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, item)| self.child(item, self.path.index(i)))
                .collect()),
            _ => Err(self.wrong_type("a list")),
        }
    }

    pub(crate) fn map(&self) -> Read<MapReader<'n>> {
        match &self.node.value {
            NodeValue::Map(entries) => Ok(MapReader {
                field: self.clone(),
                entries,
                known: Vec::new(),
            }),
            _ => Err(self.wrong_type("a map")),
        }
    }

    /// The map's entries as (key, value) pairs, for maps with free keys.
    pub(crate) fn entries(&self) -> Read<Vec<(&'n str, Field<'n>)>> {
        match &self.node.value {
            NodeValue::Map(entries) => Ok(entries
                .iter()
                .map(|e| (e.key.as_str(), self.entry(e)))
                .collect()),
            _ => Err(self.wrong_type("a map")),
        }
    }

    fn entry(&self, entry: &'n Entry) -> Field<'n> {
        self.child(&entry.value, self.path.key(&entry.key))
    }

    /// Any value, as JSON.
    pub(crate) fn json(&self) -> Value {
        self.node.to_json()
    }

    /// A map with free keys and any values, as JSON.
    pub(crate) fn json_map(&self) -> Read<Map<String, Value>> {
        match self.json() {
            Value::Object(map) => Ok(map),
            _ => Err(self.wrong_type("a map")),
        }
    }

    pub(crate) fn strings(&self) -> Read<Vec<String>> {
        self.seq()?.iter().map(Field::string).collect()
    }

    /// A string that must be one of `variants`.
    pub(crate) fn variant<T: Clone>(&self, variants: &[(&'static str, T)]) -> Read<T> {
        let text = self.string()?;
        if let Some((_, value)) = variants.iter().find(|(name, _)| *name == text) {
            return Ok(value.clone());
        }
        let names: Vec<&str> = variants.iter().map(|(name, _)| *name).collect();
        Err(self.error(ScenarioErrorKind::UnknownVariant {
            suggestion: suggest::closest(&text, &names),
            value: text,
            valid: names.iter().map(|n| (*n).to_owned()).collect(),
        }))
    }
}

/// A map being read key by key; `finish` rejects the keys nobody asked for.
pub(crate) struct MapReader<'n> {
    field: Field<'n>,
    entries: &'n [Entry],
    known: Vec<&'static str>,
}

impl<'n> MapReader<'n> {
    /// The value of `key`, if present; `key` becomes a known key.
    pub(crate) fn get(&mut self, key: &'static str) -> Option<Field<'n>> {
        self.known.push(key);
        self.entries
            .iter()
            .find(|e| e.key == key)
            .map(|e| self.field.entry(e))
    }

    /// The value of `key`; when it is absent, a misspelling of it is
    /// reported as such rather than as a missing key.
    pub(crate) fn required(&mut self, key: &'static str) -> Read<Field<'n>> {
        if let Some(field) = self.get(key) {
            return Ok(field);
        }
        let typo = self.entries.iter().find(|e| {
            !self.known.contains(&e.key.as_str()) && suggest::closest(&e.key, &[key]).is_some()
        });
        let error = match typo {
            Some(entry) => ScenarioError::new(
                ScenarioErrorKind::UnknownKey {
                    key: entry.key.clone(),
                    suggestion: Some(key.to_owned()),
                    valid: Vec::new(),
                },
                self.field.origin,
            )
            .with_path(self.field.path.to_key_path().key(&entry.key).to_string())
            .at(entry.key_pos.line, entry.key_pos.column),
            None => self.missing(key),
        };
        Err(error)
    }

    /// The error for a required `key` that is absent.
    pub(crate) fn missing(&self, key: &str) -> ScenarioError {
        self.field.error(ScenarioErrorKind::MissingKey {
            key: key.to_owned(),
        })
    }

    /// The keys present, in file order.
    pub(crate) fn keys(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.key.clone()).collect()
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|e| e.key == key)
    }

    /// Fails on the first key (in file order) that was never asked for.
    pub(crate) fn finish(&self) -> Read<()> {
        self.finish_suggesting(&[])
    }

    /// Like `finish`, also suggesting `extra` keys (valid elsewhere nearby).
    pub(crate) fn finish_suggesting(&self, extra: &[&str]) -> Read<()> {
        self.finish_with(extra, &[])
    }

    /// Like `finish`, suggesting `to` for an unknown key `from` (a name
    /// Haystack uses where the format uses another).
    pub(crate) fn finish_hinting(&self, hints: &[(&str, &str)]) -> Read<()> {
        self.finish_with(&[], hints)
    }

    fn finish_with(&self, extra: &[&str], hints: &[(&str, &str)]) -> Read<()> {
        let Some(unknown) = self
            .entries
            .iter()
            .find(|e| !self.known.contains(&e.key.as_str()))
        else {
            return Ok(());
        };
        let candidates: Vec<&str> = self
            .known
            .iter()
            .copied()
            .chain(extra.iter().copied())
            .collect();
        let kind = ScenarioErrorKind::UnknownKey {
            key: unknown.key.clone(),
            suggestion: hints
                .iter()
                .find(|(from, _)| *from == unknown.key)
                .map(|(_, to)| (*to).to_owned())
                .or_else(|| suggest::closest(&unknown.key, &candidates)),
            valid: self.known.iter().map(|k| (*k).to_owned()).collect(),
        };
        Err(ScenarioError::new(kind, self.field.origin)
            .with_path(self.field.path.to_key_path().key(&unknown.key).to_string())
            .at(unknown.key_pos.line, unknown.key_pos.column))
    }
}
