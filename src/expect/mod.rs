//! Expectations: what a scenario's run must show (`expect:`), as a list of
//! [`Expectation`]s, and their check over a run that already happened.
//!
//! Each key lives in one file under `keys/` with everything about it side
//! by side: its value's reading, writing, JSON Schema and check. The
//! table in this file lists the keys, in the order they are read, written
//! and checked, and says what each one is checked against:
//!
//! ```text
//!  keys/exit_reason.rs …  read · write · schema · check   one file per key
//!  mod.rs                 the table: Expectation, its dispatch, check()
//!  list.rs                a list in its match modes (hooks, tools_run, trace, tool_calls)
//!  value.rs               a value against a ValuePattern
//!  trace.rs               the run's events as `expect.trace` matchers see them
//!  printed.rs             what the user's code printed, from the trace
//!  sees.rs                `model[i].sees` against the request each reply answered
//!  always.rs              `expect.always`, which `hookharness explore` holds every variant to
//! ```
//!
//! Adding a key: its file under `keys/`, and its `mod` line and its line
//! in the table, both in this file.
//!
//! A run is checked without replaying it ([`Expect::check`] over a
//! [`Run`]), as wiremock verifies what its server received:
//!
//! ```
//! use hookharness::expect::Run;
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//!
//! let scenario = Scenario::from_str(
//!     "model: [{text: hi}]\nexpect: {exit_reason: text, llm_calls: 2}",
//!     "two.yaml",
//!     Format::Yaml,
//! )?;
//! let outcome = Replay::new().run(&scenario);
//! let failures = scenario.expect.check(Run::of_outcome(&outcome));
//! assert_eq!(failures.len(), 1);
//! assert_eq!(failures[0].key, "llm_calls");
//! assert_eq!(failures[0].message, "llm_calls: expected 2, got 1");
//! assert_eq!(failures, outcome.failures);
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

mod always;
mod list;
mod printed;
mod sees;
mod trace;
mod value;

pub(crate) use always::read_always;
pub use always::{Always, UnderFaults};
pub use keys::last_message::{LastMessageExpect, ToolCallExpect};
pub(crate) use keys::last_message::{
    read_message as read_last_message, write as write_last_message,
};
pub(crate) use sees::{Listed as SeesListed, difference as sees_difference, listed as sees_listed};

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::outcome::{Failure, Outcome, RunResult, TraceEvent};
use crate::pyfmt;
use crate::replay::SeenRequest;
use crate::scenario::reading::{Field, MapReader, Read};
use crate::scenario::{EventPattern, ListExpect, Scenario, ValuePattern};
use crate::state::SchemaEntry;
use crate::value::sorted;

/// What a failed run cannot show.
const NO_RESULT: &str = "no result to check (the run failed)";

/// A value rendered for a failure line (sorted keys, Python's separators).
pub(crate) fn render(value: &Value) -> String {
    pyfmt::json_dumps(&sorted(value.clone()))
}

/// One file per key under `keys/`: its value's reading, writing, JSON
/// Schema and check, side by side (the table below lists them).
mod keys {
    pub(super) mod error;
    pub(super) mod exit_reason;
    pub(super) mod hooks;
    pub(crate) mod last_message;
    pub(super) mod llm_calls;
    pub(super) mod message_count;
    pub(super) mod printed;
    pub(super) mod state;
    pub(super) mod step_count;
    pub(super) mod streamed;
    pub(super) mod token_usage;
    pub(super) mod tool_call_counts;
    pub(super) mod tools_run;
    pub(super) mod trace;

    /// The schema of a list expectation (`super::list`'s match modes).
    pub(super) use crate::schema::list_expectation as list_schema;
}

