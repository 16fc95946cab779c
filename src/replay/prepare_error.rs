//! Why a scenario could not be turned into a run.

use crate::agent::AgentError;
use crate::hooks::FromValueError;

/// Why a loaded scenario could not be prepared: an invalid file, a hook the
/// replayer lacks, or Haystack's refusal to build the Agent.
///
/// ```
/// use hookharness::replay::{PrepareError, Replay};
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str(
///     "hooks: {before_llm: [{token_budget: {max_total_tokens: 10, add_final_message: 'yes'}}]}\n\
///      model: [{text: hi}]",
///     "budget.yaml",
///     Format::Yaml,
/// )?;
/// let error = Replay::new().validate(&scenario).unwrap_err();
/// assert!(matches!(error, PrepareError::Invalid { .. }));
/// assert_eq!(
///     error.to_string(),
///     "`token_budget.add_final_message` must be true or false, got \"yes\""
/// );
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PrepareError {
    /// The scenario is wrong where loading cannot see it (an undefined
    /// shared hook, a malformed ready-made entry, a message that is not a
    /// message): the file is invalid.
    #[error("{message}")]
    Invalid {
        /// What is wrong and how to fix it.
        message: String,
        /// The key path of the mistake from the top of the file
        /// (`hooks.before_llm[0].token_budget.add_final_message`), when
        /// known: reports turn it into a line and column.
        place: Option<String>,
        /// The mistake is the value at `place`, not its key: reports
        /// point at the value.
        at_value: bool,
    },
    /// A `custom:` hook the replayer does not have: the file is fine, the
    /// Rust test that runs it registers the hook.
    #[error("{message}")]
    UnregisteredHook {
        /// The hook's name.
        name: String,
        /// How to register it.
        message: String,
    },
    /// The scenario runs the user's Python code (a `python:` hook or
    /// agent), which the Rust engine cannot: the run errors, saying which
    /// engine runs it.
    #[error("{message}")]
    NeedsHaystack {
        /// What needs Python, and the flag that runs it.
        message: String,
    },
    /// The Agent refused to build (Haystack's construction errors): the run
    /// fails, and `expect.error` may expect it.
    #[error(transparent)]
    Construction(#[from] AgentError),
}

impl PrepareError {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        PrepareError::Invalid {
            message: message.into(),
            place: None,
            at_value: false,
        }
    }

    /// An invalid file, the mistake at the key path `place`.
    pub(crate) fn invalid_at(place: impl Into<String>, message: impl Into<String>) -> Self {
        PrepareError::Invalid {
            message: message.into(),
            place: Some(place.into()),
            at_value: false,
        }
    }

    /// The error of a part of the file found at `place`: an invalid file's
    /// key path, relative to that part, becomes relative to the file.
    pub(crate) fn within(self, place: &str) -> Self {
        match self {
            PrepareError::Invalid {
                message,
                place: inner,
                at_value,
            } => PrepareError::Invalid {
                message,
                place: Some(match inner {
                    Some(inner) if !inner.is_empty() => format!("{place}.{inner}"),
                    _ => place.to_owned(),
                }),
                at_value,
            },
            other => other,
        }
    }
}

/// A ready-made entry's parameters: a value Haystack's constructor rejects
/// is a construction error; any other mistake makes the file invalid.
impl From<FromValueError> for PrepareError {
    fn from(error: FromValueError) -> Self {
        match error {
            FromValueError::Invalid(message) => {
                PrepareError::Construction(AgentError::HookParameters(message))
            }
            FromValueError::Format {
                path,
                message,
                at_value,
            } => PrepareError::Invalid {
                message,
                place: Some(path),
                at_value,
            },
        }
    }
}
