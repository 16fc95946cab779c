//! YAML text to the spanned tree, from saphyr-parser's event stream.
//!
//! The builder keeps its own stack (no recursion, so deep nesting cannot
//! overflow it), rejects duplicate and non-string keys, expands aliases
//! within a budget (so an alias bomb fails fast) and reads only the core tags.

use hashbrown::DefaultHashBuilder;
use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Tag};

use super::budget::{Nodes, Spent, ValueBudget};
use super::error::{ScenarioError, ScenarioErrorKind};
use super::key_index::KeyIndex;
use super::node::{Entry, KeyPath, Node, NodeValue, Pos};
use super::scalar::{self, ScalarError};
use super::{ALIAS_BUDGET, ALIAS_BYTES, Format, MAX_DEPTH};

mod subset;

/// Parses one YAML document into the tree.
///
/// Text in the subset of YAML that scenario files are written in is read
/// directly ([`subset`]); any other text, and any text with an error, is
/// read by saphyr-parser, which gives the same tree for the subset.
pub(crate) fn parse(text: &str, origin: &str) -> Result<Node, ScenarioError> {
    // A tree the subset reader gave up on is dropped before saphyr-parser
    // builds its own: each may grow to the value budget.
    let read = {
        let mut builder = Builder::new(origin, text);
        match subset::read(text, &mut builder) {
            Ok(()) => builder.finish().ok(),
            Err(_) => None,
        }
    };
    match read {
        Some(root) => Ok(root),
        None => parse_with_saphyr(text, origin),
    }
}

/// saphyr-parser's messages for a line that does not fit the structure
/// around it: nearly always an indentation mistake (or an unquoted `: ` in
/// a value), which the parser cannot name as such.
const STRUCTURE_ERRORS: [&str; 6] = [
    "mapping values are not allowed in this context",
    "mapping keys are not allowed in this context",
    "block sequence entries are not allowed in this context",
    "while parsing a block mapping, did not find expected key",
    "while parsing a block collection, did not find expected '-' indicator",
    "invalid indentation",
];

/// Whether saphyr-parser's `message` says a line does not fit the
/// structure around it.
pub(crate) fn is_structure_error(message: &str) -> bool {
    STRUCTURE_ERRORS.contains(&message)
}

/// What to do about saphyr-parser's other messages, by the message's
/// start: each says what the parser could not read, not what to write.
const SYNTAX_HINTS: &[(&str, &str)] = &[
    (
        "simple key expect",
        "a key on this line has no `: ` after it on the same line (a key holds at most \
         1024 characters); end the key with `: `, or quote a value that holds `: `",
    ),
    (
        "while parsing a node, did not find expected node content",
        "a value is missing here, or starts with a character yaml keeps for itself; \
         write the value, quoted if it starts with `@`, `` ` ``, `%`, `!`, `&`, `*` or `|`",
    ),
    (
        "unexpected character",
        "a value starts with a character yaml keeps for itself; quote the value",
    ),
    (
        "while parsing a flow sequence",
        "a `[ ]` list is missing a `,` between two items or its closing `]`",
    ),
    (
        "while parsing a flow mapping",
        "a `{ }` map is missing a `,` between two entries or its closing `}`",
    ),
    (
        "while scanning a quoted scalar, found unexpected end of stream",
        "a quoted string is not closed; add its closing quote",
    ),
    (
        "while scanning a quoted scalar, found unexpected document indicator",
        "a quoted string is not closed before a `---` or `...` line; add its closing quote",
    ),
    (
        "while parsing a quoted scalar, found unknown escape character",
        "a double-quoted string holds a `\\` escape yaml does not have; write `\\\\` for a \
         backslash, or quote the string with single quotes",
    ),
    (
        "while parsing a quoted scalar",
        "a `\\x`, `\\u` or `\\U` escape in a double-quoted string is not followed by its \
         hexadecimal digits; write them, or `\\\\` for a backslash",
    ),
    (
        "while scanning a plain scalar, found a tab",
        "an unquoted value holds a tab; quote the value, or use spaces",
    ),
    (
        "while parsing anchor, found duplicated anchor",
        "an anchor `&name` is defined twice in the file; give one of them another name",
    ),
    (
        "found unprintable character",
        "the file holds a control character yaml does not allow; remove it (inside a \
         double-quoted string, write it as an escape such as `\\x07`)",
    ),
    (
        "while scanning an anchor or alias",
        "an anchor `&` or an alias `*` has no name after it; name it (`&base`, `*base`), \
         or quote a value that starts with `&` or `*`",
    ),
];

