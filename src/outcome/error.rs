//! Why a scenario did not run to its end: typed, with the text the outcome
//! JSON shows.

use crate::agent::AgentError;
use crate::hook::HookPoint;
use serde::{Deserialize, Serialize};

/// A run error or an invalid file: what kind, where, and the text.
///
/// Checks read [`kind`](Self::kind); the `message` is for people (and for
/// `expect.error`, which matches a part of it).
///
/// ```
/// use hookharness::outcome::ErrorKind;
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
/// use hookharness::HookPoint;
///
/// let scenario = Scenario::from_str(
///     "hooks: {before_llm: [{name: boom, do: [{fail: broken}]}]}\nmodel: [{text: hi}]",
///     "boom.yaml",
///     Format::Yaml,
/// )?;
/// let error = Replay::new().run(&scenario).error.unwrap();
/// assert!(matches!(
///     error.kind,
///     ErrorKind::Hook { ref hook, point: HookPoint::BeforeLlm, step: 0, panicked: false } if hook == "boom"
/// ));
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunError {
    /// What failed, with its context.
    #[serde(flatten)]
    pub kind: ErrorKind,
    /// The error's text, as the outcome JSON writes it.
    pub message: String,
}

/// What failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file is not a valid scenario (the message names the file, the
    /// place and the fix).
    Invalid,
    /// The scenario uses a `custom:` hook the replayer does not have.
    UnregisteredHook {
        /// The hook's name.
        name: String,
    },
    /// The Agent refused to build (Haystack's construction errors).
    Construction,
    /// The Agent refused to build: `state_schema` redefines reserved keys.
    ReservedStateKeys,
    /// A hook returned an error or panicked.
    Hook {
        /// The hook's name.
        hook: String,
        /// Where it ran.
        point: HookPoint,
        /// `step_count` when it ran.
        step: i64,
        /// `true` when it panicked.
        panicked: bool,
    },
    /// The chat generator failed.
    Generator {
        /// The 0-based LLM call.
        call: usize,
        /// `step_count` at the call.
        step: i64,
    },
    /// A tool call failed the run.
    Tool,
    /// The engine failed, not the run: a worker that died, timed out or
    /// could not start.
    Engine,
    /// The scenario needs another engine (`--engine haystack` runs Python code).
    NeedsEngine {
        /// The engine that runs it.
        engine: String,
    },
    /// The run panicked outside any hook (a custom tool or generator, or a
    /// bug in the harness).
    Panicked,
    /// The process running the scenario ended before its outcome (an
    /// allocation that failed, a stack overflow: a bug in the harness); the
    /// CLI's other scenarios ran in a new process.
    Aborted,
    /// Any other run failure: a warm-up, a state operation, a control key
    /// in a shape the loop cannot read, a run input.
    Run,
}

impl RunError {
    /// An error of this kind and text.
    #[must_use]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        RunError {
            kind,
            message: message.into(),
        }
    }

    /// An invalid file; `message` names the file and the place.
    pub(crate) fn invalid(message: String) -> Self {
        RunError {
            kind: ErrorKind::Invalid,
            message,
        }
    }

    /// A scenario only `engine` runs.
    pub(crate) fn needs_engine(engine: &str, message: String) -> Self {
        RunError {
            kind: ErrorKind::NeedsEngine {
                engine: engine.to_owned(),
            },
            message,
        }
    }

    /// A `custom:` hook the replayer does not have.
    pub(crate) fn unregistered(name: String, message: String) -> Self {
        RunError {
            kind: ErrorKind::UnregisteredHook { name },
            message,
        }
    }

    /// A panic that escaped the run.
    /// An engine failure (not the run's).
    pub(crate) fn engine(message: String) -> Self {
        RunError {
            kind: ErrorKind::Engine,
            message,
        }
    }

    pub(crate) fn panicked(message: String) -> Self {
        RunError {
            kind: ErrorKind::Panicked,
            message,
        }
    }

    /// A process that ended before the scenario's outcome.
    pub(crate) fn aborted(message: String) -> Self {
        RunError {
            kind: ErrorKind::Aborted,
            message,
        }
    }

    /// An Agent construction error.
    pub(crate) fn construction(error: &AgentError) -> Self {
        let kind = match error {
            AgentError::ReservedStateKeys { .. } => ErrorKind::ReservedStateKeys,
            _ => ErrorKind::Construction,
        };
        RunError {
            kind,
            message: error.to_string(),
        }
    }

    /// A failure of the run itself.
    pub(crate) fn run(error: &AgentError) -> Self {
        let kind = match error {
            AgentError::Hook {
                hook,
                point,
                step,
                panicked,
                ..
            } => ErrorKind::Hook {
                hook: hook.clone(),
                point: *point,
                step: *step,
                panicked: *panicked,
            },
            AgentError::Generator { call, step, .. } => ErrorKind::Generator {
                call: *call,
                step: *step,
            },
            AgentError::ToolNotFound { .. }
            | AgentError::ToolInvocation { .. }
            | AgentError::ToolFatal { .. }
            | AgentError::StateMerge { .. } => ErrorKind::Tool,
            _ => ErrorKind::Run,
        };
        RunError {
            kind,
            message: error.to_string(),
        }
    }

    /// The point of the hook that failed the run, if a hook did.
    pub fn hook_point(&self) -> Option<HookPoint> {
        match self.kind {
            ErrorKind::Hook { point, .. } => Some(point),
            _ => None,
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
