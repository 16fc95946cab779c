//! Rewriting the `sees` of a YAML scenario in its own text, so that its
//! comments, key order and layout stay as written; a new `sees` becomes
//! the last key of its `model` item.
//!
//! Each `sees` value is found from the key's line and column: a flow value
//! (`sees: {...}`) runs to its closing bracket, a block value to the first
//! line indented no deeper than the key. The new value is written as a
//! block map (a list of maps one item per line) in a block, on one line in
//! a flow collection; each item in JSON, which YAML reads. The result must load as the
//! rebased scenario; when it does not (a layout this does not follow), the
//! caller writes the whole file instead.

use crate::scenario::write_compact;
use serde_json::Value;

/// One change to the text: a `sees` value replaced, or a `sees` added to a
/// `model` item that has none.
pub(crate) enum Edit<'a> {
    /// The `sees` key at this 1-based line and column gets `value`.
    Replace {
        line: usize,
        column: usize,
        value: &'a Value,
    },
    /// The `model` item at `item` (line and column; its first key at
    /// `first_key` for a block map) gets `sees: value` as its last key.
    Insert {
        item: (usize, usize),
        first_key: Option<(usize, usize)>,
        value: &'a Value,
    },
}

/// `text` with the edits made, or `None` when one of them is not laid out
/// in a way this rewrites (a quoted key, a scalar value, a null item).
pub(crate) fn apply(text: &str, edits: &[Edit<'_>]) -> Option<String> {
    let mut spans = Vec::with_capacity(edits.len());
    for edit in edits {
        spans.push(match edit {
            Edit::Replace {
                line,
                column,
                value,
            } => replacement(text, *line, *column, value)?,
            Edit::Insert {
                item,
                first_key,
                value,
            } => insertion(text, *item, *first_key, value)?,
        });
    }
    spans.sort_by_key(|(start, _, _)| *start);
    if spans.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    let mut out = text.to_owned();
    for (start, end, written) in spans.into_iter().rev() {
        out.replace_range(start..end, &written);
    }
    Some(out)
}

/// The span of the `sees` value whose key is at `line`, `column`, and its
/// new text.
fn replacement(
    text: &str,
    line: usize,
    column: usize,
    value: &Value,
) -> Option<(usize, usize, String)> {
    let start = offset(text, line, column)?;
    let rest = text[start..].strip_prefix("sees")?;
    let after_colon = rest.trim_start_matches([' ', '\t']).strip_prefix(':')?;
    let colon_end = text.len() - after_colon.len();
    let value_start =
        colon_end + (after_colon.len() - after_colon.trim_start_matches([' ', '\t']).len());
    let (end, written) = match text[value_start..].chars().next() {
        Some('{' | '[') => (flow_end(text, value_start)?, flow_sees(value)),
        Some('\n' | '\r' | '#') | None => (
            block_end(text, start, column - 1),
            block_sees(value, column - 1),
        ),
        Some(_) => return None,
    };
    Some((start, end, written))
}

/// Where `sees` goes in the `model` item at `item`, and its text: before
/// the closing brace of a flow map, after the last line of a block map.
fn insertion(
    text: &str,
    item: (usize, usize),
    first_key: Option<(usize, usize)>,
    value: &Value,
) -> Option<(usize, usize, String)> {
    let at = offset(text, item.0, item.1)?;
    if text[at..].starts_with('{') {
        let close = flow_end(text, at)? - 1;
        let empty = text[at + 1..close].trim().is_empty();
        let written = format!("{}{}", if empty { "" } else { ", " }, flow_sees(value));
        return Some((close, close, written));
    }
    let (line, column) = first_key?;
    let indent = column.checked_sub(1).filter(|&i| i > 0)?;
    let key = offset(text, line, column)?;
    let end = block_end(text, key, indent - 1);
    let newline = if text[..end].ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let written = format!(
        "{newline}{}{}",
        " ".repeat(indent),
        block_sees(value, indent)
    );
    Some((end, end, written))
}

/// `sees: VALUE` on one line, for a flow collection.
fn flow_sees(value: &Value) -> String {
    let mut written = String::from("sees: ");
    write_compact(value, &mut written);
    written
}

/// `sees:` as a block map under a key with `indent` spaces before it: a
/// list of maps as a block list, one item per line; any other value on the
/// key's line.
fn block_sees(value: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent + 2);
    let mut out = String::from("sees:\n");
    let Value::Object(map) = value else {
        out.truncate("sees:".len());
        out.push(' ');
        write_compact(value, &mut out);
        out.push('\n');
        return out;
    };
    for (key, item) in map {
        out.push_str(&pad);
        out.push_str(key);
        out.push(':');
        match item {
            Value::Array(items) if items.iter().any(Value::is_object) => {
                out.push('\n');
                for item in items {
                    out.push_str(&pad);
                    out.push_str("  - ");
                    write_compact(item, &mut out);
                    out.push('\n');
                }
            }
            _ => {
                out.push(' ');
                write_compact(item, &mut out);
                out.push('\n');
            }
        }
    }
    if map.is_empty() {
        return "sees: {}\n".to_owned();
    }
    out
}

