//! Exploring a scenario: its variants, each checked against the loop's
//! invariants and the scenario's `expect.always`.
//!
//! A scenario file states one run: one registration order of its hooks,
//! one answer to each confirmation question, no failure. [`Explore`] runs
//! the others. Its dimensions:
//!
//! - **orders**: every registration order of the hooks at each point, and
//!   every point a declarative hook's `allowed_hook_points` lets it move to;
//! - **answers**: every answer (confirm, modify, reject) to every question
//!   of a scripted confirmation UI;
//! - **faults** (opt-in): one tool call, model call or hook run that fails,
//!   at each place the scenario as written reaches.
//!
//! Orders and answers combine; each fault is a variant of the scenario as
//! written. When there are at most [`Explore::max_variants`] combinations,
//! every one is run (the scenario's own first); beyond that many are
//! sampled with a seed (`--seed`, by default one derived from the scenario's
//! name), so the same command explores the same variants.
//!
//! ```text
//!  Scenario ──run as written──▶ Outcome (expect; the invariants it breaks by design)
//!     │
//!     └─ orders × answers (+ faults) ──▶ [Variant] ──Replay (Detail::Full)──▶ Outcome
//!                                          expect := always (under_faults)   │
//!                                          Invariants::check ◀───────────────┘
//!                                                  ▼
//!                                        [Checked] (broken: why) ──▶ minimal scenario file
//! ```
//!
//! A variant is *broken* when an `always` expectation fails on it, when it
//! breaks an invariant that the scenario as written keeps, or when its run
//! fails although nothing injected a fault and the scenario does not expect
//! an error. Under a fault, `always` holds only for the keys its
//! `under_faults` lists, and when the fault failed the run, only for those
//! the trace shows (`hooks`, `llm_calls`, `tools_run`, `trace`).
//!
//! ```
//! use hookharness::explore::Explore;
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//!
//! // Two hooks write `log`; only one order leaves it as `always` wants.
//! let scenario = Scenario::from_str(
//!     r#"
//! agent: {state_schema: {log: {type: str}}}
//! hooks:
//!   before_llm:
//!     - {name: draft, do: [{set: {log: draft}}]}
//!     - {name: final, do: [{set: {log: final}}]}
//! model: [{text: done}]
//! expect:
//!   always: {state: {log: final}}
//! "#,
//!     "order.yaml",
//!     Format::Yaml,
//! )?;
//! let exploration = Explore::new().run(&Replay::new(), &scenario);
//! assert_eq!(exploration.variants.len(), 2);
//! let broken: Vec<_> = exploration.broken().collect();
//! assert_eq!(broken.len(), 1);
//! assert_eq!(broken[0].variant.changes, ["before_llm: [final, draft]"]);
//! assert_eq!(broken[0].reasons, ["state.log: expected \"final\", got \"draft\""]);
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

mod answers;
mod faults;
mod orders;
mod rng;
mod shrink;

use crate::expect::Expectation;
use crate::invariants::{Invariant, Invariants, Violation};
use crate::outcome::{Detail, Outcome};
use crate::replay::Replay;
use crate::scenario::{Expect, Scenario};
use crate::scripted::Unscripted;
use answers::Questions;
use faults::Fault;
use orders::Orders;
use rng::Rng;
use std::collections::HashSet;

/// How many variants are run before sampling starts, when not told.
///
/// ```
/// assert_eq!(hookharness::explore::DEFAULT_MAX_VARIANTS, 256);
/// ```
pub const DEFAULT_MAX_VARIANTS: u32 = 256;

/// What to vary, and how many variants to run at most.
///
/// ```
/// use hookharness::explore::Explore;
///
/// let explore = Explore::new().faults(true).max_variants(32).seed(7);
/// assert!(explore.orders && explore.answers && explore.faults);
/// assert_eq!(explore.max_variants, 32);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Explore {
    /// Vary hook orders (and points, where `allowed_hook_points` allows).
    pub orders: bool,
    /// Vary confirmation answers.
    pub answers: bool,
    /// Add one variant per fault place.
    pub faults: bool,
    /// Run every variant up to this many; sample this many beyond it (for
    /// orders and answers, and again for faults).
    pub max_variants: usize,
    /// The sampling seed; `None`: derived from the scenario's name.
    pub seed: Option<u64>,
}

