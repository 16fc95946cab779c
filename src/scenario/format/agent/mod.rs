//! `agent`: the Agent's settings. Numeric ranges are not checked here: the
//! Agent rejects them at construction with Haystack's own messages.
//!
//! Each setting lives in one file named as its key, with its value's
//! reading, default, writing and JSON Schema side by side; the table in
//! this file lists them (in the order they are read, written and given in
//! the schema), and [`AgentSpec`], the reader, the writer and the schema
//! follow from it. `python` (with `args` and `models`) and `custom`, which
//! stand for all the settings, are read apart.
//!
//! Adding a setting: its file here, its `mod` line and its line in the
//! table, and its use where a run builds the Agent (`crate::replay`'s
//! `build.rs`).

mod exit_conditions;
mod max_agent_steps;
mod raise_on_tool_invocation_failure;
mod required_variables;
mod state_schema;
mod system_prompt;
mod tool_concurrency_limit;
mod user_prompt;

pub(crate) use state_schema::entry_schema as state_schema_entry_schema;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::error::ScenarioErrorKind;
use super::keys::key_table;
use super::python::{PythonCall, read_python_keys};
use super::reader::{Field, Read};
use crate::prompt::RequiredVariables;
use crate::state::{Handler, SchemaEntry};

key_table! {
    /// The Agent's constructor settings (`agent:` in a scenario file).
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub struct AgentSpec {
        /// `max_agent_steps` (default 100); not range-checked.
        max_agent_steps: i64, optional;
        /// `exit_conditions` (default `["text"]`): `"text"` and/or tool names.
        exit_conditions: Vec<String>, optional;
        /// `system_prompt`, a Jinja2 template (plain text or one
        /// `{% message role="system" %}` block).
        system_prompt: Option<String>, optional;
        /// `user_prompt`, a Jinja2 template whose message is appended to the
        /// run's messages.
        user_prompt: Option<String>, optional;
        /// `required_variables` (default `"*"`).
        required_variables: RequiredVariables, optional;
        /// `state_schema`, in file order. Reserved keys are not checked here.
        state_schema: IndexMap<String, SchemaEntry>, optional;
        /// `raise_on_tool_invocation_failure` (default false).
        raise_on_tool_invocation_failure: bool, optional;
        /// `tool_concurrency_limit` (default 4); not range-checked.
        tool_concurrency_limit: i64, optional;
    }
    others {
        /// `python`: the Agent comes from the user's factory (with `args` and
        /// `models`); the other settings are then the factory's.
        python: Option<PythonCall> = None;
        /// `custom`: the Agent is an object the test harness registers under
        /// this name (the pytest plugin's `hookharness_agents` fixture); the
        /// other settings are then that Agent's.
        custom: Option<String> = None;
    }
}

impl Default for AgentSpec {
    fn default() -> Self {
        Self::defaults()
    }
}

impl AgentSpec {
    /// `agent` as the scenario file writes it: `python` (with `args` and
    /// `models`), `custom`, or each setting unless at its default (empty
    /// when every one is).
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        if let Some(call) = &self.python {
            return call.to_map();
        }
        let mut out = Map::new();
        if let Some(name) = &self.custom {
            out.insert("custom".into(), json!(name));
            return out;
        }
        self.write_keys(&mut out);
        out
    }
}

/// The handlers a file can name: Haystack's two.
static BUILTIN_HANDLERS: [Handler; 2] = [Handler::MergeLists, Handler::ReplaceValues];

/// The format's spelling of each handler a file can name.
pub(crate) fn handlers() -> Vec<(&'static str, Handler)> {
    BUILTIN_HANDLERS
        .iter()
        .map(|handler| (handler.name(), handler.clone()))
        .collect()
}

