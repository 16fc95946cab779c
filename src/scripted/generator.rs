//! A chat generator that replays scripted replies.

use super::ModelReply;
use crate::future::CallFuture;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError, GeneratorFuture};
use crate::message::ChatMessage;
use crate::stream::StreamingChunk;
use crate::tool::Tool;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

type ReplyFn = dyn Fn(&[ChatMessage], &[Arc<dyn Tool>]) -> Result<Vec<ChatMessage>, GeneratorError>
    + Send
    + Sync;

/// A chat generator that replays a script, one reply per call, and fails
/// with "model script exhausted at LLM call N (the scenario scripts M
/// replies)" past its end. It never cycles.
///
/// ```
/// use hookharness::scripted::{ModelReply, ScriptedChatGenerator};
/// use serde_json::json;
///
/// let model = ScriptedChatGenerator::new([
///     ModelReply::tool_call("search", json!({"query": "fusion"})),
///     ModelReply::text("Here is what I found."),
/// ]);
/// assert_eq!(model.scripted(), 2);
/// ```
pub struct ScriptedChatGenerator {
    source: Source,
    calls: AtomicUsize,
}

enum Source {
    Script(Vec<ModelReply>),
    Function(Box<ReplyFn>),
}

impl ScriptedChatGenerator {
    /// Replays these replies in order.
    pub fn new(replies: impl IntoIterator<Item = ModelReply>) -> Self {
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
                    let chunks = match (reply.chunks(), request.streaming_callback) {
                        (Some(chunks), Some(_)) => chunks
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
                None => Err(GeneratorError::new(super::wording::exhausted(
                    call,
                    replies.len(),
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

    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        // Without a callback to await, the reply is there at once.
        let Some(callback) = request.streaming_callback else {
            return CallFuture::ready(self.next_reply(&request).map(|(replies, _)| replies));
        };
        CallFuture::new(async move {
            let (replies, chunks) = self.next_reply(&request)?;
            for chunk in chunks {
                callback.call_async(chunk).await;
            }
            Ok(replies)
        })
    }
}

impl ChatGenerator for Arc<ScriptedChatGenerator> {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        (**self).run(request)
    }

    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        (**self).run_async(request)
    }
}
