//! Replaying scenarios: the scripted run and its outcome.
//!
//! ```text
//!  Scenario (file, immutable) ──prepare──▶ Agent + scripted model and tools
//!        │                                      │ run, observed by TraceRecorder
//!        ▼                                      ▼
//!     expect ──────────── check ◀──────── result + trace ──▶ Outcome (JSON, reports)
//! ```
//!
//! ```
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//! use hookharness::{hook_fn, State};
//!
//! let scenario = Scenario::from_str(
//!     r#"
//! hooks:
//!   on_exit:
//!     - custom: nudge_once
//! model:
//!   - text: "first"
//!   - text: "second"
//! expect:
//!   llm_calls: 2
//!   last_message: {text: "second"}
//! "#,
//!     "nudge.yaml",
//!     Format::Yaml,
//! )?;
//!
//! let nudge_once = hook_fn(|state: &mut State| {
//!     if state.step_count() == Some(1) {
//!         state.set_continue_run(true);
//!     }
//! });
//! let outcome = Replay::new().custom_hook("nudge_once", nudge_once).run(&scenario);
//! assert!(outcome.passed(), "{:?}", outcome.failures);
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

mod as_test;
mod build;
pub(crate) mod convert;
mod declarative;
mod expect;
mod named;
mod outcome;
mod ready_made;
mod stream;
mod trace;

pub use as_test::ScenarioFailure;
pub use declarative::DeclarativeHook;
pub use outcome::{Failure, Outcome, Status, sorted};
pub use trace::{TraceEvent, TraceRecorder};

use crate::future::block_on;
use crate::generator::ChatGenerator;
use crate::hook::Hook;
use crate::observe::{Event, Observer};
use crate::scenario::Scenario;
use crate::state::keys;
use build::{BuildError, prepare};
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::Arc;

/// Runs scenarios, with the custom hooks a Rust test registers by name.
#[derive(Clone, Default)]
pub struct Replay {
    custom: IndexMap<String, Arc<dyn Hook>>,
}

impl Replay {
    /// A replayer with no custom hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a hook that scenarios use as `custom: NAME`.
    pub fn custom_hook(mut self, name: impl Into<String>, hook: impl Hook) -> Self {
        self.custom.insert(name.into(), Arc::new(hook));
        self
    }

    /// Registers a shared hook object under a name.
    pub fn custom_hook_arc(mut self, name: impl Into<String>, hook: Arc<dyn Hook>) -> Self {
        self.custom.insert(name.into(), hook);
        self
    }

    /// Loads and runs a file; an invalid file gives an outcome with status
    /// `error` whose `error` names the file, the key and the position.
    pub fn run_file(&self, path: impl AsRef<Path>) -> Outcome {
        let path = path.as_ref();
        match Scenario::from_path(path) {
            Ok(scenario) => self.run_with_file(&scenario, &path.display().to_string(), None, None),
            Err(error) => file_error(path, error.scenario_name(), error.to_string()),
        }
    }

    /// Checks what loading cannot: the ready-made hooks' parameters, the
    /// `shared:` and `custom:` names, the messages. `Err` is a file error;
    /// an Agent construction error (which `expect.error` may expect) is not.
    /// A `custom:` hook that is not registered is not a file error here
    /// (the file is fine; the Rust test that runs it registers the hook).
    pub fn validate(&self, scenario: &Scenario) -> Result<(), String> {
        let mut custom = self.custom.clone();
        let entries = scenario
            .hooks
            .values()
            .flatten()
            .chain(scenario.shared_hooks.values());
        for entry in entries {
            if let crate::scenario::HookEntry::Custom(name) = entry {
                if !custom.contains_key(name) {
                    custom.insert(name.clone(), Arc::new(crate::bench::noop()));
                }
            }
        }
        match prepare(scenario, &custom, None) {
            Err(BuildError::Scenario(message)) => {
                let file = scenario
                    .file
                    .as_ref()
                    .map(|f| f.display().to_string())
                    .unwrap_or_default();
                Err(format!("{file}: {message}"))
            }
            Err(BuildError::Agent(_)) | Ok(_) => Ok(()),
        }
    }

    /// Runs a loaded scenario.
    pub fn run(&self, scenario: &Scenario) -> Outcome {
        let file = scenario
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_default();
        self.run_with_file(scenario, &file, None, None)
    }

    /// Runs a loaded scenario; `observer` also sees every event (this is
    /// what `hookharness explain` uses).
    pub fn run_observed(&self, scenario: &Scenario, observer: &mut dyn Observer) -> Outcome {
        let file = scenario
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_default();
        self.run_with_file(scenario, &file, Some(observer), None)
    }

    /// Runs a loaded scenario with `generator` as the model instead of its
    /// `model` script (its tools, hooks and run inputs as written); this is
    /// what `hookharness record` uses. Expectations are checked as usual,
    /// `unused_replies` against the scenario's `model` list.
    pub fn run_with_generator(
        &self,
        scenario: &Scenario,
        generator: Arc<dyn ChatGenerator>,
    ) -> Outcome {
        let file = scenario
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_default();
        self.run_with_file(scenario, &file, None, Some(generator))
    }

