//! `agent`: the Agent's settings. Numeric ranges are not checked here: the
//! Agent rejects them at construction with Haystack's own messages.

use indexmap::IndexMap;

use super::error::ScenarioErrorKind;
use super::python::{PythonCall, read_python_keys};
use super::reader::{Field, Read};
use crate::prompt::RequiredVariables;
use crate::state::keys;
use crate::state::{Handler, SchemaEntry, ValueType};

/// The Agent's constructor settings (`agent:` in a scenario file).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentSpec {
    /// `max_agent_steps` (default 100); not range-checked.
    pub max_agent_steps: i64,
    /// `exit_conditions` (default `["text"]`): `"text"` and/or tool names.
    pub exit_conditions: Vec<String>,
    /// `system_prompt`, a Jinja2 template (plain text or one
    /// `{% message role="system" %}` block).
    pub system_prompt: Option<String>,
    /// `user_prompt`, a Jinja2 template whose message is appended to the
    /// run's messages.
    pub user_prompt: Option<String>,
    /// `required_variables` (default `"*"`).
    pub required_variables: RequiredVariables,
    /// `state_schema`, in file order. Reserved keys are not checked here.
    pub state_schema: IndexMap<String, SchemaEntry>,
    /// `raise_on_tool_invocation_failure` (default false).
    pub raise_on_tool_invocation_failure: bool,
    /// `tool_concurrency_limit` (default 4); not range-checked.
    pub tool_concurrency_limit: i64,
    /// `python`: the Agent comes from the user's factory (with `args` and
    /// `models`); the other settings are then the factory's.
    pub python: Option<PythonCall>,
    /// `custom`: the Agent is an object the test harness registers under
    /// this name (the pytest plugin's `hookharness_agents` fixture); the
    /// other settings are then that Agent's.
    pub custom: Option<String>,
}

impl Default for AgentSpec {
    fn default() -> Self {
        AgentSpec {
            max_agent_steps: 100,
            exit_conditions: vec!["text".to_owned()],
            system_prompt: None,
            user_prompt: None,
            required_variables: RequiredVariables::All,
            state_schema: IndexMap::new(),
            raise_on_tool_invocation_failure: false,
            tool_concurrency_limit: 4,
            python: None,
            custom: None,
        }
    }
}

/// The format's spelling of each state type (`list` on `messages` is read
/// as [`ValueType::ChatMessages`]).
pub(crate) const VALUE_TYPES: &[(&str, ValueType)] = &[
    ("list", ValueType::List),
    ("str", ValueType::Str),
    ("int", ValueType::Int),
    ("float", ValueType::Float),
    ("bool", ValueType::Bool),
    ("dict", ValueType::Dict),
    ("any", ValueType::Any),
];

/// How the format writes a state type. `Optional[T]`, which a file cannot
/// name, is written as `optional[T]`, which the loader rejects.
pub(crate) fn type_name(ty: &ValueType) -> String {
    match ty {
        ValueType::ChatMessages => "list".to_owned(),
        ValueType::Optional(inner) => format!("optional[{}]", type_name(inner)),
        ty => VALUE_TYPES
            .iter()
            .find(|(_, t)| t == ty)
            .map_or_else(|| "any".to_owned(), |(name, _)| (*name).to_owned()),
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
    let mut agent = AgentSpec::default();
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
        agent.python = Some(call);
        return Ok(agent);
    }
    if map.has("custom") {
        let name = map.required("custom")?.string()?;
        let others: Vec<String> = map.keys().into_iter().filter(|k| k != "custom").collect();
        if !others.is_empty() {
            return Err(field.error(ScenarioErrorKind::AgentCustomWithKeys { keys: others }));
        }
        agent.custom = Some(name);
        return Ok(agent);
    }
    if let Some(f) = map.get("max_agent_steps") {
        agent.max_agent_steps = f.i64()?;
    }
    if let Some(f) = map.get("exit_conditions") {
        agent.exit_conditions = f.strings()?;
    }
    if let Some(f) = map.get("system_prompt") {
        agent.system_prompt = f.opt_string()?;
    }
    if let Some(f) = map.get("user_prompt") {
        agent.user_prompt = f.opt_string()?;
    }
    if let Some(f) = map.get("required_variables") {
        agent.required_variables = read_required_variables(&f)?;
    }
    if let Some(f) = map.get("state_schema") {
        for (key, entry) in f.entries()? {
            agent
                .state_schema
                .insert(key.to_owned(), read_schema_entry(key, &entry)?);
        }
    }
    if let Some(f) = map.get("raise_on_tool_invocation_failure") {
        agent.raise_on_tool_invocation_failure = f.bool()?;
    }
    if let Some(f) = map.get("tool_concurrency_limit") {
        agent.tool_concurrency_limit = f.i64()?;
    }
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

/// `"*"`, a list of names, or null.
fn read_required_variables(field: &Field<'_>) -> Read<RequiredVariables> {
    if field.is_null() {
        return Ok(RequiredVariables::None);
    }
    match field.as_str() {
        Some("*") => Ok(RequiredVariables::All),
        Some(other) => Err(field.error(ScenarioErrorKind::RequiredVariablesString {
            value: other.to_owned(),
        })),
        None => Ok(RequiredVariables::Listed(field.strings()?)),
    }
}

fn read_schema_entry(key: &str, field: &Field<'_>) -> Read<SchemaEntry> {
    let mut map = field.map()?;
    let ty = match map.required("type")?.variant(VALUE_TYPES)? {
        ValueType::List if key == keys::MESSAGES => ValueType::ChatMessages,
        ty => ty,
    };
    let handler = match map.get("handler") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.variant(&handlers())?),
        None => None,
    };
    map.finish()?;
    Ok(SchemaEntry { ty, handler })
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
