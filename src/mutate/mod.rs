//! Mutation testing of scenarios: how strong a corpus's expectations are.
//!
//! A scenario that expects almost nothing passes whatever its hooks do. A
//! *mutant* is the scenario with one part changed: a declarative hook's
//! action dropped, a `when` condition dropped or shifted, `times` changed, a
//! hook moved to another point or swapped with its neighbour, a model reply
//! dropped, swapped or duplicated, a tool call's argument or a tool result
//! changed. Each mutant is replayed; it is *killed* when the scenario then
//! fails (an expectation, or the run itself), and *survives* when the
//! scenario still passes: then no expectation pins what the changed part
//! does. A mutant the Agent refuses to build (a hook moved to a point it
//! does not allow) is *unviable* and counts for nothing.
//!
//! ```text
//!  Scenario ──operators.rs──▶ [Mutant] ──Replay::run──▶ [Verdict] ──▶ Score
//! ```
//!
//! ```
//! use hookharness::mutate::{self, Verdict};
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//!
//! // The hook stops the run, but nothing expects the stop.
//! let scenario = Scenario::from_str(
//!     "hooks:\n  before_llm:\n    - do: [{stop_run: budget}]\n\
//!      model: [{text: hi}]\n\
//!      expect: {unused_replies: allow}\n",
//!     "weak.yaml",
//!     Format::Yaml,
//! )?;
//! let results = mutate::run(&Replay::new(), &scenario).unwrap();
//! let survivor = results.iter().find(|r| r.verdict == Verdict::Survived).unwrap();
//! assert_eq!(survivor.mutant.place, "hooks.before_llm[0]");
//! assert_eq!(survivor.mutant.description, "drop the hook");
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

mod operators;

use crate::outcome::Outcome;
use crate::replay::Replay;
use crate::scenario::{Located, Scenario};

/// What a mutant changes, by kind (for `--format json` and filtering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Operator {
    /// A hook entry removed from its point.
    DropHook,
    /// One `do` action of a declarative hook removed.
    DropAction,
    /// One `when` condition of a declarative hook removed.
    DropCondition,
    /// A `when.step_count` bound moved by one.
    ShiftStepCount,
    /// `when.times` one more or one less.
    ChangeTimes,
    /// A hook registered at another point its `allowed_hook_points` permits.
    MoveHook,
    /// Two neighbouring hooks of a point in the other order.
    SwapHooks,
    /// A model reply removed.
    DropReply,
    /// Two neighbouring model replies in the other order.
    SwapReplies,
    /// A model reply given twice.
    DuplicateReply,
    /// One argument of a scripted tool call changed.
    ChangeArgument,
    /// A scripted tool result changed (an error becomes a success).
    ChangeToolResult,
}

impl Operator {
    /// The operator's name in reports: `drop_action`, `swap_replies`, ...
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::DropHook => "drop_hook",
            Operator::DropAction => "drop_action",
            Operator::DropCondition => "drop_condition",
            Operator::ShiftStepCount => "shift_step_count",
            Operator::ChangeTimes => "change_times",
            Operator::MoveHook => "move_hook",
            Operator::SwapHooks => "swap_hooks",
            Operator::DropReply => "drop_reply",
            Operator::SwapReplies => "swap_replies",
            Operator::DuplicateReply => "duplicate_reply",
            Operator::ChangeArgument => "change_argument",
            Operator::ChangeToolResult => "change_tool_result",
        }
    }
}

/// One change to a scenario.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Mutant {
    /// The kind of change.
    pub operator: Operator,
    /// The key path of the changed part, e.g. `hooks.before_llm[0].do[1]`.
    pub place: String,
    /// The line and column of the changed part in the scenario's file,
    /// when the scenario was loaded from one.
    pub position: Option<(usize, usize)>,
    /// What changed, e.g. ``drop `do[1]` (`set`)``.
    pub description: String,
    /// The scenario with the change.
    pub scenario: Scenario,
}

