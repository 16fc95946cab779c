//! Why an Agent failed to build or a run failed.

use crate::hook::{HookNotAllowed, HookPoint, InvalidHookPoint};
use crate::prompt::PromptError;
use crate::state::StateError;
use crate::stream::AsyncCallbackError;
use crate::tool::{ExecError, ToolSpecError};

/// An Agent construction error or a run failure.
///
/// Construction errors use Haystack's wording; run failures name the hook,
/// point and step, the LLM call, or the tool.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// `build` without a chat generator.
    #[error("an Agent needs a chat generator: call `.chat_generator(...)` on the builder")]
    MissingChatGenerator,
    /// Tools given to a generator that cannot take them.
    #[error(
        "{generator} does not accept tools parameter in its run method. The Agent component requires a chat generator that supports tools when tools are provided."
    )]
    ToolsNotSupported {
        /// The generator's type name.
        generator: String,
    },
    /// Two tools share a name (checked at each step, as Haystack does).
    #[error("Duplicate tool names found: {names}")]
    DuplicateToolNames {
        /// The repeated names as a Python set: `{'search'}`.
        names: String,
    },
    /// A `state_schema` that redefines reserved keys.
    #[error(
        "state_schema keys [{keys}] are reserved for Agent internal state and cannot be redefined. Reserved keys: [{}].",
        python_list(&crate::state::keys::RESERVED_KEYS)
    )]
    ReservedStateKeys {
        /// The colliding keys, quoted, sorted and comma-separated.
        keys: String,
    },
    /// An invalid `state_schema` entry.
    #[error("{0}")]
    InvalidSchema(String),
    /// A ready-made hook rejected its parameters (Haystack's `ValueError`).
    #[error("{0}")]
    HookParameters(String),
    /// `tool_concurrency_limit` below 1.
    #[error("tool_concurrency_limit must be greater than or equal to 1.")]
    ToolConcurrencyLimit,
    /// A hook registered under an unknown point.
    #[error(transparent)]
    InvalidHookPoint(#[from] InvalidHookPoint),
    /// A hook registered outside its `allowed_hook_points`.
    #[error(transparent)]
    HookNotAllowed(#[from] HookNotAllowed),
    /// A prompt template that Haystack rejects: a syntax error, a message
    /// block of the wrong role or number, a variable that collides with a
    /// state key or a run parameter (at construction); a missing required
    /// variable or a rendering error (when a run starts).
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// An async streaming callback given to a sync run (Haystack's
    /// `select_streaming_callback`).
    #[error(transparent)]
    StreamingCallback(#[from] AsyncCallbackError),
    /// A tool whose configuration Haystack's `Tool` rejects at construction
    /// (an `inputs_from_state` parameter the tool does not take).
    #[error(transparent)]
    InvalidTool(#[from] ToolSpecError),
    /// Tools selected by name for a run of an Agent that has none.
    #[error("No tools were configured for the Agent at initialization.")]
    NoToolsConfigured,
    /// Tools selected by name that the Agent does not have.
    #[error("The following tool names are not valid: {invalid}. Valid tool names are: {valid}.")]
    InvalidToolNames {
        /// The unknown names, as a Python set.
        invalid: String,
        /// The configured names, as a Python set.
        valid: String,
    },
    /// A run input that is not a `state_schema` key.
    #[error(
        "run state key `{key}` is not in the Agent's state_schema; declare it in `state_schema` or remove it from the run's state"
    )]
    UnknownRunStateKey {
        /// The key.
        key: String,
    },
    /// A hook, tool or generator failed to warm up.
    #[error("warm-up of {what} failed: {message}")]
    WarmUp {
        /// What was being warmed up.
        what: String,
        /// The failure.
        message: String,
    },
    /// A hook returned an error or panicked.
    #[error("hook `{hook}` failed at {point} (step {step}): {message}")]
    Hook {
        /// The hook's name.
        hook: String,
        /// Where it ran.
        point: HookPoint,
        /// `step_count` when it ran.
        step: i64,
        /// The hook's error, or the panic message.
        message: String,
        /// `true` when the hook panicked.
        panicked: bool,
    },
    /// The chat generator failed.
    #[error("the chat generator failed at LLM call {call} (step {step}): {message}")]
    Generator {
        /// The 0-based LLM call index in the run.
        call: usize,
        /// The loop's step counter at the call (whatever a hook wrote into
        /// `step_count`).
        step: i64,
        /// The generator's error.
        message: String,
    },
    /// A call to an unknown tool with `raise_on_tool_invocation_failure`.
    #[error("{message}")]
    ToolNotFound {
        /// Haystack's text: `Tool 'x' not found. Available tools: a, b`.
        message: String,
    },
    /// A failed tool call with `raise_on_tool_invocation_failure`.
    #[error("{message}")]
    ToolInvocation {
        /// Haystack's text: ``Failed to invoke Tool `x` with parameters {...}. Error: ...``.
        message: String,
    },
    /// A tool failure that stops the run whatever the settings.
    #[error("tool `{tool}` stopped the run: {message}")]
    ToolFatal {
        /// The tool.
        tool: String,
        /// Why.
        message: String,
    },
    /// A tool's outputs could not be merged into State.
    #[error("{message}")]
    StateMerge {
        /// Haystack's text: `Tool 'x': failed to merge outputs into state. ...`.
        message: String,
    },
    /// A state operation of the loop failed.
    #[error(transparent)]
    State(#[from] StateError),
    /// A hook left a control key in a shape the loop cannot read.
    #[error("{0}")]
    InvalidControlKey(String),
}

/// `['a', 'b']` without the brackets, as Python prints a list of strings.
pub(super) fn python_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|item| format!("'{item}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl AgentError {
    /// The text Haystack raises for this error: the message inside the
    /// context this error adds (the hook, point and step; the LLM call; the
    /// tool), or the whole text when it adds none.
    ///
    /// ```
    /// use hookharness::AgentError;
    /// let error = AgentError::ToolNotFound { message: "Tool 'x' not found.".into() };
    /// assert_eq!(error.haystack_message(), "Tool 'x' not found.");
    /// ```
    pub fn haystack_message(&self) -> String {
        match self {
            AgentError::Hook { message, .. }
            | AgentError::Generator { message, .. }
            | AgentError::ToolFatal { message, .. }
            | AgentError::WarmUp { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }
}

impl From<ExecError> for AgentError {
    fn from(error: ExecError) -> Self {
        match error {
            ExecError::NotFound { message } => AgentError::ToolNotFound { message },
            ExecError::Invocation { message } => AgentError::ToolInvocation { message },
            ExecError::Fatal { tool, message } => AgentError::ToolFatal { tool, message },
            ExecError::StateMerge { message } => AgentError::StateMerge { message },
        }
    }
}
