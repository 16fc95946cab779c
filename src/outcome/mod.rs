//! The outcome of one scenario: status, failures, typed error and result,
//! and the complete trace of the run.
//!
//! ```text
//!  observe::Event (live) ──▶ TraceRecorder ──▶ Outcome.trace: Vec<TraceEvent>  (every kind, owned)
//!                                                 │
//!            ┌────────────────┬───────────────────┼──────────────────┬──────────────┐
//!            ▼                ▼                   ▼                  ▼              ▼
//!      to_value (JSON,   to_full_value      report::explain     invariants     human, JUnit
//!      4 wire kinds)     (--trace full)     (timeline)          (checks)       reports
//! ```
//!
//! [`Outcome::to_value`] writes the outcome JSON of the scenario-format
//! contract: its trace holds four event kinds (hook, llm, tool, exit), and
//! that shape is what the conformance runner compares. [`Outcome::to_full_value`] writes
//! every recorded event as well, and [`Outcome::from_full_json`] reads that
//! back, so a saved outcome can be explained and checked later.

mod error;
mod recorder;
mod result;
mod snapshot;
mod trace;
mod wire;

pub use error::{ErrorKind, RunError};
pub use recorder::{Detail, TraceRecorder};
pub use result::RunResult;
pub use snapshot::Snapshot;
pub use trace::{
    CallRef, KeyChange, MessageChanges, PendingTools, Rewrite, StateChanges, TraceEvent, TraceKind,
};
use wire::WireEvent;

use crate::value::sorted;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How a scenario ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Status {
    /// Every expectation holds.
    Pass,
    /// An expectation does not hold.
    Fail,
    /// The run failed unexpectedly (a construction or run error no
    /// `expect.error` expected).
    Error,
    /// The file is not a valid scenario; nothing ran.
    Invalid,
}

impl Status {
    /// `pass`, `fail`, `error` or `invalid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Invalid => "invalid",
        }
    }

    /// The status as the outcome JSON of the contract writes it: an invalid
    /// file is an `error` there.
    pub fn wire_str(self) -> &'static str {
        match self {
            Status::Invalid => "error",
            other => other.as_str(),
        }
    }
}

/// One unmet expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Failure {
    /// The `expect` key that failed (`state`, `hooks`), or what else
    /// failed the scenario: `sees` (a reply's `sees`), `unused_replies`
    /// (replies left unused), `engines` (`--engine both`). Not written in
    /// the full outcome JSON (whose form is pinned): read back, it is empty.
    #[serde(default, skip_serializing)]
    pub key: String,
    /// The readable line (as the outcome JSON lists it).
    pub message: String,
    /// The expected value, when the failure compares values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// The actual value, when the failure compares values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
}

impl Failure {
    pub(crate) fn line(key: &str, message: String) -> Self {
        Failure {
            key: key.to_owned(),
            message,
            expected: None,
            actual: None,
        }
    }

    pub(crate) fn compare(key: &str, message: String, expected: Value, actual: Value) -> Self {
        Failure {
            key: key.to_owned(),
            message,
            expected: Some(expected),
            actual: Some(actual),
        }
    }
}

/// The outcome of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Outcome {
    /// The scenario's `name`, else the file stem.
    pub scenario: String,
    /// The file, as given.
    pub file: String,
    /// pass, fail, error or invalid.
    pub status: Status,
    /// Unmet expectations.
    pub failures: Vec<Failure>,
    /// Why the run failed or the file is invalid.
    pub error: Option<RunError>,
    /// Haystack's return value (`None` when the run failed).
    pub result: Option<RunResult>,
    /// Every event of the run, in order.
    pub trace: Vec<TraceEvent>,
}

impl Outcome {
    /// The outcome of `scenario` (from `file`) with this status and
    /// nothing else yet: no failures, error, result or events.
    #[must_use]
    pub fn new(scenario: impl Into<String>, file: impl Into<String>, status: Status) -> Self {
        Outcome {
            scenario: scenario.into(),
            file: file.into(),
            status,
            failures: Vec::new(),
            error: None,
            result: None,
            trace: Vec::new(),
        }
    }

