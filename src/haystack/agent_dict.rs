//! A scenario's Agent in Haystack's serialized form (`Agent.to_dict()`):
//! `{type: haystack.components.agents.agent.Agent, init_parameters: {...}}`.
//!
//! Read: an Agent dumped by Haystack becomes the `agent`, `tools` and `hooks`
//! of a scenario, as far as a scenario can express them. The chat generator
//! is not read (a scenario scripts its model), nor are the tools' functions
//! (a scenario scripts their results: the tools come back without results).
//! Written: the same keys, with Haystack's names for types and handlers, so
//! the configuration can be compared with, or pasted into, a Haystack
//! pipeline file.
//!
//! ```
//! use hookharness::scenario::{Format, Scenario, agent_from_haystack, agent_to_haystack};
//! use serde_json::json;
//!
//! let dumped = json!({
//!     "type": "haystack.components.agents.agent.Agent",
//!     "init_parameters": {
//!         "chat_generator": {"type": "haystack.components.generators.chat.openai.OpenAIChatGenerator",
//!                            "init_parameters": {"model": "gpt-4o-mini"}},
//!         "system_prompt": "Be brief.",
//!         "exit_conditions": ["text"],
//!         "state_schema": {"notes": {"type": "list"}},
//!         "max_agent_steps": 7
//!     }
//! });
//! let loaded = agent_from_haystack(&dumped).unwrap();
//! assert_eq!(loaded.agent.max_agent_steps, 7);
//! assert_eq!(loaded.agent.system_prompt.as_deref(), Some("Be brief."));
//!
//! let scenario = Scenario::from_str("agent: {max_agent_steps: 7}\nmodel: []\n", "s.yaml", Format::Yaml).unwrap();
//! let written = agent_to_haystack(&scenario);
//! assert_eq!(written["init_parameters"]["max_agent_steps"], json!(7));
//! ```

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::hooks::{CompactionHook, ConfirmationHook, TokenBudgetHook, ToolResultOffloadHook};
use crate::prompt::RequiredVariables;
use crate::scenario::interop::default_parameters;
use crate::scenario::{AgentSpec, HookEntry, ReadyMadeKind, Scenario, ToolScript};
use crate::state::keys;
use crate::state::{Handler, SchemaEntry, ValueType};
use crate::tool::{OutputsToString, StateOutput};

/// Haystack's qualified class name of the Agent.
pub const AGENT_TYPE: &str = "haystack.components.agents.agent.Agent";
const TOOL_TYPE: &str = "haystack.tools.tool.Tool";
/// A component as a tool: its name, description and mappings are scripted
/// as a `Tool`'s (the component is not run; a scenario scripts results).
const COMPONENT_TOOL_TYPE: &str = "haystack.tools.component_tool.ComponentTool";
/// A group of tools: its tools are read in order, in its place.
const TOOLSET_TYPE: &str = "haystack.tools.toolset.Toolset";
const FUNCTION_HOOK_TYPE: &str = "haystack.hooks.from_function.FunctionHook";
const MERGE_LISTS: &str = "haystack.components.agents.state.state_utils.merge_lists";
const REPLACE_VALUES: &str = "haystack.components.agents.state.state_utils.replace_values";
const MESSAGES_TYPE: &str = "list[haystack.dataclasses.chat_message.ChatMessage]";
const HOOK_TYPES: [(&str, ReadyMadeKind); 4] = [
    (TokenBudgetHook::TYPE, ReadyMadeKind::TokenBudget),
    (
        ToolResultOffloadHook::TYPE,
        ReadyMadeKind::ToolResultOffload,
    ),
    (CompactionHook::TYPE, ReadyMadeKind::Compaction),
    (ConfirmationHook::TYPE, ReadyMadeKind::Confirmation),
];
/// `Agent.__init__`'s parameters besides the chat generator.
const INIT_PARAMETERS: [&str; 13] = [
    "chat_generator",
    "tools",
    "system_prompt",
    "user_prompt",
    "required_variables",
    "exit_conditions",
    "state_schema",
    "max_agent_steps",
    "streaming_callback",
    "raise_on_tool_invocation_failure",
    "tool_concurrency_limit",
    "tool_streaming_callback_passthrough",
    "hooks",
];

