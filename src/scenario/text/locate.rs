//! Where a key is in a scenario's text: lookups over the spanned tree, for
//! the source map the loader keeps ([`SourceMap`](crate::scenario::SourceMap)) and
//! for the commands that rewrite a text they hold (`rebase`) or name the
//! place of a change (`mutate`).

use super::node::{KeyPath, Node, NodeValue, Segment};
use super::{Format, json, yaml};
use std::path::Path;

/// A scenario text's tree, for the positions of key paths.
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
        let entry = node_at(&self.0, path.segments())?.entries()?.first()?;
        Some((entry.key_pos.line, entry.key_pos.column))
    }

    /// The line and column of the last step of `path`: a key's own
    /// position, or a list item's; `None` when the text does not hold it.
    pub(crate) fn position(&self, path: &KeyPath) -> Option<(usize, usize)> {
        position(&self.0, path.segments())
    }
}

/// [`Located::position`] in the tree at `root`.
pub(super) fn position(root: &Node, segments: &[Segment]) -> Option<(usize, usize)> {
    let (position, found) = nearest(root, segments);
    (found == segments.len()).then_some(position).flatten()
}

/// The line and column where the value at `segments` starts (a
/// template's first character, a block scalar's first line); `None` when
/// the tree does not hold it.
pub(super) fn value_position(root: &Node, segments: &[Segment]) -> Option<(usize, usize)> {
    let node = node_at(root, segments)?;
    Some((node.pos.line, node.pos.column))
}

/// The node at `segments`; `None` when the tree does not hold it.
fn node_at<'n>(root: &'n Node, segments: &[Segment]) -> Option<&'n Node> {
    let mut node = root;
    for segment in segments {
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

/// The position of the deepest step of `segments` the tree holds (a
/// missing parameter's map, say), and how many steps were found.
pub(super) fn nearest(root: &Node, segments: &[Segment]) -> (Option<(usize, usize)>, usize) {
    let mut node = root;
    let mut position = None;
    for (found, segment) in segments.iter().enumerate() {
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
    (position, segments.len())
}