/// What to do about a syntax error saphyr-parser reports as `message`
/// (an indentation mistake: [`is_structure_error`]).
pub(crate) fn syntax_hint(message: &str) -> Option<&'static str> {
    if is_structure_error(message) {
        return Some(
            "check the indentation of this line and the ones above it: the keys of \
             one map start in one column, a list item's keys line up after its `- `, \
             and a value holding `: ` is quoted",
        );
    }
    SYNTAX_HINTS
        .iter()
        .find(|(start, _)| message.starts_with(start))
        .map(|(_, hint)| *hint)
}

/// saphyr-parser's message for an alias with no anchor before it, which
/// does not name the alias.
const UNKNOWN_ANCHOR: &str = "while parsing node, found unknown anchor";

/// The alias at `at` (a character offset), named: `*name`.
fn alias_at(text: &str, at: usize) -> Option<String> {
    let rest: String = text.chars().skip(at).take(1100).collect();
    let rest = rest.strip_prefix('*')?;
    let name: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
        .take(64)
        .collect();
    (!name.is_empty()).then_some(name)
}

/// saphyr-parser's message when flow collections nest past its 255 levels.
const SCANNER_DEPTH_LIMIT: &str = "recursion limit exceeded";

/// [`parse`] through saphyr-parser alone.
fn parse_with_saphyr(text: &str, origin: &str) -> Result<Node, ScenarioError> {
    let mut builder = Builder::new(origin, text);
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| {
            // saphyr-parser reads a NUL as the end of the stream, and says so
            // wherever the NUL sits: name the character and its place instead.
            if let Some(at) = first_nul(text) {
                let kind = ScenarioErrorKind::Syntax {
                    format: Format::Yaml,
                    message: "the file holds a NUL character (U+0000), which yaml does not allow; \
                              remove it (inside a double-quoted string, write it as `\\0`)"
                        .to_owned(),
                };
                return builder.error(kind, &KeyPath::default(), at);
            }
            let pos = pos(*e.marker());
            // The scanner reads ahead through flow collections (each `[` may
            // start a key) and stops at 255 levels, before the builder has
            // seen its own limit: the same file error as nesting in blocks.
            let kind = if e.info() == SCANNER_DEPTH_LIMIT {
                ScenarioErrorKind::TooDeep { limit: MAX_DEPTH }
            } else if e.info() == UNKNOWN_ANCHOR {
                let alias = alias_at(text, e.marker().index()).map_or_else(
                    || "an alias".to_owned(),
                    |name| format!("the alias `*{name}`"),
                );
                ScenarioErrorKind::Syntax {
                    format: Format::Yaml,
                    message: format!(
                        "{alias} names no anchor defined before it; define it first \
                         (`key: &name value`), or quote a value that starts with `*`"
                    ),
                }
            } else {
                ScenarioErrorKind::Syntax {
                    format: Format::Yaml,
                    message: e.info().to_owned(),
                }
            };
            builder.error(kind, &KeyPath::default(), pos)
        })?;
        builder.on_event(event, pos(span.start))?;
    }
    builder.finish()
}

/// Where the first NUL character of `text` is (1-based line and column, in
/// characters), if it holds one.
fn first_nul(text: &str) -> Option<Pos> {
    let offset = text.find('\0')?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    Some(Pos {
        line,
        column: before[start..].chars().count() + 1,
    })
}

fn pos(marker: Marker) -> Pos {
    Pos {
        line: marker.line(),
        column: marker.col() + 1,
    }
}

/// An open collection. Its key path is not stored: the frames below it
/// give it (see [`Builder::child_path`]), and it is only needed for errors.
struct Frame {
    pos: Pos,
    anchor: usize,
    collection: Collection,
}

/// An open collection; its children so far are the tail of
/// [`Builder::items`] or [`Builder::entries`], from `start` on.
enum Collection {
    Seq {
        start: usize,
    },
    Map {
        start: usize,
        /// Finds the map's duplicate keys.
        index: KeyIndex,
        key: Option<(String, Pos)>,
    },
}

/// A list or map closed with more children than this takes the builder's
/// whole vector when it holds only them (a long top-level list of a long
/// recording), instead of a copy.
const TAKEN_WHOLE: usize = 1024;

