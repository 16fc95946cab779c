//! `--engine`, `--python`, `--timeout`: which engine a command runs
//! scenarios with, shared by every command that runs one.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::Value;

use super::ExitCode;
use super::output::errln;
use crate::engine::haystack::HaystackEngine;
use crate::outcome::{ErrorKind, Failure, Outcome, Status};
use crate::replay::Replay;

/// The engine options.
#[derive(Args, Debug, Clone)]
pub(crate) struct EngineArgs {
    /// `rust`: this crate's loop (fast, in process); `haystack`: the real
    /// Haystack `Agent` of the installed haystack-ai, with your Python
    /// hooks, tools and agents; `both` (`run` only): each scenario on both,
    /// reporting the first difference (two haystack-ai versions:
    /// `hookharness drift`).
    #[arg(long, value_enum, default_value_t = Engine::Rust)]
    pub engine: Engine,
    /// The Python interpreter with haystack-ai for the Haystack engine
    /// (default: HOOKHARNESS_PYTHON, else the virtual environment
    /// hookharness was pip-installed into, else `python3`).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Seconds a scenario may run before it is stopped and errors: the
    /// Haystack engine's worker is killed, and in `run` on this crate's
    /// engine the child process running it (src/cli/isolate.rs).
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub timeout: u64,
}

/// `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Engine {
    Rust,
    Haystack,
    Both,
}

/// What a command runs each scenario with.
pub(crate) struct Engines {
    /// The engine that decides the outcome.
    pub main: Replay,
    /// With `--engine both`: the Haystack side, compared with `main`.
    pub other: Option<Replay>,
}

impl EngineArgs {
    /// `base` on the chosen engine; the Haystack worker is started here,
    /// once, so that a missing interpreter or package is said once.
    pub(crate) fn engines(&self, base: Replay, command: &str) -> Result<Engines, ExitCode> {
        match self.engine {
            Engine::Rust => Ok(Engines {
                main: base,
                other: None,
            }),
            Engine::Haystack => Ok(Engines {
                main: base.engine_arc(self.start()?),
                other: None,
            }),
            Engine::Both if command != "run" => {
                errln!(
                    "error: `--engine both` compares the engines in `hookharness run`; `{command}` takes `--engine rust` or `--engine haystack`"
                );
                Err(ExitCode::Usage)
            }
            Engine::Both => {
                let haystack = self.start()?;
                Ok(Engines {
                    other: Some(base.clone().engine_arc(haystack)),
                    main: base,
                })
            }
        }
    }

    /// The Haystack engine with one worker started.
    pub(crate) fn start(&self) -> Result<Arc<HaystackEngine>, ExitCode> {
        let timeout = Duration::from_secs(self.timeout.max(1));
        match HaystackEngine::start(self.python.as_deref(), timeout) {
            Ok(engine) => Ok(Arc::new(engine)),
            Err(error) => {
                errln!("error: {error}");
                Err(ExitCode::Usage)
            }
        }
    }
}

impl Engines {
    /// `scenario` is the next one [`run`](Self::run) will be given
    /// ([`Replay::ahead`]): an engine that takes requests ahead may start
    /// on it. A command that exchanges messages with the engine during a
    /// run does not call it.
    pub(crate) fn ahead(&self, scenario: &crate::scenario::Scenario) {
        self.main.ahead(scenario);
        if let Some(other) = &self.other {
            other.ahead(scenario);
        }
    }

    /// Runs one scenario: on the main engine, and with `--engine both` on the
    /// other too, failing the outcome at the first difference.
    pub(crate) fn run(&self, run: impl Fn(&Replay) -> Outcome) -> Outcome {
        self.against_other(run(&self.main), run)
    }

    /// `outcome`, the main engine's, as [`run`](Self::run) gives it: with
    /// `--engine both`, compared with the other engine's run.
    pub(crate) fn against_other(
        &self,
        outcome: Outcome,
        run: impl Fn(&Replay) -> Outcome,
    ) -> Outcome {
        let Some(other) = &self.other else {
            return outcome;
        };
        // A scenario only one engine runs (Python code, a `custom:` Rust
        // hook) has nothing to compare: its outcome is that engine's.
        if only_for_another_engine(&outcome) {
            return run(other);
        }
        let theirs = run(other);
        if only_for_another_engine(&theirs) {
            return outcome;
        }
        compare(outcome, &theirs)
    }
}

/// The engine said the scenario is another engine's to run.
fn only_for_another_engine(outcome: &Outcome) -> bool {
    matches!(
        outcome.error.as_ref().map(|error| &error.kind),
        Some(ErrorKind::NeedsEngine { .. })
    )
}

