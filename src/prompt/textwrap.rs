//! Python's `textwrap.wrap` as Jinja2's `wordwrap` calls it: tabs kept,
//! whitespace kept, no indents, whitespace dropped at the ends of lines,
//! no line limit (CPython 3.11's `textwrap.py`, `TextWrapper._split` and
//! `_wrap_chunks`, step for step).
//!
//! A line is cut into chunks first: runs of ASCII whitespace and words,
//! and, when `break_on_hyphens` is `True` itself, words cut after the
//! hyphens of compound words (`wordsep_re`, whose look-behinds Rust's
//! regex crate lacks, is matched by hand here). Chunks then fill lines up
//! to the width; a chunk longer than a line is cut, at its last hyphen
//! within the line where it has one.

use super::pystr_unicode::{is_decimal, is_space, is_word};

/// How `textwrap` wraps: Jinja2's `wordwrap` arguments.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wrapper {
    /// The width, as Python compares it with lengths (an integer or a
    /// float; at least a character a line below 1).
    pub(super) width: f64,
    /// The width is a float: `textwrap` slices a long word with it, which
    /// Python refuses.
    pub(super) float_width: bool,
    /// `break_long_words`, as truth.
    pub(super) break_long_words: bool,
    /// `break_on_hyphens is True`: chunks are cut after compound words'
    /// hyphens.
    pub(super) hyphen_chunks: bool,
    /// `break_on_hyphens`, as truth: a long word is cut after its last
    /// hyphen within the line.
    pub(super) hyphen_cuts: bool,
}

/// `textwrap` sliced a string with a float: Python's `TypeError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FloatSlice;

/// A chunk and its length in characters.
#[derive(Debug, Clone, Copy)]
struct Chunk<'a> {
    text: &'a str,
    len: usize,
}

impl<'a> Chunk<'a> {
    /// `chunk.strip() == ''`.
    fn is_blank(&self) -> bool {
        self.text.chars().all(is_space)
    }

    /// `chunk[:at]` and `chunk[at:]`, `at` in characters.
    fn split_at(self, at: usize) -> (Chunk<'a>, Chunk<'a>) {
        let at = at.min(self.len);
        let byte = self
            .text
            .char_indices()
            .nth(at)
            .map_or(self.text.len(), |(byte, _)| byte);
        let (head, tail) = self.text.split_at(byte);
        (
            Chunk {
                text: head,
                len: at,
            },
            Chunk {
                text: tail,
                len: self.len - at,
            },
        )
    }
}

impl Wrapper {
    /// `textwrap.wrap(line, ...)`: the lines `line` wraps into.
    pub(super) fn wrap(&self, line: &str) -> Result<Vec<String>, FloatSlice> {
        let chars: Vec<char> = line.chars().collect();
        let mut chunks = Chunks {
            text: line,
            chars: &chars,
            compound: self.hyphen_chunks,
            at: 0,
            byte: 0,
            front: None,
        };
        chunks.advance();
        self.wrap_chunks(&mut chunks)
    }

    /// `TextWrapper._wrap_chunks`, taking the chunks in order as they are
    /// cut (Python reverses the list and pops its end).
    fn wrap_chunks<'a>(&self, chunks: &mut Chunks<'a, '_>) -> Result<Vec<String>, FloatSlice> {
        let mut lines: Vec<String> = Vec::new();
        while chunks.front.is_some() {
            let mut line = Line::default();
            if !lines.is_empty() && chunks.front.as_ref().is_some_and(Chunk::is_blank) {
                chunks.advance();
            }
            while let Some(chunk) = chunks.front {
                if ((line.len + chunk.len) as f64) > self.width {
                    break;
                }
                line.push(chunk);
                chunks.advance();
            }
            if let Some(chunk) = chunks.front.filter(|c| c.len as f64 > self.width) {
                self.handle_long_word(chunks, chunk, &mut line)?;
            }
            line.drop_blank_end();
            if line.chunks > 0 {
                lines.push(line.text);
            }
        }
        Ok(lines)
    }

    /// `TextWrapper._handle_long_word`: `chunk`, the next, does not fit a
    /// line of its own.
    fn handle_long_word<'a>(
        &self,
        chunks: &mut Chunks<'a, '_>,
        chunk: Chunk<'a>,
        line: &mut Line,
    ) -> Result<(), FloatSlice> {
        if self.break_long_words {
            let space_left = if self.width < 1.0 {
                1
            } else if self.float_width {
                return Err(FloatSlice);
            } else {
                // An integer width at least `len`: the loop above filled
                // the line up to it.
                (self.width as usize).saturating_sub(line.len)
            };
            let mut end = space_left;
            if self.hyphen_cuts && chunk.len > space_left {
                // `chunk.rfind('-', 0, space_left)`.
                let hyphen = chunk
                    .text
                    .chars()
                    .take(space_left)
                    .enumerate()
                    .filter(|&(_, c)| c == '-')
                    .map(|(at, _)| at)
                    .last();
                if let Some(hyphen) = hyphen.filter(|&h| h > 0) {
                    if chunk.text.chars().take(hyphen).any(|c| c != '-') {
                        end = hyphen + 1;
                    }
                }
            }
            let (head, tail) = chunk.split_at(end);
            line.push(head);
            chunks.front = Some(tail);
        } else if line.chunks == 0 {
            line.push(chunk);
            chunks.advance();
        }
        Ok(())
    }
}

