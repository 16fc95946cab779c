//! `agent`: the Agent's settings. Numeric ranges are not checked here: the
//! Agent rejects them at construction with Haystack's own messages.

use indexmap::IndexMap;

use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};
use crate::prompt::RequiredVariables;

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
    pub state_schema: IndexMap<String, SchemaEntrySpec>,
    /// `raise_on_tool_invocation_failure` (default false).
    pub raise_on_tool_invocation_failure: bool,
    /// `tool_concurrency_limit` (default 4); not range-checked.
    pub tool_concurrency_limit: i64,
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
        }
    }
}

/// One `state_schema` entry: `{type: T, handler: H}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SchemaEntrySpec {
    /// `type`.
    pub ty: ValueKind,
    /// `handler`; `None` means Haystack's default for the type
    /// (`merge_lists` for `list`, else `replace_values`).
    pub handler: Option<HandlerKind>,
}

/// The `type` of a state key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueKind {
    /// `list` (on `messages`: a list of chat messages).
    List,
    /// `str`.
    Str,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `dict`.
    Dict,
    /// `any`: accepts any value.
    Any,
}

/// The `handler` of a state key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerKind {
    /// `merge_lists`: appends.
    MergeLists,
    /// `replace_values`: overwrites.
    ReplaceValues,
}

const VALUE_KINDS: &[(&str, ValueKind)] = &[
    ("list", ValueKind::List),
    ("str", ValueKind::Str),
    ("int", ValueKind::Int),
    ("float", ValueKind::Float),
    ("bool", ValueKind::Bool),
    ("dict", ValueKind::Dict),
    ("any", ValueKind::Any),
];

pub(crate) const HANDLERS: &[(&str, HandlerKind)] = &[
    ("merge_lists", HandlerKind::MergeLists),
    ("replace_values", HandlerKind::ReplaceValues),
];

pub(crate) fn read_agent(field: &Field<'_>) -> Read<AgentSpec> {
    let mut map = field.map()?;
    let mut agent = AgentSpec::default();
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
                .insert(key.to_owned(), read_schema_entry(&entry)?);
        }
    }
    if let Some(f) = map.get("raise_on_tool_invocation_failure") {
        agent.raise_on_tool_invocation_failure = f.bool()?;
    }
    if let Some(f) = map.get("tool_concurrency_limit") {
        agent.tool_concurrency_limit = f.i64()?;
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

fn read_schema_entry(field: &Field<'_>) -> Read<SchemaEntrySpec> {
    let mut map = field.map()?;
    let ty = map.required("type")?.variant(VALUE_KINDS)?;
    let handler = match map.get("handler") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.variant(HANDLERS)?),
        None => None,
    };
    map.finish()?;
    Ok(SchemaEntrySpec { ty, handler })
}
