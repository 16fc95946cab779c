//! Where a key is in a scenario file, for messages about a scenario that
//! loaded (an Agent construction error names a hook point, a mutant the
//! part it changed, not a place).

use super::node::{KeyPath, Node, NodeValue, Segment};
use super::{Format, json, yaml};
use std::path::Path;

/// A scenario file's tree, read again to find the positions of key paths.
pub(crate) struct Located(Node);

impl Located {
    /// The tree of `file`, when it can still be read and parsed.
    pub(crate) fn read(file: &Path) -> Option<Located> {
        let text = std::fs::read_to_string(file).ok()?;
        let origin = file.display().to_string();
        let root = match Format::from_path(file)? {
            Format::Yaml => yaml::parse(&text, &origin).ok()?,
            Format::Json => json::parse(&text, &origin).ok()?,
        };
        Some(Located(root))
    }

    /// The tree of `text` read as `format`, when it parses.
    pub(crate) fn parse(text: &str, format: Format) -> Option<Located> {
        let root = match format {
            Format::Yaml => yaml::parse(text, "").ok()?,
            Format::Json => json::parse(text, "").ok()?,
        };
        Some(Located(root))
    }

    /// The position of the first key of the map at `path`, when it is a
    /// map with a key.
    pub(crate) fn first_key_position(&self, path: &KeyPath) -> Option<(usize, usize)> {
        let entry = self.node(path)?.entries()?.first()?;
        Some((entry.key_pos.line, entry.key_pos.column))
    }

    /// The line and column of the last step of `path`: a key's own
    /// position, or a list item's; `None` when the file does not hold it.
    pub(crate) fn position(&self, path: &KeyPath) -> Option<(usize, usize)> {
        let (position, found) = self.nearest(path);
        (found == path.segments().len())
            .then_some(position)
            .flatten()
    }

    /// The line and column where the value at `path` starts (a template's
    /// first character, a block scalar's `|`); `None` when the file does
    /// not hold it.
    pub(crate) fn value_position(&self, path: &KeyPath) -> Option<(usize, usize)> {
        let node = self.node(path)?;
        Some((node.pos.line, node.pos.column))
    }

    /// The node at `path`; `None` when the file does not hold it.
    fn node(&self, path: &KeyPath) -> Option<&Node> {
        let mut node = &self.0;
        for segment in path.segments() {
            node = match (segment, &node.value) {
                (Segment::Key(key), NodeValue::Map(entries)) => {
                    &entries.iter().find(|entry| entry.key == *key)?.value
                }
                (Segment::Index(index), NodeValue::Seq(items)) => items.get(*index)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The position of the deepest step of `path` the file holds (a
    /// missing parameter's map, say), and how many steps were found.
    fn nearest(&self, path: &KeyPath) -> (Option<(usize, usize)>, usize) {
        let mut node = &self.0;
        let mut position = None;
        for (found, segment) in path.segments().iter().enumerate() {
            match (segment, &node.value) {
                (Segment::Key(key), NodeValue::Map(entries)) => {
                    let Some(entry) = entries.iter().find(|entry| entry.key == *key) else {
                        return (position, found);
                    };
                    position = Some((entry.key_pos.line, entry.key_pos.column));
                    node = &entry.value;
                }
                (Segment::Index(index), NodeValue::Seq(items)) => {
                    let Some(item) = items.get(*index) else {
                        return (position, found);
                    };
                    node = item;
                    position = Some((node.pos.line, node.pos.column));
                }
                _ => return (position, found),
            }
        }
        (position, path.segments().len())
    }
}

/// `FILE:LINE:COLUMN` of the deepest part of `place` (a key path as
/// [`KeyPath`] writes it) that `file` holds, or `FILE` alone; with
/// `at_value`, of the value at `place` when the file holds it.
pub(crate) fn located(file: &Path, place: Option<&str>, at_value: bool) -> String {
    let position = place.and_then(|place| {
        let located = Located::read(file)?;
        let path = KeyPath::parse(place);
        let value = at_value.then(|| located.value_position(&path)).flatten();
        value.or_else(|| located.nearest(&path).0)
    });
    match position {
        Some((line, column)) => format!("{}:{line}:{column}", file.display()),
        None => file.display().to_string(),
    }
}
