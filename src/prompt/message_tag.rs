//! Haystack's `{% message role="..." %}` tag, which minijinja does not
//! have: it is detected as Haystack detects it (the regular expressions of
//! `haystack.components.agents.utils`) and rewritten into a filter block,
//! `{% filter __haystack_message(role=..., name=..., meta=...) %}`, whose
//! filter builds the message (see `render.rs`).

use super::PromptError;

/// The name of the filter a message tag becomes.
pub(super) const MESSAGE_FILTER: &str = "__haystack_message";

/// Python's `\s` in a `str` pattern.
pub(super) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w`: letters, digits and the underscore.
fn is_py_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Byte offsets where `\{%\s*message\s` matches (`_JINJA2_CHAT_TEMPLATE_RE`).
fn message_tag_starts(template: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(offset) = template[from..].find("{%") {
        let start = from + offset;
        let rest = template[start + 2..].trim_start_matches(is_py_space);
        if let Some(after) = rest.strip_prefix("message") {
            if after.chars().next().is_some_and(is_py_space) {
                starts.push(start);
            }
        }
        from = start + 2;
    }
    starts
}

/// Whether the template has a message block (else Haystack wraps it in one).
pub(super) fn has_message_tag(template: &str) -> bool {
    !message_tag_starts(template).is_empty()
}

/// How many message blocks the template opens.
pub(super) fn count_message_tags(template: &str) -> usize {
    message_tag_starts(template).len()
}

/// The first literal role, as `_JINJA2_MESSAGE_ROLE_RE` finds it:
/// `\{%\s*message\s+role\s*=\s*["'](\w+)["']`.
pub(super) fn first_literal_role(template: &str) -> Option<String> {
    message_tag_starts(template).into_iter().find_map(|start| {
        let rest = template[start + 2..].trim_start_matches(is_py_space);
        let rest = rest
            .strip_prefix("message")?
            .trim_start_matches(is_py_space);
        let rest = rest.strip_prefix("role")?.trim_start_matches(is_py_space);
        let rest = rest.strip_prefix('=')?.trim_start_matches(is_py_space);
        let rest = rest.strip_prefix(['"', '\''])?;
        let end = rest.find(|c: char| !is_py_word(c))?;
        let role = &rest[..end];
        (!role.is_empty() && rest[end..].starts_with(['"', '\''])).then(|| role.to_owned())
    })
}

/// `prompt` as a message template: unchanged when it has a message block,
/// else wrapped in one for `role` (`_template_for_role`).
pub(super) fn template_for_role(prompt: &str, role: &str) -> String {
    if has_message_tag(prompt) {
        prompt.to_owned()
    } else {
        format!("{{% message role=\"{role}\" %}}{prompt}{{% endmessage %}}")
    }
}

const ROLES: [&str; 4] = ["user", "system", "assistant", "tool"];

/// Rewrites every `{% message ... %}` / `{% endmessage %}` tag (any
/// whitespace control) into a filter block; the errors are Jinja2's texts
/// for the tag's literal arguments.
pub(super) fn rewrite(template: &str) -> Result<String, PromptError> {
    let mut out = String::with_capacity(template.len() + 64);
    let mut from = 0;
    while let Some(offset) = template[from..].find("{%") {
        let start = from + offset;
        out.push_str(&template[from..start]);
        let after_open = &template[start + 2..];
        let control = after_open
            .chars()
            .next()
            .filter(|c| *c == '-' || *c == '+')
            .map(String::from)
            .unwrap_or_default();
        let body = after_open[control.len()..].trim_start_matches(is_py_space);
        let Some(end) = tag_end(after_open) else {
            // An unclosed tag: left for the parser to report.
            out.push_str(&template[start..]);
            return Ok(out);
        };
        let (inner, close) = (&after_open[..end], &after_open[end..end + 2]);
        let close_control = if inner.ends_with('-') || inner.ends_with('+') {
            &inner[inner.len() - 1..]
        } else {
            ""
        };
        let next = start + 2 + end + 2;
        let word_end = body.find(|c: char| !is_py_word(c)).unwrap_or(body.len());
        match &body[..word_end] {
            "message" if body[word_end..].starts_with(is_py_space) => {
                // `body` starts inside `after_open`, of which `inner` is a prefix.
                let args_start = after_open.len() - body.len() + word_end;
                let args_end = inner.len() - close_control.len();
                let args = inner.get(args_start..args_end).unwrap_or("").trim();
                let args = message_arguments(args)?;
                out.push_str(&format!(
                    "{{%{control} filter {MESSAGE_FILTER}({args}) {close_control}{close}"
                ));
            }
            "endmessage" => {
                out.push_str(&format!("{{%{control} endfilter {close_control}{close}"));
            }
            _ => out.push_str(&template[start..next]),
        }
        from = next;
    }
    out.push_str(&template[from..]);
    Ok(out)
}

/// The offset of the `%}` closing the tag that starts `text`, skipping
/// string literals.
fn tag_end(text: &str) -> Option<usize> {
    let mut quote = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(q) if c == '\\' => {
                chars.next();
                let _ = q;
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '%' && text[i + 1..].starts_with('}') => return Some(i),
            None => {}
        }
    }
    None
}

/// `role=EXPR [name="..."] [meta={...}]` as call arguments, with Jinja2's
/// errors for the literal checks of `ChatMessageExtension`.
fn message_arguments(args: &str) -> Result<String, PromptError> {
    let jinja2 = |text: String| Err(PromptError::MessageTag(text));
    let parts = split_keywords(args);
    let mut out = Vec::with_capacity(parts.len());
    let expected = ["role", "name", "meta"];
    let mut next = 0;
    for (keyword, value) in parts {
        let Some(position) = expected[next..].iter().position(|k| *k == keyword) else {
            let wanted = if next == 0 {
                "'role'"
            } else {
                "'end of statement block'"
            };
            return jinja2(format!("expected token {wanted}, got '{keyword}'"));
        };
        if next == 0 && position != 0 {
            return jinja2(format!("expected token 'role', got '{keyword}'"));
        }
        next += position + 1;
        let value = value.trim();
        match keyword {
            "role" => {
                if let Some(literal) = string_literal(value) {
                    if !ROLES.contains(&literal) {
                        return jinja2(format!("Role must be one of: {}", ROLES.join(", ")));
                    }
                }
            }
            "name" if string_literal(value).is_none() => {
                return jinja2("name must be a string".to_owned());
            }
            "meta" if !(value.starts_with('{') && value.ends_with('}')) => {
                return jinja2("meta must be a dictionary".to_owned());
            }
            _ => {}
        }
        out.push(format!("{keyword}={value}"));
    }
    if out.is_empty() {
        return jinja2("expected token 'role', got 'end of statement block'".to_owned());
    }
    Ok(out.join(", "))
}

/// A quoted literal without escapes or other quotes inside.
fn string_literal(value: &str) -> Option<&str> {
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = value.strip_prefix(quote)?.strip_suffix(quote)?;
    (!inner.contains(quote) && !inner.contains('\\')).then_some(inner)
}

/// Splits `role=a name=b meta={...}` at the keywords that start an
/// argument (outside strings and brackets), as `(keyword, value)` pairs.
fn split_keywords(args: &str) -> Vec<(&str, &str)> {
    let mut starts = Vec::new();
    let mut depth = 0i32;
    let mut quote = None;
    let mut previous = ' ';
    let mut chars = args.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(_) if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                // A keyword starts a name token: after a space, a closed
                // string or bracket (`role="user"name="bob"`), not inside
                // a name or after a `.`.
                _ if depth == 0 && !is_py_word(previous) && previous != '.' && is_py_word(c) => {
                    let word_end = args[i..]
                        .find(|c: char| !is_py_word(c))
                        .map_or(args.len(), |e| i + e);
                    let rest = args[word_end..].trim_start_matches(is_py_space);
                    if rest.starts_with('=') && !rest.starts_with("==") {
                        starts.push((i, word_end));
                    }
                }
                _ => {}
            },
        }
        previous = c;
    }
    let mut parts = Vec::with_capacity(starts.len());
    for (k, &(start, word_end)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(args.len(), |next| next.0);
        let value = args[word_end..end].trim_start_matches(is_py_space);
        let value = value.strip_prefix('=').unwrap_or(value);
        parts.push((&args[start..word_end], value));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_needs_whitespace_after_message_to_count() {
        assert!(has_message_tag(
            "{% message role='user' %}x{% endmessage %}"
        ));
        assert!(!has_message_tag(
            "{%- message role='user' %}x{% endmessage %}"
        ));
        assert!(!has_message_tag("{% messages %}"));
        assert_eq!(
            count_message_tags("{% message role='user' %}{% message role='user' %}"),
            2
        );
    }

    #[test]
    fn the_first_literal_role_is_found_with_either_quote() {
        assert_eq!(
            first_literal_role("{% message  role = 'system' %}").as_deref(),
            Some("system")
        );
        assert_eq!(first_literal_role("{% message role=r %}"), None);
    }

    #[test]
    fn message_tags_become_filter_blocks_with_their_arguments() {
        assert_eq!(
            rewrite(
                "{% message role=\"user\" name=\"bob\" meta={\"a\": 1} -%} hi {%- endmessage %}"
            )
            .unwrap(),
            "{% filter __haystack_message(role=\"user\", name=\"bob\", meta={\"a\": 1}) -%} hi {%- endfilter %}"
        );
    }

    #[test]
    fn literal_arguments_are_checked_as_jinja2_checks_them() {
        assert_eq!(
            rewrite("{% message role=\"bot\" %}")
                .unwrap_err()
                .to_string(),
            "Role must be one of: user, system, assistant, tool"
        );
        assert_eq!(
            rewrite("{% message role=\"user\" meta=1 %}")
                .unwrap_err()
                .to_string(),
            "meta must be a dictionary"
        );
        assert_eq!(
            rewrite("{% message name=\"a\" %}").unwrap_err().to_string(),
            "expected token 'role', got 'name'"
        );
    }

    #[test]
    fn other_tags_and_strings_are_left_alone() {
        let template = "{% if x %}{{ '%}' }}{% endif %}";
        assert_eq!(rewrite(template).unwrap(), template);
    }
}
