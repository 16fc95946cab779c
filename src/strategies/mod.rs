//! Proptest strategies for scenarios and hook orders, and the invariant
//! checks to run them against (feature `proptest`, on by default).
//!
//! ```text
//!  Shape ──▶ scenarios_shaped ──▶ Scenario ──┐
//!  your hooks ──▶ permuted_registrations ──▶ install ──▶ Replay::run
//!                                                          │
//!            Property::run ◀── Invariants::check ◀── Outcome
//!                 │ fails
//!                 ▼
//!   $HOOKHARNESS_FAILURES_DIR/<property>.yaml  (hookharness run replays it)
//! ```
//!
//! - Generators build [`Scenario`] values directly: [`model_reply`] and
//!   [`model_script`] (text, tool calls, `length`/`content_filter`
//!   finishes, empty replies, nested usages, errors), [`tool_script`] and
//!   [`tool_scripts`] (successes and errors, `repeat_last`),
//!   [`hook_entry`] and [`hook_registrations`] (declarative hooks that drop
//!   calls, continue, stop, append, resume or fail), [`state_schemas`], and
//!   whole scenarios with [`scenarios`] / [`scenarios_shaped`];
//!   [`contract_scenarios`] covers the whole scenario contract (ready-made
//!   hooks, tool mappings, odd-typed run metadata) for differential testing
//!   against Haystack.
//! - [`permuted_registrations`] permutes the registration order of your own
//!   hooks, within and across the points each allows; [`install`] puts them
//!   into a scenario.
//! - [`check_invariants`] and [`Invariants`] return every broken invariant
//!   of the loop with the trace excerpt that shows it.
//! - [`Property`] runs a property and writes its shrunk counterexample as
//!   a scenario file to `HOOKHARNESS_FAILURES_DIR`.
//!
//! ```
//! use hookharness::strategies::{Property, replay_and_check, scenarios};
//! use hookharness::replay::Replay;
//! use proptest::prop_assert;
//!
//! Property::new("generated_runs_keep_every_invariant").cases(16).run(scenarios(), |scenario| {
//!     let (_outcome, violations) = replay_and_check(&Replay::new(), &scenario);
//!     prop_assert!(violations.is_empty(), "{violations:#?}");
//!     Ok(())
//! });
//! ```

mod contract;
mod hooks;
mod model;
mod permute;
mod property;
mod scenario;
mod tools;

pub use crate::invariants::{Invariant, Invariants, Violation, check_invariants, compare_outcomes};
pub use contract::{METADATA_KEYS, contract_scenarios, odd_value};
pub use hooks::{STOP_VALUES, hook_entry, hook_registrations};
pub use model::{UNKNOWN_TOOL, model_reply, model_script, usage};
pub use permute::{Registration, install, permuted_registrations};
pub use property::{
    DEFAULT_CASES, FAILURES_DIR_VAR, MAX_SHRINK_ITERS, MAX_SHRINK_MILLIS, Property,
};
pub use scenario::{Shape, scenarios, scenarios_shaped, state_schemas};
pub use tools::{TOOL_NAMES, tool_script, tool_scripts};

use crate::replay::{Outcome, Replay};
use crate::scenario::Scenario;

/// Runs a scenario and checks every invariant the outcome and the
/// scenario show (with the replay's detail: the invariants that read what
/// each hook changed need [`Detail::Full`](crate::outcome::Detail::Full)).
///
/// ```
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
/// use hookharness::strategies::replay_and_check;
///
/// let scenario = Scenario::from_str("model: [{text: hi}]", "hi.yaml", Format::Yaml)?;
/// let (outcome, violations) = replay_and_check(&Replay::new(), &scenario);
/// assert!(outcome.passed());
/// assert!(violations.is_empty());
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[must_use]
pub fn replay_and_check(replay: &Replay, scenario: &Scenario) -> (Outcome, Vec<Violation>) {
    let outcome = replay.run(scenario);
    let violations = Invariants::new().scenario(scenario).check(&outcome);
    (outcome, violations)
}
