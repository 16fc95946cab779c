//! The budgets of a prompt template: how long one expression may be before
//! it is parsed, and how many bytes its rendering may build.
//!
//! - **Expressions.** minijinja parses a flat chain (`1+1+…+1`, `a.b.c…`,
//!   `x|f|f…`) into a tree as deep as the chain, and its compiler walks that
//!   tree recursively: 100,000 terms overflow the stack. Jinja2 itself
//!   raises `RecursionError` past about 490 terms. So every tag is scanned
//!   before parsing, and one holding more than [`MAX_OPERATORS`] operators is
//!   refused with `RecursionError`.
//! - **Bytes.** minijinja's fuel pays for instructions and for every byte
//!   the rendering builds (output, captured blocks, strings and lists made
//!   by operators and filters), and its own filters check the fuel before a
//!   large allocation. [`FUEL`] bounds both. The filters and methods the
//!   harness adds (`center`, Python's `str.format`) check the bytes they
//!   would build against what is left ([`ensure_bytes`]) before they build
//!   it, and fail with Python's `MemoryError`, as Python fails when the
//!   allocation cannot be made; a width past `sys.maxsize` is Python's
//!   `OverflowError`.

use super::PromptError;
use super::pystr::python_type;
use super::render::haystack_error;
use minijinja::value::Value as JinjaValue;
use minijinja::{Error, State};

/// Fuel of one rendering: instructions, each also paying for
/// [`BYTES_PER_FUEL`] bytes built. 2,000,000 instructions are far above
/// what a prompt of Haystack's docs needs (a loop over a thousand documents
/// takes some tens of thousands), and the bytes they pay for (128 MB) keep
/// a rendering within a few hundred MB of memory, its copies included.
pub(super) const FUEL: u64 = 2_000_000;

/// Bytes one unit of fuel pays for (minijinja's `UNITS_PER_FUEL`).
pub(super) const BYTES_PER_FUEL: u64 = 64;

/// Operators one tag (`{{ … }}`, `{% … %}`) may hold.
pub(super) const MAX_OPERATORS: usize = 1000;

/// The bytes the rendering's budget can still pay for.
pub(super) fn bytes_left(state: &State) -> u64 {
    state.fuel_levels().map_or(u64::MAX, |(_, remaining)| {
        remaining.saturating_mul(BYTES_PER_FUEL)
    })
}

/// `MemoryError` unless the rendering's budget can still pay for `bytes`.
pub(super) fn ensure_bytes(state: &State, bytes: usize) -> Result<(), Error> {
    let left = bytes_left(state);
    if (bytes as u64) < left {
        return Ok(());
    }
    Err(memory_error(bytes, left))
}

/// Python's `MemoryError` for a string of `bytes` with `left` to pay.
pub(super) fn memory_error(bytes: usize, left: u64) -> Error {
    past_budget(&format!("a string of {bytes} bytes"), left)
}

/// Python's `MemoryError` for building `what` with `left` bytes to pay.
fn past_budget(what: &str, left: u64) -> Error {
    haystack_error(format!(
        "MemoryError (the prompt template would build {what}, \
         past the {left} bytes its rendering has left: the harness bounds a rendering \
         to {} bytes; docs/deviations.md, `prompt-template-budget`)",
        FUEL * BYTES_PER_FUEL
    ))
}

/// Bytes one item of a list costs (minijinja's `SLOT_COST`).
pub(super) const BYTES_PER_ITEM: u64 = 32;

/// `MemoryError` unless the rendering's budget can still pay for a list of
/// `items` (`more`: of more than `items`, its length unknown).
pub(super) fn ensure_items(state: &State, items: u64, more: bool) -> Result<(), Error> {
    let left = bytes_left(state);
    let bytes = items
        .saturating_add(u64::from(more))
        .saturating_mul(BYTES_PER_ITEM);
    if bytes <= left {
        return Ok(());
    }
    let than = if more { "more than " } else { "" };
    Err(past_budget(
        &format!("a list of {than}{items} items ({BYTES_PER_ITEM} bytes an item)"),
        left,
    ))
}

