//! From scenario values to the loop's values.

use crate::message::{ChatMessage, ChatRole, ContentPart, ToolCall};
use crate::scenario::{MessageSpec, ModelReply, Role, ScriptedResult};
use crate::scripted::{ReplyScript, ToolOutcome};

/// A scenario message as a `ChatMessage`: the simple form's text comes
/// first, then its tool calls (no default ids); the `to_dict()` form is
/// read as Haystack reads it.
pub(crate) fn message(spec: &MessageSpec) -> Result<ChatMessage, String> {
    match spec {
        MessageSpec::Simple {
            role,
            text,
            tool_calls,
            meta,
            name,
        } => {
            let mut content = Vec::with_capacity(tool_calls.len() + 1);
            content.extend(text.clone().map(ContentPart::Text));
            content.extend(tool_calls.iter().map(|call| {
                ContentPart::ToolCall(ToolCall {
                    id: call.id.clone(),
                    tool_name: call.tool.clone(),
                    arguments: call.arguments.clone(),
                    extra: None,
                })
            }));
            let mut message = ChatMessage::new(role_of(*role), content).with_meta(meta.clone());
            if let Some(name) = name {
                message = message.with_name(name.clone());
            }
            Ok(message)
        }
        MessageSpec::Haystack(value) => ChatMessage::from_value(value).map_err(|e| e.to_string()),
    }
}

/// Several scenario messages.
pub(crate) fn messages(specs: &[MessageSpec]) -> Result<Vec<ChatMessage>, String> {
    specs.iter().map(message).collect()
}

fn role_of(role: Role) -> ChatRole {
    match role {
        Role::User => ChatRole::User,
        Role::System => ChatRole::System,
        Role::Assistant => ChatRole::Assistant,
        Role::Tool => ChatRole::Tool,
    }
}

/// A `model` entry as a scripted reply.
pub(crate) fn reply(entry: &ModelReply) -> ReplyScript {
    match entry {
        ModelReply::Error(message) => ReplyScript::Error(message.clone()),
        ModelReply::Reply {
            text,
            tool_calls,
            usage,
            finish_reason,
            chunks,
        } => ReplyScript::Message {
            chunks: chunks.clone(),
            text: text.clone(),
            tool_calls: tool_calls
                .iter()
                .map(|c| (c.tool.clone(), c.arguments.clone(), c.id.clone()))
                .collect(),
            usage: usage.clone(),
            finish_reason: finish_reason.map(|r| r.as_str().to_owned()),
        },
    }
}

/// A tool's scripted result.
pub(crate) fn outcome(result: &ScriptedResult) -> ToolOutcome {
    match result {
        ScriptedResult::Text(text) => ToolOutcome::Text(text.clone()),
        ScriptedResult::Json(value) => ToolOutcome::Json(value.clone()),
        ScriptedResult::Error(message) => ToolOutcome::Error(message.clone()),
        ScriptedResult::EchoArguments => ToolOutcome::EchoArguments,
    }
}