struct Builder<'o> {
    origin: &'o str,
    stack: Vec<Frame>,
    /// The items of every open list, innermost list last, and the entries
    /// of every open map: one growing vector for all, so that a closed
    /// collection is allocated once, at its size.
    items: Vec<Node>,
    entries: Vec<Entry>,
    /// Hashes the keys of long maps, for their duplicates.
    hasher: DefaultHashBuilder,
    /// Anchor id -> the anchored node and how many nodes and bytes it holds.
    anchors: HashMap<usize, (Node, Size)>,
    /// Nodes and bytes added by alias expansion so far.
    expanded: Size,
    root: Option<Node>,
    documents: usize,
    /// What the tree and the values read so far will take in memory.
    budget: ValueBudget,
}

impl<'o> Builder<'o> {
    fn new(origin: &'o str, text: &str) -> Self {
        Builder {
            origin,
            stack: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            hasher: DefaultHashBuilder::default(),
            anchors: HashMap::new(),
            expanded: Size::default(),
            root: None,
            documents: 0,
            budget: ValueBudget::for_text(text),
        }
    }

    /// The root, once every event is in.
    fn finish(self) -> Result<Node, ScenarioError> {
        let empty = || ScenarioError::new(ScenarioErrorKind::Empty, self.origin);
        match self.root {
            // Only comments or blank lines: the file's start.
            None => Err(empty().at(1, 1)),
            // `---` alone, `~` or `null`: nothing to read either.
            Some(Node {
                value: NodeValue::Null,
                pos,
                ..
            }) => Err(empty().at(pos.line, pos.column)),
            Some(root) => Ok(root),
        }
    }

    fn error(&self, kind: ScenarioErrorKind, path: &KeyPath, pos: Pos) -> ScenarioError {
        ScenarioError::new(kind, self.origin)
            .with_path(path.to_string())
            .at(pos.line, pos.column)
    }

    /// The error of a value past the budget, at `at`, the value's place.
    fn charged(&self, charged: Result<(), Spent>, at: Pos) -> Result<(), ScenarioError> {
        charged.map_err(|spent| self.spent(spent, at))
    }

    /// The budget is spent at `at`, the place of the next node.
    fn spent(&self, Spent { limit }: Spent, at: Pos) -> ScenarioError {
        self.error(
            ScenarioErrorKind::ValueBytes { limit },
            &self.child_path(),
            at,
        )
    }

    /// The path of the node about to be added: each open collection adds
    /// the step to its open child (a map's pending key, a list's next
    /// index); a map waiting for a key adds nothing. Built for errors only.
    fn child_path(&self) -> KeyPath {
        self.stack
            .iter()
            .fold(KeyPath::default(), |path, frame| match &frame.collection {
                Collection::Seq { start } => path.index(self.items.len() - start),
                Collection::Map { key: Some(k), .. } => path.key(&k.0),
                Collection::Map { key: None, .. } => path,
            })
    }

    /// Whether reading the scenario copies the next node out of the tree:
    /// every node but those in `model`, which the loader reads reply by
    /// reply.
    fn copied(&self) -> bool {
        let in_model = self.stack.len() > 1
            && matches!(
                self.stack.first(),
                Some(Frame {
                    collection: Collection::Map { key: Some((key, _)), .. },
                    ..
                }) if key == "model"
            );
        !in_model
    }