impl Default for Explore {
    fn default() -> Self {
        Explore {
            orders: true,
            answers: true,
            faults: false,
            max_variants: DEFAULT_MAX_VARIANTS as usize,
            seed: None,
        }
    }
}

/// One variant of a scenario: what differs, and the scenario to run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Variant {
    /// Its number (1 is the scenario's own orders and answers).
    pub number: usize,
    /// What differs from the scenario as written, one part a line (empty
    /// for the scenario as written).
    pub changes: Vec<String>,
    /// `true` when a fault is injected.
    pub faulted: bool,
    /// The scenario of the variant; its `expect` is what the variant is
    /// held to (`always`, or the part of it that holds under faults).
    pub scenario: Scenario,
}

/// A variant run and checked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Checked {
    /// The variant.
    pub variant: Variant,
    /// Its outcome (with the full trace).
    pub outcome: Outcome,
    /// The invariants it breaks (those the scenario as written breaks by
    /// design left out).
    pub violations: Vec<Violation>,
    /// Why it is broken, one reason a line; empty when it is not.
    pub reasons: Vec<String>,
}

/// Every variant of a scenario, run and checked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Exploration {
    /// The scenario as written, run with its `expect`.
    pub as_written: Outcome,
    /// The invariants about the loop that the scenario as written breaks
    /// (by design: an `after_run` hook that rewrites `exit_reason`); not
    /// checked on its variants. The invariants about hooks
    /// ([`Invariant::is_about_hooks`]) are checked on every variant.
    pub by_design: Vec<Invariant>,
    /// How many order and answer combinations there are (saturating).
    pub space: u128,
    /// The seed, when the combinations were sampled.
    pub sampled: Option<u64>,
    /// The variants, in order.
    pub variants: Vec<Checked>,
}

impl Exploration {
    /// The broken variants.
    pub fn broken(&self) -> impl Iterator<Item = &Checked> {
        self.variants.iter().filter(|c| c.broken())
    }
}

/// The variants of a scenario, before they are run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Space {
    /// How many order and answer combinations there are (saturating).
    pub size: u128,
    /// The seed, when the combinations were sampled.
    pub sampled: Option<u64>,
    /// The variants to run.
    pub variants: Vec<Variant>,
}

impl Explore {
    /// Orders and answers, no faults, [`DEFAULT_MAX_VARIANTS`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether to vary hook orders.
    #[must_use]
    pub fn orders(mut self, on: bool) -> Self {
        self.orders = on;
        self
    }

    /// Whether to vary confirmation answers.
    #[must_use]
    pub fn answers(mut self, on: bool) -> Self {
        self.answers = on;
        self
    }

    /// Whether to inject faults.
    #[must_use]
    pub fn faults(mut self, on: bool) -> Self {
        self.faults = on;
        self
    }

    /// The most variants run before sampling (at least 1).
    #[must_use]
    pub fn max_variants(mut self, max: usize) -> Self {
        self.max_variants = max.max(1);
        self
    }

    /// The sampling seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Runs the scenario as written, then every variant, and checks each.
    #[must_use]
    pub fn run(&self, replay: &Replay, scenario: &Scenario) -> Exploration {
        let (as_written, by_design) = self.as_written(replay, scenario);
        let space = self.variants(scenario, &as_written);
        let variants = space
            .variants
            .into_iter()
            .map(|variant| check(replay, scenario, variant, &by_design))
            .collect();
        Exploration {
            as_written,
            by_design,
            space: space.size,
            sampled: space.sampled,
            variants,
        }
    }

    /// The scenario run as written (with its `expect` and the full trace),
    /// and the invariants that run breaks.
    #[must_use]
    pub fn as_written(&self, replay: &Replay, scenario: &Scenario) -> (Outcome, Vec<Invariant>) {
        let outcome = replay.clone().detail(Detail::Full).run(scenario);
        let mut by_design: Vec<Invariant> = Invariants::new()
            .scenario(scenario)
            .check(&outcome)
            .into_iter()
            .map(|v| v.invariant)
            .filter(|i| !i.is_about_hooks())
            .collect();
        by_design.dedup();
        (outcome, by_design)
    }

