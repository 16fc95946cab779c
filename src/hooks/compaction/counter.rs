//! Measuring a conversation: the [`TokenCounter`] trait and Haystack's
//! [`ApproximateTokenCounter`] (`haystack.token_counters`).
//!
//! The approximate count is `int(len(rendered) / chars_per_token)` plus a
//! flat charge per image and per file. `rendered` is the conversation as
//! Haystack's `_rendered_conversation` writes it, immediately followed (no
//! separator) by the tool schemas as `json.dumps(specs, sort_keys=True)`.
//! Lengths are Python's: code points, after `\uNNNN` escaping in the JSON.

use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, component, format_error, open, shown, type_of};
use crate::message::{ChatMessage, ContentPart, ToolResult};
use crate::pyfmt::float_repr;
use crate::tool::Tool;
use serde_json::{Map, Number, Value};
use std::fmt::Write;
use std::sync::Arc;

/// Sizes messages (and the tool schemas sent with them) in tokens.
///
/// ```
/// use hookharness::hooks::compaction::{ApproximateTokenCounter, TokenCounter};
/// use hookharness::ChatMessage;
///
/// let counter = ApproximateTokenCounter::default();
/// // "[user] Hello, how are you?" is 26 characters: int(26 / 4) = 6.
/// assert_eq!(counter.count(&[ChatMessage::from_user("Hello, how are you?")], &[]), 6);
///
/// // A fixed-size counter of your own.
/// struct TenEach;
/// impl TokenCounter for TenEach {
///     fn count(&self, messages: &[ChatMessage], _tools: &[std::sync::Arc<dyn hookharness::Tool>]) -> i64 {
///         10 * messages.len() as i64
///     }
/// }
/// ```
pub trait TokenCounter: Send + Sync + 'static {
    /// The tokens `messages` and the schemas of `tools` occupy.
    fn count(&self, messages: &[ChatMessage], tools: &[Arc<dyn Tool>]) -> i64;

    /// The serialized form `{type, init_parameters}`.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }

    /// Prepares the counter (called by the hook's `warm_up`).
    fn warm_up(&self) {}

    /// Releases the counter's resources (called by the hook's `close`).
    fn close(&self) {}
}

/// Haystack's `ApproximateTokenCounter(chars_per_token=4.0,
/// tokens_per_image=85, tokens_per_file=1000)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApproximateTokenCounter {
    chars_per_token: f64,
    tokens_per_image: i64,
    tokens_per_file: i64,
}

impl Default for ApproximateTokenCounter {
    fn default() -> Self {
        ApproximateTokenCounter {
            chars_per_token: 4.0,
            tokens_per_image: 85,
            tokens_per_file: 1000,
        }
    }
}

impl ApproximateTokenCounter {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.token_counters.approximate_counter.ApproximateTokenCounter";

    /// A counter with these ratios; `chars_per_token <= 0` is Haystack's
    /// `ValueError`.
    pub fn new(
        chars_per_token: f64,
        tokens_per_image: i64,
        tokens_per_file: i64,
    ) -> Result<Self, ParameterError> {
        if chars_per_token.is_nan() || chars_per_token <= 0.0 {
            return Err(ParameterError::new(format!(
                "`chars_per_token` must be greater than 0, got {}.",
                float_repr(chars_per_token)
            )));
        }
        Ok(ApproximateTokenCounter {
            chars_per_token,
            tokens_per_image,
            tokens_per_file,
        })
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&["chars_per_token", "tokens_per_image", "tokens_per_file"])?;
        let raw = match init.get("chars_per_token") {
            None => Number::from(4),
            Some(Value::Number(n)) => n.clone(),
            Some(other) => {
                return Err(format_error(
                    init.at("chars_per_token"),
                    format!(
                        "`{}` must be a number, got {}",
                        init.at("chars_per_token"),
                        shown(other)
                    ),
                ));
            }
        };
        let chars = raw.as_f64().unwrap_or(0.0);
        if chars <= 0.0 {
            return Err(FromValueError::Invalid(format!(
                "`chars_per_token` must be greater than 0, got {}.",
                crate::pyfmt::number_repr(&raw)
            )));
        }
        Ok(ApproximateTokenCounter {
            chars_per_token: chars,
            tokens_per_image: init.int("tokens_per_image", 85)?,
            tokens_per_file: init.int("tokens_per_file", 1000)?,
        })
    }
}