/// What a serialized Agent holds that a scenario can express.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HaystackAgent {
    /// The constructor settings.
    pub agent: AgentSpec,
    /// The tools, without results (a scenario scripts them).
    pub tools: Vec<ToolScript>,
    /// The ready-made hooks, by point.
    pub hooks: IndexMap<String, Vec<HookEntry>>,
}

/// A serialized Agent that cannot be read, with the key path of the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{path}`: {message}")]
pub struct HaystackDictError {
    path: String,
    message: String,
}

impl HaystackDictError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        HaystackDictError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The key path, like `init_parameters.tools[0].data.outputs_to_state`.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }
}

type Read<T> = Result<T, HaystackDictError>;

fn object<'v>(value: &'v Value, path: &str) -> Read<&'v Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| HaystackDictError::new(path, "expected a map"))
}

fn string(value: &Value, path: &str) -> Read<String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| HaystackDictError::new(path, "expected a string"))
}

fn opt_string(value: Option<&Value>, path: &str) -> Read<Option<String>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(value) => string(value, path).map(Some),
    }
}

fn strings(value: &Value, path: &str) -> Read<Vec<String>> {
    let items = value
        .as_array()
        .ok_or_else(|| HaystackDictError::new(path, "expected a list of strings"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| string(item, &format!("{path}[{i}]")))
        .collect()
}

fn string_map(value: &Value, path: &str) -> Read<IndexMap<String, String>> {
    object(value, path)?
        .iter()
        .map(|(key, item)| Ok((key.clone(), string(item, &format!("{path}.{key}"))?)))
        .collect()
}

/// Reads an Agent serialized by Haystack's `Agent.to_dict()`.
pub fn agent_from_haystack(value: &Value) -> Result<HaystackAgent, HaystackDictError> {
    read_agent(value, OtherHooks::Reject)
}

/// What reading does with a hook that is not one of Haystack's ready-made
/// hooks (the application's own class, a `FunctionHook`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OtherHooks {
    /// An error: a scenario cannot run Python code.
    Reject,
    /// A `custom:` entry named after the hook (see [`custom_hook_name`]),
    /// for the Rust test to register (what `hookharness import` writes).
    Custom,
}

pub(crate) fn read_agent(
    value: &Value,
    other_hooks: OtherHooks,
) -> Result<HaystackAgent, HaystackDictError> {
    let top = object(value, "")?;
    let kind = top.get("type").and_then(Value::as_str).unwrap_or_default();
    if kind != AGENT_TYPE {
        return Err(HaystackDictError::new(
            "type",
            format!("expected `{AGENT_TYPE}`, got `{kind}`"),
        ));
    }
    let params = object(
        top.get("init_parameters").unwrap_or(&Value::Null),
        "init_parameters",
    )?;
    let at = |key: &str| format!("init_parameters.{key}");
    if let Some(key) = params
        .keys()
        .find(|k| !INIT_PARAMETERS.contains(&k.as_str()))
    {
        return Err(HaystackDictError::new(
            at(key),
            "not a parameter of Haystack 3.4.1's Agent",
        ));
    }
    let mut agent = AgentSpec::default();
    let get = |key: &str| params.get(key).filter(|v| !v.is_null());
    agent.system_prompt = opt_string(get("system_prompt"), &at("system_prompt"))?;
    agent.user_prompt = opt_string(get("user_prompt"), &at("user_prompt"))?;
    agent.required_variables = match params.get("required_variables") {
        None => RequiredVariables::All,
        Some(Value::Null) => RequiredVariables::None,
        Some(Value::String(star)) if star == "*" => RequiredVariables::All,
        Some(other) => RequiredVariables::Listed(strings(other, &at("required_variables"))?),
    };
    if let Some(value) = get("exit_conditions") {
        agent.exit_conditions = strings(value, &at("exit_conditions"))?;
    }
    if let Some(value) = get("state_schema") {
        for (key, entry) in object(value, &at("state_schema"))? {
            let path = format!("{}.{key}", at("state_schema"));
            agent
                .state_schema
                .insert(key.clone(), schema_entry(key, entry, &path)?);
        }
    }
    let int = |key: &str, default: i64| -> Read<i64> {
        match get(key) {
            None => Ok(default),
            Some(value) => value
                .as_i64()
                .ok_or_else(|| HaystackDictError::new(at(key), "expected an integer")),
        }
    };
    agent.max_agent_steps = int("max_agent_steps", 100)?;
    agent.tool_concurrency_limit = int("tool_concurrency_limit", 4)?;
    if let Some(value) = get("raise_on_tool_invocation_failure") {
        agent.raise_on_tool_invocation_failure = value.as_bool().ok_or_else(|| {
            HaystackDictError::new(at("raise_on_tool_invocation_failure"), "expected a boolean")
        })?;
    }
    if get("streaming_callback").is_some() {
        return Err(HaystackDictError::new(
            at("streaming_callback"),
            "a Python callable; a scenario streams with `run.stream: true` instead",
        ));
    }
    let tools = match get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => {
            let mut tools = Vec::new();
            flatten_tools(value, &at("tools"), &mut tools)?;
            tools
        }
    };
    let hooks = match get("hooks") {
        None => IndexMap::new(),
        Some(value) => hooks(value, &at("hooks"), other_hooks)?,
    };
    Ok(HaystackAgent {
        agent,
        tools,
        hooks,
    })
}