/// The table: each key's variant, the type of its value, its file under
/// `keys/` (named as the key) and what it is checked against:
/// - `result`: the run's result (a failed run fails it with "no result to
///   check"),
/// - `run`: the trace, error and streamed chunks, which a failed run has
///   too,
/// - `outcome`: as `run`, and only in `expect` (not in `always`: a
///   variant may fail).
macro_rules! expectations {
    ($($(#[doc = $doc:literal])* $variant:ident($ty:ty): $key:ident, $against:ident;)*) => {
        /// One expectation: a key of `expect` and its value.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Expectation {
            $($(#[doc = $doc])* $variant($ty),)*
        }

        impl Expectation {
            /// Every key, in the order expectations are read, written and
            /// checked.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($key)),*];

            /// The key of `expect` this expectation is given under.
            #[must_use]
            pub fn key(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => stringify!($key),)*
                }
            }

            /// Whether a run that failed (no result) can still hold it.
            #[must_use]
            pub fn holds_without_result(&self) -> bool {
                match self {
                    $(Self::$variant(_) => !expectations!(@needs_result $against),)*
                }
            }

            /// The value as the scenario file writes it.
            #[must_use]
            pub fn to_value(&self) -> Value {
                match self {
                    $(Self::$variant(value) => keys::$key::write(value),)*
                }
            }

            fn check(&self, run: &Run<'_>, failures: &mut Vec<Failure>) {
                match self {
                    $(Self::$variant(want) => expectations!(@check $against, $key, want, run, failures),)*
                }
            }

            /// Reads each key of the table given in `map`, in the table's
            /// order; `outcome` keys only when `outcome`.
            fn read_all(
                map: &mut MapReader<'_>,
                schema: &IndexMap<String, SchemaEntry>,
                outcome: bool,
            ) -> Read<Vec<Expectation>> {
                let mut list = Vec::new();
                $(
                    if outcome || expectations!(@in_always $against) {
                        if let Some(field) = map.get(stringify!($key)) {
                            list.push(Self::$variant(keys::$key::read(&field, schema)?));
                        }
                    }
                )*
                Ok(list)
            }

            /// The JSON Schema of each key, by key; `outcome` keys only
            /// when `outcome`.
            pub(crate) fn schemas(outcome: bool) -> Vec<(&'static str, Value)> {
                let mut out = Vec::new();
                $(
                    if outcome || expectations!(@in_always $against) {
                        out.push((stringify!($key), keys::$key::schema()));
                    }
                )*
                out
            }
        }
    };
    (@needs_result result) => { true };
    (@needs_result $other:ident) => { false };
    (@in_always outcome) => { false };
    (@in_always $other:ident) => { true };
    (@check result, $key:ident, $want:ident, $run:ident, $failures:ident) => {
        match $run.result {
            Some(result) => keys::$key::check($want, result, $failures),
            None => $failures.push(Failure::line(
                stringify!($key),
                format!("{}: {NO_RESULT}", stringify!($key)),
            )),
        }
    };
    (@check $against:ident, $key:ident, $want:ident, $run:ident, $failures:ident) => {
        keys::$key::check($want, $run, $failures)
    };
}

expectations! {
    /// `exit_reason`: equals the outcome's.
    ExitReason(String): exit_reason, result;
    /// `step_count`: equals.
    StepCount(i64): step_count, result;
    /// `token_usage`: matches (a plain map: equals).
    TokenUsage(ValuePattern): token_usage, result;
    /// `tool_call_counts`: equals.
    ToolCallCounts(IndexMap<String, i64>): tool_call_counts, result;
    /// `state`: each listed public state key matches (a plain value: equals).
    State(IndexMap<String, ValuePattern>): state, result;
    /// `last_message`: matches every given field.
    LastMessage(Box<LastMessageExpect>): last_message, result;
    /// `message_count`: `len(messages)` equals.
    MessageCount(i64): message_count, result;
    /// `hooks`: the hooks that ran, each `POINT` or `POINT:NAME`; a plain
    /// list is the exact sequence.
    Hooks(ListExpect<String>): hooks, run;
    /// `llm_calls`: the number of chat-generator calls equals.
    LlmCalls(i64): llm_calls, run;
    /// `tools_run`: the executed tool names; a plain list is the exact
    /// sequence.
    ToolsRun(ListExpect<String>): tools_run, run;
    /// `trace`: the run's events, matched by partial event matchers; a
    /// plain list is the exact sequence of events of every kind.
    Trace(ListExpect<EventPattern>): trace, run;
    /// `streamed`: what a streaming run (`run.stream`) received, in order: a
    /// string per text chunk, `{tool_result: TEXT}` per tool result and
    /// `{finish_reason: R}` for a chunk that ends a stream.
    Streamed(Vec<Value>): streamed, run;
    /// `printed`: texts that appear, in this order, in what the user's
    /// Python hooks and tools printed or logged (the Haystack engine
    /// captures it).
    Printed(Vec<String>): printed, run;
    /// `error`: the run fails with an error whose text contains this.
    Error(String): error, outcome;
}

/// The expectations of a scenario (`expect:`): each one given must hold.
///
/// ```
/// use hookharness::expect::Expectation;
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str(
///     "model: []\nexpect: {tools_run: [], exit_reason: text, unused_replies: allow}",
///     "keys.yaml",
///     Format::Yaml,
/// )?;
/// assert_eq!(scenario.expect.keys(), ["exit_reason", "tools_run"]);
/// assert_eq!(scenario.expect.list[0], Expectation::ExitReason("text".into()));
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Expect {
    /// The expectations given, in [`Expectation::KEYS`] order, at most one
    /// per key.
    pub list: Vec<Expectation>,
    /// `unused_replies` (default `fail`).
    pub unused_replies: UnusedReplies,
    /// `always`: what must hold on every variant `hookharness explore`
    /// runs.
    pub always: Option<Box<Always>>,
}

/// What to do when scripted `model` replies are left unused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnusedReplies {
    /// `fail` (default): a successful run that leaves replies fails the scenario.
    #[default]
    Fail,
    /// `allow`.
    Allow,
}

const UNUSED_REPLIES: &[(&str, UnusedReplies)] = &[
    ("fail", UnusedReplies::Fail),
    ("allow", UnusedReplies::Allow),
];

/// A run as the expectations see it: what [`Expect::check`] reads.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Run<'a> {
    /// Haystack's return value, when the run finished.
    pub result: Option<&'a RunResult>,
    /// The run's events.
    pub trace: &'a [TraceEvent],
    /// The run's error text, as `expect.error` matches it.
    pub error: Option<&'a str>,
    /// What a streaming run received.
    pub streamed: &'a [Value],
}

