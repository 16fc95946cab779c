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
mod culprit;
mod declarative;
mod named;
mod prepare_error;
mod ready_made;
pub(crate) mod seen;
mod stream;
mod validity;

use crate::expect::{self, Run};
pub(crate) use crate::expect::{SeesListed, sees_difference, sees_listed};
pub use crate::outcome::{Failure, Outcome, Status, TraceEvent, TraceKind, TraceRecorder};
pub use crate::value::sorted;
pub use as_test::ScenarioFailure;
pub use declarative::DeclarativeHook;
pub use prepare_error::PrepareError;
pub use seen::SeenRequest;
pub(crate) use validity::file_name;

use crate::agent::AgentError;
use crate::engine::{Engine, LiveModels, Record, RecordOptions};
use crate::future::block_on;
use crate::generator::ChatGenerator;
use crate::hook::Hook;
use crate::observe::{Event, Observer};
use crate::outcome::{Detail, RunError, RunResult};
use crate::scenario::Scenario;
use build::prepare;
use indexmap::IndexMap;
use std::path::Path;
use std::sync::Arc;

/// Runs scenarios, with the custom hooks a Rust test registers by name.
#[derive(Clone, Default)]
pub struct Replay {
    custom: IndexMap<String, Arc<dyn Hook>>,
    detail: Detail,
    engine: Option<Arc<dyn Engine>>,
    /// The scenarios run are variants of a valid file (explore's), not
    /// files: a construction error is their run's failure, not a verdict
    /// on a file.
    variants: bool,
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

    /// How much of each run the outcome's trace keeps (default
    /// [`Detail::Summary`]; [`Detail::Full`] adds what each hook changed).
    pub fn detail(mut self, detail: Detail) -> Self {
        self.detail = detail;
        self
    }

    /// Runs scenarios with `engine` instead of this crate's loop (the
    /// default); loading, checking and reporting stay the same.
    pub fn engine(mut self, engine: impl Engine + 'static) -> Self {
        self.engine = Some(Arc::new(engine));
        self
    }

    /// [`engine`](Self::engine), shared.
    pub fn engine_arc(mut self, engine: Arc<dyn Engine>) -> Self {
        self.engine = Some(engine);
        self
    }

    /// This replayer runs explore's variants of a file that is valid as
    /// written: an Agent construction error is the variant's run failure
    /// (the file's verdict was given on the file).
    pub(crate) fn for_variants(mut self) -> Self {
        self.variants = true;
        self
    }

    /// The engine's name: `rust` unless [`engine`](Self::engine) set another.
    #[must_use]
    pub fn engine_name(&self) -> &str {
        self.engine.as_ref().map_or("rust", |e| e.name())
    }

    /// Registers a shared hook object under a name.
    pub fn custom_hook_arc(mut self, name: impl Into<String>, hook: Arc<dyn Hook>) -> Self {
        self.custom.insert(name.into(), hook);
        self
    }

    /// The name this replayer knows `hook` by: the name it was registered
    /// under as that very object, else the one hook registered of its type
    /// (not a closure's: every `hook_fn` shares one). `None` when neither
    /// names one hook.
    pub(crate) fn registered_name(&self, hook: &Arc<dyn Hook>) -> Option<&str> {
        let same = |h: &Arc<dyn Hook>| std::ptr::addr_eq(Arc::as_ptr(h), Arc::as_ptr(hook));
        if let Some((name, _)) = self.custom.iter().find(|(_, h)| same(h)) {
            return Some(name);
        }
        let kind = hook.type_name();
        if kind == crate::hook::FUNCTION_HOOK_TYPE {
            return None;
        }
        let mut of_kind = self.custom.iter().filter(|(_, h)| h.type_name() == kind);
        match (of_kind.next(), of_kind.next()) {
            (Some((name, _)), None) => Some(name),
            _ => None,
        }
    }

    /// Loads and runs a file; an invalid file gives an outcome with status
    /// [`Status::Invalid`] whose `error` names the file, the key and the
    /// position.
    pub fn run_file(&self, path: impl AsRef<Path>) -> Outcome {
        let path = path.as_ref();
        match Scenario::from_path(path) {
            Ok(scenario) => self.run_with_file(&scenario, &path.display().to_string(), None, None),
            Err(error) => invalid_file(path, &error),
        }
    }