    /// The variants of `scenario`; `as_written` (its run) tells where
    /// faults can go.
    #[must_use]
    pub fn variants(&self, scenario: &Scenario, as_written: &Outcome) -> Space {
        let orders = Orders::of(scenario);
        let questions = Questions::of(scenario);
        let order_count = if self.orders { orders.count() } else { 1 };
        let answer_count = if self.answers { questions.count() } else { 1 };
        let size = order_count.saturating_mul(answer_count);
        let seed = self.seed.unwrap_or_else(|| rng::seed_of(&scenario.name));
        let mut rng = Rng::new(seed);
        let own_layout = vec![orders.own()];
        let own_answers = vec![questions.own()];
        let mut combinations = Vec::new();
        let sampled = if size <= self.max_variants as u128 {
            let layouts = if self.orders {
                orders.all()
            } else {
                own_layout
            };
            let answer_sets = if self.answers {
                questions.all()
            } else {
                own_answers
            };
            for answers in &answer_sets {
                for layout in &layouts {
                    combinations.push((layout.clone(), answers.clone()));
                }
            }
            None
        } else {
            let mut seen = HashSet::new();
            combinations.push((own_layout[0].clone(), own_answers[0].clone()));
            seen.insert(format!("{:?}", combinations[0]));
            for _ in 0..self.max_variants.saturating_mul(20) {
                if combinations.len() >= self.max_variants {
                    break;
                }
                let layout = if self.orders {
                    orders.random(&mut rng)
                } else {
                    own_layout[0].clone()
                };
                let answers = if self.answers {
                    questions.random(&mut rng)
                } else {
                    own_answers[0].clone()
                };
                let combination = (layout, answers);
                if seen.insert(format!("{combination:?}")) {
                    combinations.push(combination);
                }
            }
            Some(seed)
        };
        let mut variants: Vec<Variant> = combinations
            .into_iter()
            .enumerate()
            .map(|(i, (layout, answers))| {
                let mut variant = scenario.clone();
                questions.apply(&mut variant, &answers);
                variant.hooks = orders::apply(&variant, &layout);
                let mut changes = orders::describe(scenario, &layout);
                changes.extend(questions.describe(&answers));
                variant.expect = held_to(scenario, false);
                Variant {
                    number: i + 1,
                    changes,
                    faulted: false,
                    scenario: variant,
                }
            })
            .collect();
        if self.faults {
            let mut places = Fault::places(as_written);
            if places.len() > self.max_variants {
                let mut picked: Vec<usize> = (0..places.len()).collect();
                rng.shuffle(&mut picked);
                picked.truncate(self.max_variants);
                picked.sort_unstable();
                places = picked.into_iter().map(|i| places[i].clone()).collect();
            }
            for fault in places {
                let mut variant = scenario.clone();
                if fault.apply(&mut variant).is_none() {
                    continue;
                }
                variant.expect = held_to(scenario, true);
                variants.push(Variant {
                    number: variants.len() + 1,
                    changes: vec![fault.describe()],
                    faulted: true,
                    scenario: variant,
                });
            }
        }
        Space {
            size,
            sampled,
            variants,
        }
    }
}

/// What a variant is held to: `always` (its `under_faults` part when
/// faulted), replies left unused allowed.
fn held_to(scenario: &Scenario, faulted: bool) -> Expect {
    match &scenario.expect.always {
        Some(always) if faulted => always.under_faults(),
        Some(always) => always.expect.only(&always.keys()),
        None => Expect::default().only(&[] as &[&str]),
    }
}

/// Runs one variant with the full trace and says why it is broken.
#[must_use]
pub fn check(
    replay: &Replay,
    scenario: &Scenario,
    variant: Variant,
    by_design: &[Invariant],
) -> Checked {
    let mut variant = variant;
    let replay = replay.clone().detail(Detail::Full).for_variants();
    let mut outcome = replay.run(&variant.scenario);
    if variant.faulted && outcome.result.is_none() {
        // A fault that failed the run leaves no result: only the keys a
        // failed run shows are held (their failures stand as checked).
        let expect = &mut variant.scenario.expect;
        let dropped: Vec<&str> = expect
            .list
            .iter()
            .filter(|e| !e.holds_without_result())
            .map(Expectation::key)
            .collect();
        expect.list.retain(Expectation::holds_without_result);
        outcome
            .failures
            .retain(|f| !dropped.contains(&f.key.as_str()));
    }
    let violations: Vec<Violation> = Invariants::new()
        .scenario(&variant.scenario)
        .check(&outcome)
        .into_iter()
        .filter(|v| !by_design.contains(&v.invariant))
        .collect();
    let mut reasons: Vec<String> = outcome.failures.iter().map(|f| f.message.clone()).collect();
    reasons.extend(
        violations
            .iter()
            .map(|v| format!("{}: {}", v.invariant, v.message)),
    );
    if let Some(error) = &outcome.error {
        let invalid = outcome.status == crate::outcome::Status::Invalid;
        if invalid || (!variant.faulted && scenario.expect.error().is_none()) {
            reasons.push(format!("the run failed: {}", error.message));
        }
    }
    Checked {
        variant,
        outcome,
        violations,
        reasons,
    }
}