/// A width argument as Python's `ssize_t`: `OverflowError` past it.
pub(super) fn ssize(value: &JinjaValue) -> Result<i64, Error> {
    if let Some(width) = value.as_i64() {
        return Ok(width);
    }
    match i128::try_from(value.clone()) {
        Ok(_) => Err(haystack_error(
            "OverflowError: Python int too large to convert to C ssize_t".to_owned(),
        )),
        Err(_) => Err(haystack_error(format!(
            "TypeError: '{}' object cannot be interpreted as an integer",
            python_type(value)
        ))),
    }
}

/// An upper bound of the length of `template.format(*args)`: the literal
/// text, and for each field the widest of its width and the longest
/// argument (a field whose width comes from an argument counts the largest
/// integer argument).
pub(super) fn str_format_bound(template: &str, args: &[JinjaValue]) -> usize {
    let longest = args
        .iter()
        .map(|arg| arg.as_str().map_or_else(|| arg.to_string().len(), str::len))
        .max()
        .unwrap_or(0);
    let largest = args
        .iter()
        .filter_map(|arg| i128::try_from(arg.clone()).ok())
        .map(|n| usize::try_from(n).unwrap_or(if n < 0 { 0 } else { usize::MAX }))
        .max()
        .unwrap_or(0);
    let mut bound = template.len();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let field = &rest[open + 1..];
        if let Some(after) = field.strip_prefix('{') {
            rest = after;
            continue;
        }
        // The field ends at the `}` closing it (a nested `{width}` opens
        // and closes inside).
        let mut depth = 1;
        let mut end = field.len();
        for (i, c) in field.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let markup = &field[..end];
        let width = match markup.split_once(':') {
            Some((_, spec)) if spec.contains('{') => largest,
            Some((_, spec)) => spec_width(spec),
            None => 0,
        };
        bound = bound.saturating_add(width.max(longest));
        rest = field.get(end + 1..).unwrap_or("");
    }
    bound
}

/// The width of a format spec `[[fill]align][sign][z][#][0][width]…`
/// (`usize::MAX` when it does not fit).
fn spec_width(spec: &str) -> usize {
    let is_align = |c: char| matches!(c, '<' | '>' | '=' | '^');
    let mut chars = spec.chars().peekable();
    let mut rest: Vec<char> = Vec::new();
    let first = chars.next();
    let second = chars.peek().copied();
    match (first, second) {
        (Some(_), Some(align)) if is_align(align) => {
            chars.next();
        }
        (Some(align), _) if is_align(align) => {}
        (Some(c), _) => rest.push(c),
        (None, _) => return 0,
    }
    rest.extend(chars);
    let digits: String = rest
        .into_iter()
        .skip_while(|c| matches!(c, '+' | '-' | ' ' | 'z' | '#' | '0'))
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        return 0;
    }
    digits.parse().unwrap_or(usize::MAX)
}

/// Refuses a template with a tag of more than [`MAX_OPERATORS`] operators,
/// before minijinja parses it (see the module docs).
pub(super) fn check_expressions(template: &str) -> Result<(), PromptError> {
    let mut from = 0;
    while let Some(offset) = template[from..].find('{') {
        let start = from + offset;
        let close = match template.as_bytes().get(start + 1) {
            Some(b'{') => "}}",
            Some(b'%') => "%}",
            Some(b'#') => {
                from = template[start + 2..]
                    .find("#}")
                    .map_or(template.len(), |end| start + 2 + end + 2);
                continue;
            }
            _ => {
                from = start + 1;
                continue;
            }
        };
        let body = &template[start + 2..];
        let (operators, length) = scan_tag(body, close);
        if operators > MAX_OPERATORS {
            let line = template[..start].matches('\n').count() + 1;
            return Err(PromptError::Template(format!(
                "RecursionError: maximum recursion depth exceeded while calling a Python object \
                 (the tag at line {line} of the template holds more than {MAX_OPERATORS} operators, \
                 the most the harness reads in one expression; Jinja2 fails past about 490: \
                 split the expression with `{{% set %}}`)"
            )));
        }
        from = start + 2 + length;
        if is_raw(body) {
            from = template[from..]
                .find("endraw")
                .map_or(template.len(), |end| from + end);
        }
    }
    Ok(())
}

