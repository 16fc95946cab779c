//! The Haystack engine: each scenario runs through the real `Agent` of the
//! haystack-ai installed in a Python interpreter, in one worker process
//! reused across scenarios (`python/hookharness/engine/` is its Python
//! side; docs/engines.md says what it runs and how it isolates).
//!
//! ```no_run
//! use std::time::Duration;
//! use hookharness::engine::haystack::HaystackEngine;
//! use hookharness::replay::Replay;
//! use hookharness::scenario::Scenario;
//!
//! let engine = HaystackEngine::start(None, Duration::from_secs(60))?;
//! let scenario = Scenario::from_path("scenarios/docs_examples/require_search.yaml".as_ref())?;
//! let outcome = Replay::new().engine(engine).run(&scenario);
//! assert!(outcome.passed());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod attach;
mod interpreter;
mod relay;
mod request;
mod worker;

pub use attach::ATTACH_ENV;
pub use interpreter::{PYTHON_ENV, resolve as resolve_python};

/// The variable that sets how much output one hook or tool call keeps (docs/engines.md).
pub const OUTPUT_LIMIT_ENV: &str = "HOOKHARNESS_OUTPUT_LIMIT";

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::{Engine, LiveModels, Record, RecordOptions};
use crate::message::ChatMessage;
use crate::outcome::{RunError, RunResult, TraceEvent};
use crate::replay::SeenRequest;
use crate::scenario::{KeyPath, Scenario, ScenarioError, ScenarioErrorKind};
use worker::{CallError, Failed, Worker, shown};

/// Why the Haystack engine cannot start: each says what to install or set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The interpreter could not be started.
    #[error(
        "the Haystack engine cannot start `{}`: {message}; install Python with haystack-ai \
         (`pip install hookharness haystack-ai`), or name the interpreter with `--python PATH` \
         or {PYTHON_ENV}",
        shown(python)
    )]
    Spawn {
        /// The interpreter.
        python: PathBuf,
        /// The system's words.
        message: String,
    },
    /// The interpreter started but its worker never greeted (usually: no
    /// `hookharness` package in it).
    #[error(
        "the Haystack engine's worker did not start in `{}`: install the package into that \
         interpreter (`{} -m pip install hookharness haystack-ai`), or name another with \
         `--python PATH`; it said:\n{stderr}",
        shown(python),
        shown(python)
    )]
    NoHello {
        /// The interpreter.
        python: PathBuf,
        /// Its last words.
        stderr: String,
    },
    /// The worker runs but Haystack cannot be imported.
    #[error("`{}` has no usable haystack-ai: {message}", shown(python))]
    NoHaystack {
        /// The interpreter.
        python: PathBuf,
        /// The worker's words (what failed to import, what to install).
        message: String,
    },
    /// The worker speaks another protocol version than this binary.
    #[error(
        "the hookharness package in `{}` speaks engine protocol {theirs}, this binary {}; \
         install the same version of both (`{} -m pip install hookharness=={}`)",
        shown(python), worker::PROTOCOL, shown(python), env!("CARGO_PKG_VERSION")
    )]
    Version {
        /// The interpreter.
        python: PathBuf,
        /// The worker's protocol version.
        theirs: u64,
    },
    /// `HOOKHARNESS_OUTPUT_LIMIT` is set to something other than a positive
    /// number of characters (checked before the worker starts, which would
    /// refuse it with a traceback).
    #[error(
        "{OUTPUT_LIMIT_ENV}={value:?}: expected a positive number of characters, e.g. 1048576 \
         (the output kept per hook or tool call); unset it for that default"
    )]
    OutputLimit {
        /// The value as set.
        value: String,
    },
    /// `HOOKHARNESS_ENGINE_ATTACH` hands no worker this command can use.
    #[error("{ATTACH_ENV}={value:?}: {message}")]
    Attach {
        /// The value as set.
        value: String,
        /// What is wrong with it.
        message: String,
    },
    /// The worker's greeting was unreadable.
    #[error("the Haystack engine's worker in `{}` sent {message}", shown(python))]
    Protocol {
        /// The interpreter.
        python: PathBuf,
        /// What was wrong.
        message: String,
    },
}