/// What replaying a mutant showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The scenario failed: some expectation (or the run) noticed the change.
    Killed,
    /// The scenario still passed: nothing pins what the changed part does.
    Survived,
    /// The Agent refused to build the mutant (Haystack's construction
    /// errors): not a test of the scenario, not counted.
    Unviable,
}

impl Verdict {
    /// The verdict's name in reports.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Killed => "killed",
            Verdict::Survived => "survived",
            Verdict::Unviable => "unviable",
        }
    }
}

/// A mutant and its verdict.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MutantResult {
    /// The mutant.
    pub mutant: Mutant,
    /// Whether the scenario noticed it.
    pub verdict: Verdict,
}

/// Why a scenario cannot be mutated: it does not pass as written, so a
/// failing mutant would say nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "the scenario does not pass as written ({status}), so its mutants would prove nothing; \
     make `hookharness run` pass on it first"
)]
#[non_exhaustive]
pub struct NotGreen {
    /// The status of the unmutated run (`fail`, `error`, `invalid`).
    pub status: &'static str,
    /// The unmutated run's outcome.
    pub outcome: Box<Outcome>,
}

/// Every mutant of `scenario`, in a fixed order (the scenario's own order:
/// hooks, then the model script, then tool results).
#[must_use]
pub fn mutants(scenario: &Scenario) -> Vec<Mutant> {
    let located = scenario.file.as_deref().and_then(Located::read);
    operators::all(scenario)
        .into_iter()
        .map(|change| Mutant {
            operator: change.operator,
            place: change.place.to_string(),
            position: located.as_ref().and_then(|l| l.position(&change.place)),
            description: change.description,
            scenario: change.scenario,
        })
        .collect()
}

/// Replays one mutant with `replay`.
#[must_use]
pub fn judge(replay: &Replay, mutant: &Mutant) -> Verdict {
    if replay
        .unexpected_construction_error(&mutant.scenario)
        .is_some()
        || replay.validate(&mutant.scenario).is_err()
    {
        return Verdict::Unviable;
    }
    if replay.run(&mutant.scenario).passed() {
        Verdict::Survived
    } else {
        Verdict::Killed
    }
}

/// Checks that `scenario` passes, then replays each of its mutants.
///
/// # Errors
///
/// [`NotGreen`] when the scenario itself does not pass.
pub fn run(replay: &Replay, scenario: &Scenario) -> Result<Vec<MutantResult>, NotGreen> {
    baseline(replay, scenario)?;
    Ok(mutants(scenario)
        .into_iter()
        .map(|mutant| MutantResult {
            verdict: judge(replay, &mutant),
            mutant,
        })
        .collect())
}

/// `Ok` when `scenario` passes as written.
///
/// # Errors
///
/// [`NotGreen`] with the outcome when it does not.
pub fn baseline(replay: &Replay, scenario: &Scenario) -> Result<(), NotGreen> {
    let outcome = replay.run(scenario);
    if outcome.passed() {
        Ok(())
    } else {
        Err(NotGreen {
            status: outcome.status.as_str(),
            outcome: Box::new(outcome),
        })
    }
}

/// Killed and viable counts: the score is `killed / (killed + survived)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Score {
    /// Mutants some expectation noticed.
    pub killed: usize,
    /// Mutants no expectation noticed.
    pub survived: usize,
    /// Mutants the Agent refused to build.
    pub unviable: usize,
}

impl Score {
    /// Counts the verdicts.
    #[must_use]
    pub fn of<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Score {
        let mut score = Score::default();
        for verdict in verdicts {
            match verdict {
                Verdict::Killed => score.killed += 1,
                Verdict::Survived => score.survived += 1,
                Verdict::Unviable => score.unviable += 1,
            }
        }
        score
    }

    /// The mutants that count: killed and survived.
    #[must_use]
    pub fn viable(&self) -> usize {
        self.killed + self.survived
    }
}