fn schema_entry(key: &str, entry: &Value, path: &str) -> Read<SchemaEntry> {
    let entry = object(entry, path)?;
    let type_path = format!("{path}.type");
    let name = string(entry.get("type").unwrap_or(&Value::Null), &type_path)?;
    let ty = match name.as_str() {
        "list" | MESSAGES_TYPE if key == keys::MESSAGES => ValueType::ChatMessages,
        "list" => ValueType::List,
        "str" => ValueType::Str,
        "int" => ValueType::Int,
        "float" => ValueType::Float,
        "bool" => ValueType::Bool,
        "dict" => ValueType::Dict,
        "typing.Any" => ValueType::Any,
        other => {
            return Err(HaystackDictError::new(
                type_path,
                format!(
                    "`{other}` has no scenario type; the scenario types are list, str, int, float, bool, dict and typing.Any"
                ),
            ));
        }
    };
    let handler = match entry.get("handler") {
        None | Some(Value::Null) => None,
        Some(value) => Some(handler(value, &format!("{path}.handler"))?),
    };
    Ok(SchemaEntry { ty, handler })
}

fn handler(value: &Value, path: &str) -> Read<Handler> {
    match value.as_str() {
        Some(MERGE_LISTS) => Ok(Handler::MergeLists),
        Some(REPLACE_VALUES) => Ok(Handler::ReplaceValues),
        _ => Err(HaystackDictError::new(
            path,
            format!(
                "a scenario's handlers are `{MERGE_LISTS}` and `{REPLACE_VALUES}`, got {value}"
            ),
        )),
    }
}

/// The tools of `value` (a list of tools and toolsets, or one toolset, as
/// Haystack's `serialize_tools_or_toolset` writes them), in order.
fn flatten_tools(value: &Value, path: &str, out: &mut Vec<ToolScript>) -> Read<()> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some(TOOLSET_TYPE) => {
            let data = object(
                map.get("data").unwrap_or(&Value::Null),
                &format!("{path}.data"),
            )?;
            let tools_path = format!("{path}.data.tools");
            return match data.get("tools") {
                None | Some(Value::Null) => Ok(()),
                Some(tools) => flatten_tools(tools, &tools_path, out),
            };
        }
        _ => {
            return Err(HaystackDictError::new(
                path,
                "expected a list of tools or a serialized `Toolset`",
            ));
        }
    };
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        let kind = item.get("type").and_then(Value::as_str);
        if kind == Some(TOOLSET_TYPE) {
            flatten_tools(item, &item_path, out)?;
        } else {
            out.push(tool(item, &item_path)?);
        }
    }
    Ok(())
}