    /// Checks what loading cannot: the ready-made hooks' parameters, the
    /// `shared:` and `custom:` names, the messages. `Err` is always
    /// [`PrepareError::Invalid`], a file error (its message does not name
    /// the file: the caller knows it); an Agent construction error (which
    /// `expect.error` may expect) is not one, nor is a `custom:` hook that
    /// is not registered (the Rust test that runs the file registers it).
    pub fn validate(&self, scenario: &Scenario) -> Result<(), PrepareError> {
        match self.prepare_with_placeholders(scenario) {
            Err(error @ PrepareError::Invalid { .. }) => Err(error),
            Err(
                PrepareError::Construction(_)
                | PrepareError::UnregisteredHook { .. }
                | PrepareError::NeedsHaystack { .. },
            )
            | Ok(_) => Ok(()),
        }
    }

    /// The Agent construction error (Haystack's, such as an unknown hook
    /// point or two tools of one name) the file alone decides, when its
    /// `expect.error` does not expect an error: the error `run` would end
    /// with before the first step. `hookharness check` reports it.
    pub fn unexpected_construction_error(&self, scenario: &Scenario) -> Option<AgentError> {
        if scenario.expect.error().is_some() {
            return None;
        }
        match self.prepare_with_placeholders(scenario) {
            Err(PrepareError::Construction(error)) => Some(error),
            _ => None,
        }
    }

    /// [`prepare`], with a placeholder for every `custom:` hook the
    /// replayer does not have (the Rust test that runs the file has them).
    fn prepare_with_placeholders(
        &self,
        scenario: &Scenario,
    ) -> Result<build::Prepared, PrepareError> {
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
        prepare(scenario, &custom, None)
    }

    /// `scenario` is the next one [`run`](Self::run) will be given, after
    /// the one it runs now: on an engine that takes requests ahead (the
    /// Haystack engine, [`Engine::ahead`]) its run may start while this
    /// side is still reading and checking the current one. Each outcome is
    /// the same as without; a scenario `run` would not hand its engine (one
    /// that is invalid, or names a `custom:` hook the engine cannot find)
    /// is not sent. On this crate's loop nothing happens.
    pub fn ahead(&self, scenario: &Scenario) {
        let Some(engine) = &self.engine else {
            return;
        };
        let refused = !engine.finds_custom_hooks() && !scenario.custom_hook_names().is_empty();
        if refused || self.validate(scenario).is_err() {
            return;
        }
        let options = RecordOptions {
            detail: self.detail,
            keep_requests: false,
        };
        engine.ahead(scenario, options);
    }

    /// Runs a loaded scenario.
    pub fn run(&self, scenario: &Scenario) -> Outcome {
        let file = file_of(scenario);
        self.run_with_file(scenario, &file, None, None)
    }

    /// Runs a loaded scenario; `observer` also sees every live event, for
    /// what the outcome's trace does not keep (the whole conversation at
    /// each model call, for example).
    pub fn run_observed(&self, scenario: &Scenario, observer: &mut dyn Observer) -> Outcome {
        let file = file_of(scenario);
        self.run_with_file(scenario, &file, None, Some(observer))
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
        let file = file_of(scenario);
        self.run_with_file(scenario, &file, Some(generator), None)
    }

