//! The Agent: Haystack 3.4.1's run loop with hooks.
//!
//! ```text
//!  before_run ─▶ ┌──────────── step (while step_count < max_agent_steps) ────────────┐
//!                │ before_llm ─▶ stop_run? ─▶ LLM ─▶ terminal reply or no tools? ──┐ │
//!                │                  │yes                     │no                    │ │
//!                │                  ▼                        ▼                      │ │
//!                │               (stop)       before_tool ─▶ tools ─▶ after_tool    │ │
//!                │                                           ─▶ step+1 ─▶ tool exit?│ │
//!                │                                  exit ◀──────────────────────────┘ │
//!                │                  on_exit (only if registered) ─▶ continue_run?    │
//!                └────────────────────────────────────────────────────────────────────┘
//!  after_run (every ending that did not fail) ─▶ output
//! ```

mod counter;
mod dispatch;
mod error;
mod exit;
mod options;
mod output;
mod prompts;
mod run;
mod select;
pub(crate) mod usage;

pub use error::AgentError;
pub use options::RunOptions;
pub use output::AgentOutput;
pub(crate) use prompts::RUN_PARAMETERS;

use crate::future::block_on;
use crate::generator::ChatGenerator;
use crate::hook::{Hook, HookPoint, HookRegistration, Hooks};
use crate::message::ChatMessage;
use crate::observe::Observer;
use crate::prompt::RequiredVariables;
use crate::state::{Handler, SchemaEntry, StateSchema, ValueType, keys};
use crate::stream::StreamingCallback;
use crate::tool::Tool;
use std::sync::Arc;

/// An agent: a chat generator, tools and hooks, run by Haystack's loop.
///
/// Build one with [`Agent::builder`]; run it with [`Agent::run`] or
/// [`Agent::run_async`].
#[derive(Clone)]
pub struct Agent {
    generator: Arc<dyn ChatGenerator>,
    tools: Arc<[Arc<dyn Tool>]>,
    prompts: prompts::Prompts,
    streaming_callback: Option<StreamingCallback>,
    tool_streaming_callback_passthrough: bool,
    exit_conditions: Vec<String>,
    schema: Arc<StateSchema>,
    max_agent_steps: i64,
    raise_on_tool_invocation_failure: bool,
    tool_concurrency_limit: usize,
    hooks: Hooks,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| &t.spec().name)
                    .collect::<Vec<_>>(),
            )
            .field("exit_conditions", &self.exit_conditions)
            .field("max_agent_steps", &self.max_agent_steps)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// A builder with Haystack's defaults.
    pub fn builder() -> AgentBuilder {
        AgentBuilder::default()
    }

    /// Runs the loop on the calling thread.
    pub fn run(
        &self,
        messages: Vec<ChatMessage>,
        options: RunOptions,
    ) -> Result<AgentOutput, AgentError> {
        block_on(run::run(self, messages, options, None, false))
    }

    /// Runs the loop on the async path: hooks' `run_async`, the generator's
    /// `run_async`, tools awaited concurrently up to `tool_concurrency_limit`.
    pub async fn run_async(
        &self,
        messages: Vec<ChatMessage>,
        options: RunOptions,
    ) -> Result<AgentOutput, AgentError> {
        run::run(self, messages, options, None, true).await
    }

    /// [`run`](Agent::run) with an observer that receives every event.
    pub fn run_observed(
        &self,
        messages: Vec<ChatMessage>,
        options: RunOptions,
        observer: &mut dyn Observer,
    ) -> Result<AgentOutput, AgentError> {
        block_on(run::run(self, messages, options, Some(observer), false))
    }

    /// [`run_async`](Agent::run_async) with an observer.
    pub async fn run_async_observed(
        &self,
        messages: Vec<ChatMessage>,
        options: RunOptions,
        observer: &mut dyn Observer,
    ) -> Result<AgentOutput, AgentError> {
        run::run(self, messages, options, Some(observer), true).await
    }

    /// Closes each distinct hook once, then the generator. Never called by a run.
    pub fn close(&self) -> Result<(), AgentError> {
        for hook in self.hooks.with_lifecycle() {
            hook.close()
                .map_err(|e| warm_up_error(&hook.name(), e.message()))?;
        }
        self.generator
            .close()
            .map_err(|e| warm_up_error("the chat generator", e.message()))
    }

    /// The tools.
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// The registered hooks.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// The resolved state schema (user keys, `messages`, reserved keys).
    pub fn state_schema(&self) -> &StateSchema {
        &self.schema
    }

    /// `max_agent_steps`.
    pub fn max_agent_steps(&self) -> i64 {
        self.max_agent_steps
    }
}