fn tool(value: &Value, path: &str) -> Read<ToolScript> {
    let top = object(value, path)?;
    let kind = top.get("type").and_then(Value::as_str).unwrap_or_default();
    if kind != TOOL_TYPE && kind != COMPONENT_TOOL_TYPE {
        let why = if kind.to_ascii_lowercase().contains("mcp") {
            "an MCP tool or toolset takes its tools' descriptions and parameters from its \
             server at run time, so the file does not hold them"
        } else {
            "a scenario scripts `Tool`s, `ComponentTool`s and `Toolset`s only"
        };
        return Err(HaystackDictError::new(
            format!("{path}.type"),
            format!(
                "cannot script `{kind}`: {why}; remove it from the Agent you import and write \
                 the tools it gives under the scenario's `tools:` (name, description, \
                 parameters, results)"
            ),
        ));
    }
    let path = format!("{path}.data");
    let data = object(top.get("data").unwrap_or(&Value::Null), &path)?;
    let field = |key: &str| data.get(key).filter(|v| !v.is_null());
    let at = |key: &str| format!("{path}.{key}");
    let parameters = match field("parameters") {
        Some(value) => object(value, &at("parameters"))?.clone(),
        None => default_parameters(),
    };
    let mut outputs_to_state = IndexMap::new();
    if let Some(value) = field("outputs_to_state") {
        for (key, config) in object(value, &at("outputs_to_state"))? {
            let config_path = format!("{}.{key}", at("outputs_to_state"));
            let config = object(config, &config_path)?;
            let source = opt_string(config.get("source"), &format!("{config_path}.source"))?;
            let handler = match config.get("handler") {
                None | Some(Value::Null) => None,
                Some(value) => Some(handler(value, &format!("{config_path}.handler"))?),
            };
            outputs_to_state.insert(key.clone(), StateOutput { source, handler });
        }
    }
    let outputs_to_string = match field("outputs_to_string") {
        None => None,
        Some(value) => Some(outputs_to_string(value, &at("outputs_to_string"))?),
    };
    let name = string(field("name").unwrap_or(&Value::Null), &at("name"))?;
    Ok(ToolScript {
        description: opt_string(field("description"), &at("description"))?.unwrap_or_default(),
        parameters,
        inputs_from_state: match field("inputs_from_state") {
            Some(value) => string_map(value, &at("inputs_from_state"))?,
            None => IndexMap::new(),
        },
        outputs_to_state,
        outputs_to_string,
        ..ToolScript::new(name)
    })
}

fn outputs_to_string(value: &Value, path: &str) -> Read<OutputsToString> {
    let config = object(value, path)?;
    let source_only = |config: &Map<String, Value>, path: &str| -> Read<Option<String>> {
        if let Some(key) = config.keys().find(|k| k.as_str() != "source") {
            return Err(HaystackDictError::new(
                format!("{path}.{key}"),
                "handlers and raw results are Python; a scenario reads only `source`",
            ));
        }
        opt_string(config.get("source"), &format!("{path}.source"))
    };
    if config.is_empty()
        || ["source", "handler", "raw_result"]
            .iter()
            .any(|k| config.contains_key(*k))
    {
        return Ok(OutputsToString::Single {
            source: source_only(config, path)?,
        });
    }
    let mut outputs = IndexMap::new();
    for (key, output) in config {
        let output_path = format!("{path}.{key}");
        let source = source_only(object(output, &output_path)?, &output_path)?
            .ok_or_else(|| HaystackDictError::new(&output_path, "each output needs a `source`"))?;
        outputs.insert(key.clone(), source);
    }
    Ok(OutputsToString::Multiple(outputs))
}

/// The `custom:` name of a hook that is not ready-made: a `FunctionHook`'s
/// function name, else the class name, in snake case
/// (`my_app.hooks.RequireCitation` -> `require_citation`).
pub(crate) fn custom_hook_name(hook: &Map<String, Value>) -> String {
    let kind = hook.get("type").and_then(Value::as_str).unwrap_or_default();
    let function = hook
        .get("init_parameters")
        .and_then(|p| p.get("function").or_else(|| p.get("async_function")))
        .and_then(Value::as_str)
        .filter(|_| kind == FUNCTION_HOOK_TYPE);
    let last = function
        .unwrap_or(kind)
        .rsplit('.')
        .next()
        .unwrap_or_default();
    let mut name = String::with_capacity(last.len() + 4);
    for (i, c) in last.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 && !name.ends_with('_') {
                name.push('_');
            }
            name.extend(c.to_lowercase());
        } else if c.is_alphanumeric() {
            name.push(c);
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    if name.is_empty() { "hook".into() } else { name }
}

