//! Where each part of a loaded scenario is written: the spanned tree the
//! loader read, kept beside the [`Scenario`](crate::scenario::Scenario), so that an
//! error found after loading (an Agent construction error, a ready-made
//! hook's parameter) names its line and column without reading the file
//! again, and a scenario loaded from text has positions too.
//!
//! The `model` replies are not kept (the loader drops each once read, for
//! memory), except their `sees` keys, nor the tools' `results`: no error
//! found after loading points inside them.

use super::locate;
use super::node::{Entry, KeyPath, Node, NodeValue, Pos, Segment};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The positions of a loaded scenario's keys, by key path; empty for a
/// scenario built in code. Shared by the scenario's clones (a mutant, an
/// explored variant), and not part of what the scenario means: equality
/// ignores it.
#[derive(Clone, Default)]
pub(crate) struct SourceMap(Option<Arc<Source>>);

struct Source {
    /// The name the loader was given (the file's path, as displayed).
    origin: String,
    /// The tree, without the `model` items and the tools' `results`.
    root: Node,
    /// `model[i].sees`, by reply index: the key and its value.
    sees: BTreeMap<usize, Entry>,
    /// The values written as YAML literal blocks (`|`) whose lines are
    /// the value's lines one for one, starting on the line after the key.
    literal_blocks: Vec<KeyPath>,
}

impl SourceMap {
    /// The map of `root` read from `text` under the name `origin`; `sees`
    /// are the `model` items' `sees` entries the loader took out.
    pub(crate) fn new(
        origin: &str,
        text: &str,
        mut root: Node,
        sees: BTreeMap<usize, Entry>,
    ) -> SourceMap {
        drop_tool_results(&mut root);
        let literal_blocks = literal_blocks(text, &root);
        SourceMap(Some(Arc::new(Source {
            origin: origin.to_owned(),
            root,
            sees,
            literal_blocks,
        })))
    }

    /// The name the scenario was loaded under (empty when built in code).
    pub(crate) fn origin(&self) -> &str {
        self.0.as_ref().map_or("", |source| &source.origin)
    }

    /// The line and column of the last step of `path` (a key's own
    /// position, or a list item's); `None` when the map does not hold it.
    pub(crate) fn position(&self, path: &KeyPath) -> Option<(usize, usize)> {
        let source = self.0.as_ref()?;
        match source.sees_of(path.segments()) {
            Some((entry, [])) => Some((entry.key_pos.line, entry.key_pos.column)),
            Some((entry, rest)) => locate::position(&entry.value, rest),
            None => locate::position(&source.root, path.segments()),
        }
    }

    /// The position of the deepest step of `path` the map holds (a missing
    /// parameter's map, say); `None` when it holds none.
    pub(crate) fn nearest(&self, path: &KeyPath) -> Option<(usize, usize)> {
        let source = self.0.as_ref()?;
        match source.sees_of(path.segments()) {
            Some((entry, rest)) => locate::nearest(&entry.value, rest)
                .0
                .or(Some((entry.key_pos.line, entry.key_pos.column))),
            None => locate::nearest(&source.root, path.segments()).0,
        }
    }

    /// Where the value at `path` starts (a template's first character, a
    /// block scalar's first line); `None` when the map does not hold it.
    pub(crate) fn value_position(&self, path: &KeyPath) -> Option<(usize, usize)> {
        let source = self.0.as_ref()?;
        match source.sees_of(path.segments()) {
            Some((entry, rest)) => locate::value_position(&entry.value, rest),
            None => locate::value_position(&source.root, path.segments()),
        }
    }

    /// Where line `line` (1-based) of the text value at `path` is, when
    /// it is a literal block (`|`), which keeps the value's lines one for
    /// one; `None` for any other way of writing it (quoted or folded text
    /// joins lines).
    pub(crate) fn line_of_value(&self, path: &KeyPath, line: usize) -> Option<(usize, usize)> {
        let source = self.0.as_ref()?;
        if !source.literal_blocks.contains(path) {
            return None;
        }
        let (first, column) = self.value_position(path)?;
        Some((first + line.checked_sub(1)?, column))
    }
}

