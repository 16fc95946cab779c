//! A direct reader for the subset of YAML that scenario files are written
//! in: block maps and lists, one-line flow collections, one-line plain and
//! quoted scalars, comments.
//!
//! It produces the same events, at the same positions, as saphyr-parser
//! does for that text, about ten times faster, and it gives up on anything
//! else: a tab, a carriage return, an anchor, an alias, a tag, a block or
//! multi-line scalar, a key without a value, a document marker, any doubt
//! about indentation. Giving up is not an error: the caller then parses the
//! whole text again with saphyr-parser, so that every error (and every
//! construct this reader leaves out) is reported by one parser, in one
//! wording. The tests below check that both agree on every file of the
//! project and on generated text.

use std::borrow::Cow;

use saphyr_parser::{Event, ScalarStyle};

use super::Builder;
use crate::scenario::node::Pos;

/// This reader gave up: the text is left to saphyr-parser.
#[derive(Debug)]
pub(super) struct GiveUp;

type Step<T = ()> = Result<T, GiveUp>;

/// The longest implicit key YAML allows, in characters (YAML 1.2, 7.4.2);
/// a longer key is left to saphyr-parser, whichever way it counts.
const MAX_KEY_BYTES: usize = 1024;

/// Feeds the events of `text` to `builder`, or gives up (the builder's
/// own errors included: they are reported from saphyr-parser's events).
pub(super) fn read(text: &str, builder: &mut Builder<'_>) -> Step {
    if !plain_characters(text) {
        return Err(GiveUp);
    }
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        line: 1,
        line_start: 0,
        counted: std::cell::Cell::new((0, 0)),
        indent: None,
        builder,
    };
    reader.emit(Event::DocumentStart(false), Pos { line: 1, column: 1 })?;
    reader.next_content_line()?;
    let Some(indent) = reader.indent else {
        return Err(GiveUp);
    };
    reader.block_collection(indent, false)?;
    match reader.indent {
        None => Ok(()),
        Some(_) => Err(GiveUp),
    }
}

/// No character whose handling differs between YAML readers or versions:
/// control characters but the newline (tabs and carriage returns among
/// them), C1 controls, line and paragraph separators, byte order marks and
/// the non-characters U+FFFE and U+FFFF, found by their UTF-8 lead bytes.
fn plain_characters(text: &str) -> bool {
    let bytes = text.as_bytes();
    // A lead byte's continuation bytes are there: `text` is UTF-8.
    let next = |i: usize, n: usize| bytes[i + n];
    bytes.iter().enumerate().all(|(i, &b)| match b {
        b'\n' | 0x20..=0x7e => true,
        0xc2 => next(i, 1) >= 0xa0,
        0xe2 => !(next(i, 1) == 0x80 && matches!(next(i, 2), 0xa8 | 0xa9)),
        0xef => !matches!((next(i, 1), next(i, 2)), (0xbb, 0xbf) | (0xbf, 0xbe | 0xbf)),
        0x80..=0xff => true,
        _ => false,
    })
}

fn is_flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

struct Reader<'t, 'b, 'o> {
    text: &'t str,
    bytes: &'t [u8],
    /// Byte offset of the next character.
    at: usize,
    /// 1-based line of `at`.
    line: usize,
    /// Byte offset where that line starts.
    line_start: usize,
    /// The last position whose column was counted: its byte offset and its
    /// 0-based column, so that the next one on the same line counts only
    /// the characters after it (a long flow collection on one line is read
    /// in linear time, not in time quadratic in the line's length).
    counted: std::cell::Cell<(usize, usize)>,
    /// The current content line's indentation, once `next_content_line`
    /// has found one; `None` at the end of the text.
    indent: Option<usize>,
    builder: &'b mut Builder<'o>,
}

impl<'t> Reader<'t, '_, '_> {
    fn emit(&mut self, event: Event<'t>, pos: Pos) -> Step {
        self.builder.on_event(event, pos).map_err(|_| GiveUp)
    }