fn warm_up_error(what: &str, message: &str) -> AgentError {
    AgentError::WarmUp {
        what: what.to_owned(),
        message: message.to_owned(),
    }
}

/// Builds an [`Agent`], validating as Haystack's constructor does.
///
/// ```
/// use hookharness::{Agent, AgentError, generator_fn, hook_fn, ChatMessage, State};
///
/// let model = generator_fn(|_| Ok(vec![ChatMessage::from_assistant("hi")]));
/// let err = Agent::builder()
///     .chat_generator(model)
///     .hook("before_lm", hook_fn(|_: &mut State| ()))
///     .build()
///     .unwrap_err();
/// assert!(err.to_string().starts_with("Invalid hook point 'before_lm'."));
/// ```
pub struct AgentBuilder {
    generator: Option<Arc<dyn ChatGenerator>>,
    generator_type: &'static str,
    tools: Vec<Arc<dyn Tool>>,
    system_prompt: Option<String>,
    user_prompt: Option<String>,
    required_variables: RequiredVariables,
    streaming_callback: Option<StreamingCallback>,
    tool_streaming_callback_passthrough: bool,
    exit_conditions: Vec<String>,
    state_schema: StateSchema,
    max_agent_steps: i64,
    raise_on_tool_invocation_failure: bool,
    tool_concurrency_limit: i64,
    hooks: Vec<(String, Arc<dyn Hook>)>,
}

impl Default for AgentBuilder {
    fn default() -> Self {
        AgentBuilder {
            generator: None,
            generator_type: "",
            tools: Vec::new(),
            system_prompt: None,
            user_prompt: None,
            required_variables: RequiredVariables::All,
            streaming_callback: None,
            tool_streaming_callback_passthrough: false,
            exit_conditions: vec!["text".into()],
            state_schema: StateSchema::new(),
            max_agent_steps: 100,
            raise_on_tool_invocation_failure: false,
            tool_concurrency_limit: 4,
            hooks: Vec::new(),
        }
    }
}

impl AgentBuilder {
    /// The model.
    pub fn chat_generator(mut self, generator: impl ChatGenerator) -> Self {
        self.generator_type = crate::hook::short_type_name(std::any::type_name_of_val(&generator));
        self.generator = Some(Arc::new(generator));
        self
    }

