//! `outputs_to_string`: which part of a tool's result becomes the tool
//! message's text (Haystack's `_build_tool_result_message`).

use crate::pyfmt;
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// How a tool's result becomes the text of its tool message, as Haystack's
/// `Tool(outputs_to_string=...)` without handlers (Python callables).
///
/// ```
/// use hookharness::tool::OutputsToString;
/// use serde_json::json;
///
/// let result = json!({"summary": "two hits", "docs": ["a", "b"]});
/// let single = OutputsToString::source("summary");
/// assert_eq!(single.render(&result), "two hits");
///
/// let multiple = OutputsToString::multiple([("text", "summary"), ("count", "docs")]);
/// assert_eq!(
///     multiple.render(&result),
///     r#"{"text": "two hits", "count": "[\"a\", \"b\"]"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputsToString {
    /// `{source: KEY}`: the result's `KEY` (the whole result when `None`)
    /// rendered as one string.
    Single {
        /// The result key to render.
        source: Option<String>,
    },
    /// `{out: {source: KEY}, ...}`: each output key gets its source rendered
    /// as a string; the map of strings is rendered as JSON.
    Multiple(IndexMap<String, String>),
}

impl OutputsToString {
    /// `{source: KEY}`.
    pub fn source(key: impl Into<String>) -> Self {
        OutputsToString::Single {
            source: Some(key.into()),
        }
    }

    /// `{out: {source: KEY}, ...}`, in this order.
    pub fn multiple<I, K, S>(outputs: I) -> Self
    where
        I: IntoIterator<Item = (K, S)>,
        K: Into<String>,
        S: Into<String>,
    {
        OutputsToString::Multiple(
            outputs
                .into_iter()
                .map(|(key, source)| (key.into(), source.into()))
                .collect(),
        )
    }

    /// The tool message's text for this result.
    pub fn render(&self, result: &Value) -> String {
        match self {
            OutputsToString::Single { source } => {
                result_to_string(&pick(source.as_deref(), result))
            }
            OutputsToString::Multiple(outputs) => {
                let rendered: Map<String, Value> = outputs
                    .iter()
                    .map(|(key, source)| {
                        let text = result_to_string(&pick(Some(source), result));
                        (key.clone(), Value::String(text))
                    })
                    .collect();
                result_to_string(&Value::Object(rendered))
            }
        }
    }
}

/// Haystack's `_process_tool_output` lookup: a source picks that key of a
/// dict result (`None` when missing); a result that is no dict is used whole.
fn pick(source: Option<&str>, result: &Value) -> Value {
    match (source, result) {
        (Some(key), Value::Object(map)) => map.get(key).cloned().unwrap_or(Value::Null),
        _ => result.clone(),
    }
}

/// Haystack's `_result_to_string`: a string as is, anything else as
/// `json.dumps(value, ensure_ascii=False)`.
pub(crate) fn result_to_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => pyfmt::json_dumps(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_source_key_renders_as_null() {
        assert_eq!(
            OutputsToString::source("x").render(&json!({"y": 1})),
            "null"
        );
    }

    #[test]
    fn a_source_on_a_result_that_is_no_dict_uses_the_whole_result() {
        assert_eq!(
            OutputsToString::source("x").render(&json!("plain")),
            "plain"
        );
        assert_eq!(
            OutputsToString::source("x").render(&json!([1, 2])),
            "[1, 2]"
        );
    }

    #[test]
    fn no_source_renders_the_whole_result() {
        let whole = OutputsToString::Single { source: None };
        assert_eq!(whole.render(&json!({"a": "é"})), r#"{"a": "é"}"#);
    }

    #[test]
    fn multiple_outputs_keep_their_order_and_render_strings_unquoted_inside() {
        let config = OutputsToString::multiple([("b", "n"), ("a", "s")]);
        assert_eq!(
            config.render(&json!({"s": "x", "n": 2})),
            r#"{"b": "2", "a": "x"}"#
        );
    }
}