    fn pos(&self, at: usize) -> Pos {
        let (mut from, mut column) = self.counted.get();
        if from < self.line_start || from > at {
            (from, column) = (self.line_start, 0);
        }
        let before = &self.text[from..at];
        column += if before.is_ascii() {
            before.len()
        } else {
            before.chars().count()
        };
        self.counted.set((at, column));
        Pos {
            line: self.line,
            column: column + 1,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    /// Whether the byte at `at` ends the text or a line, or is a space.
    fn blank_at(&self, at: usize) -> bool {
        matches!(self.peek_at(at), None | Some(b' ' | b'\n'))
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    /// Moves to the first character of the next line holding more than
    /// spaces and a comment, and records its indentation (or the end).
    fn next_content_line(&mut self) -> Step {
        loop {
            let start = self.at;
            self.skip_spaces();
            match self.peek() {
                None => {
                    self.indent = None;
                    return Ok(());
                }
                Some(b'\n') => self.new_line(),
                Some(b'#') => {
                    self.skip_comment();
                    if self.peek().is_some() {
                        self.new_line();
                    }
                }
                Some(_) => {
                    let indent = self.at - start;
                    let rest = &self.bytes[self.at..];
                    if indent == 0
                        && (rest.starts_with(b"---")
                            || rest.starts_with(b"...")
                            || rest.starts_with(b"%"))
                    {
                        return Err(GiveUp);
                    }
                    self.indent = Some(indent);
                    return Ok(());
                }
            }
        }
    }

    /// Steps over the `\n` at `at`.
    fn new_line(&mut self) {
        self.at += 1;
        self.line += 1;
        self.line_start = self.at;
    }

    fn skip_comment(&mut self) {
        self.at = self.bytes[self.at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |n| self.at + n);
    }

    /// After a value: spaces, a comment after a space, then the line's end;
    /// then on to the next content line.
    fn end_of_line(&mut self) -> Step {
        let before = self.at;
        self.skip_spaces();
        match self.peek() {
            Some(b'#') if self.at > before => self.skip_comment(),
            None | Some(b'\n') => {}
            Some(_) => return Err(GiveUp),
        }
        self.next_content_line()
    }

    /// A block list or map whose first line is the current one, at `indent`;
    /// `indentless` for a list written at its parent key's indentation.
    fn block_collection(&mut self, indent: usize, indentless: bool) -> Step {
        if self.peek() == Some(b'-') && self.blank_at(self.at + 1) {
            self.block_seq(indent, indentless)
        } else if indentless {
            Err(GiveUp)
        } else {
            let start = self.at;
            let key = self.scalar(false)?;
            self.block_map(indent, start, key)
        }
    }

    /// A block list at `indent`; the current line starts with its first `-`.
    fn block_seq(&mut self, indent: usize, indentless: bool) -> Step {
        let mut first = true;
        loop {
            // At `-`: an item follows on the same line.
            if self.peek_at(self.at + 1) != Some(b' ') {
                return Err(GiveUp);
            }
            let dash = self.at;
            self.at += 1;
            self.skip_spaces();
            if first {
                // saphyr-parser places an indentless list at its first
                // item, any other at its first `-`.
                let pos = self.pos(if indentless { self.at } else { dash });
                self.emit(Event::SequenceStart(0, None), pos)?;
                first = false;
            }
            let item_column = self.at - self.line_start;
            match self.peek() {
                None | Some(b'\n' | b'#' | b'-') => return Err(GiveUp),
                Some(b'[' | b'{') => {
                    self.flow_collection()?;
                    self.end_of_line()?;
                }
                Some(_) => {
                    let start = self.at;
                    let scalar = self.scalar(false)?;
                    if self.is_value_indicator() {
                        self.block_map(item_column, start, scalar)?;
                    } else {
                        self.emit_scalar(scalar)?;
                        self.end_of_line()?;
                    }
                }
            }
            match self.indent {
                Some(next) if next == indent && self.peek() == Some(b'-') => {
                    if !self.blank_at(self.at + 1) {
                        return Err(GiveUp);
                    }
                }
                Some(next) if next == indent && indentless => break,
                Some(next) if next >= indent => return Err(GiveUp),
                _ => break,
            }
        }
        let pos = self.pos(self.at);
        self.emit(Event::SequenceEnd, pos)
    }

    /// `: ` (or `:` at the end of a line) after a key.
    fn is_value_indicator(&self) -> bool {
        self.peek() == Some(b':') && self.blank_at(self.at + 1)
    }

    /// A block map at `indent` whose first key, starting at byte `start`,
    /// has just been read.
    fn block_map(&mut self, indent: usize, start: usize, first_key: Scalar<'t>) -> Step {
        let pos = self.pos(start);
        self.emit(Event::MappingStart(0, None), pos)?;
        let mut key = first_key;
        loop {
            if !self.is_value_indicator() || key.end - key.start > MAX_KEY_BYTES {
                return Err(GiveUp);
            }
            self.emit_scalar(key)?;
            self.at += 1;
            self.skip_spaces();
            match self.peek() {
                None | Some(b'\n' | b'#') => {
                    // The `:` was followed by a blank: a comment may start here.
                    if self.peek() == Some(b'#') {
                        self.skip_comment();
                    }
                    self.next_content_line()?;
                    match self.indent {
                        Some(next) if next > indent => self.block_collection(next, false)?,
                        Some(next) if next == indent && self.peek() == Some(b'-') => {
                            self.block_collection(next, true)?;
                        }
                        // A key without a value.
                        _ => return Err(GiveUp),
                    }
                }
                Some(_) => {
                    self.inline_value()?;
                    self.end_of_line()?;
                }
            }
            match self.indent {
                Some(next) if next == indent => {
                    key = self.scalar(false)?;
                }
                Some(next) if next > indent => return Err(GiveUp),
                _ => break,
            }
        }
        let pos = self.pos(self.at);
        self.emit(Event::MappingEnd, pos)
    }

    /// A value on the line of its key or list dash, in block context.
    fn inline_value(&mut self) -> Step {
        match self.peek() {
            Some(b'[' | b'{') => self.flow_collection(),
            _ => {
                let scalar = self.scalar(false)?;
                self.emit_scalar(scalar)
            }
        }
    }

    /// `[...]` or `{...}` on one line.
    fn flow_collection(&mut self) -> Step {
        let is_map = self.peek() == Some(b'{');
        let (start, close, end) = if is_map {
            (Event::MappingStart(0, None), b'}', Event::MappingEnd)
        } else {
            (Event::SequenceStart(0, None), b']', Event::SequenceEnd)
        };
        let pos = self.pos(self.at);
        self.emit(start, pos)?;
        self.at += 1;
        loop {
            self.skip_spaces();
            if self.peek() == Some(close) {
                break;
            }
            if is_map {
                let key = self.scalar(true)?;
                // `key: value`, nothing else (no `key:value`, no empty value).
                if !(self.peek() == Some(b':') && self.peek_at(self.at + 1) == Some(b' ')) {
                    return Err(GiveUp);
                }
                self.emit_scalar(key)?;
                self.at += 2;
                self.skip_spaces();
            }
            match self.peek() {
                Some(b'[' | b'{') => self.flow_collection()?,
                _ => {
                    let scalar = self.scalar(true)?;
                    self.emit_scalar(scalar)?;
                }
            }
            self.skip_spaces();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b) if b == close => break,
                _ => return Err(GiveUp),
            }
        }
        self.at += 1;
        let pos = self.pos(self.at);
        self.emit(end, pos)
    }

    fn emit_scalar(&mut self, scalar: Scalar<'t>) -> Step {
        let pos = self.pos(scalar.start);
        self.emit(Event::Scalar(scalar.text, scalar.style, 0, None), pos)
    }

    /// A plain or quoted scalar on one line, starting at `at`.
    fn scalar(&mut self, in_flow: bool) -> Step<Scalar<'t>> {
        match self.peek() {
            Some(b'"') => self.quoted(ScalarStyle::DoubleQuoted),
            Some(b'\'') => self.quoted(ScalarStyle::SingleQuoted),
            Some(_) => self.plain(in_flow),
            None => Err(GiveUp),
        }
    }