/// The byte offset of a 1-based line and column (in characters).
fn offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start = if line == 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let within = text[line_start..]
        .char_indices()
        .nth(column - 1)
        .map(|(i, _)| i)?;
    Some(line_start + within)
}

/// The end of a flow collection starting at `start`: after its closing
/// bracket, brackets inside quotes and comments aside.
fn flow_end(text: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = text[start..].char_indices().peekable();
    let mut previous = ' ';
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                while let Some((_, c)) = chars.next() {
                    if c == '\'' {
                        if chars.peek().map(|(_, c)| *c) == Some('\'') {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                }
            }
            '#' if previous.is_whitespace() => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(start + i + 1);
                }
            }
            _ => {}
        }
        previous = c;
    }
    None
}

/// The end of a block value whose key starts at `key_start` with `indent`
/// spaces before it: the start of the first later line indented no deeper
/// (blank and comment lines aside), then back over the blank and comment
/// lines just before it that are not indented deeper than the key (they
/// belong to what follows).
fn block_end(text: &str, key_start: usize, indent: usize) -> usize {
    let first_line_end = text[key_start..]
        .find('\n')
        .map_or(text.len(), |i| key_start + i + 1);
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut position = first_line_end;
    for line in text[first_line_end..].split_inclusive('\n') {
        lines.push((position, line));
        position += line.len();
    }
    let depth = |line: &str| line.len() - line.trim_start_matches(' ').len();
    let is_filler = |line: &str| {
        let trimmed = line.trim();
        trimmed.is_empty() || trimmed.starts_with('#')
    };
    let stop = lines
        .iter()
        .position(|(_, line)| !is_filler(line) && depth(line) <= indent)
        .unwrap_or(lines.len());
    let mut end = stop;
    while end > 0 && is_filler(lines[end - 1].1) && depth(lines[end - 1].1) <= indent {
        end -= 1;
    }
    lines.get(end).map_or(text.len(), |(start, _)| *start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn replace(text: &str, line: usize, column: usize, value: &Value) -> Option<String> {
        apply(
            text,
            &[Edit::Replace {
                line,
                column,
                value,
            }],
        )
    }

    fn insert(
        text: &str,
        item: (usize, usize),
        first_key: Option<(usize, usize)>,
    ) -> Option<String> {
        let value = json!({"tools": ["search"]});
        apply(
            text,
            &[Edit::Insert {
                item,
                first_key,
                value: &value,
            }],
        )
    }

    #[test]
    fn sees_is_added_as_the_last_key_of_a_block_or_flow_item() {
        let text = "model:\n  - text: hi\n    usage: {a: 1}\n  # next\n  - {text: bye}\n  - {}\n";
        assert_eq!(
            insert(text, (2, 5), Some((2, 5))).unwrap(),
            "model:\n  - text: hi\n    usage: {a: 1}\n    sees:\n      tools: [\"search\"]\n  # next\n  - {text: bye}\n  - {}\n"
        );
        assert_eq!(
            insert(text, (5, 5), None).unwrap(),
            "model:\n  - text: hi\n    usage: {a: 1}\n  # next\n  - {text: bye, sees: {\"tools\": [\"search\"]}}\n  - {}\n"
        );
        assert_eq!(
            insert(text, (6, 5), None).unwrap(),
            "model:\n  - text: hi\n    usage: {a: 1}\n  # next\n  - {text: bye}\n  - {sees: {\"tools\": [\"search\"]}}\n"
        );
        assert_eq!(insert("model:\n  - null\n", (2, 5), None), None);
    }

    #[test]
    fn a_block_value_is_replaced_and_the_comments_around_it_stay() {
        let text = "model:\n  - text: hi\n    sees:\n      roles: [user]\n      # old\n  # the second reply\n  - text: bye\n";
        let out = replace(text, 3, 5, &json!({"roles": ["user", "assistant"]})).unwrap();
        assert_eq!(
            out,
            "model:\n  - text: hi\n    sees:\n      roles: [\"user\", \"assistant\"]\n  # the second reply\n  - text: bye\n"
        );
    }

    #[test]
    fn a_flow_value_is_replaced_up_to_its_closing_bracket() {
        let text = "model:\n  - {text: hi, sees: {contains: \"}#\"}} # keep\n";
        let out = replace(text, 2, 16, &json!({"tools": []})).unwrap();
        assert_eq!(
            out,
            "model:\n  - {text: hi, sees: {\"tools\": []}} # keep\n"
        );
    }

    #[test]
    fn a_scalar_value_or_a_position_elsewhere_is_left_to_the_writer() {
        assert_eq!(replace("sees: null\n", 1, 1, &json!({})), None);
        assert_eq!(replace("text: hi\n", 1, 1, &json!({})), None);
    }
}
