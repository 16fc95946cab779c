//! A chat completion to `ChatMessage`s, as Haystack's
//! `_convert_chat_completion_to_chat_message` maps it: one assistant message
//! per choice, with `meta` = `{model, index, finish_reason, usage}` (and
//! `logprobs` when given), `usage` in the OpenAI client's `model_dump()` form.

use super::error::{OpenAiError, OpenAiErrorKind};
use crate::message::{ChatMessage, ToolCall};
use serde_json::{Map, Value};

/// The replies in a success body.
pub(crate) fn replies(body: &[u8], endpoint: &str) -> Result<Vec<ChatMessage>, OpenAiError> {
    let value: Value = serde_json::from_slice(body)
        .map(crate::value::canonical_numbers)
        .map_err(|e| {
            OpenAiError::new(
                OpenAiErrorKind::NotJson,
                format!(
                    "the answer from {endpoint} is not JSON ({e}); it starts with {:?}",
                    excerpt(body)
                ),
            )
        })?;
    let reader = Reader { endpoint };
    let completion = reader.object(&value, "the answer")?;
    let model = reader.required(completion, "model", "")?;
    let choices = reader.required(completion, "choices", "")?;
    let Value::Array(choices) = choices else {
        return Err(reader.wrong_type("choices", "a list", choices));
    };
    let usage = match completion.get("usage") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::Object(usage)) => Value::Object(dump_usage(usage)),
        Some(other) => return Err(reader.wrong_type("usage", "a map or null", other)),
    };
    choices
        .iter()
        .enumerate()
        .map(|(i, choice)| reader.choice(i, choice, model, &usage))
        .collect()
}

/// The first bytes of a body, for error messages.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut short: String = text.chars().take(120).collect();
    if short.len() < text.len() {
        short.push_str("...");
    }
    short
}

struct Reader<'a> {
    endpoint: &'a str,
}

impl Reader<'_> {
    fn missing(&self, path: &str) -> OpenAiError {
        OpenAiError::new(
            OpenAiErrorKind::MissingField,
            format!(
                "the answer from {} is not a chat completion: `{path}` is missing",
                self.endpoint
            ),
        )
    }

    fn wrong_type(&self, path: &str, expected: &str, found: &Value) -> OpenAiError {
        OpenAiError::new(
            OpenAiErrorKind::WrongType,
            format!(
                "the answer from {} is not a chat completion: `{path}` must be {expected}, got {}",
                self.endpoint,
                excerpt(found.to_string().as_bytes())
            ),
        )
    }

    fn object<'v>(
        &self,
        value: &'v Value,
        path: &str,
    ) -> Result<&'v Map<String, Value>, OpenAiError> {
        value
            .as_object()
            .ok_or_else(|| self.wrong_type(path, "a map", value))
    }

    fn required<'v>(
        &self,
        map: &'v Map<String, Value>,
        key: &str,
        prefix: &str,
    ) -> Result<&'v Value, OpenAiError> {
        map.get(key)
            .ok_or_else(|| self.missing(&format!("{prefix}{key}")))
    }

    fn choice(
        &self,
        i: usize,
        choice: &Value,
        model: &Value,
        usage: &Value,
    ) -> Result<ChatMessage, OpenAiError> {
        let prefix = format!("choices[{i}].");
        let choice = self.object(choice, &format!("choices[{i}]"))?;
        let message = self.required(choice, "message", &prefix)?;
        let message = self.object(message, &format!("{prefix}message"))?;
        let index = self.required(choice, "index", &prefix)?;
        let finish_reason = self.required(choice, "finish_reason", &prefix)?;
        let text = match message.get("content") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.clone()),
            Some(other) => {
                return Err(self.wrong_type(
                    &format!("{prefix}message.content"),
                    "a string or null",
                    other,
                ));
            }
        };
        let tool_calls = match message.get("tool_calls") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(calls)) => self.tool_calls(&prefix, calls)?,
            Some(other) => {
                return Err(self.wrong_type(
                    &format!("{prefix}message.tool_calls"),
                    "a list",
                    other,
                ));
            }
        };
        let mut meta = Map::new();
        meta.insert("model".into(), model.clone());
        meta.insert("index".into(), index.clone());
        meta.insert("finish_reason".into(), finish_reason.clone());
        meta.insert("usage".into(), usage.clone());
        if let Some(logprobs) = choice.get("logprobs").filter(|l| crate::value::truthy(l)) {
            meta.insert("logprobs".into(), logprobs.clone());
        }
        Ok(ChatMessage::from_assistant_parts(text, tool_calls).with_meta(meta))
    }

    /// Function calls in order; custom tool calls are left out, and a call
    /// whose arguments are not a JSON object is skipped with a warning, as
    /// Haystack does.
    fn tool_calls(&self, prefix: &str, calls: &[Value]) -> Result<Vec<ToolCall>, OpenAiError> {
        let mut out = Vec::with_capacity(calls.len());
        for (j, call) in calls.iter().enumerate() {
            let path = format!("{prefix}message.tool_calls[{j}]");
            let call = self.object(call, &path)?;
            if call.get("type").and_then(Value::as_str) == Some("custom") {
                continue;
            }
            let function = self.required(call, "function", &format!("{path}."))?;
            let function = self.object(function, &format!("{path}.function"))?;
            let name = match self.required(function, "name", &format!("{path}.function."))? {
                Value::String(name) => name.clone(),
                other => {
                    return Err(self.wrong_type(
                        &format!("{path}.function.name"),
                        "a string",
                        other,
                    ));
                }
            };
            let id = match call.get("id") {
                None | Some(Value::Null) => None,
                Some(Value::String(id)) => Some(id.clone()),
                Some(other) => {
                    return Err(self.wrong_type(&format!("{path}.id"), "a string", other));
                }
            };
            let raw = function.get("arguments").unwrap_or(&Value::Null);
            let Some(arguments) = parse_arguments(raw) else {
                tracing::warn!(
                    tool_call_id = id.as_deref().unwrap_or(""),
                    tool_name = %name,
                    arguments = %raw,
                    "OpenAI returned a malformed JSON string for tool call arguments. This tool call will be skipped."
                );
                continue;
            };
            out.push(ToolCall {
                id,
                tool_name: name,
                arguments,
                extra: None,
            });
        }
        Ok(out)
    }
}