    /// `true` when the status is pass.
    pub fn passed(&self) -> bool {
        self.status == Status::Pass
    }

    /// The trace as the outcome JSON shows it: its events of the four
    /// wire kinds (hook, llm, tool, exit), each as the JSON writes it (keys
    /// unsorted).
    ///
    /// ```
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("model: [{text: hi}]", "hi.yaml", Format::Yaml)?;
    /// let outcome = Replay::new().run(&scenario);
    /// let events: Vec<_> = outcome.wire_trace().map(|e| e["event"].clone()).collect();
    /// assert_eq!(events, ["llm", "exit"]);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    pub fn wire_trace(&self) -> impl Iterator<Item = Value> + '_ {
        self.wire_events().map(|e| e.to_value())
    }

    /// The trace as the outcome JSON shows it, typed.
    fn wire_events(&self) -> impl Iterator<Item = WireEvent> + '_ {
        self.trace.iter().filter_map(WireEvent::of)
    }

    /// The outcome as the contract's JSON value, keys sorted at every
    /// level: the error as its text, failures as their lines, the trace in
    /// its four wire kinds.
    pub fn to_value(&self) -> Value {
        let mut map = self.value_without_trace();
        map.insert("trace".into(), Value::Array(self.wire_trace().collect()));
        sorted(Value::Object(map))
    }

    /// Whether the two outcomes have the same [`to_value`](Self::to_value),
    /// found without building the trace's value: the trace of a long run
    /// with many hooks holds a hook event per hook and step.
    #[must_use]
    pub fn same_value(&self, other: &Outcome) -> bool {
        // Map equality ignores key order, so the unsorted maps compare as
        // the sorted ones do.
        self.wire_events().eq(other.wire_events())
            && self.value_without_trace() == other.value_without_trace()
    }

    /// The keys of [`to_value`](Self::to_value) but `trace`, unsorted.
    fn value_without_trace(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("scenario".into(), self.scenario.clone().into());
        map.insert("file".into(), self.file.clone().into());
        map.insert("status".into(), self.status.wire_str().into());
        map.insert(
            "failures".into(),
            Value::Array(
                self.failures
                    .iter()
                    .map(|f| f.message.clone().into())
                    .collect(),
            ),
        );
        map.insert(
            "error".into(),
            self.error
                .as_ref()
                .map_or(Value::Null, |e| e.message.clone().into()),
        );
        map.insert(
            "result".into(),
            self.result
                .as_ref()
                .map_or(Value::Null, RunResult::to_value),
        );
        map
    }

    /// [`to_value`](Self::to_value) for snapshot tools:
    /// `insta::assert_json_snapshot!(outcome.snapshot())` writes its numbers
    /// as numbers under every feature set (see [`Snapshot`]).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::new(self.to_value())
    }

    /// One JSON line of [`to_value`](Self::to_value): keys sorted, non-ASCII
    /// kept, no trailing newline.
    pub fn to_json_line(&self) -> String {
        self.to_value().to_string()
    }

    /// Everything recorded: the typed error (`kind`, its context,
    /// `message`), failures with `expected` and `actual`, and every trace
    /// event. Keys come in a fixed order, not sorted: tool-call arguments
    /// keep the order the model gave them, as Haystack renders them.
    /// [`from_full_json`](Self::from_full_json) reads its text back.
    ///
    /// ```
    /// use hookharness::replay::{Outcome, Replay};
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("model: [{text: hi}]", "hi.yaml", Format::Yaml)?;
    /// let outcome = Replay::new().run(&scenario);
    /// let line = outcome.to_full_value().to_string();
    /// assert_eq!(Outcome::from_full_json(&line).unwrap(), outcome);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    pub fn to_full_value(&self) -> Value {
        // Every map key of an outcome is a string, so serializing cannot fail.
        serde_json::to_value(self).expect("an outcome serializes to JSON")
    }

    /// Reads the text of an outcome written by
    /// [`to_full_value`](Self::to_full_value) (one line of `hookharness run
    /// --format json --trace full`). The text, not a parsed value: integers
    /// past 64 bits stay exact only on the way from text.
    pub fn from_full_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}