impl TokenCounter for ApproximateTokenCounter {
    fn count(&self, messages: &[ChatMessage], tools: &[Arc<dyn Tool>]) -> i64 {
        if messages.is_empty() && tools.is_empty() {
            return 0;
        }
        let chars = python_len(&rendered_conversation(messages, &Render::COUNT))
            + python_len(&rendered_tools(tools));
        let text_tokens = (chars as f64 / self.chars_per_token) as i64;
        let (images, files) = non_text_parts(messages);
        // Python's integers do not overflow; a count past 64 bits is held
        // at the nearest i64 (any target it is compared with is one).
        let exact = i128::from(text_tokens)
            .saturating_add(i128::from(images).saturating_mul(i128::from(self.tokens_per_image)))
            .saturating_add(i128::from(files).saturating_mul(i128::from(self.tokens_per_file)));
        i64::try_from(exact).unwrap_or(if exact < 0 { i64::MIN } else { i64::MAX })
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert(
            "chars_per_token".into(),
            Number::from_f64(self.chars_per_token).map_or(Value::Null, Value::Number),
        );
        init.insert(
            "tokens_per_image".into(),
            Value::from(self.tokens_per_image),
        );
        init.insert("tokens_per_file".into(), Value::from(self.tokens_per_file));
        component(Self::TYPE, init)
    }
}

/// Reads a serialized counter of a known type (`None` gives the default).
pub fn counter_from_value(
    value: Option<&Value>,
    path: &str,
) -> Result<Arc<dyn TokenCounter>, FromValueError> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(Arc::new(ApproximateTokenCounter::default()));
    };
    match type_of(value, path)? {
        ApproximateTokenCounter::TYPE => {
            Ok(Arc::new(ApproximateTokenCounter::from_value(value, path)?))
        }
        other => Err(format_error(
            format!("{path}.type"),
            format!(
                "unknown token counter type `{other}` at `{path}`; scenarios use `{}` \
             (provider counters call a network API)",
                ApproximateTokenCounter::TYPE
            ),
        )),
    }
}

/// Python's `len(str)`: code points.
pub(crate) fn python_len(text: &str) -> usize {
    text.chars().count()
}

/// How non-text content is written (Haystack's `placeholder` argument) and
/// whether tool call ids are shown.
pub(crate) struct Render {
    pub(crate) placeholder: fn(&str, &Value) -> String,
    pub(crate) include_tool_call_ids: bool,
}

impl Render {
    /// What a counter measures: short, stable stand-ins.
    pub(crate) const COUNT: Render = Render {
        placeholder: count_placeholder,
        include_tool_call_ids: false,
    };
}

/// `_non_text_placeholder`: `<image>`, `<file: name>` (`unnamed` when the
/// name is missing or empty).
fn count_placeholder(kind: &str, value: &Value) -> String {
    match kind {
        "image" => "<image>".into(),
        "file" => format!(
            "<file: {}>",
            non_empty_str(value, "filename").unwrap_or("unnamed")
        ),
        other => format!("<{}>", class_name(other)),
    }
}

/// A string field that Python's `x or default` would keep.
pub(crate) fn non_empty_str<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The Haystack class of a content part kind, for `<ClassName>` stand-ins.
pub(crate) fn class_name(kind: &str) -> &'static str {
    match kind {
        "image" => "ImageContent",
        "file" => "FileContent",
        "reasoning" => "ReasoningContent",
        _ => "Content",
    }
}

/// `_rendered_conversation`: one message per block of lines, joined by `\n`.
pub(crate) fn rendered_conversation(messages: &[ChatMessage], render: &Render) -> String {
    let mut out = String::new();
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        render_message(&mut out, message, render);
    }
    out
}

/// `_render_message`: tool results alone when the message has any; else the
/// texts, the tool calls, then the images and files; `<no content>` when
/// there is nothing. Reasoning is left out.
pub(crate) fn render_message(out: &mut String, message: &ChatMessage, render: &Render) {
    let role = message.role().as_str();
    let results: Vec<_> = message.tool_call_results().collect();
    if !results.is_empty() {
        for (i, result) in results.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let _ = write!(out, "[tool:{}", result.origin.tool_name);
            if render.include_tool_call_ids
                && let Some(id) = result.origin.id.as_deref().filter(|id| !id.is_empty())
            {
                let _ = write!(out, " id={id}");
            }
            if result.error {
                out.push_str(" (error)");
            }
            out.push_str("] ");
            write_tool_result_text(out, &result.result, render);
        }
        return;
    }
    let mut lines: Vec<String> = Vec::new();
    let texts: Vec<&str> = message.texts().collect();
    if !texts.is_empty() {
        lines.push(format!("[{role}] {}", texts.join("\n")));
    }
    for call in message.tool_calls() {
        let arguments = sorted_ascii_json(&Value::Object(call.arguments.clone()));
        let id = match call.id.as_deref().filter(|id| !id.is_empty()) {
            Some(id) if render.include_tool_call_ids => format!(" id={id}"),
            _ => String::new(),
        };
        lines.push(format!(
            "[{role} -> tool_call{id}] {}({arguments})",
            call.tool_name
        ));
    }
    for kind in ["image", "file"] {
        for part in message.content() {
            if let ContentPart::Other { kind: k, value } = part
                && k == kind
            {
                lines.push(format!("[{role}] {}", (render.placeholder)(kind, value)));
            }
        }
    }
    if lines.is_empty() {
        let _ = write!(out, "[{role}] <no content>");
    } else {
        out.push_str(&lines.join("\n"));
    }
}