/// Haystack's `_parse_openai_tool_call_arguments`: a map as is; missing,
/// null or `""` as `{}`; a string parsed as JSON. `None`: not a JSON object.
fn parse_arguments(raw: &Value) -> Option<Map<String, Value>> {
    match raw {
        Value::Object(map) => Some(map.clone()),
        Value::Null => Some(Map::new()),
        Value::String(text) if text.is_empty() => Some(Map::new()),
        Value::String(text) => {
            match serde_json::from_str(text).map(crate::value::canonical_numbers) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            }
        }
        _ => None,
    }
}

const USAGE_FIELDS: &[&str] = &[
    "completion_tokens",
    "prompt_tokens",
    "total_tokens",
    "completion_tokens_details",
    "prompt_tokens_details",
];
const COMPLETION_DETAILS: &[&str] = &[
    "accepted_prediction_tokens",
    "audio_tokens",
    "reasoning_tokens",
    "rejected_prediction_tokens",
    "text_tokens",
];
const PROMPT_DETAILS: &[&str] = &[
    "audio_tokens",
    "cache_write_tokens",
    "cached_tokens",
    "image_tokens",
    "text_tokens",
];

/// `CompletionUsage.model_dump()`: the declared fields in declaration order
/// (optional ones as null when absent), then any other key as the server
/// sent it.
fn dump_usage(usage: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in USAGE_FIELDS {
        let value = usage.get(*key);
        match (*key, value) {
            ("completion_tokens_details", Some(Value::Object(d))) => {
                out.insert(
                    (*key).into(),
                    Value::Object(dump_declared(d, COMPLETION_DETAILS)),
                );
            }
            ("prompt_tokens_details", Some(Value::Object(d))) => {
                out.insert(
                    (*key).into(),
                    Value::Object(dump_declared(d, PROMPT_DETAILS)),
                );
            }
            ("completion_tokens_details" | "prompt_tokens_details", _) => {
                out.insert((*key).into(), value.cloned().unwrap_or(Value::Null));
            }
            // A required count the server left out stays out.
            (_, Some(value)) => {
                out.insert((*key).into(), value.clone());
            }
            (_, None) => {}
        }
    }
    for (key, value) in usage {
        if !USAGE_FIELDS.contains(&key.as_str()) {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

fn dump_declared(map: &Map<String, Value>, fields: &[&str]) -> Map<String, Value> {
    let mut out: Map<String, Value> = fields
        .iter()
        .map(|key| {
            (
                (*key).to_owned(),
                map.get(*key).cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    for (key, value) in map {
        if !fields.contains(&key.as_str()) {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const URL: &str = "http://127.0.0.1:1/v1/chat/completions";

    fn parse(value: Value) -> Result<Vec<ChatMessage>, OpenAiError> {
        replies(value.to_string().as_bytes(), URL)
    }

    // The expected values below are what haystack-ai 3.4.1's
    // `_convert_chat_completion_to_chat_message(...).to_dict()` prints for
    // the same completions.
    #[test]
    fn usage_is_dumped_as_the_openai_client_dumps_it() {
        let replies = parse(json!({
            "id": "x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "hi"}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, "foo": 7,
                      "prompt_tokens_details": {"cached_tokens": 0, "bar": 1}}
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_string(&replies[0].to_value()).unwrap(),
            r#"{"role":"assistant","meta":{"model":"m","index":0,"finish_reason":"stop","usage":{"completion_tokens":2,"prompt_tokens":1,"total_tokens":3,"completion_tokens_details":null,"prompt_tokens_details":{"audio_tokens":null,"cache_write_tokens":null,"cached_tokens":0,"image_tokens":null,"text_tokens":null,"bar":1},"foo":7}},"name":null,"content":[{"text":"hi"}]}"#
        );
    }

    #[test]
    fn a_tool_call_without_content_has_no_text_part_and_null_usage() {
        let replies = parse(json!({
            "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": null, "tool_calls": [
                             {"id": "c1", "type": "function",
                              "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}]}}]
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_string(&replies[0].to_value()).unwrap(),
            r#"{"role":"assistant","meta":{"model":"m","index":0,"finish_reason":"tool_calls","usage":null},"name":null,"content":[{"tool_call":{"tool_name":"search","arguments":{"q":"x"},"id":"c1","extra":null}}]}"#
        );
    }

    #[test]
    fn malformed_arguments_skip_the_call_and_empty_ones_are_an_empty_map() {
        let replies = parse(json!({
            "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"content": null, "tool_calls": [
                             {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{oops"}},
                             {"id": "b", "type": "function", "function": {"name": "y", "arguments": ""}},
                             {"id": "c", "type": "custom", "custom": {"name": "z", "input": "?"}}]}}]
        }))
        .unwrap();
        let calls: Vec<_> = replies[0].tool_calls().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].tool_name, "y");
        assert!(calls[0].arguments.is_empty());
    }

    #[test]
    fn missing_and_mistyped_fields_are_named_by_path() {
        let missing =
            parse(json!({"model": "m", "choices": [{"index": 0, "finish_reason": "stop"}]}))
                .unwrap_err();
        assert_eq!(missing.kind(), OpenAiErrorKind::MissingField);
        assert_eq!(
            missing.message(),
            format!(
                "the answer from {URL} is not a chat completion: `choices[0].message` is missing"
            )
        );
        let wrong = parse(json!({"model": "m", "choices": {}})).unwrap_err();
        assert_eq!(wrong.kind(), OpenAiErrorKind::WrongType);
        assert!(
            wrong
                .message()
                .ends_with("`choices` must be a list, got {}"),
            "{wrong}"
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_quoted_in_the_error() {
        let error = replies(b"<html>Bad Gateway</html>", URL).unwrap_err();
        assert_eq!(error.kind(), OpenAiErrorKind::NotJson);
        assert!(
            error
                .message()
                .ends_with("it starts with \"<html>Bad Gateway</html>\""),
            "{error}"
        );
    }
}
