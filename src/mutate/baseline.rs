//! What the unmutated run did: its outcome, and what it used. A change to
//! a part it never used (a reply after the last model call, a tool result
//! past the last call of its tool, the actions of a hook that never ran)
//! cannot change the run, so such a mutant is equivalent by construction
//! and is not replayed. Under `unused_replies: fail`, a successful run
//! checks that every reply was used, so every reply counts.

use crate::outcome::{Outcome, TraceKind};
use crate::scenario::{HookEntry, Scenario, UnusedReplies};
use std::collections::{BTreeMap, BTreeSet};

/// The part of the unmutated run a change needs to have been used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Any run: a hook's registration (dropped, moved, swapped) counts
    /// when the Agent is built, and a moved hook may run where it did not.
    Nothing,
    /// The `k`-th model reply (from 0) was asked for: a copy of reply
    /// `k - 1` put there is one.
    Reply(usize),
    /// The tool ran more than `result` times.
    ToolResult { tool: String, result: usize },
    /// The hook at `hooks.POINT[index]` ran.
    Hook { point: String, index: usize },
    /// Some `shared: NAME` entry ran.
    Shared(String),
}

/// What the unmutated run did: its outcome as a snapshot holds it, and
/// the model calls, tool runs and hooks its trace shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The unmutated run's outcome; a mutant's is compared with it as
    /// [`Outcome::to_value`], what the corpus's snapshots hold, gives it
    /// ([`Outcome::same_value`]).
    pub(super) outcome: Outcome,
    model_calls: usize,
    /// A successful run under `unused_replies: fail` checks every reply.
    every_reply_checked: bool,
    tool_runs: BTreeMap<String, usize>,
    hooks: BTreeSet<(String, usize)>,
    shared: BTreeSet<String>,
}

impl Baseline {
    /// Reads the model calls, tool runs and hooks that ran from the
    /// outcome of `scenario`'s run.
    #[must_use]
    pub fn of(scenario: &Scenario, outcome: &Outcome) -> Baseline {
        let mut baseline = Baseline {
            outcome: outcome.clone(),
            model_calls: 0,
            every_reply_checked: scenario.expect.unused_replies == UnusedReplies::Fail
                && outcome.result.is_some(),
            tool_runs: BTreeMap::new(),
            hooks: BTreeSet::new(),
            shared: BTreeSet::new(),
        };
        for event in &outcome.trace {
            match &event.kind {
                TraceKind::LlmStarted { model: None, .. } => baseline.model_calls += 1,
                TraceKind::ToolFinished { tool, .. } => {
                    *baseline.tool_runs.entry(tool.clone()).or_default() += 1;
                }
                TraceKind::HookStarted { point, index, .. } => {
                    let point = point.as_str().to_owned();
                    let entry = scenario.hooks.get(&point).and_then(|e| e.get(*index));
                    if let Some(HookEntry::Shared(name)) = entry {
                        baseline.shared.insert(name.clone());
                    }
                    baseline.hooks.insert((point, *index));
                }
                _ => {}
            }
        }
        baseline
    }

    /// Whether the run used what `needs` names.
    pub(crate) fn covers(&self, needs: &Needs) -> bool {
        match needs {
            Needs::Nothing => true,
            Needs::Reply(k) => self.every_reply_checked || *k < self.model_calls,
            Needs::ToolResult { tool, result } => {
                self.tool_runs.get(tool).is_some_and(|runs| runs > result)
            }
            Needs::Hook { point, index } => self.hooks.contains(&(point.clone(), *index)),
            Needs::Shared(name) => self.shared.contains(name),
        }
    }
}