impl<'a> Run<'a> {
    /// A run of these parts.
    #[must_use]
    pub fn new(
        result: Option<&'a RunResult>,
        trace: &'a [TraceEvent],
        error: Option<&'a str>,
        streamed: &'a [Value],
    ) -> Self {
        Run {
            result,
            trace,
            error,
            streamed,
        }
    }

    /// The run an outcome records (its trace as detailed as the run kept
    /// it; nothing streamed). `expect.error` reads the outcome's error
    /// text, which for an error of the Rust engine is Haystack's text with
    /// the harness's context around it.
    #[must_use]
    pub fn of_outcome(outcome: &'a Outcome) -> Self {
        Run::new(
            outcome.result.as_ref(),
            &outcome.trace,
            outcome.error.as_ref().map(|e| e.message.as_str()),
            &[],
        )
    }
}

impl Expect {
    /// The expectation given under `key`, if any.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Expectation> {
        self.list.iter().find(|e| e.key() == key)
    }

    /// `expect.error`, if given.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.list.iter().find_map(|e| match e {
            Expectation::Error(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// Sets the expectation of its key, in the table's order.
    pub fn set(&mut self, expectation: Expectation) {
        let key = expectation.key();
        self.list.retain(|e| e.key() != key);
        let rank = |e: &Expectation| Expectation::KEYS.iter().position(|k| *k == e.key());
        let at = self
            .list
            .iter()
            .position(|e| rank(e) > rank(&expectation))
            .unwrap_or(self.list.len());
        self.list.insert(at, expectation);
    }

    /// The expectation keys given (not `unused_replies` or `always`), in
    /// [`Expectation::KEYS`] order.
    #[must_use]
    pub fn keys(&self) -> Vec<&'static str> {
        self.list.iter().map(Expectation::key).collect()
    }

    /// These expectations with only `keys` kept (and `unused_replies`
    /// allowed, `always` dropped): what a variant of the scenario is held to.
    #[must_use]
    pub fn only(&self, keys: &[impl AsRef<str>]) -> Expect {
        Expect {
            list: self
                .list
                .iter()
                .filter(|e| keys.iter().any(|k| k.as_ref() == e.key()))
                .cloned()
                .collect(),
            unused_replies: UnusedReplies::Allow,
            always: None,
        }
    }

    /// The failures of these expectations over `run`, in the table's order
    /// (a scenario's run also checks each reply's `sees` and the replies
    /// left unused, which need the scenario).
    #[must_use]
    pub fn check(&self, run: Run<'_>) -> Vec<Failure> {
        let mut failures = Vec::new();
        for expectation in &self.list {
            expectation.check(&run, &mut failures);
        }
        failures
    }

    /// The file's form of `expect` (empty when nothing is given).
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let mut out: Map<String, Value> = self
            .list
            .iter()
            .map(|e| (e.key().to_owned(), e.to_value()))
            .collect();
        if self.unused_replies == UnusedReplies::Allow {
            out.insert("unused_replies".into(), json!("allow"));
        }
        if let Some(always) = &self.always {
            out.insert("always".into(), always.to_value());
        }
        out
    }
}