fn hooks(
    value: &Value,
    path: &str,
    other_hooks: OtherHooks,
) -> Read<IndexMap<String, Vec<HookEntry>>> {
    let mut out = IndexMap::new();
    for (point, entries) in object(value, path)? {
        let point_path = format!("{path}.{point}");
        let items = entries
            .as_array()
            .ok_or_else(|| HaystackDictError::new(&point_path, "expected a list of hooks"))?;
        let mut list = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let item_path = format!("{point_path}[{i}]");
            let hook = object(item, &item_path)?;
            let kind = hook.get("type").and_then(Value::as_str).unwrap_or_default();
            let Some((_, kind)) = HOOK_TYPES.iter().find(|(name, _)| *name == kind) else {
                if other_hooks == OtherHooks::Custom {
                    list.push(HookEntry::Custom(custom_hook_name(hook)));
                    continue;
                }
                return Err(HaystackDictError::new(
                    format!("{item_path}.type"),
                    format!(
                        "`{kind}` is not one of Haystack's ready-made hooks; register it as a custom hook (`custom: NAME`) in the scenario"
                    ),
                ));
            };
            list.push(HookEntry::ReadyMade {
                name: None,
                kind: *kind,
                params: hook
                    .get("init_parameters")
                    .cloned()
                    .unwrap_or_else(|| json!({})),
            });
        }
        out.insert(point.clone(), list);
    }
    Ok(out)
}

/// The scenario's Agent as Haystack's `Agent.to_dict()` writes it, with the
/// scripted model as its chat generator and the scripted tools without a
/// function (declarative and custom hooks have no Haystack form and are
/// left out; ready-made hooks are written as their classes).
#[must_use]
pub fn agent_to_haystack(scenario: &Scenario) -> Value {
    let agent = &scenario.agent;
    let mut params = Map::new();
    params.insert(
        "chat_generator".into(),
        json!({"type": "hookharness.scripted.ScriptedChatGenerator", "init_parameters": {}}),
    );
    params.insert(
        "tools".into(),
        scenario.tools.iter().map(tool_to_haystack).collect(),
    );
    params.insert("system_prompt".into(), json!(agent.system_prompt));
    params.insert("user_prompt".into(), json!(agent.user_prompt));
    params.insert(
        "required_variables".into(),
        match &agent.required_variables {
            RequiredVariables::All => json!("*"),
            RequiredVariables::Listed(names) => json!(names),
            RequiredVariables::None => Value::Null,
        },
    );
    params.insert("exit_conditions".into(), json!(agent.exit_conditions));
    let schema: Map<String, Value> = agent
        .state_schema
        .iter()
        .map(|(key, entry)| {
            let mut out = Map::new();
            out.insert("type".into(), json!(type_name(key, &entry.ty)));
            if let Some(handler) = &entry.handler {
                out.insert("handler".into(), json!(handler_name(handler)));
            }
            (key.clone(), Value::Object(out))
        })
        .collect();
    params.insert("state_schema".into(), Value::Object(schema));
    params.insert("max_agent_steps".into(), json!(agent.max_agent_steps));
    params.insert("streaming_callback".into(), Value::Null);
    params.insert(
        "raise_on_tool_invocation_failure".into(),
        json!(agent.raise_on_tool_invocation_failure),
    );
    params.insert(
        "tool_concurrency_limit".into(),
        json!(agent.tool_concurrency_limit),
    );
    params.insert("tool_streaming_callback_passthrough".into(), json!(false));
    let mut hooks = Map::new();
    for (point, entries) in &scenario.hooks {
        let written: Vec<Value> = entries
            .iter()
            .filter_map(|entry| match entry {
                HookEntry::ReadyMade { kind, params, .. } => {
                    let name = HOOK_TYPES.iter().find(|(_, k)| k == kind).map(|(n, _)| *n);
                    Some(json!({"type": name, "init_parameters": params}))
                }
                _ => None,
            })
            .collect();
        if !written.is_empty() {
            hooks.insert(point.clone(), Value::Array(written));
        }
    }
    params.insert("hooks".into(), Value::Object(hooks));
    json!({"type": AGENT_TYPE, "init_parameters": params})
}

