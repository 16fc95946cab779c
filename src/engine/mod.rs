//! Engines: what turns a loaded scenario into a record of its run.
//!
//! ```text
//!  Scenario (loaded and validated by the Rust loader)
//!     │
//!     ├── the Rust engine: Haystack 3.4.1's loop in this crate (the default, in process)
//!     └── the Haystack engine: the real `Agent` of an installed haystack-ai, in a Python worker
//!     ▼
//!  Record { trace, result, error, streamed, requests } ──▶ expectations, reports, explore, mutate
//! ```
//!
//! Loading, checking the expectations, reporting, `explore` and `mutate`
//! stay on the Rust side whichever engine ran: an engine only records. The
//! Rust engine is [`Replay`](crate::replay::Replay)'s own path (it also runs
//! custom Rust hooks and a live generator); another engine is given with
//! [`Replay::engine`](crate::replay::Replay::engine).

pub mod haystack;
mod live;

pub use live::{LiveCall, LiveModels};

use crate::outcome::{RunError, RunResult, TraceEvent};
use crate::replay::SeenRequest;
use crate::scenario::Scenario;
use serde_json::Value;

pub use crate::outcome::Detail;

/// What an engine is asked for besides the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct RecordOptions {
    /// How much of the run the trace keeps.
    pub detail: Detail,
    /// Keep what the Agent's model was sent at each call.
    pub keep_requests: bool,
}

/// What one run produced, whichever engine ran it.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Record {
    /// Every event, in order.
    pub trace: Vec<TraceEvent>,
    /// Haystack's return value, when the run finished.
    pub result: Option<RunResult>,
    /// Why the run failed.
    pub error: Option<RunError>,
    /// What a streaming run received (`expect.streamed`'s form).
    pub streamed: Vec<Value>,
    /// What the Agent's model was sent at each call, when asked for.
    pub requests: Vec<SeenRequest>,
    /// Replies of named scripts (`models:`) never used, by script name.
    pub unused_models: Vec<(String, usize)>,
    /// The engine itself failed (a worker that died or timed out): the
    /// scenario errors and its expectations are not checked.
    pub engine_failed: bool,
}

impl Record {
    /// A record of an engine failure: nothing ran as far as anyone can tell.
    #[must_use]
    pub fn engine_failure(error: RunError) -> Record {
        Record {
            error: Some(error),
            engine_failed: true,
            ..Record::default()
        }
    }
}

/// Turns a loaded scenario into a [`Record`]. An engine never panics on a
/// scenario and never stops because of one: whatever goes wrong is the
/// record's error.
pub trait Engine: Send + Sync {
    /// The engine's name, as `--engine` takes it.
    fn name(&self) -> &str;

    /// Runs `scenario` (loaded and validated) and records the run.
    fn record(&self, scenario: &Scenario, options: RecordOptions) -> Record;

    /// [`record`](Engine::record), every model call (the main `model` and
    /// each `models:` script) answered by `models` instead of its script:
    /// what `hookharness record` runs. An engine that cannot relay its
    /// model calls records an engine failure saying so (the default).
    fn record_live(
        &self,
        scenario: &Scenario,
        options: RecordOptions,
        models: &dyn LiveModels,
    ) -> Record {
        let _ = (scenario, options, models);
        Record::engine_failure(RunError::engine(format!(
            "the {} engine cannot answer its model calls live, so it cannot record",
            self.name()
        )))
    }

    /// `scenario` (loaded and validated) is the next one the caller will
    /// [`record`](Self::record) with `options`, after the one it records
    /// now: an engine may start on it already. The Haystack engine sends
    /// its request to the worker, which finds it waiting when it finishes
    /// the current scenario. Nothing else changes: `record` still gives
    /// each scenario its own record, deadline and errors. A caller that
    /// never calls it (one that exchanges messages with the engine during a
    /// run) gets one request at a time. By default nothing happens.
    fn ahead(&self, scenario: &Scenario, options: RecordOptions) {
        let _ = (scenario, options);
    }

    /// Whether the engine finds `custom:` hooks itself: a Haystack worker
    /// the pytest plugin forked holds the hooks its fixtures register by
    /// name. Otherwise a scenario with one is refused before it is
    /// recorded (the Rust engine's come from `Replay::custom`).
    fn finds_custom_hooks(&self) -> bool {
        false
    }
}