/// Reads `expect`.
pub(crate) fn read_expect(
    field: &Field<'_>,
    schema: &IndexMap<String, SchemaEntry>,
) -> Read<Expect> {
    let mut map = field.map()?;
    let list = Expectation::read_all(&mut map, schema, true)?;
    let mut expect = Expect {
        list,
        ..Expect::default()
    };
    if let Some(f) = map.get("unused_replies") {
        expect.unused_replies = f.variant(UNUSED_REPLIES)?;
    }
    expect.always = map
        .get("always")
        .map(|f| read_always(&f, schema).map(Box::new))
        .transpose()?;
    map.finish()?;
    Ok(expect)
}

/// The failures of a scenario's run: a stale reply's `sees` first (it
/// explains whatever else fails), then `expect` in the table's order, then
/// replies left unused.
pub(crate) fn check(scenario: &Scenario, run: Run<'_>, requests: &[SeenRequest]) -> Vec<Failure> {
    let mut failures: Vec<Failure> = sees::check(scenario, requests).into_iter().collect();
    failures.extend(scenario.expect.check(run));
    let llm_calls = keys::llm_calls::count(run.trace);
    if run.error.is_none()
        && scenario.expect.unused_replies == UnusedReplies::Fail
        && llm_calls < scenario.model.len()
    {
        failures.push(Failure::line(
            "unused_replies",
            crate::scripted::wording::unused(scenario.model.len(), llm_calls),
        ));
    }
    failures
}

/// The failure of the result's `key` when it is not `want`.
fn compare_field(failures: &mut Vec<Failure>, result: &RunResult, key: &str, want: Value) {
    let got = result.field(key).cloned().unwrap_or(Value::Null);
    compare(failures, key, want, got);
}

/// The failure of `key` when `got` is not `want`.
fn compare(failures: &mut Vec<Failure>, key: &str, want: Value, got: Value) {
    if !crate::value::json_eq(&got, &want) {
        failures.push(Failure::compare(
            key,
            format!("{key}: expected {}, got {}", render(&want), render(&got)),
            want,
            got,
        ));
    }
}