fn type_name(key: &str, ty: &ValueType) -> String {
    match ty {
        ValueType::ChatMessages => MESSAGES_TYPE.to_owned(),
        ValueType::List if key == keys::MESSAGES => MESSAGES_TYPE.to_owned(),
        ValueType::List => "list".to_owned(),
        ValueType::Str => "str".to_owned(),
        ValueType::Int => "int".to_owned(),
        ValueType::Float => "float".to_owned(),
        ValueType::Bool => "bool".to_owned(),
        ValueType::Dict => "dict".to_owned(),
        ValueType::Any => "typing.Any".to_owned(),
        ValueType::Optional(inner) => format!("typing.Optional[{}]", type_name("", inner)),
    }
}

/// A built-in handler's qualified name; a custom one's own name.
fn handler_name(handler: &Handler) -> &str {
    match handler {
        Handler::MergeLists => MERGE_LISTS,
        Handler::ReplaceValues => REPLACE_VALUES,
        custom => custom.name(),
    }
}

fn tool_to_haystack(script: &ToolScript) -> Value {
    let outputs_to_state: Map<String, Value> = script
        .outputs_to_state
        .iter()
        .map(|(key, output)| {
            let mut config = Map::new();
            if let Some(source) = &output.source {
                config.insert("source".into(), json!(source));
            }
            if let Some(handler) = &output.handler {
                config.insert("handler".into(), json!(handler_name(handler)));
            }
            (key.clone(), Value::Object(config))
        })
        .collect();
    let outputs_to_string = script
        .outputs_to_string
        .as_ref()
        .map(|config| match config {
            OutputsToString::Single { source: None } => json!({}),
            OutputsToString::Single {
                source: Some(source),
            } => json!({"source": source}),
            OutputsToString::Multiple(outputs) => Value::Object(
                outputs
                    .iter()
                    .map(|(key, source)| (key.clone(), json!({"source": source})))
                    .collect(),
            ),
        });
    let optional = |empty: bool, value: Value| if empty { Value::Null } else { value };
    json!({
        "type": TOOL_TYPE,
        "data": {
            "name": script.name,
            "description": script.description,
            "parameters": script.parameters,
            "function": null,
            "outputs_to_string": outputs_to_string,
            "inputs_from_state": optional(script.inputs_from_state.is_empty(), json!(script.inputs_from_state)),
            "outputs_to_state": optional(outputs_to_state.is_empty(), Value::Object(outputs_to_state)),
            "async_function": null,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_hook_class_names_its_path() {
        let dumped = json!({"type": AGENT_TYPE, "init_parameters": {
            "hooks": {"on_exit": [{"type": "my.GradeFinalAnswer", "init_parameters": {}}]}
        }});
        let error = agent_from_haystack(&dumped).unwrap_err();
        assert_eq!(error.path(), "init_parameters.hooks.on_exit[0].type");
    }

    #[test]
    fn an_outputs_to_string_handler_cannot_be_read() {
        let dumped = json!({"type": AGENT_TYPE, "init_parameters": {"tools": [{
            "type": TOOL_TYPE,
            "data": {"name": "t", "outputs_to_string": {"source": "a", "handler": "m.f"}}
        }]}});
        let error = agent_from_haystack(&dumped).unwrap_err();
        assert_eq!(
            error.path(),
            "init_parameters.tools[0].data.outputs_to_string.handler"
        );
    }

    #[test]
    fn a_parameter_haystack_does_not_have_is_rejected() {
        let dumped = json!({"type": AGENT_TYPE, "init_parameters": {"max_steps": 3}});
        assert_eq!(
            agent_from_haystack(&dumped).unwrap_err().path(),
            "init_parameters.max_steps"
        );
    }
}