    /// Whether the next node is a map key.
    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                collection: Collection::Map { key: None, .. },
                ..
            })
        )
    }

    fn on_event(&mut self, event: Event<'_>, at: Pos) -> Result<(), ScenarioError> {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(self.error(
                        ScenarioErrorKind::MultipleDocuments,
                        &KeyPath::default(),
                        at,
                    ));
                }
                Ok(())
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.on_scalar(&text, style, anchor, tag, at)
            }
            Event::SequenceStart(anchor, tag) => {
                let seq = Collection::Seq {
                    start: self.items.len(),
                };
                self.open(anchor, tag.as_deref(), "seq", at, seq)
            }
            Event::MappingStart(anchor, tag) => {
                let map = Collection::Map {
                    start: self.entries.len(),
                    index: KeyIndex::default(),
                    key: None,
                };
                self.open(anchor, tag.as_deref(), "map", at, map)
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Alias(id) => self.on_alias(id, at),
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => Ok(()),
        }
    }

    fn on_scalar(
        &mut self,
        text: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<Cow<'_, Tag>>,
        at: Pos,
    ) -> Result<(), ScenarioError> {
        // YAML 1.2's core schema has no merge keys: `<<` is an ordinary key.
        let resolved = match tag.as_deref() {
            Some(tag) if is_non_specific(tag) => Ok(NodeValue::String(text.to_owned())),
            Some(tag) => scalar::resolve_tagged(core_suffix(tag), text),
            None if style == ScalarStyle::Plain => scalar::resolve_plain(text),
            None => Ok(NodeValue::String(text.to_owned())),
        };
        let value = resolved.map_err(|e| {
            let kind = match e {
                ScalarError::NonFinite => ScenarioErrorKind::NonFiniteNumber {
                    text: text.to_owned(),
                },
                ScalarError::TagMismatch { expected } => ScenarioErrorKind::WrongType {
                    expected,
                    found: "text that does not match its tag",
                },
                ScalarError::UnsupportedTag => ScenarioErrorKind::UnsupportedTag {
                    tag: tag.as_deref().map(show_tag).unwrap_or_default(),
                },
            };
            self.error(kind, &self.child_path(), at)
        })?;
        let copied = self.copied();
        let charged = if self.expects_key() {
            self.budget.key(text.len(), copied)
        } else {
            self.budget.scalar(text.len(), copied)
        };
        self.charged(charged, at)?;
        let size = Size::of_scalar(&value);
        self.add(Node { value, pos: at }, anchor, size)
    }

    fn open(
        &mut self,
        anchor: usize,
        tag: Option<&Tag>,
        core: &str,
        at: Pos,
        collection: Collection,
    ) -> Result<(), ScenarioError> {
        if let Some(tag) = tag
            && !is_non_specific(tag)
            && core_suffix(tag) != Some(core)
        {
            let kind = ScenarioErrorKind::UnsupportedTag { tag: show_tag(tag) };
            return Err(self.error(kind, &self.child_path(), at));
        }
        if self.expects_key() {
            let found = match collection {
                Collection::Seq { .. } => "a list",
                Collection::Map { .. } => "a map",
            };
            let kind = ScenarioErrorKind::NonStringKey { found, text: None };
            return Err(self.error(kind, &self.child_path(), at));
        }
        if self.stack.len() >= MAX_DEPTH {
            let kind = ScenarioErrorKind::TooDeep { limit: MAX_DEPTH };
            return Err(self.error(kind, &self.child_path(), at));
        }
        let charged = self.budget.collection(self.copied());
        self.charged(charged, at)?;
        self.stack.push(Frame {
            pos: at,
            anchor,
            collection,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<(), ScenarioError> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        // No growth slack kept: the tree lives until the scenario is read.
        let value = match frame.collection {
            Collection::Seq { start } => {
                match take_from(&mut self.items, start, &mut self.budget) {
                    Ok(items) => NodeValue::Seq(items),
                    Err(spent) => return Err(self.spent(spent, frame.pos)),
                }
            }
            Collection::Map { start, index, .. } => {
                self.budget.release(index.bytes());
                match take_from(&mut self.entries, start, &mut self.budget) {
                    Ok(entries) => NodeValue::Map(entries),
                    Err(spent) => return Err(self.spent(spent, frame.pos)),
                }
            }
        };
        let node = Node {
            value,
            pos: frame.pos,
        };
        let size = if frame.anchor > 0 {
            Size::of(&node)
        } else {
            Size::default()
        };
        self.add(node, frame.anchor, size)
    }

    fn on_alias(&mut self, id: usize, at: Pos) -> Result<(), ScenarioError> {
        let Some((node, size)) = self.anchors.get(&id).cloned() else {
            let kind = ScenarioErrorKind::Syntax {
                format: Format::Yaml,
                message: "an alias refers to an anchor that is not defined before it".to_owned(),
            };
            return Err(self.error(kind, &self.child_path(), at));
        };
        self.expanded = self.expanded.plus(size);
        if self.expanded.nodes > ALIAS_BUDGET {
            let kind = ScenarioErrorKind::AliasBudget {
                limit: ALIAS_BUDGET,
            };
            return Err(self.error(kind, &self.child_path(), at));
        }
        // Counted before the copy is made: a long scalar aliased many
        // times stops here, not in memory.
        if self.expanded.bytes > ALIAS_BYTES {
            let kind = ScenarioErrorKind::AliasBytes { limit: ALIAS_BYTES };
            return Err(self.error(kind, &self.child_path(), at));
        }
        if depth(&node) + self.stack.len() > MAX_DEPTH {
            let kind = ScenarioErrorKind::TooDeep { limit: MAX_DEPTH };
            return Err(self.error(kind, &self.child_path(), at));
        }
        let nodes = Nodes {
            count: size.nodes,
            bytes: size.bytes,
        };
        let charged = self.budget.nodes(nodes, self.copied());
        self.charged(charged, at)?;
        // Point at the alias: that is where this copy is used.
        let node = Node { pos: at, ..node };
        self.add(node, 0, size)
    }

    /// Adds a finished node to its parent (as a key or a value), or as the root.
    fn add(&mut self, node: Node, anchor: usize, size: Size) -> Result<(), ScenarioError> {
        if anchor > 0 {
            // The anchor's copy, held until the file is read.
            let nodes = Nodes {
                count: size.nodes,
                bytes: size.bytes,
            };
            let charged = self.budget.nodes(nodes, false);
            self.charged(charged, node.pos)?;
            self.anchors.insert(anchor, (node.clone(), size));
        }
        let pos = node.pos;
        // Room for the node in its parent's vector, charged while the
        // path still names it (a map's pending key).
        let room = match self.stack.last().map(|frame| &frame.collection) {
            Some(Collection::Seq { .. }) => self.budget.room(&mut self.items),
            Some(Collection::Map { key: Some(_), .. }) => self.budget.room(&mut self.entries),
            _ => Ok(()),
        };
        self.charged(room, pos)?;
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        let (key, first) = match &mut frame.collection {
            Collection::Seq { .. } => {
                self.items.push(node);
                return Ok(());
            }
            Collection::Map {
                start,
                index,
                key: pending,
            } => {
                if let Some((key, key_pos)) = pending.take() {
                    self.entries.push(Entry {
                        key,
                        key_pos,
                        value: node,
                    });
                    return Ok(());
                }
                let NodeValue::String(key) = node.value else {
                    let kind = ScenarioErrorKind::NonStringKey {
                        found: node.value.describe(),
                        text: scalar_text(&node.value),
                    };
                    return Err(self.error(kind, &self.child_path(), node.pos));
                };
                let indexed = index.bytes();
                let first = index.first_position(&self.entries[*start..], &self.hasher, &key);
                let charged = self.budget.charge(index.bytes() - indexed);
                match (first, charged) {
                    (None, Ok(())) => {
                        *pending = Some((key, node.pos));
                        return Ok(());
                    }
                    (Some(first), _) => (key, Ok(first)),
                    (None, Err(spent)) => (key, Err(spent)),
                }
            }
        };
        let path = self.child_path().key(&key);
        let kind = match first {
            Ok(first) => ScenarioErrorKind::DuplicateKey {
                key,
                first_line: first.line,
                first_column: first.column,
            },
            Err(Spent { limit }) => ScenarioErrorKind::ValueBytes { limit },
        };
        Err(self.error(kind, &path, node.pos))
    }
}

/// The children of a closing collection, `children[start..]`, in a vector
/// of their own without growth slack, charged to `budget` (or `Spent`
/// before it is allocated).
fn take_from<T>(
    children: &mut Vec<T>,
    start: usize,
    budget: &mut ValueBudget,
) -> Result<Vec<T>, Spent> {
    if start == 0 && children.len() > TAKEN_WHOLE {
        let mut whole = std::mem::take(children);
        budget.shrink(&mut whole);
        return Ok(whole);
    }
    budget.exact::<T>(children.len() - start)?;
    Ok(children.drain(start..).collect())
}

/// The text of a non-string scalar key, for the message.
fn scalar_text(value: &NodeValue) -> Option<String> {
    match value {
        NodeValue::Null => Some("null".to_owned()),
        NodeValue::Bool(b) => Some(b.to_string()),
        NodeValue::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `!` alone: a non-specific tag, which makes a scalar a string.
fn is_non_specific(tag: &Tag) -> bool {
    tag.handle.is_empty() && tag.suffix == "!"
}

/// `str` for `!!str`; `None` for tags outside the core schema.
fn core_suffix(tag: &Tag) -> Option<&str> {
    tag.is_yaml_core_schema().then_some(tag.suffix.as_str())
}

fn show_tag(tag: &Tag) -> String {
    match core_suffix(tag) {
        Some(suffix) => format!("!!{suffix}"),
        None if tag.handle.is_empty() => tag.suffix.clone(),
        None => tag.to_string(),
    }
}

/// What an alias of a node adds to the tree: its nodes, and the bytes of
/// its strings and keys.
#[derive(Debug, Clone, Copy, Default)]
struct Size {
    nodes: usize,
    bytes: usize,
}

impl Size {
    fn of_scalar(value: &NodeValue) -> Size {
        let bytes = match value {
            NodeValue::String(text) => text.len(),
            _ => 0,
        };
        Size { nodes: 1, bytes }
    }

    fn of(node: &Node) -> Size {
        match &node.value {
            NodeValue::Seq(items) => items.iter().fold(Size { nodes: 1, bytes: 0 }, |sum, item| {
                sum.plus(Size::of(item))
            }),
            NodeValue::Map(entries) => {
                entries.iter().fold(Size { nodes: 1, bytes: 0 }, |sum, e| {
                    sum.plus(Size::of(&e.value)).plus(Size {
                        nodes: 0,
                        bytes: e.key.len(),
                    })
                })
            }
            scalar => Size::of_scalar(scalar),
        }
    }

    fn plus(self, other: Size) -> Size {
        Size {
            nodes: self.nodes.saturating_add(other.nodes),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }
}

fn depth(node: &Node) -> usize {
    match &node.value {
        NodeValue::Seq(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        NodeValue::Map(entries) => 1 + entries.iter().map(|e| depth(&e.value)).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_can_be_a_key_and_points_at_its_use() {
        let root = parse("&k a: 1\n*k : 2\n", "x.yaml").unwrap_err();
        assert_eq!(
            root.to_string(),
            "x.yaml:2:1: duplicate key `a` at the top level (first defined at 1:1); keep only one"
        );
    }

    #[test]
    fn a_duplicate_key_in_a_long_map_names_its_first_position() {
        // Past the scanned keys: found through the index, on both readers.
        let keys: String = (0..40).map(|i| format!("  k{i}: {i}\n")).collect();
        for text in [
            format!("m:\n{keys}  k3: again\n"),
            format!("m:\n{keys}  k39: again\n  &a x: 1\n"),
        ] {
            let error = parse(&text, "x.yaml").unwrap_err().to_string();
            assert!(error.starts_with("x.yaml:42:3: duplicate key `"), "{error}");
            let first = if text.contains("k39: again") {
                "41:3"
            } else {
                "5:3"
            };
            assert!(
                error.contains(&format!("(first defined at {first})")),
                "{error}"
            );
        }
        let distinct: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        assert!(parse(&distinct, "x.yaml").is_ok());
    }

    #[test]
    fn aliases_of_a_long_scalar_are_counted_in_bytes_before_they_are_copied() {
        // 9,990 aliases of a 300 KB scalar: 3 GB once expanded. A comment
        // of 2 MB gives the file a memory budget past the aliases' limit.
        let long = "x".repeat(300_000);
        let pad = format!("# {}\n", "x".repeat(2_000_000));
        let aliases = "- *s\n".repeat(9_990);
        let text = format!("{pad}- &s {long}\n{aliases}");
        let error = parse(&text, "x.yaml").unwrap_err().to_string();
        assert!(
            error
                .starts_with("x.yaml:30:3: yaml aliases expand to more than 8388608 bytes of text"),
            "{error}"
        );
        // The same in a map value, counted with its keys.
        let map = format!("{pad}a: &m {{k: {long}}}\nb: [{}]\n", "*m, ".repeat(40));
        assert!(
            parse(&map, "x.yaml")
                .unwrap_err()
                .to_string()
                .contains("bytes of text")
        );
        // Short values aliased often stay within it.
        let short = format!("- &s abc\n{}", "- *s\n".repeat(9_000));
        assert!(parse(&short, "x.yaml").is_ok());
    }

    #[test]
    fn quoted_scalars_stay_strings() {
        let root = parse("a: '12'\nb: 12\n", "x.yaml").unwrap();
        assert_eq!(root.to_json(), serde_json::json!({"a": "12", "b": 12}));
    }

    #[test]
    fn positions_are_one_based() {
        let root = parse("\n  key: value\n", "x.yaml").unwrap();
        let NodeValue::Map(entries) = &root.value else {
            panic!("map expected");
        };
        assert_eq!(entries[0].key_pos, Pos { line: 2, column: 3 });
        assert_eq!(entries[0].value.pos, Pos { line: 2, column: 8 });
    }
}
