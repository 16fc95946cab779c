//! What an outcome does not show, watched during the run: the pending tool
//! calls after the `before_tool` hooks, and `continue_run` at the end.

use super::view::View;
use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::observe::{Event, Observer};
use crate::scenario::{Action, HookEntry, Scenario};
use crate::state::State;
use crate::state::keys;
use crate::value::json_eq;
use serde_json::Value;

/// A tool call left pending after the `before_tool` hooks (or one that ran).
///
/// ```
/// use hookharness::invariants::RunProbe;
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str(
///     "tools: [{name: search, results: [x]}]\nhooks: {before_tool: [{name: look}]}\n\
///      model: [{tool_calls: [{tool: search}]}, {text: done}]",
///     "look.yaml",
///     Format::Yaml,
/// )?;
/// let mut probe = RunProbe::default();
/// Replay::new().run_observed(&scenario, &mut probe);
/// let pending = &probe.rounds[0].pending[0];
/// assert_eq!((pending.tool.as_str(), pending.id.as_deref()), ("search", Some("call_0_0")));
/// assert_eq!(probe.rounds[0].ran, probe.rounds[0].pending);
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingCall {
    /// The tool's name.
    pub tool: String,
    /// The call id.
    pub id: Option<String>,
}

/// One pass through `before_tool` and the tools of a step.
///
/// ```
/// use hookharness::invariants::RunProbe;
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
/// use serde_json::json;
///
/// let scenario = Scenario::from_str(
///     "agent: {exit_conditions: [search]}\ntools: [{name: search, results: [x]}]\n\
///      hooks: {before_tool: [{name: look}]}\nmodel: [{tool_calls: [{tool: search}]}]",
///     "exit.yaml",
///     Format::Yaml,
/// )?;
/// let mut probe = RunProbe::default();
/// Replay::new().run_observed(&scenario, &mut probe);
/// let round = &probe.rounds[0];
/// assert_eq!(round.at, 1); // trace: llm, then this before_tool hook
/// assert_eq!(round.counts_before, json!({"search": 0}));
/// assert_eq!(round.counts_after, Some(json!({"search": 1})));
/// assert_eq!(round.tool_exit, Some(json!("search")));
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolRound {
    /// The trace index of the round's first `before_tool` hook event.
    pub at: usize,
    /// The calls pending after the last `before_tool` hook.
    pub pending: Vec<PendingCall>,
    /// `tool_call_counts` after the `before_tool` hooks.
    pub counts_before: Value,
    /// The calls that ran.
    pub ran: Vec<PendingCall>,
    /// `tool_call_counts` once the step's tools were counted.
    pub counts_after: Option<Value>,
    /// The reason of a tool exit that followed, if one did.
    pub tool_exit: Option<Value>,
}

/// An [`Observer`] that records what the invariants need beyond the
/// outcome: give it to [`Replay::run_observed`](crate::replay::Replay::run_observed),
/// then to [`Invariants::probe`](super::Invariants::probe).
///
/// ```
/// use hookharness::invariants::RunProbe;
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
/// use serde_json::json;
///
/// let scenario = Scenario::from_str(
///     r#"
/// tools: [{name: search, results: [found]}]
/// hooks:
///   before_tool: [{name: veto, do: [{drop_tool_calls: all}]}]
/// model:
///   - tool_calls: [{tool: search}]
///   - text: done
/// "#,
///     "veto.yaml",
///     Format::Yaml,
/// )?;
/// let mut probe = RunProbe::default();
/// Replay::new().run_observed(&scenario, &mut probe);
/// assert_eq!(probe.rounds.len(), 1);
/// assert!(probe.rounds[0].pending.is_empty());
/// assert!(probe.rounds[0].ran.is_empty());
/// assert_eq!(probe.continue_run_at_finish, Some(json!(false)));
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct RunProbe {
    /// Every round through `before_tool` (only steps with `before_tool`
    /// hooks make one).
    pub rounds: Vec<ToolRound>,
    /// `continue_run` when the run finished (after `after_run`); `None`
    /// when it did not finish, `Some(Null)` when the key was absent.
    pub continue_run_at_finish: Option<Value>,
    /// How many events the trace holds so far.
    trace_len: usize,
    /// The round still open.
    open: bool,
}

fn counts(state: &State) -> Value {
    state
        .data()
        .get(keys::TOOL_CALL_COUNTS)
        .cloned()
        .unwrap_or(Value::Null)
}

impl RunProbe {
    /// Ends the open round: its counts are read now, after the tools of the
    /// step were counted.
    fn close(&mut self, state: &State) {
        if self.open {
            if let Some(round) = self.rounds.last_mut() {
                round.counts_after.get_or_insert_with(|| counts(state));
            }
        }
        self.open = false;
    }

    pub(super) fn check(&self, view: &View<'_>, scenario: Option<&Scenario>) -> Vec<Violation> {
        let mut found = Vec::new();
        let invariant = Invariant::RemovedToolCallsDoNotRun;
        for round in &self.rounds {
            let at = Some(round.at);
            for call in &round.ran {
                if !round.pending.contains(call) {
                    found.push(Violation::new(
                        invariant,
                        view.trace,
                        at,
                        format!(
                            "`{}` ran for call {:?}, which the before_tool hooks had removed",
                            call.tool, call.id
                        ),
                    ));
                }
            }
            if !round.pending.is_empty() {
                continue;
            }
            if let Some(after) = &round.counts_after {
                if !json_eq(after, &round.counts_before) {
                    found.push(Violation::new(
                        invariant,
                        view.trace,
                        at,
                        format!(
                            "no call was pending, but tool_call_counts went from {} to {after}",
                            round.counts_before
                        ),
                    ));
                }
            }
            if let Some(reason) = &round.tool_exit {
                found.push(Violation::new(
                    invariant,
                    view.trace,
                    at,
                    format!("no call was pending, but a tool exit on {reason} followed"),
                ));
            }
        }
        let left_set = scenario.is_some_and(leaves_continue_run);
        if let Some(flag) = &self.continue_run_at_finish {
            if *flag != Value::Bool(false) && !left_set {
                found.push(Violation::new(
                    Invariant::ContinueRunIsConsumed,
                    view.trace,
                    None,
                    format!("continue_run is {flag} after the run"),
                ));
            }
        }
        found
    }
}

/// `true` when a declarative hook outside `on_exit` and `after_run` sets
/// `continue_run`: Haystack leaves such a flag in place when no exit
/// handling follows (a stop, `max_agent_steps`, no `on_exit` hooks).
fn leaves_continue_run(scenario: &Scenario) -> bool {
    let points = [
        HookPoint::BeforeRun,
        HookPoint::BeforeLlm,
        HookPoint::BeforeTool,
        HookPoint::AfterTool,
    ];
    points.iter().any(|point| {
        scenario
            .hooks
            .get(point.as_str())
            .into_iter()
            .flatten()
            .any(|entry| {
                let entry = match entry {
                    HookEntry::Shared(key) => scenario.shared_hooks.get(key).unwrap_or(entry),
                    other => other,
                };
                match entry {
                    HookEntry::Declarative { actions, .. } => actions.iter().any(|a| {
                        matches!(a, Action::ContinueRun(true))
                            || matches!(a, Action::Set(m) | Action::Replace(m) if m.contains_key(keys::CONTINUE_RUN))
                    }),
                    _ => false,
                }
            })
    })
}

fn pending_calls(state: &State) -> Vec<PendingCall> {
    state
        .messages()
        .last()
        .map(|m| {
            m.tool_calls()
                .map(|c| PendingCall {
                    tool: c.tool_name.clone(),
                    id: c.id.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Observer for RunProbe {
    fn on_event(&mut self, event: &Event<'_>) {
        match event {
            Event::HookStarted {
                point,
                index,
                state,
                ..
            } => {
                if *point == HookPoint::BeforeTool {
                    if *index == 0 {
                        self.close(state);
                        self.rounds.push(ToolRound {
                            at: self.trace_len,
                            pending: pending_calls(state),
                            counts_before: counts(state),
                            ran: Vec::new(),
                            counts_after: None,
                            tool_exit: None,
                        });
                        self.open = true;
                    }
                } else if self.open {
                    if let Some(round) = self.rounds.last_mut() {
                        round.counts_after.get_or_insert_with(|| counts(state));
                    }
                }
                self.trace_len += 1;
            }
            Event::HookFinished {
                point: HookPoint::BeforeTool,
                state,
                ..
            } => {
                if let (true, Some(round)) = (self.open, self.rounds.last_mut()) {
                    round.pending = pending_calls(state);
                    round.counts_before = counts(state);
                }
            }
            Event::ToolFinished { call, .. } => {
                if let (true, Some(round)) = (self.open, self.rounds.last_mut()) {
                    round.ran.push(PendingCall {
                        tool: call.tool_name.clone(),
                        id: call.id.clone(),
                    });
                }
                self.trace_len += 1;
            }
            Event::LlmStarted { state, .. } => {
                self.close(state);
                self.trace_len += 1;
            }
            Event::Exit { state, reason, .. } => {
                if let (true, Some(round)) = (self.open, self.rounds.last_mut()) {
                    round.counts_after.get_or_insert_with(|| counts(state));
                    round.tool_exit = Some((*reason).clone());
                }
                self.close(state);
                self.trace_len += 1;
            }
            Event::Stopped { state, .. } | Event::MaxStepsReached { state } => self.close(state),
            Event::RunFinished { state } => {
                self.close(state);
                self.continue_run_at_finish = Some(
                    state
                        .data()
                        .get(keys::CONTINUE_RUN)
                        .cloned()
                        .unwrap_or(Value::Null),
                );
            }
            _ => {}
        }
    }
}