    /// Runs a loaded scenario on this replayer's engine with every model
    /// call (the main `model` and each `models:` script) answered by
    /// `models`: what `hookharness record --engine haystack` uses. `None`
    /// without an engine (the Rust engine records through
    /// [`run_with_generator`](Self::run_with_generator)).
    pub(crate) fn run_live(&self, scenario: &Scenario, models: &dyn LiveModels) -> Option<Outcome> {
        let engine = self.engine.as_ref()?;
        let file = file_of(scenario);
        let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.run_engine(engine.as_ref(), scenario, &file, None, Some(models))
        }));
        Some(guarded.unwrap_or_else(|payload| Outcome {
            scenario: scenario.name.clone(),
            file: file.clone(),
            status: Status::Error,
            failures: Vec::new(),
            error: Some(RunError::panicked(format!(
                "{file}: the run panicked: {}; this is a bug in hookharness: report it with this \
                 scenario",
                crate::panic::payload_text(payload.as_ref())
            ))),
            result: None,
            trace: Vec::new(),
        }))
    }

    /// Runs a loaded scenario and keeps what the model was sent at each
    /// call: what `hookharness rebase` writes into `sees:`.
    ///
    /// ```
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str(
    ///     "model: [{text: hi}]\nrun: {messages: [{role: user, text: Hello}]}",
    ///     "hi.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let (outcome, requests) = Replay::new().run_seeing(&scenario);
    /// assert!(outcome.passed());
    /// assert_eq!(requests[0].messages[0].text(), Some("Hello"));
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    pub fn run_seeing(&self, scenario: &Scenario) -> (Outcome, Vec<SeenRequest>) {
        let file = file_of(scenario);
        let mut requests = Vec::new();
        let outcome = self.run_seen(scenario, &file, None, None, Some(&mut requests));
        (outcome, requests)
    }

    /// Runs one scenario; a panic anywhere in it (a custom hook, tool or
    /// generator, or a bug in the harness) is this scenario's error, so a
    /// run over many files still reports every other one.
    fn run_with_file(
        &self,
        scenario: &Scenario,
        file: &str,
        generator: Option<Arc<dyn ChatGenerator>>,
        extra: Option<&mut dyn Observer>,
    ) -> Outcome {
        self.run_seen(scenario, file, generator, extra, None)
    }

    /// [`run_with_file`](Self::run_with_file), also keeping each model
    /// call's request in `capture` when given.
    fn run_seen(
        &self,
        scenario: &Scenario,
        file: &str,
        generator: Option<Arc<dyn ChatGenerator>>,
        extra: Option<&mut dyn Observer>,
        capture: Option<&mut Vec<SeenRequest>>,
    ) -> Outcome {
        let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.run_unguarded(scenario, file, generator, extra, capture)
        }));
        guarded.unwrap_or_else(|payload| Outcome {
            scenario: scenario.name.clone(),
            file: file.to_owned(),
            status: Status::Error,
            failures: Vec::new(),
            error: Some(RunError::panicked(format!(
                "{file}: the run panicked: {}; this is a bug in a custom hook, tool or \
                 generator, or in hookharness: report it with this scenario",
                crate::panic::payload_text(payload.as_ref())
            ))),
            result: None,
            trace: Vec::new(),
        })
    }

    fn run_unguarded(
        &self,
        scenario: &Scenario,
        file: &str,
        generator: Option<Arc<dyn ChatGenerator>>,
        extra: Option<&mut dyn Observer>,
        capture: Option<&mut Vec<SeenRequest>>,
    ) -> Outcome {
        if let Some(engine) = &self.engine {
            return self.run_engine(engine.as_ref(), scenario, file, capture, None);
        }
        // The requests are kept only when something reads them: copying
        // each conversation is not free.
        let (generator, seen) = if scenario.sees.is_empty() && capture.is_none() {
            (generator, None)
        } else {
            let base = generator.unwrap_or_else(|| build::scripted(scenario));
            let (seeing, log) = seen::Seeing::new(base);
            (Some(seeing as Arc<dyn ChatGenerator>), Some(log))
        };
        let mut recorder = TraceRecorder::new(self.detail);
        let mut streamed = None;
        // Nothing runs for a file that cannot be prepared, and nothing is
        // checked: its expectations are about a run.
        let unprepared = |status, error| Outcome {
            scenario: scenario.name.clone(),
            file: file.to_owned(),
            status,
            failures: Vec::new(),
            error: Some(error),
            result: None,
            trace: Vec::new(),
        };
        let ran = match prepare(scenario, &self.custom, generator) {
            Err(PrepareError::Invalid {
                message,
                place,
                at_value,
            }) => {
                let error = validity::prepare_error(scenario, message, place.as_deref(), at_value);
                return unprepared(Status::Invalid, validity::invalid(&[error]));
            }
            // What the file decides, seen past the hook the replayer lacks.
            Err(PrepareError::UnregisteredHook { name, message }) => {
                match self.prepare_with_placeholders(scenario) {
                    Err(PrepareError::Invalid {
                        message,
                        place,
                        at_value,
                    }) => {
                        let error =
                            validity::prepare_error(scenario, message, place.as_deref(), at_value);
                        return unprepared(Status::Invalid, validity::invalid(&[error]));
                    }
                    Err(PrepareError::Construction(error)) if scenario.expect.error().is_none() => {
                        Err((RunError::construction(&error), error.haystack_message()))
                    }
                    _ => {
                        return unprepared(
                            Status::Error,
                            RunError::unregistered(name, format!("{file}: {message}")),
                        );
                    }
                }
            }
            Err(PrepareError::NeedsHaystack { message }) => {
                return unprepared(
                    Status::Error,
                    RunError::needs_engine("haystack", format!("{file}: {message}")),
                );
            }
            Err(PrepareError::Construction(error)) => {
                Err((RunError::construction(&error), error.haystack_message()))
            }
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
                run.map(|output| RunResult::new(output, scenario.agent.state_schema.keys()))
                    .map_err(|error| (RunError::run(&error), error.haystack_message()))
            }
        };
        let trace = recorder.into_events();
        // `expect.error` is checked against Haystack's text, not the
        // context the harness adds around it, so that a scenario passes or
        // fails as it does in Haystack.
        let (result, error, haystack_error) = match ran {
            Ok(result) => (Some(result), None, None),
            Err((error, haystack)) => (None, Some(error), Some(haystack)),
        };
        let streamed = streamed.map(|s| s.take()).unwrap_or_default();
        let requests = seen.as_ref().map(seen::take).unwrap_or_default();
        let failures = expect::check(
            scenario,
            Run::new(
                result.as_ref(),
                &trace,
                haystack_error.as_deref(),
                &streamed,
            ),
            &requests,
        );
        if let Some(capture) = capture {
            *capture = requests;
        }
        let status = if error.is_some() && scenario.expect.error().is_none() {
            Status::Error
        } else if failures.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        };
        self.decided(
            scenario,
            Outcome {
                scenario: scenario.name.clone(),
                file: file.to_owned(),
                status,
                failures,
                error,
                result,
                trace,
            },
        )
    }
}

