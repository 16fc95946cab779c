//! Haystack's `ChatMessage.to_dict()` form, read and written exactly.

use super::{ChatMessage, ChatRole, ContentPart, ToolCall, ToolCallResult, ToolResult};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// A value that is not a valid serialized `ChatMessage`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct MessageFormatError {
    message: String,
}

impl MessageFormatError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        MessageFormatError {
            message: message.into(),
        }
    }
}

fn bad(message: impl fmt::Display) -> MessageFormatError {
    MessageFormatError::new(message.to_string())
}

impl ChatMessage {
    /// The message in Haystack's `to_dict()` form.
    pub fn to_value(&self) -> Value {
        let mut map = Map::with_capacity(4);
        map.insert("role".into(), Value::String(self.role.as_str().into()));
        map.insert("meta".into(), Value::Object(self.meta().clone()));
        map.insert(
            "name".into(),
            self.name.clone().map_or(Value::Null, Value::String),
        );
        map.insert(
            "content".into(),
            Value::Array(self.content.iter().map(part_to_value).collect()),
        );
        Value::Object(map)
    }

    /// Reads a message in Haystack's `to_dict()` form (also the legacy
    /// form whose `content` is a plain string).
    pub fn from_value(value: &Value) -> Result<Self, MessageFormatError> {
        let map = value
            .as_object()
            .ok_or_else(|| bad(format!("a message must be a map, got {value}")))?;
        let role = match map.get("role") {
            Some(Value::String(role)) => ChatRole::parse(role)?,
            Some(other) => return Err(bad(format!("`role` must be a string, got {other}"))),
            None => {
                return Err(bad(
                    "the `role` field is required in a message (one of user, system, assistant, tool)",
                ));
            }
        };
        let name = match map.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.clone()),
            Some(other) => {
                return Err(bad(format!("`name` must be a string or null, got {other}")));
            }
        };
        let meta = match map.get("meta") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(meta)) => meta.clone(),
            Some(other) => return Err(bad(format!("`meta` must be a map, got {other}"))),
        };
        let content = match map.get("content") {
            Some(Value::Array(parts)) => parts
                .iter()
                .map(part_from_value)
                .collect::<Result<Vec<_>, _>>()?,
            Some(Value::String(text)) => vec![ContentPart::Text(text.clone())],
            Some(other) => {
                return Err(bad(format!(
                    "unsupported content type in a serialized message: `{other}`"
                )));
            }
            None => return Err(bad("a serialized message needs a `content` list")),
        };
        Ok(ChatMessage {
            role,
            content,
            name,
            meta: (!meta.is_empty()).then(|| Box::new(meta)),
        })
    }
}

fn part_to_value(part: &ContentPart) -> Value {
    let mut map = Map::with_capacity(1);
    match part {
        ContentPart::Text(text) => {
            map.insert("text".into(), Value::String(text.clone()));
        }
        ContentPart::ToolCall(call) => {
            map.insert("tool_call".into(), tool_call_to_value(call));
        }
        ContentPart::ToolCallResult(result) => {
            let mut inner = Map::with_capacity(3);
            let result_value = match &result.result {
                ToolResult::Text(text) => Value::String(text.clone()),
                ToolResult::Parts(parts) => Value::Array(parts.iter().map(part_to_value).collect()),
            };
            inner.insert("result".into(), result_value);
            inner.insert("origin".into(), tool_call_to_value(&result.origin));
            inner.insert("error".into(), Value::Bool(result.error));
            map.insert("tool_call_result".into(), Value::Object(inner));
        }
        ContentPart::Other { kind, value } => {
            map.insert(kind.clone(), value.clone());
        }
    }
    Value::Object(map)
}

pub(crate) fn tool_call_to_value(call: &ToolCall) -> Value {
    let mut map = Map::with_capacity(4);
    map.insert("tool_name".into(), Value::String(call.tool_name.clone()));
    map.insert("arguments".into(), Value::Object(call.arguments.clone()));
    map.insert(
        "id".into(),
        call.id.clone().map_or(Value::Null, Value::String),
    );
    map.insert(
        "extra".into(),
        call.extra.clone().map_or(Value::Null, Value::Object),
    );
    Value::Object(map)
}