/// The real Haystack `Agent` as an engine.
pub struct HaystackEngine {
    python: PathBuf,
    timeout: Duration,
    worker: Mutex<Option<Worker>>,
    haystack: String,
    python_version: String,
    attached: bool,
}

impl std::fmt::Debug for HaystackEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HaystackEngine")
            .field("python", &self.python)
            .field("timeout", &self.timeout)
            .field("haystack", &self.haystack)
            .finish_non_exhaustive()
    }
}

impl HaystackEngine {
    /// Starts a worker in `python` ([`resolve_python`] picks one when
    /// `None`); each scenario may run for `timeout` before its worker is
    /// killed and the scenario errors.
    ///
    /// # Errors
    /// A [`SetupError`] saying what to install or set.
    pub fn start(python: Option<&Path>, timeout: Duration) -> Result<HaystackEngine, SetupError> {
        let python = interpreter::resolve(python);
        let worker = Worker::start(&python)?;
        let haystack = worker.hello.haystack.clone().unwrap_or_default();
        let python_version = worker.hello.python.clone().unwrap_or_default();
        let attached = worker.attached();
        Ok(HaystackEngine {
            attached,
            python,
            timeout,
            worker: Mutex::new(Some(worker)),
            haystack,
            python_version,
        })
    }

    /// The haystack-ai version the worker imported.
    #[must_use]
    pub fn haystack_version(&self) -> &str {
        &self.haystack
    }

    /// The Python version the worker runs.
    #[must_use]
    pub fn python_version(&self) -> &str {
        &self.python_version
    }

    /// The interpreter the worker runs in.
    #[must_use]
    pub fn python(&self) -> &Path {
        &self.python
    }
}

impl Engine for HaystackEngine {
    fn name(&self) -> &str {
        "haystack"
    }

    fn finds_custom_hooks(&self) -> bool {
        // A worker forked from the pytest process holds the hooks its fixtures register.
        self.attached
    }

    fn ahead(&self, scenario: &Scenario, options: RecordOptions) {
        let body = request::body(scenario, options).to_string();
        let mut slot = self.slot();
        if slot.is_none() {
            // One that does not start says so when the scenario is recorded.
            *slot = Worker::start(&self.python).ok();
        }
        if let Some(worker) = slot.as_mut() {
            worker.ahead("run", &body);
        }
    }

    fn record(&self, scenario: &Scenario, options: RecordOptions) -> Record {
        let body = request::body(scenario, options);
        self.record_of(self.call("run", body))
    }

    fn record_live(
        &self,
        scenario: &Scenario,
        options: RecordOptions,
        models: &dyn LiveModels,
    ) -> Record {
        let mut body = request::body(scenario, options);
        body["live"] = Value::Bool(true);
        let mut relay = |call: &Value| relay::answer(call, models);
        self.record_of(self.call_relaying("run", body, Some(&mut relay)))
    }
}

impl HaystackEngine {
    /// The worker's answer to one request; a worker that times out, dies
    /// or breaks the protocol is dropped (the next request starts another)
    /// and the error says what happened.
    fn call(&self, key: &str, body: Value) -> Result<Value, String> {
        self.call_relaying(key, body, None)
    }

