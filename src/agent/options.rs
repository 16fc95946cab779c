//! The inputs of one run besides the messages.

use crate::state::HookContext;
use crate::stream::StreamingCallback;
use serde_json::{Map, Value};

/// What `Agent::run` takes besides the messages: the `hook_context` and
/// initial values for `state_schema` keys (Haystack's `**kwargs`).
///
/// ```
/// use hookharness::RunOptions;
/// use serde_json::json;
///
/// let options = RunOptions::new()
///     .state("notes", json!([]))
///     .context("user_id", json!("u1"));
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// Request-scoped values for hooks.
    pub hook_context: HookContext,
    /// Initial state values, by key. Reserved keys are accepted as in
    /// Haystack (a `stop_run` here stops the run at the first stop check).
    pub state: Map<String, Value>,
    /// The tools of this run, by name (Haystack's `Agent.run(tools=[...])`);
    /// `None` runs every configured tool.
    pub tools: Option<Vec<String>>,
    /// Template variables of the system and user prompts (Haystack's
    /// `**kwargs`); one that names a state key also seeds it, as there.
    pub variables: Map<String, Value>,
    /// The streaming callback of this run; it wins over the Agent's.
    pub streaming_callback: Option<StreamingCallback>,
    /// Keyword arguments for the chat generator (Haystack's
    /// `generation_kwargs`), handed to every call in
    /// [`ChatRequest::generation_kwargs`](crate::ChatRequest::generation_kwargs).
    pub generation_kwargs: Option<Map<String, Value>>,
}

impl RunOptions {
    /// No context, no initial state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the whole `hook_context`.
    pub fn hook_context(mut self, context: HookContext) -> Self {
        self.hook_context = context;
        self
    }

    /// Adds a JSON `hook_context` entry.
    pub fn context(mut self, key: impl Into<String>, value: Value) -> Self {
        self.hook_context.insert(key, value);
        self
    }

    /// Runs only the configured tools with these names (an empty list runs
    /// none); Haystack's errors for unknown names and for an Agent without
    /// tools.
    pub fn tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Streams this run's chunks to `callback` (instead of the Agent's).
    pub fn streaming_callback(mut self, callback: StreamingCallback) -> Self {
        self.streaming_callback = Some(callback);
        self
    }

    /// Keyword arguments for the chat generator.
    pub fn generation_kwargs(mut self, kwargs: Map<String, Value>) -> Self {
        self.generation_kwargs = Some(kwargs);
        self
    }

    /// Sets a template variable of the prompts.
    pub fn variable(mut self, name: impl Into<String>, value: Value) -> Self {
        self.variables.insert(name.into(), value);
        self
    }

    /// Sets an initial state value.
    pub fn state(mut self, key: impl Into<String>, value: Value) -> Self {
        self.state.insert(key.into(), value);
        self
    }
}
