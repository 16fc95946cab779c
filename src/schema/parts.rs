//! The schema of `agent`, `tools`, `model` (and `models`), messages and `run`.

use serde_json::{Value, json};

use super::roles;
use crate::scenario::schemas;
use crate::scenario::vocabulary::PART_TAGS;
use crate::scripted::FinishReason;

pub(super) fn definitions() -> Vec<(&'static str, Value)> {
    vec![
        ("agent", schemas::agent()),
        ("state_schema_entry", schemas::state_schema_entry()),
        ("tool", schemas::tool()),
        ("tool_result", schemas::tool_result()),
        ("model_reply", model_reply()),
        ("named_model", named_model()),
        ("tool_call", tool_call()),
        ("message", message()),
        ("run", run()),
        ("serialized_object", serialized_object()),
    ]
}

fn sees() -> Value {
    json!({"$ref": "#/definitions/sees"})
}

fn model_reply() -> Value {
    let finish_reasons: Vec<Value> = FinishReason::ALL
        .iter()
        .map(|reason| Value::from(reason.as_str()))
        .chain([Value::Null])
        .collect();
    json!({
        "description": "the reply to one chat-generator call: `text`, `tool_calls`, or both; `{error: ...}` (the generator raises); `{}` or null (an assistant reply with no content)",
        "oneOf": [
            {"type": "null"},
            {
                "type": "object",
                "required": ["error"],
                "additionalProperties": false,
                "properties": {
                    "error": {"description": "the generator raises; an entry with `error` takes no other key", "type": "string"},
                    "sees": sees(),
                },
            },
            {
                "type": "object",
                "additionalProperties": false,
                "not": {"required": ["text", "chunks"]},
                "properties": {
                    "text": {"description": "the reply's text (`text: \"\"` is one empty text part)", "type": ["string", "null"]},
                    "chunks": {
                        "description": "instead of `text`: the text is their concatenation, streamed chunk by chunk; `text` and `chunks` are exclusive",
                        "type": "array",
                        "items": {"type": "string"},
                    },
                    "tool_calls": {
                        "description": "the tool calls of the reply",
                        "type": "array",
                        "items": {"$ref": "#/definitions/tool_call"},
                    },
                    "usage": {"description": "optional: becomes meta.usage", "type": ["object", "null"]},
                    "finish_reason": {
                        "description": "optional: stop|length|content_filter|tool_calls",
                        "enum": finish_reasons,
                    },
                    "sees": sees(),
                },
            },
        ],
    })
}

fn named_model() -> Value {
    json!({
        "type": "object",
        "required": ["replies"],
        "additionalProperties": false,
        "properties": {
            "replies": {
                "description": "same entries as `model` (text, tool_calls, error, ...)",
                "type": "array",
                "items": {"$ref": "#/definitions/model_reply"},
            },
            "replaces": {
                "description": "optional: every instance of this generator class the user's code creates while the scenario runs answers from this script (`module:Class`)",
                "type": "string",
                "pattern": super::PYTHON_TARGET,
            },
        },
    })
}

fn tool_call() -> Value {
    json!({
        "type": "object",
        "required": ["tool"],
        "additionalProperties": false,
        "properties": {
            "tool": {"description": "the tool's name", "type": "string"},
            "arguments": {"description": "the call's arguments", "type": "object"},
            "id": {"description": "id optional: default \"call_<llm call index>_<i>\"", "type": ["string", "null"]},
        },
    })
}

fn message() -> Value {
    let content_part = json!({
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": {"enum": PART_TAGS},
    });
    json!({
        "description": "A message `m` is written `{role: user|system|assistant|tool, text: ...}` with optional `tool_calls`, `meta`; or in Haystack's own `ChatMessage.to_dict()` form (`{role, content: [{text}|{tool_call}|{tool_call_result}], meta, name}`).",
        "oneOf": [
            {
                "type": "object",
                "required": ["role"],
                "additionalProperties": false,
                "properties": {
                    "role": {"enum": roles()},
                    "text": {"type": ["string", "null"]},
                    "tool_calls": {"type": "array", "items": {"$ref": "#/definitions/tool_call"}},
                    "meta": {"type": "object"},
                    "name": {"type": ["string", "null"]},
                },
            },
            {
                "type": "object",
                "required": ["role", "content"],
                "additionalProperties": false,
                "properties": {
                    "role": {"enum": roles()},
                    "content": {"type": "array", "items": content_part},
                    "meta": {"type": "object"},
                    "name": {"type": ["string", "null"]},
                },
            },
        ],
    })
}

fn run() -> Value {
    json!({
        "description": "inputs of `Agent.run`. Default: {}.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "messages": {
                "description": "the run's messages. Default: [].",
                "type": "array",
                "items": {"$ref": "#/definitions/message"},
            },
            "hook_context": {"description": "Agent.run(hook_context=...)", "type": "object"},
            "state": {
                "description": "initial values for state_schema keys (Haystack's **kwargs)",
                "type": "object",
            },
            "variables": {
                "description": "template variables of system_prompt/user_prompt (also **kwargs)",
                "type": "object",
            },
            "tools": {
                "description": "Agent.run(tools=[names]): the tools of this run, by name",
                "type": "array",
                "items": {"type": "string"},
            },
            "async": {"description": "true: run the async path", "type": "boolean"},
            "stream": {
                "description": "Agent.run(streaming_callback=<recorder>)",
                "type": "boolean",
            },
            "generation_kwargs": {
                "description": "Agent.run(generation_kwargs=...), handed to every model call",
                "type": "object",
            },
        },
    })
}

fn serialized_object() -> Value {
    json!({
        "description": "Haystack's serialized form `{type: <qualified class name>, init_parameters: {...}}` (`init_parameters` may be left out when empty)",
        "type": "object",
        "required": ["type"],
        "additionalProperties": false,
        "properties": {
            "type": {"description": "the qualified class name", "type": "string"},
            "init_parameters": {"description": "the constructor parameters", "type": "object"},
        },
    })
}