    /// [`call`](Self::call), each model call of a record run handed to `relay`.
    fn call_relaying(
        &self,
        key: &str,
        body: Value,
        mut relay: Option<worker::Relay<'_>>,
    ) -> Result<Value, String> {
        let body = body.to_string();
        let mut slot = self.slot();
        let error = loop {
            if slot.is_none() {
                *slot = Some(Worker::start(&self.python).map_err(|error| error.to_string())?);
            }
            let worker = slot.as_mut().expect("a worker was just started");
            let answered = match relay.as_mut() {
                Some(relay) => worker.call_relaying(key, &body, self.timeout, Some(&mut **relay)),
                None => worker.call(key, &body, self.timeout),
            };
            match answered {
                Ok(answer) => {
                    if answer.get("retire").and_then(Value::as_bool) == Some(true) {
                        // The scenario left a thread running, whose output would
                        // reach the next scenario's trace: the next one gets a
                        // new worker (dropping this one ends its process group,
                        // and the requests sent ahead to it, which it never
                        // starts: they go to the new one).
                        *slot = None;
                    }
                    return Ok(answer);
                }
                // A request sent ahead and never asked for timed out or
                // ended the worker before this one started: this one goes
                // to a new worker (which has nothing else to run first).
                Err(Failed { started: false, .. }) => *slot = None,
                Err(Failed { error, .. }) => break error,
            }
        };
        *slot = None;
        Err(match error {
            CallError::Timeout { stack } => format!(
                "timed out after {} s{}: a hook, tool or model call that never returns? (the \
                 worker was killed{}; give a slow run more time with `--timeout SECONDS`{}){}",
                self.timeout.as_secs(),
                stuck_at(&stack),
                if self.attached {
                    ""
                } else {
                    " and is restarted for the next scenario"
                },
                if self.attached {
                    ", under pytest `--hookharness-timeout SECONDS`"
                } else {
                    ""
                },
                innermost(&stack)
            ),
            CallError::Died { status, stderr } => {
                let said = if stderr.trim().is_empty() {
                    " and wrote nothing to stderr (`os._exit`, or a signal from outside?)"
                        .to_owned()
                } else {
                    format!("; its last words:\n{stderr}")
                };
                let next = if self.attached {
                    "it was this scenario's own fork of the pytest process"
                } else {
                    "it is restarted for the next scenario"
                };
                format!(
                    "the Haystack engine's worker died while running this scenario: it {status} \
                     ({next}){said}"
                )
            }
            CallError::Protocol(message) => format!(
                "the Haystack engine's worker sent {message}; did the code write to a file \
                 descriptor it did not open? (else this is a bug in hookharness: report it with \
                 this scenario{})",
                if self.attached {
                    ""
                } else {
                    "; the worker is restarted for the next one"
                }
            ),
        })
    }

    fn drop_worker(&self) {
        *self.slot() = None;
    }

    /// The record a `run` request's answer holds; a failed call, or an
    /// answer that does not read (the worker is dropped), is an engine
    /// failure.
    fn record_of(&self, answer: Result<Value, String>) -> Record {
        match answer.map(|answer| parse_record(&answer)) {
            Ok(Ok(record)) => record,
            Ok(Err(message)) => {
                self.drop_worker();
                failure(format!(
                    "the Haystack engine's worker sent a record that does not read ({message}); \
                     this is a bug in hookharness: report it with this scenario"
                ))
            }
            Err(message) => failure(message),
        }
    }