/// A wrapped line as it fills: `''.join(cur_line)`, and where its last
/// chunk starts.
#[derive(Debug, Default)]
struct Line {
    text: String,
    /// `sum(map(len, cur_line))`.
    len: usize,
    /// `len(cur_line)`.
    chunks: usize,
    /// The last chunk: its byte offset in `text`, its length, and whether
    /// it is blank.
    last: Option<(usize, usize, bool)>,
}

impl Line {
    fn push(&mut self, chunk: Chunk<'_>) {
        self.last = Some((self.text.len(), chunk.len, chunk.is_blank()));
        self.text.push_str(chunk.text);
        self.len += chunk.len;
        self.chunks += 1;
    }

    /// `if cur_line and cur_line[-1].strip() == '': del cur_line[-1]`.
    fn drop_blank_end(&mut self) {
        if let Some((at, len, true)) = self.last {
            self.text.truncate(at);
            self.len -= len;
            self.chunks -= 1;
            self.last = None;
        }
    }
}

/// The chunks of a line, cut one at a time: `front` is the next.
struct Chunks<'a, 'c> {
    text: &'a str,
    chars: &'c [char],
    /// `wordsep_re` (compound words cut after their hyphens), else
    /// `wordsep_simple_re`.
    compound: bool,
    /// Where the chunk after `front` starts, in characters and bytes.
    at: usize,
    byte: usize,
    front: Option<Chunk<'a>>,
}

impl Chunks<'_, '_> {
    /// Cuts the next chunk into `front` (`None` at the end of the line).
    fn advance(&mut self) {
        if self.at >= self.chars.len() {
            self.front = None;
            return;
        }
        let end = if self.compound {
            match_at(self.chars, self.at)
        } else {
            simple_end(self.chars, self.at)
        };
        let bytes: usize = self.chars[self.at..end].iter().map(|c| c.len_utf8()).sum();
        self.front = Some(Chunk {
            text: &self.text[self.byte..self.byte + bytes],
            len: end - self.at,
        });
        self.at = end;
        self.byte += bytes;
    }
}

/// `_whitespace`: the whitespace `textwrap` splits at, ASCII only.
fn is_wrap_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ')
}

/// `wordsep_simple_re.split`: runs of whitespace and the words between;
/// where the one starting at `p` ends.
fn simple_end(chars: &[char], p: usize) -> usize {
    let space = is_wrap_space(chars[p]);
    p + chars[p..]
        .iter()
        .take_while(|&&c| is_wrap_space(c) == space)
        .count()
}

/// `[\w!"'&.,?]`: what may precede an em-dash.
fn is_word_punct(c: char) -> bool {
    is_word(c) || matches!(c, '!' | '"' | '\'' | '&' | '.' | ',' | '?')
}

/// `[^\d\W]`: a word character other than a decimal digit.
fn is_letter(c: char) -> bool {
    is_word(c) && !is_decimal(c)
}

