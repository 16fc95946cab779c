//! A scenario file as a test: `Ok` when it passes, an error carrying the
//! human report when it does not.
//!
//! This is what a test harness calls once per file (datatest-stable,
//! libtest-mimic, or a plain `#[test]`): the report is the one
//! `hookharness run` prints, so a failing test reads the same in
//! `cargo test`, nextest and the CLI.

use super::{Outcome, Replay};
use crate::report::human_outcome;
use crate::scenario::Scenario;
use std::fmt;
use std::path::Path;

/// A scenario that did not pass: an unmet expectation, an unexpected
/// failure, or a file that does not load.
///
/// Its `Display` and `Debug` are both the human report (file, scenario,
/// each failure with expected against actual), because test harnesses print
/// an error with `{:?}`.
#[derive(Clone, PartialEq)]
pub struct ScenarioFailure {
    outcome: Box<Outcome>,
}

impl ScenarioFailure {
    /// The outcome of the run that did not pass.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }
}

impl fmt::Display for ScenarioFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(human_outcome(&self.outcome).trim_end())
    }
}

impl fmt::Debug for ScenarioFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ScenarioFailure {}

impl Replay {
    /// Loads and runs a scenario file as a test: its outcome when it passes,
    /// else a [`ScenarioFailure`] whose message is the human report.
    ///
    /// ```
    /// use hookharness::replay::Replay;
    ///
    /// let outcome = Replay::new()
    ///     .test_file("scenarios/before_llm/stop_at_second_step.yaml")
    ///     .unwrap_or_else(|failure| panic!("{failure}"));
    /// assert!(outcome.passed());
    ///
    /// let failure = Replay::new().test_file("no/such/scenario.yaml").unwrap_err();
    /// assert!(failure.to_string().starts_with("ERROR no/such/scenario.yaml"));
    /// ```
    pub fn test_file(&self, path: impl AsRef<Path>) -> Result<Outcome, ScenarioFailure> {
        passed(self.run_file(path))
    }

    /// Runs a loaded scenario as a test, as [`Replay::test_file`] does.
    pub fn test(&self, scenario: &Scenario) -> Result<Outcome, ScenarioFailure> {
        passed(self.run(scenario))
    }
}

fn passed(outcome: Outcome) -> Result<Outcome, ScenarioFailure> {
    if outcome.passed() {
        Ok(outcome)
    } else {
        Err(ScenarioFailure {
            outcome: Box::new(outcome),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    const FAILING: &str = "\
name: says hello
model:
  - text: goodbye
run:
  messages: [{role: user, text: hi}]
expect:
  last_message: {text: hello}
";

    #[test]
    fn a_failing_scenario_is_an_error_whose_debug_is_the_human_report() {
        let scenario = Scenario::from_str(FAILING, "says_hello.yaml", Format::Yaml).unwrap();
        let failure = Replay::new().test(&scenario).unwrap_err();
        let report = format!("{failure:?}");
        assert_eq!(report, failure.to_string());
        assert!(report.starts_with("FAIL "), "{report}");
        assert!(report.contains("says hello"), "{report}");
        assert!(report.contains("goodbye"), "{report}");
        assert_eq!(failure.outcome().status, crate::replay::Status::Fail);
    }
}