impl Source {
    /// The `sees` entry `segments` starts in (`model[i].sees...`), and the
    /// steps after `sees`.
    fn sees_of<'s, 'p>(&'s self, segments: &'p [Segment]) -> Option<(&'s Entry, &'p [Segment])> {
        match segments {
            [
                Segment::Key(model),
                Segment::Index(i),
                Segment::Key(sees),
                rest @ ..,
            ] if model == "model" && sees == "sees" => Some((self.sees.get(i)?, rest)),
            _ => None,
        }
    }
}

impl PartialEq for SourceMap {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for SourceMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourceMap")
            .field("origin", &self.origin())
            .finish_non_exhaustive()
    }
}

/// Takes the tools' `results` out of the tree: long recordings hold most
/// of their text there, and no error found after loading points inside.
fn drop_tool_results(root: &mut Node) {
    let Some(tools) = entry_mut(root, "tools") else {
        return;
    };
    let NodeValue::Seq(tools) = &mut tools.value else {
        return;
    };
    for tool in tools {
        if let Some(results) = entry_mut(tool, "results") {
            if let NodeValue::Seq(items) = &mut results.value {
                items.clear();
            }
        }
    }
}

fn entry_mut<'n>(node: &'n mut Node, key: &str) -> Option<&'n mut Node> {
    match &mut node.value {
        NodeValue::Map(entries) => entries
            .iter_mut()
            .find(|entry| entry.key == key)
            .map(|entry| &mut entry.value),
        _ => None,
    }
}

/// The `agent` keys (where the templates are) whose text values are
/// literal blocks starting on the line after their key.
fn literal_blocks(text: &str, root: &Node) -> Vec<KeyPath> {
    let Some(agent) = root
        .entries()
        .and_then(|entries| entries.iter().find(|entry| entry.key == "agent"))
        .and_then(|agent| agent.value.entries())
    else {
        return Vec::new();
    };
    agent
        .iter()
        .filter(|entry| matches!(entry.value.value, NodeValue::String(_)))
        .filter(|entry| is_literal_block(text, entry.key_pos, entry.value.pos))
        .map(|entry| KeyPath::default().key("agent").key(&entry.key))
        .collect()
}

/// The key at `key` is followed by `|` and its value starts at `value`,
/// on the next line, which is not blank.
fn is_literal_block(text: &str, key: Pos, value: Pos) -> bool {
    if value.line != key.line + 1 {
        return false;
    }
    let mut lines = text.lines().skip(key.line.saturating_sub(1));
    let (Some(key_line), Some(next)) = (lines.next(), lines.next()) else {
        return false;
    };
    let from_key: String = key_line
        .chars()
        .skip(key.column.saturating_sub(1))
        .collect();
    from_key
        .split_once(':')
        .is_some_and(|(_, indicator)| indicator.trim_start().starts_with('|'))
        && !next.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use crate::scenario::{Format, KeyPath, Scenario};

    #[test]
    fn a_scenario_loaded_from_text_keeps_the_positions_of_its_keys() {
        let text = "agent:\n  system_prompt: |\n    Hi.\n    You {{ x }}\nhooks:\n  before_llm:\n    - {do: []}\nmodel:\n  - text: a\n    sees: {messages: [{role: user, text: q}]}\n";
        let scenario = Scenario::from_str(text, "mem.yaml", Format::Yaml).unwrap();
        let map = &scenario.source;
        assert_eq!(map.origin(), "mem.yaml");
        let hook = KeyPath::default().key("hooks").key("before_llm").index(0);
        assert_eq!(map.position(&hook), Some((7, 7)));
        let prompt = KeyPath::default().key("agent").key("system_prompt");
        assert_eq!(map.position(&prompt), Some((2, 3)));
        assert_eq!(map.line_of_value(&prompt, 2), Some((4, 5)));
        let seen = KeyPath::default()
            .key("model")
            .index(0)
            .key("sees")
            .key("messages")
            .index(0);
        assert_eq!(map.position(&seen), Some((10, 23)));
        let missing = KeyPath::default().key("hooks").key("on_exit");
        assert_eq!(map.position(&missing), None);
        assert_eq!(map.nearest(&missing.index(0)), Some((5, 1)));
    }
}
