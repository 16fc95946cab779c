//! Jinja2 3.1's lexer (`jinja2/lexer.py`) for Haystack's environment (the
//! default delimiters, no line statements, `trim_blocks` and `lstrip_blocks`
//! off): the same tokens, line numbers and error texts.

use super::SyntaxError;
use super::name_table::NAME_EXTRA;
use crate::prompt::message_tag::is_py_space;
use crate::prompt::pystr_unicode;
use crate::pyfmt::printable::in_ranges;

/// One token as the parser sees it (whitespace, comments and raw markers
/// dropped, operators named by their type).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) line: usize,
    /// Jinja2's token type: `name`, `string`, `integer`, `float`, `data`,
    /// `block_begin`, `variable_end`, an operator's type (`add`, `lparen`), ...
    pub(super) kind: &'static str,
    /// A name's text, a string's unescaped value, a number's source.
    pub(super) value: String,
    /// Where the token starts and ends in the source with its newlines
    /// made `\n` ([`normalize_newlines`]), in characters (a tag's tokens;
    /// `0..0` for text).
    pub(super) span: (usize, usize),
}

/// The tokens of `source`, and the error the lexer raises after the last
/// of them, if any (the parser meets it only if it reads that far).
pub(super) fn tokenize(source: &str) -> (Vec<Token>, Option<SyntaxError>) {
    let mut lexer = Lexer {
        chars: normalize(source),
        pos: 0,
        line: 1,
        tokens: Vec::new(),
        balancing: Vec::new(),
    };
    let error = lexer.run().err();
    (lexer.tokens, error)
}

