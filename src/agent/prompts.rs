//! The Agent's prompts: checked at construction as Haystack's
//! `Agent.__init__` checks them, rendered at the start of every run as
//! `_initialize_fresh_execution` renders them.

use super::{AgentError, RunOptions};
use crate::message::ChatMessage;
use crate::prompt::{Prompt, PromptError, PromptKind, RequiredVariables, validate_message_blocks};
use crate::state::StateSchema;
use serde_json::{Map, Value};

/// `Agent.run`'s own parameters: a prompt variable may not take their names.
pub(crate) const RUN_PARAMETERS: [&str; 5] = [
    "messages",
    "streaming_callback",
    "generation_kwargs",
    "tools",
    "hook_context",
];

/// The parsed prompts of an Agent.
#[derive(Debug, Clone, Default)]
pub(super) struct Prompts {
    pub(super) system: Option<Prompt>,
    pub(super) user: Option<Prompt>,
}

/// Haystack's `_validate_prompt_message_blocks`, before any template is parsed.
pub(super) fn validate_blocks(user: Option<&str>, system: Option<&str>) -> Result<(), AgentError> {
    Ok(validate_message_blocks(user, system)?)
}

/// Parses both prompts (the user prompt first, as Haystack builds them) and
/// checks their variables against the resolved state schema and the run's
/// parameters (`_register_prompt_variables`).
pub(super) fn build(
    system: Option<&str>,
    user: Option<&str>,
    required: &RequiredVariables,
    schema: &StateSchema,
) -> Result<Prompts, AgentError> {
    let parse = |kind, template: Option<&str>| {
        template
            .map(|t| Prompt::new(kind, t, required).map_err(AgentError::Prompt))
            .transpose()
    };
    let user = parse(PromptKind::User, user)?;
    let system = parse(PromptKind::System, system)?;
    // Variables in Haystack's order: the system prompt's, then the user
    // prompt's, each naming the prompts that use it.
    let mut sources: Vec<(&str, Vec<&str>)> = Vec::new();
    for prompt in system.iter().chain(user.iter()) {
        for name in prompt.variables() {
            match sources.iter_mut().find(|(n, _)| n == name) {
                Some((_, labels)) => labels.push(prompt.label()),
                None => sources.push((name, vec![prompt.label()])),
            }
        }
    }
    for (name, labels) in sources {
        let from = labels.join(" and ");
        if schema.contains(name) {
            return Err(PromptError::VariableInSchema {
                name: name.to_owned(),
                from,
            }
            .into());
        }
        if RUN_PARAMETERS.contains(&name) {
            return Err(PromptError::VariableIsRunParameter {
                name: name.to_owned(),
                from,
            }
            .into());
        }
    }
    Ok(Prompts { system, user })
}

/// The rendered system message (prepended) and user message (appended),
/// the user prompt rendered first; the run's state values and variables are
/// its keyword arguments.
pub(super) fn render(
    prompts: &Prompts,
    options: &RunOptions,
) -> Result<(Option<ChatMessage>, Option<ChatMessage>), AgentError> {
    if prompts.system.is_none() && prompts.user.is_none() {
        return Ok((None, None));
    }
    let mut kwargs: Map<String, Value> = options.state.clone();
    for (key, value) in &options.variables {
        kwargs.insert(key.clone(), value.clone());
    }
    let render = |prompt: &Option<Prompt>| {
        prompt
            .as_ref()
            .map(|p| p.render(&kwargs).map_err(AgentError::Prompt))
            .transpose()
    };
    let user = render(&prompts.user)?;
    let system = render(&prompts.system)?;
    Ok((system, user))
}
