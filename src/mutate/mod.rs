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
//! does not allow) is *unviable*, one that changes a part the unmutated
//! run never used (a reply after its last model call) is *not reached*,
//! and one whose whole outcome (trace included) is the unmutated run's is
//! *equivalent*: none of them counts, as no expectation could notice them.
//!
//! ```text
//!  Scenario ──operators.rs──▶ [Mutant] ──Replay::run──▶ [Verdict] ──▶ Score
//!      └──Replay::run──▶ Outcome ──baseline.rs──▶ Baseline ──┘
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

mod baseline;
mod operators;

pub use baseline::Baseline;

use crate::outcome::{Outcome, Status};
use crate::replay::Replay;
use crate::scenario::{Located, Scenario};
use baseline::Needs;
use std::sync::Arc;

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

/// One change to a scenario. The changed scenario is built when it is
/// asked for ([`Mutant::scenario`]) and not kept, so a scenario's mutants
/// together hold one copy of it, however many they are.
#[derive(Clone)]
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
    /// The unmutated scenario, shared by its mutants.
    base: Arc<Scenario>,
    /// What turns a copy of `base` into the mutant.
    edit: operators::Edit,
    /// What the unmutated run must have used for the change to matter.
    needs: Needs,
}

impl Mutant {
    /// The scenario with the change, built anew on each call.
    #[must_use]
    pub fn scenario(&self) -> Scenario {
        let mut scenario = (*self.base).clone();
        (self.edit)(&mut scenario);
        scenario
    }

    /// The file of the scenario, when it was loaded from one.
    #[must_use]
    pub fn file(&self) -> Option<&std::path::Path> {
        self.base.file.as_deref()
    }
}

impl std::fmt::Debug for Mutant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutant")
            .field("operator", &self.operator)
            .field("place", &self.place)
            .field("position", &self.position)
            .field("description", &self.description)
            .field("needs", &self.needs)
            .finish_non_exhaustive()
    }
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
    /// The unmutated run never used the changed part, so the change cannot
    /// alter a run: equivalent by construction, not replayed, not counted.
    NotReached,
    /// The mutant's whole outcome ([`Outcome::to_value`], trace included)
    /// is the unmutated run's: the change shows nowhere, so no expectation
    /// can notice it. An equivalent mutant, not counted.
    Equivalent,
}

impl Verdict {
    /// The verdict's name in reports.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Killed => "killed",
            Verdict::Survived => "survived",
            Verdict::Unviable => "unviable",
            Verdict::NotReached => "not_reached",
            Verdict::Equivalent => "equivalent",
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
    let base = Arc::new(scenario.clone());
    operators::all(scenario)
        .into_iter()
        .map(|change| Mutant {
            operator: change.operator,
            place: change.place.to_string(),
            position: located.as_ref().and_then(|l| l.position(&change.place)),
            description: change.description,
            base: Arc::clone(&base),
            edit: change.edit,
            needs: change.needs,
        })
        .collect()
}

/// What kills a mutant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Oracle {
    /// The scenario's expectations: the mutant is killed when the scenario
    /// fails, as `hookharness run` would report it.
    #[default]
    Expectations,
    /// The whole outcome, as a snapshot holds it ([`Outcome::to_value`]):
    /// the mutant is killed when any part of it differs from the
    /// unmutated run's. Every mutant is then killed or
    /// [`Verdict::Equivalent`]: this oracle tells the mutants some
    /// expectation could notice from those none can.
    Outcome,
}

/// Replays one mutant with `replay` and judges it by `oracle`; `baseline`
/// is what the unmutated run did ([`baseline`]). A mutant that `oracle`
/// does not kill and whose outcome is the baseline's is
/// [`Verdict::Equivalent`].
#[must_use]
pub fn judge(replay: &Replay, mutant: &Mutant, baseline: &Baseline, oracle: Oracle) -> Verdict {
    if !baseline.covers(&mutant.needs) {
        return Verdict::NotReached;
    }
    // One run: the library says when the mutant is no valid scenario.
    let outcome = replay.run(&mutant.scenario());
    if outcome.status == Status::Invalid {
        return Verdict::Unviable;
    }
    // A failing scenario is killed whatever its outcome; a passing one is
    // equivalent when its outcome is the baseline's.
    match oracle {
        Oracle::Expectations if !outcome.passed() => Verdict::Killed,
        _ if outcome.same_value(&baseline.outcome) => Verdict::Equivalent,
        Oracle::Outcome => Verdict::Killed,
        Oracle::Expectations => Verdict::Survived,
    }
}

/// Checks that `scenario` passes, then replays each of its mutants and
/// judges it by its expectations.
///
/// # Errors
///
/// [`NotGreen`] when the scenario itself does not pass.
pub fn run(replay: &Replay, scenario: &Scenario) -> Result<Vec<MutantResult>, NotGreen> {
    let baseline = baseline(replay, scenario)?;
    Ok(mutants(scenario)
        .into_iter()
        .map(|mutant| MutantResult {
            verdict: judge(replay, &mutant, &baseline, Oracle::Expectations),
            mutant,
        })
        .collect())
}

/// What the unmutated run of `scenario` did, when it passes.
///
/// # Errors
///
/// [`NotGreen`] with the outcome when it does not pass.
pub fn baseline(replay: &Replay, scenario: &Scenario) -> Result<Baseline, NotGreen> {
    let outcome = replay.run(scenario);
    if outcome.passed() {
        Ok(Baseline::of(scenario, &outcome))
    } else {
        Err(NotGreen {
            status: outcome.status.as_str(),
            outcome: Box::new(outcome),
        })
    }
}

/// Killed and viable counts: the score is `killed / (killed + survived)`;
/// unviable, not reached and equivalent mutants are not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Score {
    /// Mutants some expectation noticed.
    pub killed: usize,
    /// Mutants no expectation noticed.
    pub survived: usize,
    /// Mutants the Agent refused to build.
    pub unviable: usize,
    /// Mutants of parts the unmutated run never used.
    pub not_reached: usize,
    /// Mutants whose outcome is the unmutated run's.
    pub equivalent: usize,
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
                Verdict::NotReached => score.not_reached += 1,
                Verdict::Equivalent => score.equivalent += 1,
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
