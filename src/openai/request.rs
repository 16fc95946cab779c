//! The request body: messages and tools in OpenAI's Chat Completions format,
//! as Haystack's `ChatMessage.to_openai_dict_format()` and
//! `OpenAIChatGenerator._prepare_api_call` write them.

use super::error::{OpenAiError, OpenAiErrorKind};
use crate::message::{ChatMessage, ChatRole, ContentPart, ToolResult};
use crate::pyfmt::json_dumps;
use crate::tool::Tool;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// `{model, messages, n, tools?, **generation_kwargs, stream: false}`; with a
/// `response_format` among the kwargs, no `stream` key (Haystack then calls
/// the `parse` endpoint, which takes none).
pub(crate) fn body(
    model: &str,
    messages: &[ChatMessage],
    tools: &[Arc<dyn Tool>],
    generation_kwargs: &Map<String, Value>,
) -> Result<Value, OpenAiError> {
    let mut kwargs = generation_kwargs.clone();
    let n = kwargs.shift_remove("n").unwrap_or_else(|| json!(1));
    let response_format = kwargs.shift_remove("response_format");
    let mut body = Map::new();
    body.insert("model".into(), Value::String(model.to_owned()));
    let messages = messages
        .iter()
        .map(message)
        .collect::<Result<Vec<_>, _>>()?;
    body.insert("messages".into(), Value::Array(messages));
    body.insert("n".into(), n);
    if !tools.is_empty() {
        let tools = tools
            .iter()
            .map(|tool| json!({"type": "function", "function": tool.spec().to_value()}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    body.extend(kwargs);
    match response_format {
        Some(format) if !format.is_null() => {
            body.insert("response_format".into(), format);
        }
        _ => {
            body.insert("stream".into(), Value::Bool(false));
        }
    }
    Ok(Value::Object(body))
}

fn invalid(message: impl Into<String>) -> OpenAiError {
    OpenAiError::new(OpenAiErrorKind::InvalidMessage, message)
}

fn is_kind(part: &ContentPart, wanted: &str) -> bool {
    matches!(part, ContentPart::Other { kind, .. } if kind == wanted)
}

/// One message in OpenAI's format (`to_openai_dict_format()` with
/// `require_tool_call_ids=True`).
pub(crate) fn message(message: &ChatMessage) -> Result<Value, OpenAiError> {
    let parts = message.content();
    let has_content = parts.iter().any(|part| {
        matches!(
            part,
            ContentPart::Text(_) | ContentPart::ToolCall(_) | ContentPart::ToolCallResult(_)
        ) || is_kind(part, "image")
            || is_kind(part, "file")
    });
    if !has_content && !message.is_from(ChatRole::Assistant) {
        return Err(invalid(format!(
            "A `ChatMessage` from `{}` must contain at least one `TextContent`, `ToolCall`, \
             `ToolCallResult`, `ImageContent`, or `FileContent`. Only assistant messages can be empty.",
            message.role()
        )));
    }
    let results = message.tool_call_results().count();
    if results > 0 && parts.len() > 1 {
        return Err(invalid(
            "For OpenAI compatibility, a `ChatMessage` with a `ToolCallResult` cannot contain any other content.",
        ));
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::String(message.role().as_str().into()));
    if let Some(name) = message.name() {
        out.insert("name".into(), Value::String(name.to_owned()));
    }
    if message.is_from(ChatRole::User) {
        user_content(message, &mut out);
    } else if results > 0 {
        tool_result(message, &mut out)?;
    } else {
        system_or_assistant(message, &mut out)?;
    }
    Ok(Value::Object(out))
}

fn user_content(message: &ChatMessage, out: &mut Map<String, Value>) {
    if let [ContentPart::Text(text)] = message.content() {
        out.insert("content".into(), Value::String(text.clone()));
        return;
    }
    let mut content = Vec::new();
    for part in message.content() {
        match part {
            ContentPart::Text(text) => content.push(json!({"type": "text", "text": text})),
            ContentPart::Other { kind, value } if kind == "image" => {
                let field = |key: &str| value.get(key).and_then(Value::as_str);
                let mime = field("mime_type").unwrap_or("image/jpeg");
                let data = field("base64_image").unwrap_or("");
                let mut image = json!({"url": format!("data:{mime};base64,{data}")});
                if let Some(detail) = field("detail").filter(|d| !d.is_empty()) {
                    image["detail"] = Value::String(detail.to_owned());
                }
                content.push(json!({"type": "image_url", "image_url": image}));
            }
            ContentPart::Other { kind, value } if kind == "file" => {
                let field = |key: &str| value.get(key).and_then(Value::as_str);
                let mime = field("mime_type").unwrap_or("application/pdf");
                let data = field("base64_data").unwrap_or("");
                content.push(json!({"type": "file", "file": {
                    "file_data": format!("data:{mime};base64,{data}"),
                    "filename": field("filename").filter(|f| !f.is_empty()).unwrap_or("filename"),
                }}));
            }
            _ => {}
        }
    }
    out.insert("content".into(), Value::Array(content));
}

fn tool_result(message: &ChatMessage, out: &mut Map<String, Value>) -> Result<(), OpenAiError> {
    let Some(result) = message.tool_call_result() else {
        return Ok(());
    };
    let content = match &result.result {
        ToolResult::Text(text) => Value::String(text.clone()),
        ToolResult::Parts(parts) => {
            let texts: Option<Vec<Value>> = parts
                .iter()
                .map(|part| match part {
                    ContentPart::Text(text) => Some(json!({"type": "text", "text": text})),
                    _ => None,
                })
                .collect();
            texts.map(Value::Array).ok_or_else(|| {
                invalid(
                    "Unsupported tool result: only text parts can be sent to the Chat Completions API. \
                     If you need to pass images in tool results, use OpenAI Responses API instead.",
                )
            })?
        }
    };
    out.insert("content".into(), content);
    match &result.origin.id {
        Some(id) => {
            out.insert("tool_call_id".into(), Value::String(id.clone()));
            Ok(())
        }
        None => Err(missing_id()),
    }
}

fn missing_id() -> OpenAiError {
    invalid("`ToolCall` must have a non-null `id` attribute to be used with OpenAI.")
}

fn system_or_assistant(
    message: &ChatMessage,
    out: &mut Map<String, Value>,
) -> Result<(), OpenAiError> {
    if let Some(text) = message.text() {
        out.insert("content".into(), Value::String(text.to_owned()));
    }
    let refusal = if message.is_from(ChatRole::Assistant) {
        message.meta().get("refusal").and_then(Value::as_str)
    } else {
        None
    };
    let refusal = match refusal {
        Some(r) if !r.is_empty() && message.has_tool_calls() => {
            tracing::warn!(
                "Dropping the refusal of an assistant message that also has tool calls, because OpenAI \
                 ignores the tool calls of a message with a refusal and then rejects the tool results that follow."
            );
            None
        }
        Some(r) if !r.is_empty() => Some(r),
        _ => None,
    };
    if let Some(refusal) = refusal {
        if out.contains_key("content") {
            out.insert("refusal".into(), Value::String(refusal.to_owned()));
        } else {
            out.insert(
                "content".into(),
                json!([{"type": "refusal", "refusal": refusal}]),
            );
        }
    }
    if message.has_tool_calls() {
        let mut calls = Vec::new();
        for call in message.tool_calls() {
            let mut entry = Map::new();
            entry.insert("type".into(), Value::String("function".into()));
            entry.insert(
                "function".into(),
                json!({
                    "name": call.tool_name,
                    "arguments": json_dumps(&Value::Object(call.arguments.clone())),
                }),
            );
            let id = call.id.as_ref().ok_or_else(missing_id)?;
            entry.insert("id".into(), Value::String(id.clone()));
            calls.push(Value::Object(entry));
        }
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if !out.contains_key("content") && !out.contains_key("tool_calls") {
        out.insert("content".into(), Value::String(String::new()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::tool::{ToolSpec, tool_fn};

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn text(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn a_user_text_is_a_plain_string_and_names_are_kept() {
        let value = message(&ChatMessage::from_user("hi").with_name("ada")).unwrap();
        assert_eq!(
            text(&value),
            r#"{"role":"user","name":"ada","content":"hi"}"#
        );
    }

    #[test]
    fn tool_calls_carry_python_json_arguments_and_their_ids() {
        let call = ToolCall::new("search", args(json!({"query": "fusion", "n": 2}))).with_id("c1");
        let value = message(&ChatMessage::from_assistant_parts(
            Some("Looking.".into()),
            vec![call],
        ))
        .unwrap();
        assert_eq!(
            text(&value),
            r#"{"role":"assistant","content":"Looking.","tool_calls":[{"type":"function","function":{"name":"search","arguments":"{\"query\": \"fusion\", \"n\": 2}"},"id":"c1"}]}"#
        );
    }

    #[test]
    fn a_tool_result_is_sent_with_its_call_id() {
        let origin = ToolCall::new("search", Map::new()).with_id("c1");
        let value = message(&ChatMessage::from_tool("found", origin, false)).unwrap();
        assert_eq!(
            text(&value),
            r#"{"role":"tool","content":"found","tool_call_id":"c1"}"#
        );
    }

    #[test]
    fn a_call_without_an_id_cannot_be_sent() {
        let call = ToolCall::new("search", Map::new());
        let error = message(&ChatMessage::from_assistant_parts(None, vec![call])).unwrap_err();
        assert_eq!(error.kind(), OpenAiErrorKind::InvalidMessage);
        assert!(error.message().contains("non-null `id`"));
    }

    #[test]
    fn an_empty_assistant_message_is_sent_with_empty_content() {
        let value = message(&ChatMessage::from_assistant_parts(None, vec![])).unwrap();
        assert_eq!(text(&value), r#"{"role":"assistant","content":""}"#);
        let error = message(&ChatMessage::new(ChatRole::User, vec![])).unwrap_err();
        assert!(
            error
                .message()
                .starts_with("A `ChatMessage` from `user` must contain")
        );
    }

    #[test]
    fn a_refusal_goes_beside_text_or_alone_as_a_content_part() {
        let mut meta = Map::new();
        meta.insert("refusal".into(), json!("I can't."));
        let alone = ChatMessage::from_assistant_parts(None, vec![]).with_meta(meta.clone());
        assert_eq!(
            text(&message(&alone).unwrap()),
            r#"{"role":"assistant","content":[{"type":"refusal","refusal":"I can't."}]}"#
        );
        let beside = ChatMessage::from_assistant("No.").with_meta(meta);
        assert_eq!(
            text(&message(&beside).unwrap()),
            r#"{"role":"assistant","content":"No.","refusal":"I can't."}"#
        );
    }

    #[test]
    fn the_body_puts_tools_before_the_kwargs_and_stream_last() {
        let tool: Arc<dyn Tool> = Arc::new(tool_fn(
            ToolSpec::new("search").description("Search the web"),
            |_| Ok(json!("x")),
        ));
        let mut kwargs = Map::new();
        kwargs.insert("temperature".into(), json!(0));
        kwargs.insert("n".into(), json!(2));
        let value = body("m", &[ChatMessage::from_user("hi")], &[tool], &kwargs).unwrap();
        assert_eq!(
            text(&value),
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2,"tools":[{"type":"function","function":{"name":"search","description":"Search the web","parameters":{"type":"object","properties":{}}}}],"temperature":0,"stream":false}"#
        );
    }
}
