//! What the model was sent at each call: the side channel behind `sees:`,
//! `hookharness record` and `hookharness rebase`.
//!
//! The model is wrapped, never the loop: the wrapper keeps a copy of each
//! request and hands it on unchanged, so the run is the one it wraps.

use crate::generator::{ChatGenerator, ChatRequest, GeneratorError, GeneratorFuture};
use crate::message::ChatMessage;
use crate::scenario::{MessageSpec, Sees};
use std::sync::{Arc, Mutex};

/// One model call's request: the conversation and the names of the tools
/// offered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SeenRequest {
    /// The messages sent, in order. A message equal to the one at the same
    /// place of the request before is that message, shared: the requests
    /// of a run hold each message once, not once per call.
    pub messages: Vec<Arc<ChatMessage>>,
    /// The tools offered, by name, in order.
    pub tools: Vec<String>,
}

impl SeenRequest {
    /// Every tool result sent, in order, as the model reads it: its text,
    /// `None` for a result that is not text (`sees.tool_results`).
    #[must_use]
    pub fn tool_results(&self) -> Vec<Option<String>> {
        self.messages
            .iter()
            .flat_map(|m| m.tool_call_results())
            .map(|r| r.result.as_text().map(str::to_owned))
            .collect()
    }

    /// The request as a recording writes it: `sees: {messages, tools}`.
    #[must_use]
    pub fn to_sees(&self) -> Sees {
        Sees::request(
            self.messages
                .iter()
                .map(|m| MessageSpec::of_message(m))
                .collect(),
            self.tools.clone(),
        )
    }

    /// The request as a recording writes it after `previous`, the request
    /// before it: `sees: {previous_messages, new_messages, tools}`, the
    /// messages it shares with `previous` counted, the others listed, so
    /// that a recording holds each message once; `sees: {messages, tools}`
    /// when there is no previous request or the two share no first message.
    #[must_use]
    pub fn to_sees_after(&self, previous: Option<&SeenRequest>) -> Sees {
        let shared = previous.map_or(0, |previous| self.shared_prefix(previous));
        if shared == 0 {
            return self.to_sees();
        }
        Sees::after(
            shared,
            self.messages[shared..]
                .iter()
                .map(|m| MessageSpec::of_message(m))
                .collect(),
            self.tools.clone(),
        )
    }

    /// How many first messages this request and `other` have in common.
    #[must_use]
    pub fn shared_prefix(&self, other: &SeenRequest) -> usize {
        self.messages
            .iter()
            .zip(&other.messages)
            .take_while(|(a, b)| Arc::ptr_eq(a, b) || a == b)
            .count()
    }

    /// A request of these messages and tools.
    #[must_use]
    pub fn new(messages: Vec<ChatMessage>, tools: Vec<String>) -> SeenRequest {
        SeenRequest {
            messages: messages.into_iter().map(Arc::new).collect(),
            tools,
        }
    }
}

/// The requests seen so far, shared with the wrapper.
pub(crate) type SeenLog = Arc<Mutex<Vec<SeenRequest>>>;

/// A chat generator that keeps each request, then asks `inner`.
pub(crate) struct Seeing {
    inner: Arc<dyn ChatGenerator>,
    log: SeenLog,
}

/// `messages` as a request's, each message equal to the one at the same
/// place of `previous` shared with it.
pub(crate) fn shared_with(
    messages: &[ChatMessage],
    previous: Option<&SeenRequest>,
) -> Vec<Arc<ChatMessage>> {
    let before = previous.map_or(&[][..], |p| p.messages.as_slice());
    messages
        .iter()
        .enumerate()
        .map(|(i, message)| match before.get(i) {
            Some(kept) if **kept == *message => kept.clone(),
            _ => Arc::new(message.clone()),
        })
        .collect()
}

impl Seeing {
    pub(crate) fn new(inner: Arc<dyn ChatGenerator>) -> (Arc<Seeing>, SeenLog) {
        let log = SeenLog::default();
        let seeing = Arc::new(Seeing {
            inner,
            log: log.clone(),
        });
        (seeing, log)
    }

    fn keep(&self, request: &ChatRequest<'_>) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let seen = SeenRequest {
            messages: shared_with(request.messages, log.last()),
            tools: request
                .tools
                .iter()
                .map(|tool| tool.spec().name.clone())
                .collect(),
        };
        log.push(seen);
    }
}

/// The requests of `log`, taken out.
pub(crate) fn take(log: &SeenLog) -> Vec<SeenRequest> {
    std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()))
}

impl ChatGenerator for Seeing {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        self.keep(&request);
        self.inner.run(request)
    }

    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        self.keep(&request);
        self.inner.run_async(request)
    }

    fn supports_tools(&self) -> bool {
        self.inner.supports_tools()
    }

    fn warm_up(&self) -> Result<(), GeneratorError> {
        self.inner.warm_up()
    }

    fn close(&self) -> Result<(), GeneratorError> {
        self.inner.close()
    }
}

/// About how many bytes the messages of `request` that it does not share
/// with `previous` take written in a scenario (their compact JSON): what
/// its `sees` adds to a recording.
pub(crate) fn new_bytes(request: &SeenRequest, previous: Option<&SeenRequest>) -> usize {
    let before = previous.map_or(&[][..], |p| p.messages.as_slice());
    request
        .messages
        .iter()
        .enumerate()
        .filter(|(i, message)| {
            !before
                .get(*i)
                .is_some_and(|kept| Arc::ptr_eq(kept, message))
        })
        .map(|(_, message)| {
            let written = crate::scenario::write_message(&MessageSpec::of_message(message));
            serde_json::to_vec(&written).map_or(0, |bytes| bytes.len())
        })
        .sum()
}
