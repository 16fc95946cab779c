//! A chat generator that replays scripted replies.

use crate::future::BoxFuture;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError};
use crate::message::{ChatMessage, ToolCall};
use crate::stream::StreamingChunk;
use crate::tool::Tool;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One scripted reply.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReplyScript {
    /// The generator raises with this message.
    Error(String),
    /// An assistant message.
    Message {
        /// The text part (`None`: no text part; `""`: an empty one).
        text: Option<String>,
        /// `(tool, arguments, id)`; a missing id becomes `call_<k>_<i>`.
        tool_calls: Vec<(String, Map<String, Value>, Option<String>)>,
        /// Becomes `meta.usage`.
        usage: Option<Map<String, Value>>,
        /// Becomes `meta.finish_reason`.
        finish_reason: Option<String>,
        /// The pieces streamed before the reply, when the run streams.
        chunks: Option<Vec<String>>,
    },
}

impl ReplyScript {
    /// A text reply.
    pub fn text(text: impl Into<String>) -> Self {
        ReplyScript::Message {
            text: Some(text.into()),
            tool_calls: Vec::new(),
            usage: None,
            finish_reason: None,
            chunks: None,
        }
    }

    /// A reply with one tool call and no text.
    pub fn tool_call(tool: impl Into<String>, arguments: Value) -> Self {
        ReplyScript::empty().with_tool_call(tool, arguments)
    }

    /// An assistant reply with no content.
    pub fn empty() -> Self {
        ReplyScript::Message {
            text: None,
            tool_calls: Vec::new(),
            usage: None,
            finish_reason: None,
            chunks: None,
        }
    }

    /// The generator raises.
    pub fn error(message: impl Into<String>) -> Self {
        ReplyScript::Error(message.into())
    }

    /// Adds a tool call (arguments must be a JSON map; anything else is
    /// taken as no arguments).
    pub fn with_tool_call(mut self, tool: impl Into<String>, arguments: Value) -> Self {
        if let ReplyScript::Message { tool_calls, .. } = &mut self {
            let arguments = match arguments {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            tool_calls.push((tool.into(), arguments, None));
        }
        self
    }

    /// Sets `meta.usage`.
    pub fn with_usage(mut self, value: Value) -> Self {
        if let (ReplyScript::Message { usage, .. }, Value::Object(map)) = (&mut self, value) {
            *usage = Some(map);
        }
        self
    }

    /// Sets `meta.finish_reason`.
    pub fn with_finish_reason(mut self, reason: impl Into<String>) -> Self {
        if let ReplyScript::Message { finish_reason, .. } = &mut self {
            *finish_reason = Some(reason.into());
        }
        self
    }

    /// Streams these pieces before the reply when the run streams; the
    /// reply's text becomes their concatenation.
    pub fn with_chunks<I, S>(mut self, pieces: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let ReplyScript::Message { text, chunks, .. } = &mut self {
            let pieces: Vec<String> = pieces.into_iter().map(Into::into).collect();
            *text = Some(pieces.concat());
            *chunks = Some(pieces);
        }
        self
    }

    /// The reply as the `call`-th LLM call returns it.
    pub fn to_message(&self, call: usize) -> Result<ChatMessage, GeneratorError> {
        match self {
            ReplyScript::Error(message) => Err(GeneratorError::new(message.clone())),
            ReplyScript::Message {
                text,
                tool_calls,
                usage,
                finish_reason,
                ..
            } => {
                let calls = tool_calls
                    .iter()
                    .enumerate()
                    .map(|(i, (tool, arguments, id))| ToolCall {
                        id: Some(id.clone().unwrap_or_else(|| format!("call_{call}_{i}"))),
                        tool_name: tool.clone(),
                        arguments: arguments.clone(),
                        extra: None,
                    })
                    .collect();
                let mut meta = Map::new();
                if let Some(usage) = usage {
                    meta.insert("usage".into(), Value::Object(usage.clone()));
                }
                if let Some(reason) = finish_reason {
                    meta.insert("finish_reason".into(), Value::String(reason.clone()));
                }
                Ok(ChatMessage::from_assistant_parts(text.clone(), calls).with_meta(meta))
            }
        }
    }
}

type ReplyFn = dyn Fn(&[ChatMessage], &[Arc<dyn Tool>]) -> Result<Vec<ChatMessage>, GeneratorError>
    + Send
    + Sync;

/// A chat generator that replays a script, one reply per call, and fails
/// with "model script exhausted at LLM call N (the scenario scripts M
/// replies)" past its end. It never cycles.
///
/// ```
/// use hookharness::scripted::{ReplyScript, ScriptedChatGenerator};
/// use serde_json::json;
///
/// let model = ScriptedChatGenerator::new([
///     ReplyScript::tool_call("search", json!({"query": "fusion"})),
///     ReplyScript::text("Here is what I found."),
/// ]);
/// assert_eq!(model.scripted(), 2);
/// ```
pub struct ScriptedChatGenerator {
    source: Source,
    calls: AtomicUsize,
}

enum Source {
    Script(Vec<ReplyScript>),
    Function(Box<ReplyFn>),
}

impl ScriptedChatGenerator {
    /// Replays these replies in order.
    pub fn new(replies: impl IntoIterator<Item = ReplyScript>) -> Self {
        ScriptedChatGenerator {
            source: Source::Script(replies.into_iter().collect()),
            calls: AtomicUsize::new(0),
        }
    }

