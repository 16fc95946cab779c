//! The schema of `expect` (and `expect.always`), its match modes, event
//! matchers and value matchers, and of a reply's `sees`.

use serde_json::{Map, Value, json};

use super::roles;
use crate::expect::Expectation;
use crate::scenario::vocabulary::{EVENT_KINDS, MATCHER_WORDS, MODES};

pub(super) fn definitions() -> Vec<(&'static str, Value)> {
    vec![
        ("expect", expect(true)),
        ("always", expect(false)),
        ("last_message_expect", last_message()),
        ("tool_call_expect", tool_call()),
        ("event_pattern", event_pattern()),
        ("value_matcher", value_matcher()),
        ("value_pattern", value_pattern()),
        ("sees", sees()),
    ]
}

/// A list expectation: a plain list (exact), or a map of match modes.
pub(crate) fn list(item: Value, description: &str) -> Value {
    let items = json!({"type": "array", "items": item});
    let modes: Map<String, Value> = MODES
        .iter()
        .map(|mode| ((*mode).to_owned(), items.clone()))
        .collect();
    json!({
        "description": description,
        "oneOf": [
            items,
            {
                "description": "`in_order`: a subsequence, in this order; `any_order`: the same elements in any order; `contains`: each item paired with a distinct element; `excludes`: no element matches any item",
                "type": "object",
                "minProperties": 1,
                "additionalProperties": false,
                "properties": modes,
            },
        ],
    })
}

/// `expect` (`outcome` true) or `expect.always` (the keys of `expect`
/// except `error`, `unused_replies` and `always`, plus `under_faults`):
/// each key's schema as its file in `crate::expect` gives it.
fn expect(outcome: bool) -> Value {
    let mut properties: Map<String, Value> = Expectation::schemas(outcome)
        .into_iter()
        .map(|(key, schema)| (key.to_owned(), schema))
        .collect();
    if outcome {
        properties.insert("unused_replies".into(), json!({
            "description": "`fail` (default) or `allow`. A run that succeeds while scripted `model` replies are left unused fails the scenario (\"the scenario scripts M replies but the run made K LLM calls\") unless this is `allow`; a failed run is not checked for it",
            "enum": ["fail", "allow"],
        }));
        properties.insert("always".into(), json!({"$ref": "#/definitions/always"}));
        json!({
            "description": "what the outcome must show: every key is optional; each one given must hold",
            "type": "object",
            "additionalProperties": false,
            "properties": properties,
        })
    } else {
        properties.insert("under_faults".into(), json!({
            "description": "the `always` keys that still hold when `explore --faults` injects a fault; `all` for every key",
            "oneOf": [{"const": "all"}, {"type": "array", "items": {"type": "string"}}],
        }));
        json!({
            "description": "every variant `hookharness explore` runs: the keys of `expect` except `error`, `unused_replies` and `always`",
            "type": "object",
            "additionalProperties": false,
            "properties": properties,
        })
    }
}

fn last_message() -> Value {
    json!({
        "description": "matches (`role`, `text`, `text_contains`, `tool_calls`, `tool_result`, `meta`)",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "role": {"enum": roles()},
            "text": {
                "description": "a string, null (a message without text), or a matcher (`contains`, `absent`, `equals`)",
                "oneOf": [
                    {"type": ["string", "null"]},
                    {
                        "allOf": [{"$ref": "#/definitions/value_matcher"}],
                        "propertyNames": {"enum": ["contains", "absent", "equals"]},
                        "properties": {"contains": {"type": "string"}},
                    },
                ],
            },
            "tool_result": {
                "description": "the text of the message's tool result: a string, null (a message without one, or a result that is not text), or a matcher (`contains`, `absent`, `equals`)",
                "oneOf": [
                    {"type": ["string", "null"]},
                    {
                        "allOf": [{"$ref": "#/definitions/value_matcher"}],
                        "propertyNames": {"enum": ["contains", "absent", "equals"]},
                        "properties": {"contains": {"type": "string"}},
                    },
                ],
            },
            "text_contains": {"type": "string"},
            "tool_calls": list(
                json!({"$ref": "#/definitions/tool_call_expect"}),
                "a list of tool names or `{tool, arguments?, id?}` maps, lengths equal",
            ),
            "meta": {"description": "equals, or a matcher", "type": "object", "allOf": [pattern()]},
        },
    })
}