impl Replay {
    /// A run on another engine: the file is validated here as for the Rust
    /// engine, the engine records, the expectations are checked here.
    fn run_engine(
        &self,
        engine: &dyn Engine,
        scenario: &Scenario,
        file: &str,
        capture: Option<&mut Vec<SeenRequest>>,
        live: Option<&dyn LiveModels>,
    ) -> Outcome {
        let early = |status, error| Outcome {
            scenario: scenario.name.clone(),
            file: file.to_owned(),
            status,
            failures: Vec::new(),
            error: Some(error),
            result: None,
            trace: Vec::new(),
        };
        if let Some(name) = scenario
            .custom_hook_names()
            .into_iter()
            .next()
            .filter(|_| !engine.finds_custom_hooks())
        {
            return early(
                Status::Error,
                RunError::needs_engine(
                    "rust",
                    format!(
                        "{file}: `custom: {name}` is a hook your test registers, and none is \
                         registered here: a Rust test registers it on `Replay` (`--engine rust`), \
                         a Python one through your conftest.py's `hookharness_hooks` fixture (run \
                         the scenario with pytest: docs/pytest.md); or name your Python hook with \
                         `python: \"module:name\"`"
                    ),
                ),
            );
        }
        if let Err(PrepareError::Invalid {
            message,
            place,
            at_value,
        }) = self.validate(scenario)
        {
            let error = validity::prepare_error(scenario, message, place.as_deref(), at_value);
            return early(Status::Invalid, validity::invalid(&[error]));
        }
        let options = RecordOptions {
            detail: self.detail,
            keep_requests: capture.is_some(),
        };
        let record = match live {
            Some(models) => engine.record_live(scenario, options, models),
            None => engine.record(scenario, options),
        };
        if record.engine_failed {
            let error = record
                .error
                .unwrap_or_else(|| RunError::engine(String::new()));
            return early(
                Status::Error,
                RunError {
                    message: format!("{file}: {}", error.message),
                    ..error
                },
            );
        }
        let Record {
            trace,
            result,
            error,
            streamed,
            requests,
            unused_models,
            ..
        } = record;
        // The Haystack engine's error text is Haystack's own.
        let mut failures = expect::check(
            scenario,
            Run::new(
                result.as_ref(),
                &trace,
                error.as_ref().map(|e| e.message.as_str()),
                &streamed,
            ),
            &requests,
        );
        if result.is_some()
            && scenario.expect.unused_replies == crate::scenario::UnusedReplies::Fail
        {
            for (name, left) in unused_models {
                failures.push(Failure::line(
                    "unused_replies",
                    format!(
                        "models.{name}: {left} scripted {} never used; remove {}, or set \
                     `expect.unused_replies: allow`",
                        if left == 1 {
                            "reply was"
                        } else {
                            "replies were"
                        },
                        if left == 1 { "it" } else { "them" },
                    ),
                ));
            }
        }
        if let Some(capture) = capture {
            *capture = requests;
        }
        let status = if error.is_some() && scenario.expect.error().is_none() {
            Status::Error
        } else if failures.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        };
        self.decided(
            scenario,
            Outcome {
                scenario: scenario.name.clone(),
                file: file.to_owned(),
                status,
                failures,
                error,
                result,
                trace,
            },
        )
    }
}

/// The scenario's file as outcomes name it (empty when loaded from text).
fn file_of(scenario: &Scenario) -> String {
    scenario
        .file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_default()
}

/// Sends each event to the trace recorder and to the caller's observer.
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

/// The outcome of a file that did not load: status invalid, the error
/// naming the file, the key and the position.
pub(crate) fn invalid_file(path: &Path, error: &crate::scenario::ScenarioError) -> Outcome {
    Outcome {
        scenario: error.scenario_name().map(str::to_owned).unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        }),
        file: path.display().to_string(),
        status: Status::Invalid,
        failures: Vec::new(),
        error: Some(RunError::invalid(error.to_string())),
        result: None,
        trace: Vec::new(),
    }
}