    /// Answers each call with a function of the messages and tools.
    ///
    /// ```
    /// use hookharness::scripted::ScriptedChatGenerator;
    /// use hookharness::ChatMessage;
    ///
    /// let model = ScriptedChatGenerator::reply_with(|messages, _tools| {
    ///     Ok(vec![ChatMessage::from_assistant(format!("{} messages", messages.len()))])
    /// });
    /// # let _ = model;
    /// ```
    pub fn reply_with<F>(function: F) -> Self
    where
        F: Fn(&[ChatMessage], &[Arc<dyn Tool>]) -> Result<Vec<ChatMessage>, GeneratorError>
            + Send
            + Sync
            + 'static,
    {
        ScriptedChatGenerator {
            source: Source::Function(Box::new(function)),
            calls: AtomicUsize::new(0),
        }
    }

    /// How many calls were made.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// How many replies the script holds (0 for a function).
    pub fn scripted(&self) -> usize {
        match &self.source {
            Source::Script(replies) => replies.len(),
            Source::Function(_) => 0,
        }
    }

    /// Scripted replies not used yet.
    pub fn unused(&self) -> usize {
        self.scripted().saturating_sub(self.calls())
    }

    /// A shareable handle, so a test can read `calls()` after the run.
    pub fn shared(self) -> Arc<Self> {
        Arc::new(self)
    }
}

impl ScriptedChatGenerator {
    /// The next reply and the chunks it streams first (when the run streams).
    fn next_reply(
        &self,
        request: &ChatRequest<'_>,
    ) -> Result<(Vec<ChatMessage>, Vec<StreamingChunk>), GeneratorError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        match &self.source {
            Source::Script(replies) => match replies.get(call) {
                Some(reply) => {
                    let message = reply.to_message(call)?;
                    let chunks = match (reply, request.streaming_callback) {
                        (
                            ReplyScript::Message {
                                chunks: Some(chunks),
                                ..
                            },
                            Some(_),
                        ) => chunks
                            .iter()
                            .enumerate()
                            .map(|(i, piece)| {
                                let mut chunk = StreamingChunk::text(piece.clone());
                                chunk.index = Some(0);
                                chunk.start = i == 0;
                                chunk
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    Ok((vec![message], chunks))
                }
                None => Err(GeneratorError::new(format!(
                    "model script exhausted at LLM call {call} (the scenario scripts {} replies); \
                     script one more reply under `model`, or expect this error with `expect.error`",
                    replies.len()
                ))),
            },
            Source::Function(function) => {
                Ok((function(request.messages, request.tools)?, Vec::new()))
            }
        }
    }
}

/// A reply with `chunks` streams them, each `{content, index: 0}` and the
/// first marked `start`, before the reply is returned.
impl ChatGenerator for ScriptedChatGenerator {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        let (replies, chunks) = self.next_reply(&request)?;
        if let Some(callback) = request.streaming_callback {
            for chunk in &chunks {
                callback.call(chunk);
            }
        }
        Ok(replies)
    }

    fn run_async<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<Vec<ChatMessage>, GeneratorError>> {
        Box::pin(async move {
            let (replies, chunks) = self.next_reply(&request)?;
            if let Some(callback) = request.streaming_callback {
                for chunk in chunks {
                    callback.call_async(chunk).await;
                }
            }
            Ok(replies)
        })
    }
}

impl ChatGenerator for Arc<ScriptedChatGenerator> {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        (**self).run(request)
    }

    fn run_async<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<Vec<ChatMessage>, GeneratorError>> {
        (**self).run_async(request)
    }
}