/// `ours` (Rust) unchanged when `theirs` (Haystack) is the same outcome, full
/// trace included; else `ours` failed with the first difference.
pub(crate) fn compare(mut ours: Outcome, theirs: &Outcome) -> Outcome {
    let (mut a, b) = (ours.to_full_value(), theirs.to_full_value());
    // An `expect.error` failure quotes the run's error, which the contract
    // compares by substring: the failure agrees when the errors do.
    for (i, (mine, other)) in ours.failures.iter().zip(&theirs.failures).enumerate() {
        if error_failures_agree(mine, other)
            && let (Some(slot), Some(same)) = (a["failures"].get_mut(i), b["failures"].get(i))
        {
            *slot = same.clone();
        }
    }
    let Some((path, rust, haystack)) = first_difference(&a, &b, String::new(), true) else {
        return ours;
    };
    let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".to_owned(), Value::to_string);
    ours.failures.push(Failure::line(
        "engines",
        format!(
            "engines differ at `{path}`: rust {}, haystack {}",
            show(&rust),
            show(&haystack)
        ),
    ));
    if ours.status != Status::Invalid {
        ours.status = Status::Fail;
    }
    ours
}

/// Two `expect.error` failures of the same expectation whose quoted errors
/// hold one another.
fn error_failures_agree(ours: &Failure, theirs: &Failure) -> bool {
    ours.key == "error"
        && theirs.key == "error"
        && ours.expected == theirs.expected
        && matches!(
            (&ours.actual, &theirs.actual),
            (Some(Value::String(x)), Some(Value::String(y)))
                if x.contains(y.as_str()) || y.contains(x.as_str())
        )
}

/// The first place where two JSON values differ, with each side's value
/// there (`None` where a key or item is absent). With `error_substrings`,
/// an `error.message` that holds the other is no difference (the engines'
/// contract); without, error texts compare exactly (`drift`).
pub(super) fn first_difference(
    a: &Value,
    b: &Value,
    path: String,
    error_substrings: bool,
) -> Option<(String, Option<Value>, Option<Value>)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match y.get(key) {
                    Some(other) => {
                        if let Some(found) = first_difference(value, other, at, error_substrings) {
                            return Some(found);
                        }
                    }
                    None => return Some((at, Some(value.clone()), None)),
                }
            }
            y.iter()
                .find(|(key, _)| !x.contains_key(*key))
                .map(|(key, value)| {
                    let at = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    (at, None, Some(value.clone()))
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, value) in x.iter().enumerate() {
                let at = format!("{path}[{i}]");
                match y.get(i) {
                    Some(other) => {
                        if let Some(found) = first_difference(value, other, at, error_substrings) {
                            return Some(found);
                        }
                    }
                    None => return Some((at, Some(value.clone()), None)),
                }
            }
            y.get(x.len())
                .map(|value| (format!("{path}[{}]", x.len()), None, Some(value.clone())))
        }
        _ if a == b => None,
        // The contract compares error texts by substring: the Rust engine
        // words a hook's or the model's failure with its place around
        // Haystack's own text.
        (Value::String(x), Value::String(y))
            if error_substrings
                && path == "error.message"
                && (x.contains(y.as_str()) || y.contains(x.as_str())) =>
        {
            None
        }
        _ => Some((path, Some(a.clone()), Some(b.clone()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_names_its_path_and_both_values() {
        let a = json!({"trace": [{"event": "exit", "step": 1}], "status": "pass"});
        let b = json!({"trace": [{"event": "exit", "step": 2}], "status": "pass"});
        assert_eq!(
            first_difference(&a, &b, String::new(), true),
            Some(("trace[0].step".into(), Some(json!(1)), Some(json!(2))))
        );
    }

    #[test]
    fn an_expect_error_failure_agrees_when_its_quoted_errors_hold_one_another() {
        let failure = |text: &str| {
            Failure::compare(
                "error",
                format!("error: expected an error containing \"failed\", got {text:?}"),
                json!("failed"),
                json!(text),
            )
        };
        let rust = failure("'<' not supported: `step_count` is {} after the before_run hooks");
        let haystack = failure("'<' not supported");
        assert!(error_failures_agree(&rust, &haystack));
        assert!(error_failures_agree(&haystack, &rust));
        assert!(!error_failures_agree(&rust, &failure("another error")));
        let other_key = Failure::compare(
            "state",
            rust.message.clone(),
            json!("failed"),
            json!("'<' not supported"),
        );
        assert!(!error_failures_agree(&other_key, &haystack));
    }

    #[test]
    fn a_missing_item_or_key_is_a_difference() {
        let a = json!({"trace": [1, 2]});
        let b = json!({"trace": [1], "extra": true});
        assert_eq!(
            first_difference(&a, &b, String::new(), true),
            Some(("trace[1]".into(), Some(json!(2)), None))
        );
        assert_eq!(
            first_difference(&json!({}), &json!({"x": 1}), String::new(), true),
            Some(("x".into(), None, Some(json!(1))))
        );
        assert_eq!(first_difference(&b, &b, String::new(), true), None);
    }
}
