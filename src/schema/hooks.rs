//! The schema of `hooks` and `shared_hooks`: hook entries, `when`, `do`
//! actions and the ready-made hooks' constructor parameters.

use serde_json::{Map, Value, json};

use super::roles;
use crate::hook::HookPoint;
use crate::scenario::ReadyMadeKind;
use crate::scenario::vocabulary::{ACTIONS, READY_MADE};

pub(super) fn definitions() -> Vec<(&'static str, Value)> {
    vec![
        ("hooks", hooks()),
        ("hook_entry", hook_entry(true)),
        ("shared_hook_definition", hook_entry(false)),
        ("when", when()),
        ("action", action()),
    ]
}

/// When each point runs (as `HookPoint`'s documentation says).
fn point_description(point: HookPoint) -> &'static str {
    match point {
        HookPoint::BeforeRun => "Once per run, after State is initialised, before the first step.",
        HookPoint::BeforeLlm => "Before each chat-generator call; `stop_run` is read right after.",
        HookPoint::BeforeTool => {
            "After the model asked for tools (or gave a non-terminal reply), before the tools run."
        }
        HookPoint::AfterTool => "After the tools ran, before `step_count` is incremented.",
        HookPoint::OnExit => "When the run is about to stop on an exit condition.",
        HookPoint::AfterRun => "Once per run, after the loop, for every ending that did not fail.",
    }
}

fn hooks() -> Value {
    let entries = json!({"type": "array", "items": {"$ref": "#/definitions/hook_entry"}});
    let mut points = Map::new();
    for point in HookPoint::ALL {
        let mut list = entries.clone();
        list["description"] = json!(format!(
            "{} The hooks of `{}`, in run order.",
            point_description(point),
            point.as_str()
        ));
        points.insert(point.as_str().to_owned(), list);
    }
    // Another point is an Agent construction error (Haystack's message), not
    // a file error: hook-point names are not checked as file keys.
    json!({
        "description": "hooks per hook point, in run order. Default: {}.",
        "type": "object",
        "properties": points,
        "additionalProperties": entries,
    })
}

fn name() -> Value {
    json!({
        "description": "the hook's name in the trace and in `expect.hooks` (`POINT:NAME`); default `<point>#<index>`",
        "type": ["string", "null"],
    })
}

/// The kinds of entry; `shared` only where the entry is registered at a
/// point (a shared definition cannot itself be `shared`).
fn hook_entry(with_shared: bool) -> Value {
    let mut kinds = vec![declarative()];
    kinds.extend(READY_MADE.iter().map(|(tag, kind)| ready_made(tag, *kind)));
    if with_shared {
        kinds.push(single(
            "shared",
            "the hook object defined under `shared_hooks: {NAME: <hook>}` at the top level, registered at this point too (one object: warm-up and close run once for it)",
        ));
    }
    kinds.push(single(
        "custom",
        "a hook that the embedding Rust test registers under that name",
    ));
    kinds.push(python_hook());
    json!({
        "description": "A hook entry is one of: a declarative hook (`name`, optional `when`, optional `do`, optional `allowed_hook_points`); a ready-made hook, tagged by its kind; `shared: NAME`; `custom: NAME`; a Python hook (`python: module:attribute`, Haystack engine).",
        "oneOf": kinds,
    })
}

fn declarative() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "name": name(),
            "when": {"$ref": "#/definitions/when"},
            "do": {
                "description": "actions, applied in order (default: no actions, a hook that only shows in the trace)",
                "type": "array",
                "items": {"$ref": "#/definitions/action"},
            },
            "allowed_hook_points": {
                "description": "the points where this hook may be registered (elsewhere: an Agent construction error)",
                "type": "array",
                "items": {"type": "string"},
            },
        },
    })
}

fn single(key: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "required": [key],
        "additionalProperties": false,
        "properties": {key: {"description": description, "type": "string"}},
    })
}

fn python_hook() -> Value {
    json!({
        "type": "object",
        "required": ["python"],
        "additionalProperties": false,
        "properties": {
            "python": {
                "description": "a @hook function, a FunctionHook, a hook instance, or a class/factory (`module:attribute`, Haystack engine)",
                "type": "string",
                "pattern": super::PYTHON_TARGET,
            },
            "args": {
                "description": "given: the object is called with these keyword arguments",
                "type": "object",
            },
            "models": {
                "description": "keyword arguments that receive scripted generators (keyword argument -> a `models` key, or `model`)",
                "type": "object",
                "additionalProperties": {"type": "string"},
            },
            "name": {
                "description": "optional trace name (default: the part after ':')",
                "type": "string",
            },
        },
    })
}

fn serialized() -> Value {
    json!({"$ref": "#/definitions/serialized_object"})
}

fn strategies(description: &str) -> Value {
    json!({
        "description": description,
        "type": "object",
        "additionalProperties": serialized(),
    })
}

