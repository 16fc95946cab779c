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
use indexmap::IndexMap;

/// Up to this many hook entries, each is left out alone; beyond, runs of
/// entries are left out first (half the entries, then a quarter, ...), so a
/// file of a thousand copies of a hook shrinks in a few dozen runs, not a
/// thousand runs of a thousand hooks.
const ONE_AT_A_TIME: usize = 64;

/// The most runs a shrink makes (each a run of the variant), and the most
/// work they may take in all, counted as hook entries times model replies
/// of each run (about a microsecond each in a release build): counts, not
/// a time, so the same variant always shrinks to the same file, and a
/// variant of thousands of hooks that every removal changes (its `hooks`
/// expectation lists them all) is written after a bounded search.
const MAX_TRIES: usize = 512;
const MAX_WORK: usize = 200_000;

/// The work of one run of `scenario`, as [`MAX_WORK`] counts it.
fn work(scenario: &Scenario) -> usize {
    let hooks: usize = scenario.hooks.values().map(Vec::len).sum();
    (hooks + 1).saturating_mul(scenario.model.len() + 1)
}

/// `scenario` with only the hook entries `kept` marks (by point, then
/// place); a point that had entries and keeps none is dropped.
fn with_hooks(scenario: &Scenario, kept: &IndexMap<String, Vec<bool>>) -> Scenario {
    let mut out = scenario.clone();
    for (point, marks) in kept {
        let Some(entries) = out.hooks.get_mut(point.as_str()) else {
            continue;
        };
        let mut place = 0;
        entries.retain(|_| {
            place += 1;
            marks[place - 1]
        });
        if entries.is_empty() && !marks.is_empty() {
            out.hooks.shift_remove(point.as_str());
        }
    }
    out
}

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
        let start = self.minimal();
        let mut kept: IndexMap<String, Vec<bool>> = start
            .hooks
            .iter()
            .map(|(point, entries)| (point.clone(), vec![true; entries.len()]))
            .collect();
        let places: Vec<(usize, usize)> = kept
            .values()
            .enumerate()
            .flat_map(|(p, entries)| (0..entries.len()).map(move |i| (p, i)))
            .collect();
        let mut best = start.clone();
        let (mut hooks, mut replies, mut tries, mut spent) = (0, 0, 0, 0usize);
        let mut stopped = false;
        // One hook at a time, from the last; a file of many hooks first
        // leaves out runs of them, halving the run's length each pass.
        let mut size = if places.len() > ONE_AT_A_TIME {
            (places.len() / 2).next_power_of_two() / 2
        } else {
            1
        };
        'passes: loop {
            let remaining: Vec<(usize, usize)> = places
                .iter()
                .copied()
                .filter(|&(p, i)| kept[p][i])
                .collect();
            for chunk in remaining.rchunks(size) {
                let mut trial = kept.clone();
                for &(p, i) in chunk {
                    trial[p][i] = false;
                }
                let candidate = with_hooks(&start, &trial);
                spent = spent.saturating_add(work(&candidate));
                tries += 1;
                if tries > MAX_TRIES || spent > MAX_WORK {
                    stopped = true;
                    break 'passes;
                }
                if still_broken(&candidate) {
                    kept = trial;
                    best = candidate;
                    hooks += chunk.len();
                }
            }
            if size == 1 {
                break;
            }
            size /= 2;
        }
        while !stopped && !best.model.is_empty() {
            let mut candidate = best.clone();
            candidate.model.pop();
            spent = spent.saturating_add(work(&candidate));
            tries += 1;
            if tries > MAX_TRIES || spent > MAX_WORK {
                stopped = true;
                break;
            }
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
        if hooks + replies > 0 || stopped {
            if let Some(description) = &mut best.description {
                description.push_str(&format!(
                    " (shrunk: {hooks} hooks and {replies} trailing model replies it does not need left out)"
                ));
                if stopped {
                    description.push_str(&format!(
                        " (shrinking stopped after {} runs: more may be left out by hand)",
                        tries - 1
                    ));
                }
            }
        }
        best
    }
}
