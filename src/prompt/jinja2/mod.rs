//! Jinja2's own checks of a template, with its own texts: the syntax
//! errors its lexer and parser raise when Haystack builds the Agent's
//! prompt builders (`env.parse`), and the unknown filters and tests its
//! compiler rejects when a run renders the prompt (`env.from_string`).
//! minijinja renders the template; these checks only decide what Jinja2
//! refuses, so that the error texts are Jinja2's.

mod char_name;
mod lexer;
mod macro_def;
mod name_table;
mod names;
mod parser;
mod undefined_filters;

pub(super) use parser::{
    ADD_FUNCTION, ATTR_FUNCTION, COMPARE_FUNCTION, CONCAT_FUNCTION, DEFINED_FUNCTION, DIV_FUNCTION,
    FLOORDIV_FUNCTION, GENERATOR_BODY_FUNCTION, GETITEM_FUNCTION, HINTS_KEYWORD, IN_FUNCTION,
    ITEM_FUNCTION, KEEP_FUNCTION, KEY_FUNCTION, LOAD_FUNCTION, METHOD_FUNCTION, MOD_FUNCTION,
    MUL_FUNCTION, NAMED_ATTR_FUNCTION, NAMED_FUNCTION, NAMED_ITEM_FUNCTION, NEG_FUNCTION,
    POS_FUNCTION, POW_FUNCTION, SLICE_FUNCTION, SUB_FUNCTION, TAKE_FUNCTION,
};

/// A `TemplateSyntaxError`: Jinja2's message and the template line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SyntaxError {
    pub(super) message: String,
    pub(super) line: usize,
}

/// Parses `template` as Haystack's `ChatPromptBuilder` does when it is
/// built: Jinja2's parser, then its compiler, which `find_undeclared_variables`
/// runs and which rejects a filter or test Jinja2 does not have (unless it
/// sits in an `if`, where it fails only when called). Gives the builder's
/// `variables`, in its order (see [`names`]), and the source minijinja
/// renders: newlines made `\n` as Jinja2 reads them, and the constructs
/// minijinja reads otherwise rewritten into ones it has (`{% print a %}` as
/// `{{ a }}`; the operators `+`, `*`, `%`, `~`, comparisons and `in` as
/// calls of Python's operators, an undefined name or missing attribute
/// checked where Jinja2 raises; a dict literal's key checked for
/// hashability): the `*_FUNCTION` constants of the parser name each.
pub(super) fn check(template: &str) -> Result<(Vec<String>, String), SyntaxError> {
    let (tokens, error) = lexer::tokenize(template);
    let strings: Vec<lexer::Token> = tokens
        .iter()
        .filter(|token| token.kind == "string")
        .cloned()
        .collect();
    let mut parser = parser::Parser::new(tokens, error)?;
    let body = parser.parse()?;
    let unknown = parser.lookups.iter().find(|lookup| {
        !lookup.soft
            && !if lookup.filter {
                FILTERS.contains(&lookup.name.as_str())
            } else {
                TESTS.contains(&lookup.name.as_str())
            }
    });
    // The compiler meets the first of them in the template.
    let nested_extends = parser.nested_extends.first().copied();
    if let Some(line) = nested_extends.filter(|line| unknown.is_none_or(|u| *line < u.line)) {
        return Err(SyntaxError {
            message: format!(
                "cannot use extend from a non top-level scope\n  File \"<introspection>\", line {line}"
            ),
            line,
        });
    }
    match unknown {
        // Raised outside Jinja2's error translation: its text keeps the location.
        Some(lookup) => Err(SyntaxError {
            message: format!(
                "No {} named '{}'.\n  File \"<introspection>\", line {}",
                if lookup.filter { "filter" } else { "test" },
                lookup.name,
                lookup.line
            ),
            line: lookup.line,
        }),
        None => {
            let mut edits = parser.edits;
            if parser.assigns_self {
                edits.extend(parser.self_names.iter().map(|&(start, end)| parser::Edit {
                    start,
                    end,
                    text: parser::SELF_NAME.to_owned(),
                    closing: false,
                }));
            }
            let source = lexer::normalize_newlines(template);
            edits.extend(literal_edits(&source, &strings));
            Ok((names::variables(&body), apply_edits(&source, edits)))
        }
    }
}

/// `source` with the parser's edits made, from the end (a closing call
/// before an opening at the same place).
/// A string literal with an escape minijinja reads otherwise than Python's
/// `unicode-escape` codec (`\a`, `\v`, `\U0001F600` and `\N{NAME}` stay as
/// written there, `\/` is `/`, an octal escape is a byte, a backslash
/// before a newline stays), written again from the value Python gives it,
/// spelled with only `\\` and `\'`. The escapes both read alike (`\n`,
/// `\xHH`, `\uXXXX` among them) are left as written: a surrogate pair of
/// `\u` escapes stays one character there.
fn literal_edits(source: &str, strings: &[lexer::Token]) -> Vec<parser::Edit> {
    let chars: Vec<char> = source.chars().collect();
    strings
        .iter()
        .filter(|token| {
            chars
                .get(token.span.0..token.span.1)
                .is_some_and(read_otherwise)
        })
        .map(|token| {
            let mut text = String::with_capacity(token.value.len() + 2);
            text.push('\'');
            for c in token.value.chars() {
                if c == '\\' || c == '\'' {
                    text.push('\\');
                }
                text.push(c);
            }
            text.push('\'');
            parser::Edit {
                start: token.span.0,
                end: token.span.1,
                text,
                closing: false,
            }
        })
        .collect()
}