/// `{name?, KIND: PARAMS}`, `PARAMS` the constructor parameters of the
/// Haystack hook of that kind.
fn ready_made(tag: &str, kind: ReadyMadeKind) -> Value {
    let (haystack, params) = match kind {
        ReadyMadeKind::TokenBudget => (
            "haystack.hooks.budget.hooks.TokenBudgetHook, before_llm",
            json!({
                "required": ["max_total_tokens"],
                "properties": {
                    "max_total_tokens": {"type": "integer"},
                    "add_final_message": {"type": "boolean"},
                },
            }),
        ),
        ReadyMadeKind::ToolResultOffload => (
            "haystack.hooks.tool_result_offloading.hooks.ToolResultOffloadHook, after_tool",
            json!({
                "required": ["store", "offload_strategies"],
                "properties": {
                    "store": serialized(),
                    "offload_strategies": strategies("keys: a tool name, `\"*\"` for any other tool, or several names sharing a policy written as a JSON array string (Haystack's tuple key)"),
                    "preview_chars": {"description": "optional, default 200", "type": "integer"},
                },
            }),
        ),
        ReadyMadeKind::Compaction => (
            "haystack.hooks.compaction.hooks.CompactionHook, before_llm",
            json!({
                "required": ["compactor", "context_window"],
                "properties": {
                    "compactor": serialized(),
                    "context_window": {"description": "required, at least 1", "type": "integer"},
                    "compact_at": {"description": "optional: trigger fraction of the window", "type": "number"},
                    "compact_to": {"description": "optional: target fraction; 0 < compact_to < compact_at <= 1", "type": "number"},
                    "token_counter": {"description": "optional, default ApproximateTokenCounter()", "$ref": "#/definitions/serialized_object"},
                },
            }),
        ),
        ReadyMadeKind::Confirmation => (
            "haystack.hooks.human_in_the_loop.hooks.ConfirmationHook, before_tool",
            json!({
                "required": ["confirmation_strategies"],
                "properties": {
                    "confirmation_strategies": strategies("a tool name, `\"*\"`, or '[\"a\", \"b\"]' -> a confirmation strategy"),
                },
            }),
        ),
    };
    let mut params = params;
    params["type"] = json!("object");
    params["additionalProperties"] = json!(false);
    params["description"] = json!(format!(
        "the constructor parameters of the Haystack hook ({haystack}), exactly the `init_parameters` of its serialized form"
    ));
    json!({
        "type": "object",
        "required": [tag],
        "additionalProperties": false,
        "properties": {"name": name(), tag: params},
    })
}

fn when() -> Value {
    json!({
        "description": "holds when every condition in it holds; omitted means always",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "step_count": {
                "description": "holds when `state.data[\"step_count\"]` compares so: `N`, or `{gte: N}`, `{lt: N}`",
                "oneOf": [
                    {"type": "integer"},
                    {
                        "type": "object",
                        "minProperties": 1,
                        "additionalProperties": false,
                        "properties": {"gte": {"type": "integer"}, "lt": {"type": "integer"}},
                    },
                ],
            },
            "exit_reason": {
                "description": "holds when `state.data[\"exit_reason\"] == R`",
                "type": ["string", "null"],
            },
            "tool_call_counts": {
                "description": "holds when each listed count equals N",
                "type": "object",
                "additionalProperties": {"type": "integer"},
            },
            "last_message": {
                "description": "holds when the last message matches every listed field",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "role": {"enum": roles()},
                    "has_tool_calls": {"type": "boolean"},
                    "text_contains": {"type": "string"},
                },
            },
            "state": {
                "description": "holds when `state.data[key] == value`",
                "type": "object",
            },
            "hook_context": {
                "description": "holds when `state.data[\"hook_context\"][key] == value`",
                "type": "object",
            },
            "times": {
                "description": "holds when this hook has fired fewer than N times in this run",
                "type": "integer",
            },
        },
    })
}

fn action() -> Value {
    let messages = json!({"type": "array", "items": {"$ref": "#/definitions/message"}});
    let effect = |key: &str| -> (Value, &'static str) {
        match key {
            "append_messages" => (
                messages.clone(),
                "`state.set(\"messages\", [m...])` (merge_lists appends)",
            ),
            "prepend_messages" => (
                messages.clone(),
                "`state.set(\"messages\", [m..., *messages], handler_override=replace_values)`",
            ),
            "replace_messages" => (
                messages.clone(),
                "`state.set(\"messages\", [m...], handler_override=replace_values)`",
            ),
            "set" => (
                json!({"type": "object"}),
                "`state.set(key, value)` with the schema's handler",
            ),
            "replace" => (
                json!({"type": "object"}),
                "`state.set(key, value, handler_override=replace_values)`",
            ),
            "continue_run" => (
                json!({"type": "boolean"}),
                "`state.set(\"continue_run\", True)`",
            ),
            "stop_run" => (
                json!({"type": ["string", "null"]}),
                "`state.set(\"stop_run\", REASON)`",
            ),
            "drop_tool_calls" => (
                json!({"oneOf": [{"const": "all"}, {"type": "array", "items": {"type": "string"}}]}),
                "replace the last message with a copy (same text and meta) without those tool calls",
            ),
            "set_tool_arguments" => (
                json!({
                    "type": "object",
                    "required": ["tool", "arguments"],
                    "additionalProperties": false,
                    "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"}},
                }),
                "replace the arguments of the last message's calls to T",
            ),
            "rewrite_tool_results" => (
                json!({"oneOf": [
                    {"type": "object", "required": ["truncate"], "additionalProperties": false,
                     "properties": {"truncate": {"type": "integer", "minimum": 0}}},
                    {"type": "object", "required": ["replace"], "additionalProperties": false,
                     "properties": {"replace": {"type": "string"}}},
                ]}),
                "rewrite the trailing tool-result messages' result text",
            ),
            "fail" => (
                json!({"type": "string"}),
                "the hook raises an error with that message",
            ),
            _ => (json!(false), "not an action"),
        }
    };
    let mut properties = Map::new();
    for key in ACTIONS {
        let (mut value, description) = effect(key);
        value["description"] = json!(description);
        properties.insert((*key).to_owned(), value);
    }
    json!({
        "description": format!("one action, a map with one key: {}", ACTIONS.join(", ")),
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": false,
        "properties": properties,
    })
}
