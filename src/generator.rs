//! The chat generator: the model behind the agent.

use crate::future::CallFuture;
use crate::message::ChatMessage;
use crate::stream::StreamingCallback;
use crate::tool::Tool;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What the loop passes to the chat generator on each call.
#[non_exhaustive]
pub struct ChatRequest<'a> {
    /// The live conversation.
    pub messages: &'a [ChatMessage],
    /// The tools offered to the model (empty when the agent has none).
    pub tools: &'a [Arc<dyn Tool>],
    /// The run's streaming callback: a generator that streams hands it
    /// each chunk (sync path: [`StreamingCallback::call`]; async path:
    /// [`StreamingCallback::call_async`]).
    pub streaming_callback: Option<&'a StreamingCallback>,
    /// The run's `generation_kwargs`, for the generator to merge over its own.
    pub generation_kwargs: Option<&'a Map<String, Value>>,
}

impl<'a> ChatRequest<'a> {
    /// A request over these messages and tools.
    pub fn new(messages: &'a [ChatMessage], tools: &'a [Arc<dyn Tool>]) -> Self {
        ChatRequest {
            messages,
            tools,
            streaming_callback: None,
            generation_kwargs: None,
        }
    }
}

/// What [`ChatGenerator::run_async`] returns: the replies already there, or
/// a future to await (see [`CallFuture`]).
pub type GeneratorFuture<'a> = CallFuture<'a, Result<Vec<ChatMessage>, GeneratorError>>;

/// The error a chat generator returns; the run fails with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct GeneratorError {
    message: String,
}

impl GeneratorError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        GeneratorError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A model: receives the conversation and the tools, returns the replies.
///
/// ```
/// use hookharness::{ChatGenerator, ChatMessage, ChatRequest, GeneratorError};
///
/// struct Echo;
/// impl ChatGenerator for Echo {
///     fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
///         let last = request.messages.last().and_then(|m| m.text()).unwrap_or("");
///         Ok(vec![ChatMessage::from_assistant(format!("you said: {last}"))])
///     }
/// }
/// ```
pub trait ChatGenerator: Send + Sync + 'static {
    /// One model call.
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError>;

    /// One model call on the async path. The default calls
    /// [`run`](ChatGenerator::run) and hands back its replies as a finished
    /// future, which the loop takes without allocating or polling; override
    /// it only to await something (`GeneratorFuture::new(async move { ... })`).
    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        CallFuture::ready(self.run(request))
    }

    /// `false` when the generator cannot take tools; an Agent with tools
    /// then fails to build, as Haystack's does.
    fn supports_tools(&self) -> bool {
        true
    }

    /// Prepares the generator; called at the start of every run.
    fn warm_up(&self) -> Result<(), GeneratorError> {
        Ok(())
    }

    /// Releases resources; called by [`Agent::close`](crate::Agent::close).
    fn close(&self) -> Result<(), GeneratorError> {
        Ok(())
    }
}

/// A generator from a closure over the request.
pub struct FnGenerator<F>(F);

/// Wraps a closure into a chat generator.
///
/// ```
/// use hookharness::{generator_fn, ChatMessage};
///
/// let model = generator_fn(|_request| Ok(vec![ChatMessage::from_assistant("done")]));
/// # let _ = model;
/// ```
pub fn generator_fn<F>(function: F) -> FnGenerator<F>
where
    F: Fn(ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> + Send + Sync + 'static,
{
    FnGenerator(function)
}

impl<F> ChatGenerator for FnGenerator<F>
where
    F: Fn(ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> + Send + Sync + 'static,
{
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        (self.0)(request)
    }
}