fn tool_call() -> Value {
    json!({
        "oneOf": [
            {"type": "string"},
            {
                "type": "object",
                "required": ["tool"],
                "additionalProperties": false,
                "properties": {
                    "tool": {"type": "string"},
                    "arguments": {"type": "object"},
                    "id": {"type": ["string", "null"]},
                },
            },
        ],
    })
}

/// The fields of each kind, as the loader lists them.
fn event_pattern() -> Value {
    let kinds: Vec<Value> = EVENT_KINDS
        .iter()
        .map(|(name, kind)| {
            let mut properties = Map::new();
            properties.insert("kind".to_owned(), json!({"const": name}));
            for field in kind.fields() {
                properties.insert((*field).to_owned(), pattern());
            }
            json!({
                "type": "object",
                "required": ["kind"],
                "additionalProperties": false,
                "properties": properties,
            })
        })
        .collect();
    json!({
        "description": "an event matcher `{kind: hook|llm|tool|exit|stop|max_steps, ...}`",
        "oneOf": kinds,
    })
}

pub(crate) fn pattern() -> Value {
    json!({"$ref": "#/definitions/value_pattern"})
}

/// A map whose keys are all matcher words; only `gte` and `lte` combine.
fn value_matcher() -> Value {
    json!({
        "description": "a map whose keys are all matcher words is a matcher: `{contains: V}`, `{gte: N}`, `{lte: N}` (both may be given), `{absent: B}`, `{equals: V}`",
        "type": "object",
        "minProperties": 1,
        "propertyNames": {"enum": MATCHER_WORDS},
        "if": {"minProperties": 2},
        "then": {"propertyNames": {"enum": ["gte", "lte"]}},
        "properties": {
            "contains": {"description": "a string holding the string V; a list holding V's items (or V itself when V is not a list); a map holding V's entries"},
            "gte": {"description": "a number with `value >= N`", "type": "number"},
            "lte": {"description": "a number with `value <= N`", "type": "number"},
            "absent": {"description": "missing / present", "type": "boolean"},
            "equals": {"description": "equal to V, as a plain value is: for a literal map that would read as a matcher"},
        },
    })
}

/// Where a value is expected: a plain value (compared for equality), a
/// matcher (a map with a matcher word among its keys, which then holds only
/// matcher words), or a map with matchers among its values at any depth.
fn value_pattern() -> Value {
    let words: Vec<Value> = MATCHER_WORDS
        .iter()
        .map(|word| json!({"required": [word]}))
        .collect();
    json!({
        "if": {"type": "object", "anyOf": words},
        "then": {"$ref": "#/definitions/value_matcher"},
        "else": {"additionalProperties": pattern()},
    })
}

fn sees() -> Value {
    json!({
        "description": "what the request this reply answers must show; when the request does not, the scenario fails",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "messages": {
                "description": "the whole conversation sent, in the scenario's message form",
                "type": "array",
                "items": {"$ref": "#/definitions/message"},
            },
            "previous_messages": {
                "description": "the conversation starts with this many of the messages the previous reply's `sees` lists (with `new_messages`, in place of `messages`)",
                "type": "integer",
                "minimum": 0,
            },
            "new_messages": {
                "description": "the messages after those `previous_messages` keeps",
                "type": "array",
                "items": {"$ref": "#/definitions/message"},
            },
            "message_count": {"type": "integer"},
            "roles": {"type": "array", "items": {"enum": roles()}},
            "tool_results": {
                "description": "every tool result sent, in order, as the model reads it (its text; null for a result that is not text)",
                "type": "array",
                "items": {"type": ["string", "null"]},
            },
            "tools": {
                "description": "the names of the tools offered, in order",
                "type": "array",
                "items": {"type": "string"},
            },
            "contains": {
                "description": "some message's text, or string tool result, contains this",
                "type": "string",
            },
            "last_message": {"$ref": "#/definitions/last_message_expect"},
        },
    })
}
