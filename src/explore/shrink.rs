//! Shrinking a broken variant: leaving out the hooks and the trailing model
//! replies its failure does not need, one at a time, keeping each removal
//! after which the variant still breaks the same way (the same failure
//! lines, expected and actual values included, the same invariants broken,
//! the run failing or not with the same kind of error).

use super::{Checked, Variant, check};
use crate::invariants::Invariant;
use crate::outcome::ErrorKind;
use crate::replay::Replay;
use crate::scenario::{HookEntry, Scenario};

/// How a variant is broken.
#[derive(Debug, PartialEq)]
struct Symptoms {
    failures: Vec<String>,
    invariants: Vec<Invariant>,
    error: Option<ErrorKind>,
}

fn symptoms(checked: &Checked) -> Symptoms {
    let mut invariants: Vec<Invariant> = checked.violations.iter().map(|v| v.invariant).collect();
    invariants.sort_unstable();
    invariants.dedup();
    Symptoms {
        failures: checked
            .outcome
            .failures
            .iter()
            .map(|f| f.message.clone())
            .collect(),
        invariants,
        error: checked.outcome.error.as_ref().map(|e| e.kind.clone()),
    }
}

impl Checked {
    /// [`minimal`](Checked::minimal), without the hooks and trailing model
    /// replies the failure does not need: each is left out in turn (hooks
    /// from the last, then replies from the end) and stays out when the
    /// variant still breaks the same way. `scenario` is the scenario as
    /// written and `by_design` the invariants it breaks, as
    /// [`check`] takes them.
    ///
    /// ```
    /// use hookharness::explore::Explore;
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// // `noise` has nothing to do with the order of `a` and `b`; with `b`
    /// // first, `a` alone leaves `log` as the broken order does.
    /// let scenario = Scenario::from_str(
    ///     "agent: {state_schema: {log: {type: str}}}\n\
    ///      hooks:\n  before_llm: [{name: a, do: [{set: {log: a}}]}, {name: b, do: [{set: {log: b}}]}]\n  after_run: [{name: noise}]\n\
    ///      model: [{text: done}]\n\
    ///      expect: {always: {state: {log: b}}}",
    ///     "order.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let replay = Replay::new();
    /// let exploration = Explore::new().run(&replay, &scenario);
    /// let broken = exploration.broken().next().unwrap();
    /// let shrunk = broken.minimize(&replay, &scenario, &exploration.by_design);
    /// assert_eq!(shrunk.hooks.keys().collect::<Vec<_>>(), ["before_llm"]);
    /// assert_eq!(shrunk.hooks["before_llm"].len(), 1);
    /// assert!(shrunk.description.as_deref().unwrap().ends_with("(shrunk: 2 hooks and 0 trailing model replies it does not need left out)"));
    /// assert!(!replay.run(&shrunk).passed());
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn minimize(
        &self,
        replay: &Replay,
        scenario: &Scenario,
        by_design: &[Invariant],
    ) -> Scenario {
        let target = symptoms(self);
        let still_broken = |candidate: &Scenario| {
            let variant = Variant {
                number: self.variant.number,
                changes: Vec::new(),
                faulted: self.variant.faulted,
                scenario: candidate.clone(),
            };
            symptoms(&check(replay, scenario, variant, by_design)) == target
        };
        let mut best = self.minimal();
        let places: Vec<(String, usize)> = best
            .hooks
            .iter()
            .flat_map(|(point, entries)| (0..entries.len()).map(move |i| (point.clone(), i)))
            .collect();
        let (mut hooks, mut replies) = (0, 0);
        for (point, index) in places.into_iter().rev() {
            let mut candidate = best.clone();
            let Some(entries) = candidate.hooks.get_mut(point.as_str()) else {
                continue;
            };
            entries.remove(index);
            if entries.is_empty() {
                candidate.hooks.shift_remove(point.as_str());
            }
            if still_broken(&candidate) {
                best = candidate;
                hooks += 1;
            }
        }
        while !best.model.is_empty() {
            let mut candidate = best.clone();
            candidate.model.pop();
            if !still_broken(&candidate) {
                break;
            }
            best = candidate;
            replies += 1;
        }
        let used: Vec<String> = best
            .hooks
            .values()
            .flatten()
            .filter_map(|e| match e {
                HookEntry::Shared(key) => Some(key.clone()),
                _ => None,
            })
            .collect();
        best.shared_hooks.retain(|key, _| used.contains(key));
        if hooks + replies > 0 {
            if let Some(description) = &mut best.description {
                description.push_str(&format!(
                    " (shrunk: {hooks} hooks and {replies} trailing model replies it does not need left out)"
                ));
            }
        }
        best
    }
}