/// `source` with its newlines (`\r\n`, `\r`) as `\n`, as Jinja2 reads a
/// template (its `newline_sequence`): the text the token spans count in.
pub(crate) fn normalize_newlines(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            chars.next_if_eq(&'\n');
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// Newlines as `\n`, one trailing newline dropped (`keep_trailing_newline`
/// is off).
fn normalize(source: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            chars.next_if_eq(&'\n');
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    if out.last() == Some(&'\n') {
        out.pop();
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Block,
    Variable,
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    tokens: Vec<Token>,
    balancing: Vec<char>,
}

/// What opens a tag in the root state, and its whitespace control.
enum Opening {
    Raw { end: usize },
    Variable,
    Comment,
    Block,
}

const OPERATORS: [(&str, &str); 26] = [
    ("**", "pow"),
    ("//", "floordiv"),
    ("==", "eq"),
    ("!=", "ne"),
    (">=", "gteq"),
    ("<=", "lteq"),
    ("+", "add"),
    ("-", "sub"),
    ("/", "div"),
    ("*", "mul"),
    ("%", "mod"),
    ("~", "tilde"),
    ("[", "lbracket"),
    ("]", "rbracket"),
    ("(", "lparen"),
    (")", "rparen"),
    ("{", "lbrace"),
    ("}", "rbrace"),
    (">", "gt"),
    ("<", "lt"),
    ("=", "assign"),
    (".", "dot"),
    (":", "colon"),
    ("|", "pipe"),
    (",", "comma"),
    (";", "semicolon"),
];

impl Lexer {
    fn at(&self, i: usize, text: &str) -> bool {
        (i..)
            .zip(text.chars())
            .all(|(k, c)| self.chars.get(k) == Some(&c))
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.chars[from..to].iter().collect()
    }

    fn newlines(&self, from: usize, to: usize) -> usize {
        self.chars[from..to].iter().filter(|c| **c == '\n').count()
    }

    fn push(&mut self, kind: &'static str, value: String) {
        self.push_at(kind, value, (0, 0));
    }

    fn push_at(&mut self, kind: &'static str, value: String, span: (usize, usize)) {
        self.tokens.push(Token {
            line: self.line,
            kind,
            value,
            span,
        });
    }

    fn fail<T>(&self, message: String) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            message,
            line: self.line,
        })
    }

    fn skip_space(&self, mut i: usize) -> usize {
        while self.chars.get(i).is_some_and(|c| is_py_space(*c)) {
            i += 1;
        }
        i
    }

    /// The control sign (`-`, `+` or none) at `i` and the offset after it.
    fn sign(&self, i: usize) -> (Option<char>, usize) {
        match self.chars.get(i) {
            Some(c @ ('-' | '+')) => (Some(*c), i + 1),
            _ => (None, i),
        }
    }

    /// `{%(-|+|)\s*raw\s*(?:-%}\s*|%})` at `i`: where it ends.
    fn raw_opening(&self, i: usize) -> Option<usize> {
        if !self.at(i, "{%") {
            return None;
        }
        let (_, after) = self.sign(i + 2);
        let k = self.skip_space(after);
        if !self.at(k, "raw") {
            return None;
        }
        let k = self.skip_space(k + 3);
        if self.at(k, "-%}") {
            Some(self.skip_space(k + 3))
        } else if self.at(k, "%}") {
            Some(k + 2)
        } else {
            None
        }
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        while self.pos < self.chars.len() {
            self.root()?;
        }
        Ok(())
    }

    /// The root state: data up to the next tag, then the tag.
    fn root(&mut self) -> Result<(), SyntaxError> {
        let found = (self.pos..self.chars.len().saturating_sub(1)).find_map(|i| {
            if let Some(end) = self.raw_opening(i) {
                return Some((i, Opening::Raw { end }));
            }
            match (self.chars[i], self.chars[i + 1]) {
                ('{', '{') => Some((i, Opening::Variable)),
                ('{', '#') => Some((i, Opening::Comment)),
                ('{', '%') => Some((i, Opening::Block)),
                _ => None,
            }
        });
        let Some((start, opening)) = found else {
            let text = self.text(self.pos, self.chars.len());
            self.push("data", text);
            self.pos = self.chars.len();
            return Ok(());
        };
        let (sign, after_sign) = self.sign(start + 2);
        let mut data_end = start;
        let mut stripped_newlines = 0;
        if sign == Some('-') {
            while data_end > self.pos && is_py_space(self.chars[data_end - 1]) {
                data_end -= 1;
            }
            stripped_newlines = self.newlines(data_end, start);
        }
        if data_end > self.pos {
            let text = self.text(self.pos, data_end);
            self.push("data", text);
        }
        self.line += self.newlines(self.pos, data_end) + stripped_newlines;
        match opening {
            Opening::Raw { end } => {
                self.line += self.newlines(start, end);
                self.pos = end;
                self.raw()
            }
            Opening::Comment => {
                self.pos = after_sign;
                self.comment()
            }
            Opening::Variable => {
                self.push_at(
                    "variable_begin",
                    self.text(start, after_sign),
                    (start, after_sign),
                );
                self.pos = after_sign;
                self.tag(State::Variable)
            }
            Opening::Block => {
                self.push_at(
                    "block_begin",
                    self.text(start, after_sign),
                    (start, after_sign),
                );
                self.pos = after_sign;
                self.tag(State::Block)
            }
        }
    }

    /// `(.*?)((?:\+#}|\-#}\s*|#}))`, else "Missing end of comment tag".
    fn comment(&mut self) -> Result<(), SyntaxError> {
        for i in self.pos..self.chars.len() {
            let end = if self.at(i, "+#}") {
                Some(i + 3)
            } else if self.at(i, "-#}") {
                Some(self.skip_space(i + 3))
            } else if self.at(i, "#}") {
                Some(i + 2)
            } else {
                None
            };
            if let Some(end) = end {
                self.line += self.newlines(self.pos, end);
                self.pos = end;
                return Ok(());
            }
        }
        if self.pos < self.chars.len() {
            return self.fail("Missing end of comment tag".to_owned());
        }
        Ok(())
    }

    /// The raw state: text up to `{% endraw %}`, else "Missing end of raw
    /// directive".
    fn raw(&mut self) -> Result<(), SyntaxError> {
        for i in self.pos..self.chars.len() {
            if !self.at(i, "{%") {
                continue;
            }
            let (sign, after) = self.sign(i + 2);
            let k = self.skip_space(after);
            if !self.at(k, "endraw") {
                continue;
            }
            let k = self.skip_space(k + 6);
            let end = if self.at(k, "+%}") {
                k + 3
            } else if self.at(k, "-%}") {
                self.skip_space(k + 3)
            } else if self.at(k, "%}") {
                k + 2
            } else {
                continue;
            };
            let mut data_end = i;
            let mut stripped = 0;
            if sign == Some('-') {
                while data_end > self.pos && is_py_space(self.chars[data_end - 1]) {
                    data_end -= 1;
                }
                stripped = self.newlines(data_end, i);
            }
            if data_end > self.pos {
                let text = self.text(self.pos, data_end);
                self.push("data", text);
            }
            self.line += self.newlines(self.pos, data_end) + stripped;
            self.line += self.newlines(i, end);
            self.pos = end;
            return Ok(());
        }
        if self.pos < self.chars.len() {
            return self.fail("Missing end of raw directive".to_owned());
        }
        Ok(())
    }

    /// Inside `{% %}` or `{{ }}`, up to the closing delimiter (only when
    /// brackets are balanced) or the end of the source.
    fn tag(&mut self, state: State) -> Result<(), SyntaxError> {
        while self.pos < self.chars.len() {
            let pos = self.pos;
            if self.balancing.is_empty() {
                if let Some(end) = self.tag_end(state) {
                    let kind = match state {
                        State::Block => "block_end",
                        State::Variable => "variable_end",
                    };
                    let text = self.text(pos, end);
                    self.push_at(kind, text, (pos, end));
                    self.line += self.newlines(pos, end);
                    self.pos = end;
                    return Ok(());
                }
            }
            let c = self.chars[pos];
            if is_py_space(c) {
                let end = self.skip_space(pos);
                self.line += self.newlines(pos, end);
                self.pos = end;
            } else if let Some(end) = self.float(pos) {
                self.push_at("float", self.text(pos, end), (pos, end));
                self.pos = end;
            } else if let Some(end) = self.integer(pos) {
                self.push_at("integer", self.text(pos, end), (pos, end));
                self.pos = end;
            } else if is_name_char(c) {
                let mut end = pos;
                while self.chars.get(end).is_some_and(|c| is_name_char(*c)) {
                    end += 1;
                }
                let name = self.text(pos, end);
                if !is_identifier(&name) {
                    return self.fail("Invalid character in identifier".to_owned());
                }
                self.push_at("name", name, (pos, end));
                self.pos = end;
            } else if c == '\'' || c == '"' {
                self.string(pos, c)?;
            } else if let Some((text, kind)) = OPERATORS.iter().find(|(op, _)| self.at(pos, op)) {
                self.balance(c)?;
                let end = pos + text.chars().count();
                self.push_at(kind, (*text).to_owned(), (pos, end));
                self.pos = end;
            } else {
                return self.fail(format!(
                    "unexpected char {} at {pos}",
                    crate::pyfmt::repr(&serde_json::Value::String(c.to_string()))
                ));
            }
        }
        Ok(())
    }

    /// The closing delimiter at `pos`: `+%}`, `-%}\s*`, `%}` for a block;
    /// `-}}\s*`, `}}` for a print statement.
    fn tag_end(&self, state: State) -> Option<usize> {
        let pos = self.pos;
        let close = match state {
            State::Block => "%}",
            State::Variable => "}}",
        };
        if state == State::Block && self.at(pos, "+%}") {
            return Some(pos + 3);
        }
        if self.at(pos, "-") && self.at(pos + 1, close) {
            return Some(self.skip_space(pos + 3));
        }
        self.at(pos, close).then_some(pos + 2)
    }

    fn balance(&mut self, c: char) -> Result<(), SyntaxError> {
        match c {
            '{' => self.balancing.push('}'),
            '(' => self.balancing.push(')'),
            '[' => self.balancing.push(']'),
            '}' | ')' | ']' => match self.balancing.pop() {
                None => return self.fail(format!("unexpected '{c}'")),
                Some(expected) if expected != c => {
                    return self.fail(format!("unexpected '{c}', expected '{expected}'"));
                }
                Some(_) => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// `(\d+_)*\d+` at `i`: where it ends.
    fn digits(&self, i: usize) -> Option<usize> {
        let digit = |k: usize| self.chars.get(k).is_some_and(char::is_ascii_digit);
        if !digit(i) {
            return None;
        }
        let mut k = i;
        loop {
            while digit(k) {
                k += 1;
            }
            if self.chars.get(k) == Some(&'_') && digit(k + 1) {
                k += 1;
                continue;
            }
            return Some(k);
        }
    }

    /// `float_re` at `pos`: digits, then an exponent (with an optional
    /// fraction before it) or a fraction; not right after a `.`.
    fn float(&self, pos: usize) -> Option<usize> {
        if pos > 0 && self.chars[pos - 1] == '.' {
            return None;
        }
        let int_end = self.digits(pos)?;
        let exponent = |at: usize| -> Option<usize> {
            if !matches!(self.chars.get(at), Some('e' | 'E')) {
                return None;
            }
            let mut k = at + 1;
            if matches!(self.chars.get(k), Some('+' | '-')) {
                k += 1;
            }
            self.digits(k)
        };
        if self.chars.get(int_end) == Some(&'.') {
            if let Some(frac_end) = self.digits(int_end + 1) {
                return exponent(frac_end).or(Some(frac_end));
            }
        }
        exponent(int_end)
    }

    /// `integer_re` at `pos` (binary, octal, hex, decimal, zeros).
    fn integer(&self, pos: usize) -> Option<usize> {
        let c = *self.chars.get(pos)?;
        if c == '0' {
            let prefixed = |digit: fn(&char) -> bool| -> Option<usize> {
                let mut k = pos + 2;
                let mut any = false;
                loop {
                    let skip = usize::from(self.chars.get(k) == Some(&'_'));
                    if self.chars.get(k + skip).is_some_and(digit) {
                        k += skip + 1;
                        any = true;
                    } else {
                        break;
                    }
                }
                any.then_some(k)
            };
            let found = match self.chars.get(pos + 1) {
                Some('b' | 'B') => prefixed(|c| matches!(c, '0' | '1')),
                Some('o' | 'O') => prefixed(|c| ('0'..='7').contains(c)),
                Some('x' | 'X') => prefixed(char::is_ascii_hexdigit),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
            let mut k = pos + 1;
            loop {
                let skip = usize::from(self.chars.get(k) == Some(&'_'));
                if self.chars.get(k + skip) == Some(&'0') {
                    k += skip + 1;
                } else {
                    return Some(k);
                }
            }
        }
        if !('1'..='9').contains(&c) {
            return None;
        }
        let mut k = pos + 1;
        loop {
            let skip = usize::from(self.chars.get(k) == Some(&'_'));
            if self.chars.get(k + skip).is_some_and(char::is_ascii_digit) {
                k += skip + 1;
            } else {
                return Some(k);
            }
        }
    }

    /// A string literal at `pos` (`string_re`), unescaped as Jinja2 does;
    /// an unclosed quote is no string and falls to "unexpected char".
    fn string(&mut self, pos: usize, quote: char) -> Result<(), SyntaxError> {
        let mut k = pos + 1;
        while let Some(&c) = self.chars.get(k) {
            if c == '\\' && k + 1 < self.chars.len() {
                k += 2;
                continue;
            }
            if c == '\\' {
                break;
            }
            if c == quote {
                let body = self.text(pos + 1, k);
                let value = match unescape(&body) {
                    Ok(value) => value,
                    Err(message) => return self.fail(message.to_owned()),
                };
                self.push_at("string", value, (pos, k + 1));
                self.line += self.newlines(pos, k + 1);
                self.pos = k + 1;
                return Ok(());
            }
            k += 1;
        }
        self.fail(format!(
            "unexpected char {} at {pos}",
            crate::pyfmt::repr(&serde_json::Value::String(quote.to_string()))
        ))
    }
}

/// A character `name_re` takes: Python's `\w`, and the other characters
/// an identifier may continue with (Jinja2's `_identifier.py`).
fn is_name_char(c: char) -> bool {
    pystr_unicode::is_word(c) || in_ranges(NAME_EXTRA, c)
}

/// Python's `str.isidentifier`.
fn is_identifier(name: &str) -> bool {
    pystr_unicode::isidentifier(name)
}

/// Python's `unicode-escape` decoding of a string literal's body, with its
/// error texts (the part after the last `:`).
fn unescape(body: &str) -> Result<String, &'static str> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            return Err("\\ at end of string");
        };
        let simple = match e {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\x07')),
            'b' => Some(Some('\x08')),
            'f' => Some(Some('\x0c')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\x0b')),
            _ => None,
        };
        if let Some(simple) = simple {
            out.extend(simple);
            continue;
        }
        let hex = |count: usize, chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
            let mut value = 0u32;
            for _ in 0..count {
                match chars.peek().and_then(|c| c.to_digit(16)) {
                    Some(d) => {
                        value = value * 16 + d;
                        chars.next();
                    }
                    None => return None,
                }
            }
            Some(value)
        };
        match e {
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(value));
            }
            // The messages are Python's own (its `unicodeescape` codec's),
            // placeholder letters included: a scenario compares them.
            'x' => out.extend(char::from_u32(
                hex(2, &mut chars).ok_or("truncated \\xXX escape")?,
            )),
            'u' => {
                let value = hex(4, &mut chars).ok_or("truncated \\uXXXX escape")?;
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'U' => {
                let value = hex(8, &mut chars).ok_or("truncated \\UXXXXXXXX escape")?;
                if value > 0x10ffff {
                    return Err("illegal Unicode character");
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'N' => {
                if chars.next_if_eq(&'{').is_none() {
                    return Err("malformed \\N character escape");
                }
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err("malformed \\N character escape"),
                    }
                }
                if name.is_empty() {
                    return Err("malformed \\N character escape");
                }
                out.push(super::char_name::lookup(&name).ok_or("unknown Unicode character name")?);
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<&'static str> {
        tokenize(source).0.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn tags_numbers_names_strings_and_operators_are_jinja2s_tokens() {
        assert_eq!(
            kinds("a {{ x.y|f(1, 2.5e3) }} {%- if 'q' ** 2 -%} b"),
            [
                "data",
                "variable_begin",
                "name",
                "dot",
                "name",
                "pipe",
                "name",
                "lparen",
                "integer",
                "comma",
                "float",
                "rparen",
                "variable_end",
                "block_begin",
                "name",
                "string",
                "pow",
                "integer",
                "block_end",
                "data",
            ]
        );
    }

    #[test]
    fn the_lexers_errors_are_jinja2s_texts() {
        let error = |source: &str| tokenize(source).1.map(|e| e.message);
        assert_eq!(
            error("{{ x !}}").as_deref(),
            Some("unexpected char '!' at 5")
        );
        assert_eq!(error("{{ x ) }}").as_deref(), Some("unexpected ')'"));
        // Python's `str.isidentifier`: `x²` is `\w` but no identifier;
        // `x·` and `café` are identifiers.
        for name in ["x²", "²x", "½"] {
            assert_eq!(
                error(&format!("{{{{ {name} }}}}")).as_deref(),
                Some("Invalid character in identifier")
            );
        }
        assert_eq!(error("{{ x· }}{{ café }}{{ Ⅻ }}"), None);
        assert_eq!(
            error("{{ (x] }}").as_deref(),
            Some("unexpected ']', expected ')'")
        );
        assert_eq!(error("{# x").as_deref(), Some("Missing end of comment tag"));
        assert_eq!(
            error("{% raw %}x").as_deref(),
            Some("Missing end of raw directive")
        );
        assert_eq!(
            error("{{ '\\x' }}").as_deref(),
            Some("truncated \\xXX escape")
        );
        assert_eq!(error("{{ x }}\n{{ 'a }}").map(|_| ()), Some(()));
    }
}

#[cfg(test)]
mod identifier_tests {
    use super::{is_identifier, is_name_char};

    /// Every code point as a name's first and later character, read as
    /// the interpreter `HOOKHARNESS_PYTHON` (Python 3.11, Unicode 14) reads
    /// it: `str.isidentifier` and Jinja2's `name_re`.
    #[test]
    fn identifiers_are_pythons() {
        let script = r#"
import re, sys
from jinja2._identifier import pattern
name = re.compile(r"[\w" + pattern.pattern[3:-2] + "]")
out = []
for code in range(0x110000):
    c = chr(code)
    if 0xD800 <= code < 0xE000:
        continue
    out.append("%X;%d%d%d" % (code, c.isidentifier(), ("a" + c).isidentifier(), bool(name.fullmatch(c))))
print("\n".join(out))
"#;
        let text = crate::reference_python::output(script);
        let mut differ = Vec::new();
        for line in text.lines() {
            let (code, flags) = line.split_once(';').expect("code;flags");
            let c = char::from_u32(u32::from_str_radix(code, 16).expect("hex")).expect("char");
            let ours = format!(
                "{}{}{}",
                u8::from(is_identifier(&c.to_string())),
                u8::from(is_identifier(&format!("a{c}"))),
                u8::from(is_name_char(c))
            );
            if ours != flags {
                differ.push(format!("{code}: python {flags}, ours {ours}"));
            }
        }
        assert!(
            differ.is_empty(),
            "{} differ: {:?}",
            differ.len(),
            &differ[..differ.len().min(40)]
        );
    }
}