    fn plain(&mut self, in_flow: bool) -> Step<Scalar<'t>> {
        let start = self.at;
        let first = self.bytes[start];
        let starts_plain = match first {
            // `-` starts a plain scalar when a non-blank follows (`-3`).
            b'-' => match self.peek_at(start + 1) {
                None | Some(b' ' | b'\n') => false,
                Some(b) => !(in_flow && is_flow_indicator(b)),
            },
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ' | b'\n' => false,
            _ => true,
        };
        if !starts_plain {
            return Err(GiveUp);
        }
        let mut at = start;
        let end = loop {
            // A run of non-blank characters.
            while let Some(b) = self.peek_at(at) {
                let ends = match b {
                    b' ' | b'\n' => true,
                    b':' => {
                        let next = self.peek_at(at + 1);
                        matches!(next, None | Some(b' ' | b'\n'))
                            || (in_flow && next.is_some_and(is_flow_indicator))
                    }
                    _ => in_flow && is_flow_indicator(b),
                };
                if ends {
                    break;
                }
                at += 1;
            }
            // Spaces, then either more of the scalar or its end.
            let mut after = at;
            while self.peek_at(after) == Some(b' ') {
                after += 1;
            }
            if after == at {
                break at;
            }
            let continues = match self.peek_at(after) {
                None | Some(b'\n' | b'#') => false,
                Some(b':') => {
                    let next = self.peek_at(after + 1);
                    !(matches!(next, None | Some(b' ' | b'\n'))
                        || (in_flow && next.is_some_and(is_flow_indicator)))
                }
                Some(b'-') if in_flow && self.peek_at(after + 1).is_some_and(is_flow_indicator) => {
                    return Err(GiveUp);
                }
                Some(b) => !(in_flow && is_flow_indicator(b)),
            };
            if !continues {
                break at;
            }
            at = after;
        };
        self.at = end;
        Ok(Scalar {
            text: Cow::Borrowed(&self.text[start..end]),
            style: ScalarStyle::Plain,
            start,
            end,
        })
    }

    /// A single- or double-quoted scalar on one line.
    fn quoted(&mut self, style: ScalarStyle) -> Step<Scalar<'t>> {
        let start = self.at;
        let quote = self.bytes[start];
        let mut at = start + 1;
        // The text so far, once an escape makes it differ from the file's.
        let mut owned: Option<String> = None;
        let mut piece = at;
        loop {
            match self.peek_at(at) {
                None | Some(b'\n') => return Err(GiveUp),
                // `''` in single quotes stands for one quote.
                Some(b'\'') if quote == b'\'' && self.peek_at(at + 1) == Some(b'\'') => {
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[piece..=at]);
                    at += 2;
                    piece = at;
                }
                Some(b) if b == quote => break,
                Some(b'\\') if quote == b'"' => {
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[piece..at]);
                    let (c, used) = self.escape(at + 1)?;
                    text.push(c);
                    at += 1 + used;
                    piece = at;
                }
                Some(_) => at += 1,
            }
        }
        let text = match owned {
            Some(mut text) => {
                text.push_str(&self.text[piece..at]);
                Cow::Owned(text)
            }
            None => Cow::Borrowed(&self.text[piece..at]),
        };
        self.at = at + 1;
        self.after_quoted()?;
        Ok(Scalar {
            text,
            style,
            start,
            end: self.at,
        })
    }

    /// The character an escape stands for (the byte at `at` follows the
    /// backslash) and how many bytes it takes after the backslash.
    fn escape(&self, at: usize) -> Step<(char, usize)> {
        let c = match self.peek_at(at).ok_or(GiveUp)? {
            b'0' => '\0',
            b'a' => '\x07',
            b'b' => '\x08',
            b't' => '\t',
            b'n' => '\n',
            b'v' => '\x0b',
            b'f' => '\x0c',
            b'r' => '\r',
            b'e' => '\x1b',
            b' ' => ' ',
            b'"' => '"',
            b'/' => '/',
            b'\\' => '\\',
            b'N' => '\u{85}',
            b'_' => '\u{a0}',
            b'L' => '\u{2028}',
            b'P' => '\u{2029}',
            kind @ (b'x' | b'u' | b'U') => {
                let digits = match kind {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let hex = self.text.get(at + 1..at + 1 + digits).ok_or(GiveUp)?;
                if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(GiveUp);
                }
                let code = u32::from_str_radix(hex, 16).map_err(|_| GiveUp)?;
                return Ok((char::from_u32(code).ok_or(GiveUp)?, 1 + digits));
            }
            _ => return Err(GiveUp),
        };
        Ok((c, 1))
    }

    /// What may follow a closing quote: a blank, the end, `:` or a flow
    /// indicator; anything else is left to saphyr-parser to judge.
    fn after_quoted(&self) -> Step {
        match self.peek() {
            None | Some(b' ' | b'\n' | b':' | b',' | b']' | b'}') => Ok(()),
            _ => Err(GiveUp),
        }
    }
}