    /// Runs one scenario; a panic anywhere in it (a custom hook, tool or
    /// generator, or a bug in the harness) is this scenario's error, so a
    /// run over many files still reports every other one.
    fn run_with_file(
        &self,
        scenario: &Scenario,
        file: &str,
        extra: Option<&mut dyn Observer>,
        generator: Option<Arc<dyn ChatGenerator>>,
    ) -> Outcome {
        let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.run_unguarded(scenario, file, extra, generator)
        }));
        guarded.unwrap_or_else(|payload| Outcome {
            scenario: scenario.name.clone(),
            file: file.to_owned(),
            status: Status::Error,
            failures: Vec::new(),
            error: Some(format!(
                "{file}: the run panicked: {}; this is a bug in a custom hook, tool or \
                 generator, or in hookharness: report it with this scenario",
                crate::panic::payload_text(payload.as_ref())
            )),
            result: None,
            trace: Vec::new(),
        })
    }

    fn run_unguarded(
        &self,
        scenario: &Scenario,
        file: &str,
        extra: Option<&mut dyn Observer>,
        generator: Option<Arc<dyn ChatGenerator>>,
    ) -> Outcome {
        let mut recorder = TraceRecorder::default();
        let mut streamed = None;
        let (result, last, error) = match prepare(scenario, &self.custom, generator) {
            Err(BuildError::Scenario(message)) => {
                return Outcome {
                    scenario: scenario.name.clone(),
                    file: file.to_owned(),
                    status: Status::Error,
                    failures: Vec::new(),
                    error: Some(format!("{file}: {message}")),
                    result: None,
                    trace: Vec::new(),
                };
            }
            Err(BuildError::Agent(error)) => (None, None, Some(error.to_string())),
            Ok(prepared) => {
                streamed = prepared.streamed.clone();
                let mut tee = Tee {
                    recorder: &mut recorder,
                    extra,
                };
                let run = if scenario.run.is_async {
                    block_on(prepared.agent.run_async_observed(
                        prepared.messages,
                        prepared.options,
                        &mut tee,
                    ))
                } else {
                    prepared
                        .agent
                        .run_observed(prepared.messages, prepared.options, &mut tee)
                };
                match run {
                    Ok(output) => {
                        let result = result_value(scenario, &output);
                        (Some(result), output.last_message, None)
                    }
                    Err(error) => (None, None, Some(error.to_string())),
                }
            }
        };
        let streamed = streamed.map(|s| s.take()).unwrap_or_default();
        let failures = expect::check(
            scenario,
            result.as_ref(),
            last.as_ref(),
            &recorder.events,
            error.as_deref(),
            &streamed,
        );
        let status = if error.is_some() && scenario.expect.error.is_none() {
            Status::Error
        } else if failures.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        };
        Outcome {
            scenario: scenario.name.clone(),
            file: file.to_owned(),
            status,
            failures,
            error,
            result,
            trace: recorder.events,
        }
    }
}

fn file_error(path: &Path, name: Option<&str>, message: String) -> Outcome {
    Outcome {
        scenario: name.map(str::to_owned).unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        }),
        file: path.display().to_string(),
        status: Status::Error,
        failures: Vec::new(),
        error: Some(message),
        result: None,
        trace: Vec::new(),
    }
}

/// Sends each event to the trace recorder and to an optional second observer.
struct Tee<'a, 'b> {
    recorder: &'a mut TraceRecorder,
    extra: Option<&'b mut dyn Observer>,
}

impl Observer for Tee<'_, '_> {
    fn on_event(&mut self, event: &Event<'_>) {
        self.recorder.on_event(event);
        if let Some(extra) = self.extra.as_deref_mut() {
            extra.on_event(event);
        }
    }
}

fn result_value(scenario: &Scenario, output: &crate::AgentOutput) -> Value {
    let mut result = Map::new();
    result.insert(
        keys::MESSAGES.into(),
        Value::Array(output.messages.iter().map(|m| m.to_value()).collect()),
    );
    result.insert(
        "last_message".into(),
        output
            .last_message
            .as_ref()
            .map_or(Value::Null, |m| m.to_value()),
    );
    for key in [
        keys::EXIT_REASON,
        keys::STEP_COUNT,
        keys::TOKEN_USAGE,
        keys::TOOL_CALL_COUNTS,
    ] {
        result.insert(
            key.into(),
            output.data.get(key).cloned().unwrap_or(Value::Null),
        );
    }
    let state: Map<String, Value> = scenario
        .agent
        .state_schema
        .keys()
        .filter(|k| *k != keys::MESSAGES)
        .filter_map(|k| output.data.get(k).map(|v| (k.clone(), v.clone())))
        .collect();
    result.insert("state".into(), Value::Object(state));
    Value::Object(result)
}
