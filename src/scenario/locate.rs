//! Where a key is in a scenario file, for messages about a scenario that
//! loaded (an Agent construction error names a hook point, not a place).

use super::node::{Node, NodeValue};
use super::{Format, json, yaml};
use std::path::Path;

/// The line and column of the key at `keys` (a path of map keys from the
/// top), when the file still parses and holds it.
pub(crate) fn key_position(file: &Path, keys: &[&str]) -> Option<(usize, usize)> {
    let text = std::fs::read_to_string(file).ok()?;
    let origin = file.display().to_string();
    let root = match Format::from_path(file)? {
        Format::Yaml => yaml::parse(&text, &origin).ok()?,
        Format::Json => json::parse(&text, &origin).ok()?,
    };
    let mut node: &Node = &root;
    let mut position = None;
    for key in keys {
        let NodeValue::Map(entries) = &node.value else {
            return None;
        };
        let entry = entries.iter().find(|entry| entry.key == *key)?;
        position = Some((entry.key_pos.line, entry.key_pos.column));
        node = &entry.value;
    }
    position
}