    /// The model, already shared.
    pub fn chat_generator_arc(mut self, generator: Arc<dyn ChatGenerator>) -> Self {
        self.generator_type = "ChatGenerator";
        self.generator = Some(generator);
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Adds a shared tool.
    pub fn tool_arc(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// A system prompt, prepended to the messages of every run: a Jinja2
    /// template, plain text or one `{% message role="system" %}` block (see
    /// [`prompt`](crate::prompt)).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// A user prompt, appended to the messages of every run: a Jinja2
    /// template, plain text or one `{% message role="user" %}` block.
    pub fn user_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.user_prompt = Some(prompt.into());
        self
    }

    /// Streams every run's chunks to `callback` unless the run gives its own
    /// ([`RunOptions::streaming_callback`]).
    pub fn streaming_callback(mut self, callback: StreamingCallback) -> Self {
        self.streaming_callback = Some(callback);
        self
    }

    /// Hands the streaming callback to the tools too
    /// ([`ToolInvocation::streaming_callback`](crate::ToolInvocation::streaming_callback)).
    pub fn tool_streaming_callback_passthrough(mut self, passthrough: bool) -> Self {
        self.tool_streaming_callback_passthrough = passthrough;
        self
    }

    /// Which template variables a run must give (default: all of them).
    pub fn required_variables(mut self, required: RequiredVariables) -> Self {
        self.required_variables = required;
        self
    }

    /// `"text"` and/or tool names (default `["text"]`). A text reply ends
    /// the run whatever this says; only tool names matter.
    pub fn exit_conditions<I, S>(mut self, conditions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exit_conditions = conditions.into_iter().map(Into::into).collect();
        self
    }

    /// The user's state keys.
    pub fn state_schema(mut self, schema: StateSchema) -> Self {
        self.state_schema = schema;
        self
    }

    /// The step limit (default 100; not validated, as in Haystack: 0 or
    /// less runs no step).
    pub fn max_agent_steps(mut self, steps: i64) -> Self {
        self.max_agent_steps = steps;
        self
    }

    /// Fail the run when a tool fails, instead of an error tool message.
    pub fn raise_on_tool_invocation_failure(mut self, raise: bool) -> Self {
        self.raise_on_tool_invocation_failure = raise;
        self
    }

    /// How many tool calls may run at once (default 4, at least 1).
    pub fn tool_concurrency_limit(mut self, limit: i64) -> Self {
        self.tool_concurrency_limit = limit;
        self
    }

    /// Registers a hook at a point (by name or [`HookPoint`]).
    pub fn hook(self, point: impl AsRef<str>, hook: impl Hook) -> Self {
        self.hook_arc(point, Arc::new(hook))
    }

    /// Registers a shared hook object; register the same `Arc` at several
    /// points and its lifecycle methods still run once.
    pub fn hook_arc(mut self, point: impl AsRef<str>, hook: Arc<dyn Hook>) -> Self {
        self.hooks.push((point.as_ref().to_owned(), hook));
        self
    }

    /// Validates and builds, in Haystack's order: tool support, reserved
    /// keys, schema, concurrency limit, hooks.
    pub fn build(self) -> Result<Agent, AgentError> {
        // Haystack checks each `Tool` when it is made, before the Agent is.
        for tool in &self.tools {
            tool.spec().validate()?;
        }
        let generator = self.generator.ok_or(AgentError::MissingChatGenerator)?;
        if !self.tools.is_empty() && !generator.supports_tools() {
            return Err(AgentError::ToolsNotSupported {
                generator: self.generator_type.to_owned(),
            });
        }
        let mut reserved: Vec<&str> = self
            .state_schema
            .keys()
            .filter(|k| keys::is_reserved(k))
            .collect();
        if !reserved.is_empty() {
            reserved.sort_unstable();
            return Err(AgentError::ReservedStateKeys {
                keys: error::python_list(&reserved),
            });
        }
        if let Some(entry) = self.state_schema.get(keys::MESSAGES) {
            if entry.ty != ValueType::ChatMessages {
                return Err(AgentError::InvalidSchema(format!(
                    "StateSchema: 'messages' must be of type list[ChatMessage], got {}",
                    entry.ty
                )));
            }
        }
        prompts::validate_blocks(self.user_prompt.as_deref(), self.system_prompt.as_deref())?;
        if self.tool_concurrency_limit < 1 {
            return Err(AgentError::ToolConcurrencyLimit);
        }
        // Validated in registration order, as Haystack walks its hooks dict:
        // each point's name, then each of its hooks.
        let mut hooks = Hooks::default();
        for (point, hook) in self.hooks {
            let point: HookPoint = point.parse()?;
            hooks.register(HookRegistration { point, hook })?;
        }

        let schema = resolve_schema(self.state_schema);
        let prompts = prompts::build(
            self.system_prompt.as_deref(),
            self.user_prompt.as_deref(),
            &self.required_variables,
            &schema,
        )?;
        Ok(Agent {
            generator,
            tools: self.tools.into(),
            prompts,
            streaming_callback: self.streaming_callback,
            tool_streaming_callback_passthrough: self.tool_streaming_callback_passthrough,
            exit_conditions: self.exit_conditions,
            schema: Arc::new(schema),
            max_agent_steps: self.max_agent_steps,
            raise_on_tool_invocation_failure: self.raise_on_tool_invocation_failure,
            tool_concurrency_limit: usize::try_from(self.tool_concurrency_limit)
                .unwrap_or(usize::MAX),
            hooks,
        })
    }
}

impl AsRef<str> for HookPoint {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// The user schema plus `messages`, the run metadata and the internal keys.
fn resolve_schema(user: StateSchema) -> StateSchema {
    let mut schema = crate::state::with_messages_key(user);
    let replace = |ty| SchemaEntry {
        ty,
        handler: Some(Handler::ReplaceValues),
    };
    schema.insert(keys::STEP_COUNT, replace(ValueType::Int));
    schema.insert(keys::TOKEN_USAGE, replace(ValueType::Dict));
    schema.insert(keys::TOOL_CALL_COUNTS, replace(ValueType::Dict));
    schema.insert(keys::EXIT_REASON, replace(ValueType::Str));
    schema.insert(keys::CONTINUE_RUN, replace(ValueType::Bool));
    schema.insert(keys::STOP_RUN, replace(ValueType::Str));
    schema.insert(keys::TOOLS, replace(ValueType::List));
    schema.insert(keys::HOOK_CONTEXT, replace(ValueType::Dict));
    schema.insert(keys::CONTEXT_TOKENS, replace(ValueType::Int));
    schema
}