/// Where `wordsep_re`'s match starting at `p` ends. Every position
/// starts a match, so a line's chunks are its matches, one after the
/// other.
fn match_at(chars: &[char], p: usize) -> usize {
    let n = chars.len();
    let c = |i: usize| chars.get(i).copied();
    let is = |i: usize, f: fn(char) -> bool| c(i).is_some_and(f);
    // The end of a run of hyphens starting at `i`, if it is at least two
    // long and a word character follows it: `-{2,}(?=\w)`.
    let dashes_then_word = |i: usize| {
        let run = chars[i.min(n)..].iter().take_while(|&&c| c == '-').count();
        (run >= 2 && is(i + run, is_word)).then_some(i + run)
    };
    // Whitespace.
    if is(p, is_wrap_space) {
        return p + chars[p..].iter().take_while(|&&c| is_wrap_space(c)).count();
    }
    // An em-dash between words: `(?<=WP)-{2,}(?=\w)`.
    if p > 0 && is(p - 1, is_word_punct) {
        if let Some(end) = dashes_then_word(p) {
            return end;
        }
    }
    // A word, possibly hyphenated: `\S+?` then the first way to end it.
    let mut q = p + 1;
    loop {
        if c(q) == Some('-') {
            let behind = (q >= 2 && is(q - 2, is_letter) && is(q - 1, is_letter))
                || (q >= 3
                    && is(q - 3, is_letter)
                    && c(q - 2) == Some('-')
                    && is(q - 1, is_letter));
            let ahead = is(q + 1, is_letter)
                && (is(q + 2, is_letter) || (c(q + 2) == Some('-') && is(q + 3, is_letter)));
            if behind && ahead {
                return q + 1;
            }
        }
        if q >= n || is(q, is_wrap_space) {
            return q;
        }
        if is(q - 1, is_word_punct) && dashes_then_word(q).is_some() {
            return q;
        }
        q += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapper(width: f64) -> Wrapper {
        Wrapper {
            width,
            float_width: false,
            break_long_words: true,
            hyphen_chunks: true,
            hyphen_cuts: true,
        }
    }

    fn chunks(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut at = 0;
        let mut out = Vec::new();
        while at < chars.len() {
            let end = match_at(&chars, at);
            out.push(chars[at..end].iter().collect());
            at = end;
        }
        out
    }

    #[test]
    fn chunks_are_textwraps_own() {
        // The example of `TextWrapper._split`'s docstring.
        assert_eq!(
            chunks("Look, goof-ball -- use the -b option!"),
            [
                "Look,", " ", "goof-", "ball", " ", "--", " ", "use", " ", "the", " ", "-b", " ",
                "option!"
            ]
        );
        assert_eq!(chunks("a--b"), ["a", "--", "b"]);
        assert_eq!(chunks("ab-cd-e"), ["ab-", "cd-e"]);
        assert_eq!(chunks("x-y-zz"), ["x-y-", "zz"]);
        assert_eq!(chunks("12-ab"), ["12-ab"]);
    }

    #[test]
    fn lines_are_textwraps_own() {
        assert_eq!(
            wrapper(9.0).wrap("aa bb cc dd").unwrap(),
            ["aa bb cc", "dd"]
        );
        assert_eq!(
            wrapper(5.0).wrap("abcdefghijkl").unwrap(),
            ["abcde", "fghij", "kl"]
        );
        assert_eq!(
            wrapper(6.0).wrap("spam-eggs-ham").unwrap(),
            ["spam-", "eggs-", "ham"]
        );
        assert_eq!(wrapper(0.5).wrap("ab").unwrap(), ["a", "b"]);
        let float = Wrapper {
            float_width: true,
            ..wrapper(2.5)
        };
        assert_eq!(float.wrap("abcdef"), Err(FloatSlice));
    }

    /// Python's own `textwrap` over generated lines
    /// (`conformance/make_textwrap_fixtures.py`).
    #[test]
    fn lines_are_pythons_over_generated_cases() {
        let cases: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../tests/fixtures/haystack/textwrap.json"))
                .unwrap();
        let mut differences = Vec::new();
        for case in &cases {
            let width = case["width"].as_f64().unwrap();
            let hyphens = &case["break_on_hyphens"];
            let wrapper = Wrapper {
                width,
                float_width: case["width"].is_f64(),
                break_long_words: case["break_long_words"].as_bool().unwrap(),
                hyphen_chunks: hyphens == true,
                hyphen_cuts: hyphens != false,
            };
            let text = case["text"].as_str().unwrap();
            let got = match wrapper.wrap(text) {
                Ok(lines) => serde_json::json!(lines),
                Err(FloatSlice) => serde_json::json!("TypeError"),
            };
            if got != case["lines"] {
                differences.push(format!("{case}: got {got}"));
            }
        }
        assert!(cases.len() >= 600, "{} cases", cases.len());
        assert!(differences.is_empty(), "{}", differences.join("\n"));
    }
}