/// Reads one content part the way Haystack's `_deserialize_content_part`
/// does: a `text` key wins, then the wrapping keys, then the flat forms.
fn part_from_value(value: &Value) -> Result<ContentPart, MessageFormatError> {
    let map = value
        .as_object()
        .ok_or_else(|| bad(format!("a content part must be a map, got {value}")))?;
    if let Some(text) = map.get("text") {
        if map.len() != 1 {
            return Err(bad(format!(
                "a text part holds only `text`, got keys {:?}",
                map.keys().collect::<Vec<_>>()
            )));
        }
        return match text {
            Value::String(text) => Ok(ContentPart::Text(text.clone())),
            other => Err(bad(format!("`text` must be a string, got {other}"))),
        };
    }
    if let Some(call) = map.get("tool_call") {
        return tool_call_from_value(call).map(|call| ContentPart::ToolCall(Arc::new(call)));
    }
    if let Some(result) = map.get("tool_call_result") {
        return tool_call_result_from_value(result).map(ContentPart::ToolCallResult);
    }
    for kind in ["image", "reasoning", "file"] {
        if let Some(inner) = map.get(kind) {
            return Ok(ContentPart::Other {
                kind: kind.into(),
                value: inner.clone(),
            });
        }
    }
    if map.contains_key("tool_name") && map.contains_key("arguments") {
        return tool_call_from_value(value).map(|call| ContentPart::ToolCall(Arc::new(call)));
    }
    if map.contains_key("result") && map.contains_key("origin") {
        return tool_call_result_from_value(value).map(ContentPart::ToolCallResult);
    }
    Err(bad(format!(
        "unsupported content part {value}: each part holds one of the keys \
         'text', 'image', 'file', 'reasoning', 'tool_call' or 'tool_call_result'"
    )))
}

fn tool_call_from_value(value: &Value) -> Result<ToolCall, MessageFormatError> {
    let map = value
        .as_object()
        .ok_or_else(|| bad(format!("a tool call must be a map, got {value}")))?;
    for key in map.keys() {
        if !matches!(key.as_str(), "tool_name" | "arguments" | "id" | "extra") {
            return Err(bad(format!(
                "unknown key `{key}` in a tool call (expected tool_name, arguments, id, extra)"
            )));
        }
    }
    let tool_name = match map.get("tool_name") {
        Some(Value::String(name)) => name.clone(),
        _ => return Err(bad("a tool call needs a string `tool_name`")),
    };
    let arguments = match map.get("arguments") {
        Some(Value::Object(arguments)) => arguments.clone(),
        _ => return Err(bad("a tool call needs an `arguments` map")),
    };
    let id = match map.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.clone()),
        Some(other) => {
            return Err(bad(format!(
                "a tool call `id` must be a string, got {other}"
            )));
        }
    };
    let extra = match map.get("extra") {
        None | Some(Value::Null) => None,
        Some(Value::Object(extra)) => Some(extra.clone()),
        Some(other) => {
            return Err(bad(format!(
                "a tool call `extra` must be a map, got {other}"
            )));
        }
    };
    Ok(ToolCall {
        id,
        tool_name,
        arguments,
        extra,
    })
}

fn tool_call_result_from_value(value: &Value) -> Result<ToolCallResult, MessageFormatError> {
    let map = value
        .as_object()
        .ok_or_else(|| bad(format!("a tool result must be a map, got {value}")))?;
    let (Some(result), Some(origin), Some(error)) =
        (map.get("result"), map.get("origin"), map.get("error"))
    else {
        return Err(bad(format!(
            "fields `result`, `origin`, `error` are required for a tool result, got keys {:?}",
            map.keys().collect::<Vec<_>>()
        )));
    };
    let result = match result {
        Value::String(text) => ToolResult::Text(text.clone()),
        Value::Array(parts) => ToolResult::Parts(
            parts
                .iter()
                .map(part_from_value)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        other => {
            return Err(bad(format!(
                "a tool result must be a string or a list of parts, got {other}"
            )));
        }
    };
    let error = error.as_bool().ok_or_else(|| {
        bad(format!(
            "a tool result's `error` must be a boolean, got {error}"
        ))
    })?;
    Ok(ToolCallResult {
        result,
        origin: Arc::new(tool_call_from_value(origin)?),
        error,
    })
}

impl Serialize for ChatMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ChatMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ChatMessage::from_value(&value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_message_serializes_in_haystack_key_order() {
        let msg = ChatMessage::from_user("hi");
        assert_eq!(
            serde_json::to_string(&msg).unwrap(),
            r#"{"role":"user","meta":{},"name":null,"content":[{"text":"hi"}]}"#
        );
    }

    #[test]
    fn a_legacy_string_content_becomes_one_text_part() {
        let msg = ChatMessage::from_value(&json!({"role": "user", "content": "hi"})).unwrap();
        assert_eq!(msg, ChatMessage::from_user("hi"));
    }

    #[test]
    fn an_unknown_role_is_rejected_with_haystack_wording() {
        let err = ChatMessage::from_value(&json!({"role": "robot", "content": []})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Unknown chat role 'robot'. Supported roles are: ['user', 'system', 'assistant', 'tool']"
        );
    }

    #[test]
    fn a_flat_tool_call_part_is_accepted() {
        let msg = ChatMessage::from_value(&json!({
            "role": "assistant",
            "content": [{"tool_name": "search", "arguments": {"q": "x"}}]
        }))
        .unwrap();
        assert_eq!(msg.tool_calls().next().unwrap().tool_name, "search");
    }
}