/// Whether a literal's text has an escape minijinja reads otherwise.
fn read_otherwise(text: &[char]) -> bool {
    let mut escaped = false;
    for &c in text {
        if escaped {
            if matches!(c, 'a' | 'v' | 'U' | 'N' | '/' | '\n' | '0'..='7') {
                return true;
            }
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        }
    }
    false
}

fn apply_edits(source: &str, mut edits: Vec<parser::Edit>) -> String {
    if edits.is_empty() {
        return source.to_owned();
    }
    let mut chars: Vec<char> = source.chars().collect();
    // Latest first. At one place, what is inserted later lands in front:
    // a replacement first, then the openings in the parser's order (inner
    // calls before the outer ones that wrap them), the closings last, so
    // that `a` ending where `b` starts reads `a)` `__py_mod(b`.
    edits.sort_by_key(|e| {
        (
            std::cmp::Reverse(e.start),
            std::cmp::Reverse(e.end),
            e.closing,
        )
    });
    for edit in edits {
        let (start, end) = (edit.start.min(chars.len()), edit.end.min(chars.len()));
        chars.splice(start..end, edit.text.chars());
    }
    chars.into_iter().collect()
}

/// Jinja2 3.1's filters, and Haystack's `templatize_part`.
pub(in crate::prompt) const FILTERS: [&str; 55] = [
    "abs",
    "attr",
    "batch",
    "capitalize",
    "center",
    "count",
    "d",
    "default",
    "dictsort",
    "e",
    "escape",
    "filesizeformat",
    "first",
    "float",
    "forceescape",
    "format",
    "groupby",
    "indent",
    "int",
    "items",
    "join",
    "last",
    "length",
    "list",
    "lower",
    "map",
    "max",
    "min",
    "pprint",
    "random",
    "reject",
    "rejectattr",
    "replace",
    "reverse",
    "round",
    "safe",
    "select",
    "selectattr",
    "slice",
    "sort",
    "string",
    "striptags",
    "sum",
    "title",
    "tojson",
    "trim",
    "truncate",
    "unique",
    "upper",
    "urlencode",
    "urlize",
    "wordcount",
    "wordwrap",
    "xmlattr",
    "templatize_part",
];

/// Jinja2 3.1's tests.
pub(in crate::prompt) const TESTS: [&str; 39] = [
    "!=",
    "<",
    "<=",
    "==",
    ">",
    ">=",
    "boolean",
    "callable",
    "defined",
    "divisibleby",
    "eq",
    "equalto",
    "escaped",
    "even",
    "false",
    "filter",
    "float",
    "ge",
    "greaterthan",
    "gt",
    "in",
    "integer",
    "iterable",
    "le",
    "lessthan",
    "lower",
    "lt",
    "mapping",
    "ne",
    "none",
    "number",
    "odd",
    "sameas",
    "sequence",
    "string",
    "test",
    "true",
    "undefined",
    "upper",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn error(template: &str) -> String {
        check(template).err().map(|e| e.message).unwrap_or_default()
    }

    #[test]
    fn syntax_errors_are_jinja2s_texts() {
        let message = |t: &str| {
            error(&format!(
                "{{% message role=\"user\" %}}{t}{{% endmessage %}}"
            ))
        };
        assert_eq!(
            message("Summarize {{ topic"),
            "expected token 'end of print statement', got '{'"
        );
        assert_eq!(
            error("{{ unclosed"),
            "unexpected end of template, expected 'end of print statement'."
        );
        assert_eq!(
            error("{% for x in y %}"),
            "Unexpected end of template. Jinja was looking for the following tags: 'endfor' or \
             'else'. The innermost block that needs to be closed is 'for'."
        );
        assert_eq!(error("{% endif %}"), "Encountered unknown tag 'endif'.");
        assert_eq!(
            error("{% for x in y %}{% endif %}"),
            "Encountered unknown tag 'endif'. Jinja was looking for the following tags: 'endfor' \
             or 'else'. The innermost block that needs to be closed is 'for'."
        );
        assert_eq!(
            error("{% if a %}{% for x in y %}{% endif %}"),
            "Encountered unknown tag 'endif'. You probably made a nesting mistake. Jinja is \
             expecting this tag, but currently looking for 'endfor' or 'else'. The innermost \
             block that needs to be closed is 'for'."
        );
        assert_eq!(
            error("{{ x | }}"),
            "expected token 'name', got 'end of print statement'"
        );
        assert_eq!(
            error("{{ x is }}"),
            "expected token 'name', got 'end of print statement'"
        );
        assert_eq!(error("{% %}"), "tag name expected");
        assert_eq!(
            error("{{ }}"),
            "Expected an expression, got 'end of print statement'"
        );
        assert_eq!(error("{% set 1 = 2 %}"), "can't assign to 'const'");
    }

    #[test]
    fn unknown_filters_and_tests_fail_compiling_except_inside_an_if() {
        assert_eq!(
            error("{{ x|nosuch }}"),
            "No filter named 'nosuch'.\n  File \"<introspection>\", line 1"
        );
        assert_eq!(
            error("\n{{ x is nosuch }}"),
            "No test named 'nosuch'.\n  File \"<introspection>\", line 2"
        );
        assert_eq!(error("{% if x %}{{ x|nosuch }}{% endif %}"), "");
        assert_eq!(error("{{ x|nosuch if y }}"), "");
        assert_eq!(error("{{ x|upper|join(',') is string }}"), "");
    }
}