/// The failure of `key` when `actual` (`None`: absent) does not match
/// `want`: a line naming the first place that differs, with the whole
/// expectation and the whole value.
fn value_failure(
    key: &str,
    want: &ValuePattern,
    actual: Option<&Value>,
    when_absent: &str,
) -> Option<Failure> {
    let found = value::mismatch(want, actual)?;
    let got = match &found.actual {
        Some(got) => format!(", got {}", render(got)),
        None => when_absent.to_owned(),
    };
    let expected = match want {
        ValuePattern::Equals(value) => value.clone(),
        pattern => pattern.to_value(),
    };
    Some(Failure::compare(
        key.split('.').next().unwrap_or(key),
        format!("{key}{}: expected {}{got}", found.path, found.expected),
        expected,
        actual.cloned().unwrap_or(Value::Null),
    ))
}

/// How a value a result lacks reads in a failure line.
const ABSENT: &str = ", but the key is not in the result";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Replay;
    use crate::scenario::Format;

    const EVERY_KEY: &str = "expect:
  printed: [hello]
  trace: [{kind: exit}]
  tools_run: [nope]
  llm_calls: 5
  hooks: [before_run]
  message_count: 9
  last_message: {role: user}
  state: {topic: x}
  tool_call_counts: {lookup: 3}
  token_usage: {prompt_tokens: 1}
  step_count: 7
  exit_reason: tool_call
";

    /// The keys `EVERY_KEY` gives, in the table's order.
    fn given() -> Vec<&'static str> {
        Expectation::KEYS
            .iter()
            .copied()
            .filter(|key| !["streamed", "error"].contains(key))
            .collect()
    }

    fn scenario(model: &str) -> Scenario {
        let text = format!(
            "agent: {{state_schema: {{topic: {{type: str}}}}}}\n\
             tools: [{{name: lookup, results: [found]}}]\n\
             model: {model}\n{EVERY_KEY}"
        );
        Scenario::from_str(&text, "every.yaml", Format::Yaml).unwrap()
    }

    #[test]
    fn every_key_is_read_in_the_tables_order_whatever_the_files() {
        let scenario = scenario("[{text: hi}]");
        assert_eq!(scenario.expect.keys(), given());
    }

    #[test]
    fn failures_come_in_the_tables_order_and_a_recheck_gives_the_runs_own() {
        let scenario = scenario("[{tool_calls: [{tool: lookup}]}, {text: done}]");
        let outcome = Replay::new().run(&scenario);
        let keys: Vec<&str> = outcome.failures.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, given());
        assert_eq!(
            scenario.expect.check(Run::of_outcome(&outcome)),
            outcome.failures
        );
    }

    #[test]
    fn a_failed_run_fails_result_keys_with_no_result_and_checks_the_others() {
        let scenario = scenario("[]");
        let outcome = Replay::new().run(&scenario);
        assert!(outcome.result.is_none());
        let lines: Vec<&str> = outcome
            .failures
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        for key in &Expectation::KEYS[..7] {
            assert!(
                lines.contains(&format!("{key}: {NO_RESULT}").as_str()),
                "{key} in {lines:?}"
            );
        }
        let held: Vec<&str> = scenario
            .expect
            .list
            .iter()
            .filter(|e| e.holds_without_result())
            .map(Expectation::key)
            .collect();
        assert_eq!(
            held,
            ["hooks", "llm_calls", "tools_run", "trace", "printed"]
        );
    }

    #[test]
    fn set_keeps_one_per_key_in_the_tables_order() {
        let mut expect = Expect::default();
        expect.set(Expectation::Error("boom".into()));
        expect.set(Expectation::LlmCalls(1));
        expect.set(Expectation::ExitReason("text".into()));
        expect.set(Expectation::LlmCalls(2));
        assert_eq!(expect.keys(), ["exit_reason", "llm_calls", "error"]);
        assert_eq!(expect.get("llm_calls"), Some(&Expectation::LlmCalls(2)));
        assert_eq!(expect.error(), Some("boom"));
    }
}
