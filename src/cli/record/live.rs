//! What `record` shows while it talks to the server: one progress line per
//! live call when stderr is a terminal, and a warning for every tool call
//! the server sent with arguments that are not JSON (Haystack drops such a
//! call with a log line; so does the generator, and `record` says so).

use crate::cli::output::{err, errln};
use crate::future::CallFuture;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError, GeneratorFuture};
use crate::message::ChatMessage;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// Wraps the live generator: numbers its calls and, on a terminal, prints
/// `live call N ... done in 1.2 s` for each.
pub(super) struct Progress<G> {
    inner: G,
    calls: AtomicUsize,
    on_terminal: bool,
}

impl<G: ChatGenerator> Progress<G> {
    pub(super) fn new(inner: G, on_terminal: bool) -> Self {
        Progress {
            inner,
            calls: AtomicUsize::new(0),
            on_terminal,
        }
    }

    fn started(&self) -> Option<Instant> {
        let call = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        self.on_terminal.then(|| {
            err!("live call {call} ...");
            Instant::now()
        })
    }

    fn finished(
        &self,
        started: Option<Instant>,
        result: &Result<Vec<ChatMessage>, GeneratorError>,
    ) {
        if let Some(started) = started {
            let seconds = started.elapsed().as_secs_f64();
            match result {
                Ok(_) => errln!(" done in {seconds:.1} s"),
                Err(_) => errln!(" failed after {seconds:.1} s"),
            }
        }
    }
}

impl<G: ChatGenerator> ChatGenerator for Progress<G> {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        let started = self.started();
        let result = self.inner.run(request);
        self.finished(started, &result);
        result
    }

    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        CallFuture::new(async move {
            let started = self.started();
            let result = self.inner.run_async(request).await;
            self.finished(started, &result);
            result
        })
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

/// The longest field value a warning shows (a dropped call's arguments can
/// be as long as a reply).
const SHOWN_CHARS: usize = 200;

/// Prints the HTTP generator's warnings on stderr, one line each:
/// `warning: <message> (tool_name=..., arguments=...)`. Installed for the
/// whole `record` process, as the generator logs from its own thread.
pub(super) struct Warnings;

impl Subscriber for Warnings {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event()
            && *metadata.level() <= Level::WARN
            && metadata.target().starts_with("hookharness::openai")
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line::default();
        event.record(&mut line);
        if line.fields.is_empty() {
            errln!("warning: {}", line.message);
        } else {
            errln!("warning: {} ({})", line.message, line.fields);
        }
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[derive(Default)]
struct Line {
    message: String,
    fields: String,
}

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            self.message = text;
            return;
        }
        if !self.fields.is_empty() {
            self.fields.push_str(", ");
        }
        let _ = write!(
            self.fields,
            "{}={}",
            field.name(),
            crate::elide::elide(&text, SHOWN_CHARS)
        );
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.record_debug(field, &format_args!("{value}"));
    }
}