/// `_tool_result_text`: the string, or the parts' texts and stand-ins concatenated.
fn write_tool_result_text(out: &mut String, result: &ToolResult, render: &Render) {
    match result {
        ToolResult::Text(text) => out.push_str(text),
        ToolResult::Parts(parts) => {
            for part in parts {
                match part {
                    ContentPart::Text(text) => out.push_str(text),
                    ContentPart::Other { kind, value } => {
                        out.push_str(&(render.placeholder)(kind, value));
                    }
                    ContentPart::ToolCall(_) => out.push_str("<ToolCall>"),
                    ContentPart::ToolCallResult(_) => out.push_str("<ToolCallResult>"),
                }
            }
        }
    }
}

/// `_rendered_tools`: `json.dumps([spec...], sort_keys=True)`, `""` for no tools.
pub(crate) fn rendered_tools(tools: &[Arc<dyn Tool>]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let specs = tools
        .iter()
        .map(|tool| {
            let spec = tool.spec();
            let mut map = Map::new();
            map.insert("name".into(), Value::String(spec.name.clone()));
            map.insert(
                "description".into(),
                Value::String(spec.description.clone()),
            );
            map.insert("parameters".into(), spec.parameters.clone());
            Value::Object(map)
        })
        .collect();
    sorted_ascii_json(&Value::Array(specs))
}

/// `_non_text_tokens`' tally: images and files of the messages, including
/// those inside tool results.
pub(crate) fn non_text_parts(messages: &[ChatMessage]) -> (i64, i64) {
    let (mut images, mut files) = (0, 0);
    let mut tally = |part: &ContentPart| {
        if let ContentPart::Other { kind, .. } = part {
            match kind.as_str() {
                "image" => images += 1,
                "file" => files += 1,
                _ => {}
            }
        }
    };
    for message in messages {
        message.content().iter().for_each(&mut tally);
        for result in message.tool_call_results() {
            if let ToolResult::Parts(parts) = &result.result {
                parts.iter().for_each(&mut tally);
            }
        }
    }
    (images, files)
}

/// `json.dumps(value, sort_keys=True)`: ASCII only (`\uNNNN`, surrogate
/// pairs beyond the BMP), `", "` and `": "` separators, keys sorted by code
/// point at every level.
pub(crate) fn sorted_ascii_json(value: &Value) -> String {
    crate::pyfmt::json_dumps_ascii(&crate::value::sorted(value.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorted_json_escapes_like_python_with_ensure_ascii() {
        assert_eq!(
            sorted_ascii_json(&json!({"z": [true, null], "q": "é 😀\u{7f}", "a": 1.0})),
            "{\"a\": 1.0, \"q\": \"\\u00e9 \\ud83d\\ude00\\u007f\", \"z\": [true, null]}"
        );
    }

    #[test]
    fn a_count_past_64_bits_is_held_at_the_largest_i64() {
        use crate::message::ChatRole;
        let image = || ContentPart::Other {
            kind: "image".into(),
            value: json!({"base64_image": "AA==", "mime_type": "image/png"}),
        };
        let messages = [ChatMessage::new(ChatRole::User, vec![image(), image()])];
        let counter = ApproximateTokenCounter::new(4.0, i64::MAX, 1000).unwrap();
        assert_eq!(counter.count(&messages, &[]), i64::MAX);
        let counter = ApproximateTokenCounter::new(4.0, i64::MIN, 1000).unwrap();
        assert_eq!(counter.count(&messages, &[]), i64::MIN);
    }

    #[test]
    fn a_non_positive_ratio_is_haystacks_value_error() {
        assert_eq!(
            ApproximateTokenCounter::new(0.0, 85, 1000)
                .unwrap_err()
                .message(),
            "`chars_per_token` must be greater than 0, got 0.0."
        );
        let int = json!({"type": ApproximateTokenCounter::TYPE, "init_parameters": {"chars_per_token": 0}});
        assert_eq!(
            ApproximateTokenCounter::from_value(&int, "token_counter").unwrap_err(),
            FromValueError::Invalid("`chars_per_token` must be greater than 0, got 0.".into())
        );
        assert_eq!(
            ApproximateTokenCounter::new(-0.5, 85, 1000)
                .unwrap_err()
                .message(),
            "`chars_per_token` must be greater than 0, got -0.5."
        );
    }
}
