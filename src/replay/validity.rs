//! What the file decides: the verdict "this scenario is invalid, here",
//! given once by the library for every caller (`Replay::run` and
//! `Replay::test`, each command of the command line, mutate, explore).
//!
//! A file is invalid when preparing its run finds a mistake loading
//! cannot see (a ready-made hook's parameters, an undefined `shared:`
//! name, a message Haystack cannot read), or when Haystack's `Agent(...)`
//! refuses to build and no `expect.error` expects it. Each error names its
//! line and column from the scenario's source map, kept at load time.

use super::prepare_error::PrepareError;
use super::{Outcome, Replay, Status, culprit};
use crate::outcome::{ErrorKind, RunError};
use crate::scenario::{KeyPath, Scenario, ScenarioError, ScenarioErrorKind};

impl Replay {
    /// Every error the file decides, each naming the file, the line and
    /// column and the fix: a mistake only preparing the run finds (the
    /// first one), else each Agent construction error no `expect.error`
    /// expects. Empty when the file is valid. A `custom:` hook the
    /// replayer lacks is no file error (the Rust test that runs the file
    /// registers it).
    ///
    /// ```
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str(
    ///     "hooks:\n  befor_llm: [{do: []}]\nmodel: [{text: hi}]\n",
    ///     "typo.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let errors = Replay::new().file_errors(&scenario);
    /// assert!(errors[0].to_string().starts_with(
    ///     "typo.yaml:2:3: the Agent cannot be built: Invalid hook point 'befor_llm'."
    /// ));
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn file_errors(&self, scenario: &Scenario) -> Vec<ScenarioError> {
        match self.prepare_with_placeholders(scenario) {
            Err(PrepareError::Invalid {
                message,
                place,
                at_value,
            }) => vec![prepare_error(scenario, message, place.as_deref(), at_value)],
            Err(PrepareError::Construction(_)) => culprit::construction_errors(self, scenario),
            _ => Vec::new(),
        }
    }

    /// `outcome`, or, when its run failed with an Agent construction error
    /// the file decides, the file's invalid outcome: its error lists each
    /// construction error as [`file_errors`](Self::file_errors) does, and
    /// the expectations' verdicts stay those of the failed run
    /// (trace-based ones checked against its empty trace, result-based
    /// ones failing with "no result to check"), as for any run that fails.
    pub(super) fn decided(&self, scenario: &Scenario, outcome: Outcome) -> Outcome {
        let construction = matches!(
            outcome.error.as_ref().map(|error| &error.kind),
            Some(ErrorKind::Construction | ErrorKind::ReservedStateKeys)
        );
        if outcome.status != Status::Error || !construction || self.variants {
            return outcome;
        }
        // Either engine: a Haystack engine's construction error is located
        // by the Rust construction of the file (a scenario with Python
        // code has none, and keeps Haystack's text).
        let errors = culprit::construction_errors(self, scenario);
        if errors.is_empty() {
            return outcome;
        }
        Outcome {
            status: Status::Invalid,
            error: Some(invalid(&errors)),
            result: None,
            ..outcome
        }
    }
}

/// The invalid file's error: one line per error.
pub(super) fn invalid(errors: &[ScenarioError]) -> RunError {
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    RunError::invalid(lines.join("\n"))
}

/// A mistake preparing the run found at the key path `place`, at its
/// position in the scenario's source map (the value's, with `at_value`,
/// else the deepest step of `place` the file holds).
pub(super) fn prepare_error(
    scenario: &Scenario,
    message: String,
    place: Option<&str>,
    at_value: bool,
) -> ScenarioError {
    let path = place.map(KeyPath::parse);
    let position = path.as_ref().and_then(|path| {
        let value = at_value
            .then(|| scenario.source.value_position(path))
            .flatten();
        value.or_else(|| scenario.source.nearest(path))
    });
    ScenarioError::new(ScenarioErrorKind::Prepare { message }, &file_name(scenario))
        .with_path(place.unwrap_or_default().to_owned())
        .at_position(position)
}

/// The name errors give the scenario's file: its path, else the name it
/// was loaded from text under.
pub(crate) fn file_name(scenario: &Scenario) -> String {
    match &scenario.file {
        Some(path) => path.display().to_string(),
        None => scenario.source.origin().to_owned(),
    }
}
