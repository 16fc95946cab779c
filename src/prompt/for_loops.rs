//! Jinja2's iteration in `{% for %}` loops, which minijinja's differs from
//! in two ways: a string's loop does not know its length (`loop.last`,
//! `loop.length`, `loop.revindex` are wrong), and `none` or a number
//! iterates as nothing where Python raises `TypeError`. Every loop's
//! iterable is passed through a filter that hands minijinja a list of a
//! string's characters and raises Python's error for what Python cannot
//! iterate: `{% for x in ITER %}` becomes
//! `{% for x in (ITER)|__haystack_iterable %}`, on the same line, so that
//! the lines errors name stay the template's.

use super::message_tag::is_py_space;

/// The name of the filter each loop's iterable goes through.
pub(super) const ITERABLE_FILTER: &str = "__haystack_iterable";

/// `template` with every `for` tag's iterable wrapped in the filter. A tag
/// this cannot read (no `in`, an unclosed string) is left as written, for
/// the parser to report; raw blocks and comments are left alone.
pub(super) fn rewrite(template: &str) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut from = 0;
    while let Some(start) = next_open(template, from) {
        let open = &template[start..];
        if open.starts_with("{#") {
            let end = open.find("#}").map_or(template.len(), |e| start + e + 2);
            out.push_str(&template[from..end]);
            from = end;
            continue;
        }
        let closer = if open.starts_with("{{") { '}' } else { '%' };
        let Some(length) = tag_end(&open[2..], closer) else {
            break;
        };
        let end = start + 2 + length + 2;
        out.push_str(&template[from..start]);
        let inner = &template[start + 2..start + 2 + length];
        let body = inner
            .trim_start_matches(['-', '+'])
            .trim_start_matches(is_py_space);
        if open.starts_with("{{") {
            out.push_str(&template[start..end]);
            from = end;
            continue;
        }
        match first_word(body) {
            "raw" => {
                // Everything up to `{% endraw %}` is text.
                let close = find_endraw(template, end).unwrap_or(template.len());
                out.push_str(&template[start..close]);
                from = close;
                continue;
            }
            "for" => match wrap_iterable(inner) {
                Some(inner) => {
                    out.push_str("{%");
                    out.push_str(&inner);
                    out.push_str("%}");
                }
                None => out.push_str(&template[start..end]),
            },
            _ => out.push_str(&template[start..end]),
        }
        from = end;
    }
    out.push_str(&template[from..]);
    out
}

/// The next `{%`, `{{` or `{#` at or after `from`.
fn next_open(template: &str, from: usize) -> Option<usize> {
    let bytes = template.as_bytes();
    (from..bytes.len().saturating_sub(1))
        .find(|&i| bytes[i] == b'{' && matches!(bytes[i + 1], b'%' | b'{' | b'#'))
}

/// The offset where the tag's closing `%}` (`}}` when `closer` is `}`)
/// starts, strings skipped.
fn tag_end(text: &str, closer: char) -> Option<usize> {
    let mut quote = None;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(_) if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == closer && text[i + 1..].starts_with('}') => return Some(i),
            None => {}
        }
    }
    None
}

/// Where the `{% endraw %}` after `from` ends.
fn find_endraw(template: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(offset) = template[at..].find("{%") {
        let start = at + offset;
        let length = tag_end(&template[start + 2..], '%')?;
        let body = template[start + 2..start + 2 + length]
            .trim_start_matches(['-', '+'])
            .trim_start_matches(is_py_space);
        if first_word(body) == "endraw" {
            return Some(start + 2 + length + 2);
        }
        at = start + 2;
    }
    None
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn first_word(text: &str) -> &str {
    &text[..text.find(|c: char| !is_word(c)).unwrap_or(text.len())]
}

/// The words of a tag's text at bracket depth 0, with their offsets;
/// `None` when a string is not closed.
fn top_level_words(text: &str) -> Option<Vec<(usize, &str)>> {
    let mut words = Vec::new();
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' | '\'' => loop {
                match chars.next() {
                    Some((_, '\\')) => {
                        chars.next();
                    }
                    Some((_, q)) if q == c => break,
                    Some(_) => {}
                    None => return None,
                }
            },
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            c if is_word(c) => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if !is_word(d) {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                if depth == 0 && !text[i..].starts_with(|d: char| d.is_ascii_digit()) {
                    words.push((i, &text[i..end]));
                }
            }
            _ => {}
        }
    }
    Some(words)
}

/// A `for` tag's inner text with its iterable wrapped, or `None` when it
/// cannot be read.
fn wrap_iterable(inner: &str) -> Option<String> {
    let words = top_level_words(inner)?;
    let mut words = words.into_iter().skip_while(|(_, w)| *w != "for").skip(1);
    let (in_at, _) = words.find(|(_, w)| *w == "in")?;
    let iter_start = in_at + 2;
    let iter_end = words
        .find(|(_, w)| *w == "if" || *w == "recursive")
        .map_or_else(|| close_control_start(inner), |(at, _)| at);
    let iterable = inner.get(iter_start..iter_end)?;
    if iterable.trim_matches(is_py_space).is_empty() {
        return None;
    }
    Some(format!(
        "{} ({})|{ITERABLE_FILTER} {}",
        &inner[..iter_start],
        iterable.trim_matches(is_py_space),
        &inner[iter_end..]
    ))
}

/// Where the tag's closing whitespace control (`-` or `+`) starts, else
/// its end.
fn close_control_start(inner: &str) -> usize {
    if inner.ends_with(['-', '+']) {
        inner.len() - 1
    } else {
        inner.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_iterable_of_each_for_tag_is_wrapped_and_the_rest_kept() {
        assert_eq!(
            rewrite("a{% for x in items %}{{ x }}{% endfor %}b"),
            "a{% for x in (items)|__haystack_iterable %}{{ x }}{% endfor %}b"
        );
        assert_eq!(
            rewrite("{%- for k, v in d.items() if v recursive -%}"),
            "{%- for k, v in (d.items())|__haystack_iterable if v recursive -%}"
        );
        assert_eq!(
            rewrite("{% for x in [1, 'in if'] if x %}"),
            "{% for x in ([1, 'in if'])|__haystack_iterable if x %}"
        );
        assert_eq!(
            rewrite("{% for x in 1, 2 %}"),
            "{% for x in (1, 2)|__haystack_iterable %}"
        );
    }

    #[test]
    fn raw_blocks_comments_prints_and_broken_tags_are_left_alone() {
        for template in [
            "{% raw %}{% for x in y %}{% endraw %}",
            "{# {% for x in y %} #}",
            "{{ '{% for x in y %}' }}",
            "{% for x %}",
            "{% for x in %}",
            "{% for x in 'y %}",
            "{% for x in y",
        ] {
            assert_eq!(rewrite(template), template);
        }
    }
}
