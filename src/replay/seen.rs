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
    /// The messages sent, in order.
    pub messages: Vec<ChatMessage>,
    /// The tools offered, by name, in order.
    pub tools: Vec<String>,
}

impl SeenRequest {
    /// The request as a recording writes it: `sees: {messages, tools}`.
    #[must_use]
    pub fn to_sees(&self) -> Sees {
        Sees::request(
            self.messages.iter().map(MessageSpec::of_message).collect(),
            self.tools.clone(),
        )
    }
}

/// The requests seen so far, shared with the wrapper.
pub(crate) type SeenLog = Arc<Mutex<Vec<SeenRequest>>>;

/// A chat generator that keeps each request, then asks `inner`.
pub(crate) struct Seeing {
    inner: Arc<dyn ChatGenerator>,
    log: SeenLog,
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
        let seen = SeenRequest {
            messages: request.messages.to_vec(),
            tools: request
                .tools
                .iter()
                .map(|tool| tool.spec().name.clone())
                .collect(),
        };
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(seen);
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