pub(crate) fn read_agent(field: &Field<'_>) -> Read<AgentSpec> {
    let mut map = field.map()?;
    if map.has("python") {
        let call = read_python_keys(&mut map)?;
        let others: Vec<String> = map
            .keys()
            .into_iter()
            .filter(|k| !matches!(k.as_str(), "python" | "args" | "models"))
            .collect();
        if !others.is_empty() {
            return Err(field.error(ScenarioErrorKind::AgentPythonWithKeys { keys: others }));
        }
        return Ok(AgentSpec {
            python: Some(call),
            ..AgentSpec::default()
        });
    }
    if map.has("custom") {
        let name = map.required("custom")?.string()?;
        let others: Vec<String> = map.keys().into_iter().filter(|k| k != "custom").collect();
        if !others.is_empty() {
            return Err(field.error(ScenarioErrorKind::AgentCustomWithKeys { keys: others }));
        }
        return Ok(AgentSpec {
            custom: Some(name),
            ..AgentSpec::default()
        });
    }
    let agent = AgentSpec::read_keys(&mut map)?;
    // `args` and `models` go with `python` (and are known keys here, so that
    // an unknown key lists them, as is `custom`).
    let _ = map.get("python");
    let _ = map.get("custom");
    if map.get("args").is_some() || map.get("models").is_some() {
        return Err(map.missing("python"));
    }
    map.finish()?;
    Ok(agent)
}

/// The JSON Schema of `agent`: each setting's schema as its file gives it,
/// then `python` (with `args` and `models`) and `custom`.
pub(crate) fn schema() -> Value {
    let (_, mut properties) = AgentSpec::key_schemas();
    let others = json!({
        "python": {
            "description": "a factory returning a haystack Agent (`module:attribute`); its chat_generator is replaced by `model` (Haystack engine)",
            "type": "string",
            "pattern": crate::schema::PYTHON_TARGET,
        },
        "custom": {
            "description": "the name of an Agent your test registers (the pytest plugin's `hookharness_agents` fixture); its chat_generator is replaced by `model` (Haystack engine, under pytest)",
            "type": "string",
        },
        "args": {
            "description": "keyword arguments (JSON values) of the `python` factory",
            "type": "object",
        },
        "models": {
            "description": "keyword argument -> script name (a `models` key, or `model`), passed as a scripted generator",
            "type": "object",
            "additionalProperties": {"type": "string"},
        },
    });
    if let Value::Object(others) = others {
        properties.extend(others);
    }
    json!({
        "description": "Agent settings. Default: {}. With `python`, the map holds only `python`, `args` and `models`; with `custom`, only `custom`.",
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
        "dependencies": {"args": ["python"], "models": ["python"]},
        "allOf": [
            {
                "if": {"required": ["python"]},
                "then": {"propertyNames": {"enum": ["python", "args", "models"]}},
            },
            {
                "if": {"required": ["custom"]},
                "then": {"propertyNames": {"enum": ["custom"]}},
            },
        ],
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::{Format, Scenario};
    use crate::state::{Handler, ValueType};

    fn schema_of(yaml: &str) -> Scenario {
        Scenario::from_str(yaml, "s.yaml", Format::Yaml).unwrap()
    }

    #[test]
    fn list_on_messages_is_read_as_chat_messages_and_written_back_as_list() {
        let scenario = schema_of(
            "agent: {state_schema: {messages: {type: list}, notes: {type: list, handler: replace_values}}}\nmodel: []\n",
        );
        let schema = &scenario.agent.state_schema;
        assert_eq!(schema["messages"].ty, ValueType::ChatMessages);
        assert_eq!(schema["notes"].ty, ValueType::List);
        assert_eq!(schema["notes"].handler, Some(Handler::ReplaceValues));
        let written = scenario.to_value();
        assert_eq!(
            written["agent"]["state_schema"]["messages"],
            serde_json::json!({"type": "list"})
        );
    }

    #[test]
    fn what_a_file_cannot_name_is_written_so_that_the_loader_rejects_it() {
        let mut scenario = schema_of("agent: {state_schema: {maybe: {type: any}}}\nmodel: []\n");
        let entry = scenario.agent.state_schema.get_mut("maybe").unwrap();
        entry.ty = ValueType::Optional(Box::new(ValueType::List));
        entry.handler = Some(Handler::custom("max", |_, new| Ok(new)));
        let error =
            Scenario::from_str(&scenario.to_yaml(), "again.yaml", Format::Yaml).unwrap_err();
        assert!(error.to_string().contains("optional[list]"), "{error}");
    }
}
