//! Why Haystack rejects a prompt template: when the Agent is built, or when
//! a run renders it. Each message is Haystack's (or Jinja2's) own text.

use crate::message::ChatRole;
use crate::pyfmt;
use serde_json::Value;

/// A prompt template Haystack rejects.
///
/// ```
/// use hookharness::prompt::PromptError;
/// use hookharness::{Agent, AgentError, ChatMessage, RunOptions, generator_fn};
///
/// let model = generator_fn(|_| Ok(vec![ChatMessage::from_assistant("ok")]));
/// let agent = Agent::builder().chat_generator(model).user_prompt("Hi {{ name }}").build()?;
/// let Err(AgentError::Prompt(PromptError::MissingVariables { missing, .. })) =
///     agent.run(vec![], RunOptions::new())
/// else {
///     panic!("the run needs `name`")
/// };
/// assert_eq!(missing, ["name"]);
/// # Ok::<(), AgentError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// A literal argument of a `{% message %}` tag that Jinja2 rejects
    /// (`Role must be one of: user, system, assistant, tool`).
    #[error("{0}")]
    MessageTag(String),
    /// A template that does not parse or render: minijinja's description,
    /// Haystack's text for what the message tag raises, or the render's
    /// instruction budget running out.
    #[error("{0}")]
    Template(String),
    /// A template that does not parse: Jinja2's message (its
    /// `TemplateSyntaxError`) and the line of the template it names.
    #[error("{message}")]
    Syntax {
        /// Jinja2's message (minijinja's description, ending with `(in
        /// prompt:LINE)`, for what only minijinja refuses).
        message: String,
        /// The 1-based line of the template, when the engine gives it.
        line: Option<usize>,
    },
    /// More than one message block (`_validate_prompt_message_blocks`).
    #[error("{prompt} must define exactly one message block, found {found}.")]
    MessageBlocks {
        /// `system_prompt` or `user_prompt`.
        prompt: &'static str,
        /// How many blocks the template defines.
        found: usize,
    },
    /// A message block of the other role.
    #[error("{prompt} message block must have role '{expected}', found role '{found}'.")]
    BlockRole {
        /// `system_prompt` or `user_prompt`.
        prompt: &'static str,
        /// The prompt's role.
        expected: ChatRole,
        /// The role the block names.
        found: String,
    },
    /// A template variable that is also a `state_schema` key.
    #[error(
        "Variable '{name}' from {from} is already defined in the state schema. \
         Please rename the variable or remove it from the prompt to avoid conflicts."
    )]
    VariableInSchema {
        /// The variable.
        name: String,
        /// The prompts using it: `system_prompt`, `user_prompt`, or both
        /// joined by `and`.
        from: String,
    },
    /// A template variable named like a parameter of `Agent.run`.
    #[error(
        "Variable '{name}' from {from} conflicts with input names in the run method. \
         Please rename the variable or remove it from the prompt to avoid conflicts."
    )]
    VariableIsRunParameter {
        /// The variable.
        name: String,
        /// The prompts using it.
        from: String,
    },
    /// Required variables the run did not give.
    #[error(
        "Missing required input variables in ChatPromptBuilder: {}. Required variables: {}. Provided variables: {}.",
        missing.join(", "),
        pyfmt::repr(&Value::Array(required.iter().cloned().map(Value::String).collect())),
        pyfmt::set_of_strings(provided.iter().map(String::as_str))
    )]
    MissingVariables {
        /// The required variables not given, in the required order.
        missing: Vec<String>,
        /// Every required variable.
        required: Vec<String>,
        /// The template's variables the run gave, in the order CPython (run
        /// with `PYTHONHASHSEED=0`) iterates the set Haystack prints.
        provided: Vec<String>,
    },
    /// A rendered line that is not a message in `to_dict()` form.
    #[error("{0}")]
    NotAMessage(String),
    /// A render that gave no message, or several.
    #[error("{prompt} must render to exactly one {role} message. Got {count} messages.")]
    MessageCount {
        /// `system_prompt` or `user_prompt`.
        prompt: &'static str,
        /// The prompt's role.
        role: ChatRole,
        /// How many messages it rendered.
        count: usize,
    },
    /// A render that gave a message of another role.
    #[error(
        "{prompt} must render to a {expected} message. Got a message with role ChatRole.{}.",
        found.as_str().to_uppercase()
    )]
    MessageRole {
        /// `system_prompt` or `user_prompt`.
        prompt: &'static str,
        /// The prompt's role.
        expected: ChatRole,
        /// The rendered message's role.
        found: ChatRole,
    },
}