    /// The worker's slot (`None`: the next request starts one).
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Worker>> {
        match self.worker.lock() {
            Ok(slot) => slot,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// `check --engine haystack` of one loaded, valid scenario: what only
    /// Python decides without running the loop. Each `python:` object is
    /// imported, each hook made (its class or factory called with `args`
    /// and the scripted `models`) and registered alone at its point on a
    /// Haystack `Agent` (its `allowed_hook_points`), the agent factory
    /// called and the Agent built, the network closed and every generator
    /// scripted. Each problem is an error at the file's key it comes
    /// from; a worker that hangs past the timeout or dies is this file's
    /// error only.
    #[must_use]
    pub fn check(&self, scenario: &Scenario) -> Checked {
        let body = request::body(scenario, RecordOptions::default());
        let file = crate::replay::file_name(scenario);
        let whole = |message: String| Checked {
            errors: vec![ScenarioError::new(
                ScenarioErrorKind::Python {
                    message,
                    hint: None,
                },
                &file,
            )],
            ..Checked::default()
        };
        let answer = match self.call("construct", body) {
            Ok(answer) => answer,
            Err(message) => return whole(message),
        };
        if let Some(error) = answer.get("error").and_then(Value::as_str) {
            return whole(error.to_owned());
        }
        let Ok(wire) = serde_json::from_value::<WireCheck>(answer) else {
            return whole(
                "the Haystack engine's worker sent a check that does not read; this is a bug in \
                 hookharness: report it with this scenario"
                    .to_owned(),
            );
        };
        let expected = scenario.expect.error();
        let errors = wire
            .problems
            .into_iter()
            .filter(|p| !expected.is_some_and(|e| p.message.contains(e)))
            .map(|p| {
                let mut path = KeyPath::default();
                for step in &p.place {
                    path = match step {
                        Value::String(key) => path.key(key),
                        Value::Number(n) => path.index(n.as_u64().unwrap_or_default() as usize),
                        _ => path,
                    };
                }
                let position = p
                    .at_value
                    .then(|| scenario.source.value_position(&path))
                    .flatten()
                    .or_else(|| scenario.source.nearest(&path));
                let hint = (!p.hint.is_empty()).then_some(p.hint);
                ScenarioError::new(
                    ScenarioErrorKind::Python {
                        message: p.message,
                        hint,
                    },
                    &file,
                )
                .with_path(path.to_string())
                .at_position(position)
            })
            .collect();
        Checked {
            errors,
            imported: wire.checked.imported,
            hooks: wire.checked.hooks,
            factory: wire.checked.factory,
            agent: wire.checked.agent,
            replaced: wire.checked.replaced,
        }
    }
}

/// What [`HaystackEngine::check`] found and did.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Checked {
    /// Each problem, at the file's key it comes from (empty: the file
    /// builds on this Haystack).
    pub errors: Vec<ScenarioError>,
    /// The `python:` targets imported.
    pub imported: Vec<String>,
    /// How many Python hooks were made.
    pub hooks: usize,
    /// The agent factory called, if any.
    pub factory: Option<String>,
    /// The Agent was built.
    pub agent: bool,
    /// The generator classes `models.*.replaces` scripted.
    pub replaced: Vec<String>,
}

#[derive(Deserialize)]
struct WireCheck {
    problems: Vec<WireProblem>,
    checked: WireChecked,
}

#[derive(Deserialize)]
struct WireProblem {
    place: Vec<Value>,
    message: String,
    #[serde(default)]
    hint: String,
    #[serde(default)]
    at_value: bool,
}

#[derive(Deserialize)]
struct WireChecked {
    imported: Vec<String>,
    hooks: usize,
    factory: Option<String>,
    agent: bool,
    replaced: Vec<String>,
}

/// ` in FILE:LINE in FUNCTION`: the innermost frame of the user's code in
/// a stack (innermost first), else the innermost frame; nothing for none.
fn stuck_at(stack: &[String]) -> String {
    let not_ours = |frame: &&String| {
        ![
            "/site-packages/",
            "/dist-packages/",
            "/hookharness/engine/",
            "/lib/python3",
        ]
        .iter()
        .any(|part| frame.contains(part))
    };
    stack
        .iter()
        .find(not_ours)
        .or_else(|| stack.first())
        .map_or_else(String::new, |frame| format!(" in {frame}"))
}

/// The stack's innermost frames, for a message.
fn innermost(stack: &[String]) -> String {
    if stack.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = stack.iter().take(6).map(String::as_str).collect();
    format!(
        "; its innermost frames when it was stopped:\n  {}",
        shown.join("\n  ")
    )
}

fn failure(message: String) -> Record {
    Record::engine_failure(RunError::engine(message))
}

/// A record as the worker writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireRecord {
    trace: Vec<TraceEvent>,
    result: Option<RunResult>,
    error: Option<RunError>,
    #[serde(default)]
    streamed: Vec<Value>,
    #[serde(default)]
    requests: Vec<WireRequest>,
    #[serde(default)]
    unused: WireUnused,
}

#[derive(Deserialize)]
struct WireRequest {
    messages: Vec<ChatMessage>,
    #[serde(default)]
    tools: Vec<String>,
}

#[derive(Deserialize, Default)]
struct WireUnused {
    #[serde(default)]
    models: indexmap::IndexMap<String, usize>,
}

/// The answer's `record` (or its `error`, for a request the worker could not
/// take at all).
fn parse_record(answer: &Value) -> Result<Record, String> {
    if let Some(error) = answer.get("error").and_then(Value::as_str) {
        return Ok(failure(error.to_owned()));
    }
    let record = answer.get("record").ok_or("an answer without `record`")?;
    // Through text: integers past 64 bits stay exact only that way.
    let text = record.to_string();
    let wire: WireRecord = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    Ok(Record {
        trace: wire.trace,
        result: wire.result,
        error: wire.error,
        streamed: wire.streamed,
        requests: wire
            .requests
            .into_iter()
            .map(|r| SeenRequest::new(r.messages, r.tools))
            .collect(),
        unused_models: wire
            .unused
            .models
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .collect(),
        engine_failed: false,
    })
}