impl Checked {
    /// The expectation keys that failed on the variant, in the format's
    /// order (each failure names its key).
    #[must_use]
    pub fn failed_keys(&self) -> Vec<&'static str> {
        self.variant
            .scenario
            .expect
            .keys()
            .into_iter()
            .filter(|key| self.outcome.failures.iter().any(|f| f.key == *key))
            .collect()
    }

    /// What the variant needs that the file does not script, when that is
    /// why it broke: its run went past the model script, a tool's results
    /// or a confirmation UI's answers, or a reply's `sees` did not hold (the
    /// replies were written for the conversation of the scenario as
    /// written), and nothing else broke (no invariant, no injected fault,
    /// no `always` expectation). Such a variant leaves the script: the
    /// hooks did nothing wrong, the file does not say what happens there.
    ///
    /// ```
    /// use hookharness::explore::Explore;
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    /// use hookharness::scripted::Unscripted;
    ///
    /// // In the other order, `again` continues the run: a second LLM call.
    /// let scenario = Scenario::from_str(
    ///     "hooks: {on_exit: [{name: again, do: [{continue_run: true}]}, {name: done, do: [{continue_run: false}]}]}\n\
    ///      model: [{text: hi}]",
    ///     "exit.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let exploration = Explore::new().run(&Replay::new(), &scenario);
    /// let variant = exploration.broken().next().unwrap();
    /// assert_eq!(variant.unscripted(), Some(Unscripted::Reply));
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn unscripted(&self) -> Option<Unscripted> {
        if self.variant.faulted || !self.violations.is_empty() {
            return None;
        }
        match &self.outcome.error {
            Some(error) => Unscripted::of(error),
            None => {
                let failures = &self.outcome.failures;
                (!failures.is_empty() && failures.iter().all(|f| f.key == "sees"))
                    .then_some(Unscripted::Conversation)
            }
        }
    }

    /// `true` when the variant is broken.
    #[must_use]
    pub fn broken(&self) -> bool {
        !self.reasons.is_empty()
    }

    /// The variant as a scenario file of its own: named after the variant,
    /// described by its changes and why it broke, expecting only the
    /// `always` keys that failed (so `hookharness run` fails on it the same
    /// way; a variant that broke only an invariant expects nothing, and
    /// `hookharness explain` shows its run).
    ///
    /// ```
    /// use hookharness::explore::Explore;
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str(
    ///     "agent: {state_schema: {log: {type: str}}}\n\
    ///      hooks: {before_llm: [{name: a, do: [{set: {log: a}}]}, {name: b, do: [{set: {log: b}}]}]}\n\
    ///      model: [{text: done}]\n\
    ///      expect: {always: {state: {log: b}, llm_calls: 1}}",
    ///     "order.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let exploration = Explore::new().run(&Replay::new(), &scenario);
    /// let minimal = exploration.broken().next().unwrap().minimal();
    /// assert_eq!(minimal.name, "order (variant 2)");
    /// assert_eq!(minimal.expect.keys(), ["state"]);
    /// assert!(!Replay::new().run(&minimal).passed());
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn minimal(&self) -> Scenario {
        let mut scenario = self.variant.scenario.clone();
        scenario.expect = scenario.expect.only(&self.failed_keys());
        let first_lines: Vec<&str> = self
            .reasons
            .iter()
            .map(|r| r.lines().next().unwrap_or_default())
            .collect();
        let changes = if self.variant.changes.is_empty() {
            "as written".to_owned()
        } else {
            self.variant.changes.join("; ")
        };
        scenario.description = Some(format!(
            "explore: variant {} of `{}` ({changes}) broke: {}",
            self.variant.number,
            scenario.name,
            first_lines.join("; ")
        ));
        scenario.name = format!("{} (variant {})", scenario.name, self.variant.number);
        scenario.file = None;
        scenario
    }
}