/// `{% raw %}`: its body is text, not expressions.
fn is_raw(tag: &str) -> bool {
    let tag = tag.trim_start_matches(['-', '+']).trim_start();
    tag.strip_prefix("raw").is_some_and(|rest| {
        rest.trim_start()
            .trim_start_matches(['-', '+'])
            .starts_with("%}")
    })
}

/// The operators of one tag's body, and the body's length up to and with
/// `close` (string literals skipped).
fn scan_tag(body: &str, close: &str) -> (usize, usize) {
    let bytes = body.as_bytes();
    let mut operators = 0;
    let mut i = 0;
    let mut in_operator = false;
    while i < bytes.len() {
        // Bytes: `i` steps through a character outside ASCII byte by byte.
        if bytes[i..].starts_with(close.as_bytes()) {
            return (operators, i + close.len());
        }
        let b = bytes[i];
        match b {
            b'\'' | b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                in_operator = false;
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'~' | b'|' | b'.' | b'(' | b'[' | b'<' | b'>'
            | b'=' | b'!' => {
                if !in_operator {
                    operators += 1;
                }
                in_operator = !matches!(b, b'(' | b'[');
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let word_end = body[i..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(bytes.len(), |n| i + n);
                if matches!(
                    &body[i..word_end],
                    "and" | "or" | "in" | "is" | "if" | "not"
                ) {
                    operators += 1;
                }
                i = word_end;
                in_operator = false;
                continue;
            }
            _ => in_operator = false,
        }
        i += 1;
    }
    (operators, bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_flat_expression_is_refused_before_parsing() {
        for op in ["+", "~", " and ", "|string", ".a", "*"] {
            let template = format!("{{{{ 1{} }}}}", format!("{op}1").repeat(20_000));
            let error = check_expressions(&template).unwrap_err().to_string();
            assert!(error.starts_with("RecursionError"), "{op}: {error}");
            assert!(error.contains("line 1"), "{error}");
        }
        let within = format!("{{{{ 1{} }}}}", "+1".repeat(MAX_OPERATORS - 1));
        assert!(check_expressions(&within).is_ok());
    }

    #[test]
    fn characters_of_several_bytes_inside_a_tag_are_read_past() {
        for template in [
            "{{ topic \u{fffd}} in {{ words }} words.",
            "{{\u{fffd}words }}",
            "{{ 'é' ~ \"ü\\\u{fffd}\" ~ naïve }}",
            "{% if ü %}{{ 日本 }}{% endif %}",
        ] {
            assert!(check_expressions(template).is_ok(), "{template}");
        }
    }

    #[test]
    fn operators_inside_strings_comments_and_raw_blocks_do_not_count() {
        let plus = "+".repeat(5000);
        let template = format!(
            "{{{{ '{plus}' }}}}{{# {plus} #}}{{% raw %}}{{{{ {} }}}}{{% endraw %}}{plus}",
            "1+".repeat(5000)
        );
        assert!(check_expressions(&template).is_ok());
    }

    #[test]
    fn characters_outside_ascii_in_a_tag_are_stepped_over() {
        for template in [
            "{{ 1 + 2\u{fffd} x }}",
            "{% print 'b', 1 \u{e9}\u{20ac} %}",
            "{{ '\\\u{e9}' }}",
        ] {
            assert!(check_expressions(template).is_ok(), "{template}");
        }
    }

    #[test]
    fn every_tag_counts_alone() {
        let tag = format!("{{{{ 1{} }}}}", "+1".repeat(900));
        assert!(check_expressions(&tag.repeat(50)).is_ok());
    }

    #[test]
    fn str_format_bounds_widths_and_arguments() {
        let args = [JinjaValue::from("abc"), JinjaValue::from(7)];
        assert_eq!(str_format_bound("{}", &args), 2 + 3);
        assert_eq!(str_format_bound("{:>100}", &args), 7 + 100);
        assert_eq!(str_format_bound("{:*^50}|{{}}", &args), 12 + 50);
        assert_eq!(str_format_bound("{:>{}}", &args), 6 + 7);
        assert_eq!(
            str_format_bound("{:>99999999999999999999999}", &args),
            usize::MAX
        );
    }
}