/// A scalar read but not yet emitted (a key's map starts before it).
struct Scalar<'t> {
    text: Cow<'t, str>,
    style: ScalarStyle,
    /// Byte offsets of its first character and past its last (quotes included).
    start: usize,
    end: usize,
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, parse_with_saphyr};
    use super::read;
    use crate::scenario::node::{Node, NodeValue, Pos};
    use proptest::prelude::*;
    use std::path::Path;

    /// The tree this reader builds, or `None` where it gives up.
    fn subset(text: &str) -> Option<Node> {
        let mut builder = Builder::new("t.yaml", text);
        read(text, &mut builder).ok()?;
        builder.finish().ok()
    }

    /// Both readers agree; returns whether this one read the text.
    fn agrees(text: &str) -> bool {
        let Some(root) = subset(text) else {
            return false;
        };
        match parse_with_saphyr(text, "t.yaml") {
            Ok(expected) => assert_eq!(root, expected, "the two readers differ on:\n{text}"),
            Err(e) => panic!("saphyr-parser rejects what the subset read ({e}):\n{text}"),
        }
        true
    }

    fn yaml_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                yaml_files(&path, found);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                found.push(path);
            }
        }
    }

    #[test]
    fn both_readers_agree_on_every_yaml_file_of_the_project() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["scenarios", "tests", "conformance", "examples"] {
            yaml_files(&root.join(dir), &mut files);
        }
        let corpus = files
            .iter()
            .filter(|f| f.starts_with(root.join("scenarios")));
        let corpus_total = corpus.clone().count();
        let mut corpus_read = 0;
        for file in &files {
            // Files that test invalid UTF-8 never reach a YAML reader.
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let read = agrees(text);
            if read && file.starts_with(root.join("scenarios")) {
                corpus_read += 1;
            }
        }
        // Nearly all the corpus takes the direct path (block scalars and
        // the like do not), the benchmarked file among them.
        assert!(
            corpus_total > 200 && corpus_read * 10 > corpus_total * 9,
            "{corpus_read} of {corpus_total}"
        );
        let benched = root.join("scenarios/docs_examples/all_three_hooks.yaml");
        assert!(subset(&std::fs::read_to_string(benched).unwrap()).is_some());
    }

    #[test]
    fn positions_on_one_long_line_are_counted_once_and_stay_exact() {
        // Columns count characters, after non-ASCII ones too, and both
        // readers agree on them.
        assert!(agrees("m: {é: [ü, 'ß'], x: {ç: 1}, y: \"ñ\"}\n"));
        // 200,000 keys on one line: each position counts from the last one,
        // so reading is linear (it took minutes when each counted from the
        // line's start).
        // (Values of a few words: a line of `k{i}: {i}` is dense enough in
        // values for the loader's memory budget to refuse it.)
        let keys: Vec<String> = (0..200_000)
            .map(|i| format!("k{i}: value {i} of a long line of keys"))
            .collect();
        let text = format!("m: {{{}}}\n", keys.join(", "));
        let started = std::time::Instant::now();
        let root = subset(&text).unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        let NodeValue::Map(entries) = &root.value else {
            panic!("a map")
        };
        let NodeValue::Map(inner) = &entries[0].value.value else {
            panic!("a map")
        };
        let last = inner.last().unwrap();
        let column = text.find("k199999").unwrap() + 1;
        assert_eq!(last.key_pos, Pos { line: 1, column });
    }

    #[test]
    fn the_subset_reads_the_forms_scenarios_use_as_saphyr_does() {
        for text in [
            "a: 1\nb: [x, 'y', \"z\"]\n",
            "a:\n- x\n-   y\nb: 2\n",
            "a:\n  - x\n  - k: 1\n    l: 2\n  -   m: 3\nb: {k: v, l: [1, {m: n}]}\n",
            "- a\n- b: 1\n  c: 2\n",
            "  a: 1\n  b: 2\n",
            "# comment\n\na: 1 # comment\n  # indented comment\nb:   # comment\n  c: x\n",
            "a: text with spaces,  commas, [brackets] and a#hash  \n",
            "a: \"esc \\\" \\\\ \\n \\t \\u00e9 \\x41 \\U0001F600 \\/ \\_\"\n",
            "a: 'it''s'\nb: ''\nc: \"\"\n",
            "a: \"  spaced  \"\nb: '  spaced  '\n",
            "\"quoted key\": 1\n'single': 2\n",
            "a: [-1, -.5, +3, 1e3, .inf_no, 0x1f, null, ~, True]\n",
            "a: []\nb: {}\nc: [ ]\nd: [a, b, ]\ne: {a: 1, }\n",
            "a: [a b, c  d ,e]\nb: {k k: v v}\n",
            "a: x:y\nb: -x\nc: a - b\nd: x,y\n",
            "é: ünïcode — text\nb: [é, {ü: ö}]\n",
            "a: \u{a0}\u{2027}\u{202a}\u{fefe}\u{fffd}\u{10ffff}\n",
            "a: 1\n\n\n",
            "a: 1",
            "a:\n  b:\n    c:\n    - 1\n  d: 2\n",
        ] {
            assert!(agrees(text), "the subset gave up on:\n{text}");
        }
    }

    #[test]
    fn the_subset_gives_up_on_what_it_leaves_to_saphyr() {
        for text in [
            "a: |\n  block\n",
            "a: >\n  folded\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a:\n",
            "a:\nb: 1\n",
            "a: [1,\n  2]\n",
            "a: plain\n  continued\n",
            "a: \"two\n  lines\"\n",
            "---\na: 1\n",
            "a: 1\n...\n",
            "a:\ttab\n",
            "a: 1\r\n",
            "? a\n: 1\n",
            "a : 1\n",
            "a: 1\n b: 2\n",
            "a:\n  - x\n - y\n",
            "- - a\n",
            "-\n  a: 1\n",
            "[a, b]\n",
            "a\n",
            "a: b: c\n",
            "a: [b: c]\n",
            "a: {b}\n",
            "a: {b: }\n",
            "a: {\"b\":c}\n",
            "a: \"\\q\"\n",
            "a: @x\n",
            "a: x\u{85}y\n",
            "a: x\u{2028}y\n",
            "a: x\u{feff}y\n",
            "a: x\u{ffff}y\n",
            "a: x\u{7f}y\n",
            "a: x\u{1}y\n",
            "a: [a -, b]\n",
            "a: [b:]\n",
            "a: [b:, c]\n",
            "a: {b:, c: d}\n",
            "a: ['q':r]\n",
        ] {
            assert!(subset(text).is_none(), "the subset read:\n{text}");
        }
    }

    /// Pieces that make up scenario-like text, and the characters that
    /// trouble YAML readers.
    const PIECES: &[&str] = &[
        "a", "key", "é", "1", "-1", "true", "~", " ", "  ", "\n", "\n  ", "\n    ", ":", ": ",
        "- ", "-", "#", " # c", "[", "]", "{", "}", ",", ", ", "'", "''", "\"", "\\", "\\n", "?",
        "&", "*", "!", "|", ">", "---", "...", "%", "@", "x:y", "a b", "\n- ", "k: [", "a:]",
        "a:,", "a:}",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn both_readers_agree_on_generated_text(pieces in proptest::collection::vec(0..PIECES.len(), 0..40)) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            agrees(&text);
        }

        #[test]
        fn both_readers_agree_on_generated_block_structure(
            lines in proptest::collection::vec((0usize..4, 0usize..6, 0usize..6), 1..12)
        ) {
            const STARTS: [&str; 6] = ["", "- ", "- k: ", "k: ", "'q': ", "\"d\": "];
            const VALUES: [&str; 6] = ["", "v", "[1, {a: b}]", "{a: [x]}", "'s''q'", "\"\\u00e9 x\""];
            let text: String = lines
                .iter()
                .enumerate()
                .map(|(i, &(indent, start, value))| {
                    let start = STARTS[start].replace('k', &format!("k{i}"));
                    format!("{}{start}{}\n", "  ".repeat(indent), VALUES[value])
                })
                .collect();
            agrees(&text);
        }
    }
}
