//! Invariants of the run loop, checked on outcomes.
//!
//! Every run of Haystack's loop, whatever its hooks, model and tools, keeps
//! a few promises: `before_run` runs first and once, hooks at a point run in
//! registration order, `on_exit` is skipped when `max_agent_steps` ends the
//! run, and so on. [`check_invariants`] reads an [`Outcome`] (its result and
//! its trace) and returns every broken promise as a [`Violation`], with the
//! trace events that show it.
//!
//! ```text
//!  Outcome ──────────────┐
//!  Scenario (optional) ──┴──▶ Invariants::check ──▶ Vec<Violation> (invariant, message, trace excerpt)
//! ```
//!
//! The outcome alone shows most of them: its complete trace records the
//! pending tool calls after the `before_tool` hooks, the tool counts after
//! each step's tools and `continue_run` when the run finished; a hook
//! failure is read from the typed [`RunError`](crate::outcome::RunError),
//! never from its wording. What the outcome cannot show comes from the
//! [`Scenario`] that was run, given to [`Invariants`]: the registered hooks
//! (so blocks of hook events can be compared with the registration order),
//! the scripted usages (for `token_usage`), the tools, the `stop_run`
//! values, `max_agent_steps`, and the hooks that may leave `continue_run`
//! set.
//!
//! Beyond the loop, the checks hold hooks to what they decided and
//! rewrote: a call a `before_tool` hook removed never runs afterwards, a
//! call an approver let through runs with the approved arguments, a
//! continued step does not repeat the one before it, rewrites keep tool
//! calls with their results, compaction never grows the conversation, and
//! offloaded results can be read back. Approvers and compactors are the
//! scenario's `confirmation:` and `compaction:` entries, or the hooks named
//! with [`Invariants::approver`] and [`Invariants::compactor`]. What a hook
//! changed is in the trace only with
//! [`Detail::Full`](crate::outcome::Detail::Full); without it, those checks
//! see nothing to check.
//!
//! Violations point into the trace as the outcome JSON shows it
//! ([`Outcome::wire_trace`]). The checks read how the run ended from
//! `exit_reason` and the last trace events. Hooks that rewrite run metadata in `after_run` (`exit_reason`,
//! `step_count`, `token_usage`, `tool_call_counts`, `continue_run`) break
//! invariants on purpose and are reported; each [`Violation`] names its
//! [`Invariant`], so a test can leave out the ones its hooks break by design.
//!
//! ```
//! use hookharness::invariants::{Invariants, check_invariants};
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//!
//! let scenario = Scenario::from_str(
//!     r#"
//! agent: {max_agent_steps: 1}
//! hooks:
//!   on_exit: [{name: nudge, do: [{continue_run: true}]}]
//! model:
//!   - text: "first"
//! "#,
//!     "nudge.yaml",
//!     Format::Yaml,
//! )?;
//! let outcome = Replay::new().run(&scenario);
//! assert!(check_invariants(&outcome).is_empty());
//! let violations = Invariants::new().scenario(&scenario).check(&outcome);
//! assert!(violations.is_empty(), "{violations:?}");
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

mod conversation;
mod decisions;
mod outcome_checks;
mod progress;
mod roles;
mod round_checks;
mod scenario_checks;
mod usage;
mod view;

pub use usage::sum_usages;

use crate::hooks::offload::ToolResultStore;
use crate::outcome::{Outcome, TraceEvent};
use crate::scenario::{ReadyMadeKind, Scenario};
use serde_json::Value;
use std::fmt;
use view::View;

/// One promise of the run loop.
///
/// ```
/// use hookharness::invariants::Invariant;
///
/// let names: Vec<&str> = Invariant::ALL.iter().map(|i| i.name()).collect();
/// assert!(names.contains(&"before_run_first_and_once"));
/// assert_eq!(Invariant::StepCountIsLlmCalls.to_string(), "step_count_is_llm_calls");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Invariant {
    /// `on_exit` never runs for a run that ends because `max_agent_steps`
    /// was reached: every `on_exit` that ran belonged to an exit that
    /// continued.
    OnExitSkippedAtMaxSteps,
    /// `after_run` runs exactly once, as the last hooks, in every run that
    /// got past construction and did not fail; it never runs when a hook
    /// (other than an `after_run` hook), the model or a tool raised.
    AfterRunOnceUnlessFailed,
    /// Tool calls that `before_tool` hooks removed do not run, do not count
    /// in `tool_call_counts` and fire no tool exit; a tool exit names a tool
    /// that ran without error in that step.
    RemovedToolCallsDoNotRun,
    /// A `state_schema` with a reserved key is rejected at construction; one
    /// without is accepted.
    ReservedStateKeysRejected,
    /// `before_run` hooks run exactly once, before anything else.
    BeforeRunFirstAndOnce,
    /// The hooks at one point run in registration order, all of them, each
    /// time the point is reached (a failing hook ends the list early).
    HooksRunInRegistrationOrder,
    /// `step_count` equals the number of LLM calls when the run ends by an
    /// exit condition or by `max_agent_steps` and did not resume from a
    /// `step_count` set by a `before_run` hook.
    StepCountIsLlmCalls,
    /// `exit_reason` is `text`, `length`, `content_filter`, a tool exit
    /// condition, `max_agent_steps` or a `stop_run` value.
    ExitReasonIsKnown,
    /// `continue_run` decides each exit and is consumed: only `on_exit`
    /// hooks can make an exit continue, an exit that does not continue ends
    /// the run, one that continues is followed by another step, and
    /// `continue_run` is false after the run (unless a hook outside
    /// `on_exit` set it and no exit handling followed, as Haystack allows).
    ContinueRunIsConsumed,
    /// `token_usage` is the recursive sum of the scripted usages of the
    /// replies the run consumed.
    TokenUsageIsScriptedSum,
    /// The same scenario gives the same outcome: twice in a row, and on the
    /// sync and the async path.
    SameOutcome,
    /// A tool call that a `before_tool` hook removed from the pending calls
    /// (a confirmation's rejection, a `drop_tool_calls`) never runs
    /// afterwards: not later in that step when another hook puts it back,
    /// nor in a later step under the same id (unless a new model reply
    /// issues it again).
    RejectedCallsNeverRun,
    /// A call that an approving hook (a confirmation hook: the scenario's
    /// `confirmation:` entries, or [`Invariants::approver`]) let through
    /// runs with the arguments it approved: a modified call runs with the
    /// new arguments only, a confirmed one with its own.
    ApprovedArgumentsRun,
    /// A step that an `on_exit` hook continued does not repeat the step
    /// before it: the same model reply, no tool run and the same changes by
    /// every hook is a `continue_run` loop without progress. Needs
    /// [`Detail::Full`](crate::outcome::Detail::Full).
    ContinuedStepsMakeProgress,
    /// A hook that rewrites the conversation never leaves a tool result
    /// without the call it answers, nor a call (outside the last message)
    /// without its result, unless the conversation already had that
    /// orphan. Needs [`Detail::Full`](crate::outcome::Detail::Full).
    ToolResultsStayWithTheirCalls,
    /// A compaction hook (the scenario's `compaction:` entries, or
    /// [`Invariants::compactor`]) never makes the conversation's estimate
    /// (Haystack's `ApproximateTokenCounter`) larger. Needs
    /// [`Detail::Full`](crate::outcome::Detail::Full).
    CompactionNeverGrows,
    /// Every reference in a message's `tool_result_offloaded` meta can be
    /// read back from a store given with [`Invariants::store`].
    OffloadedResultsAreRetrievable,
}

impl Invariant {
    /// Every invariant, in the order checks report them.
    ///
    /// ```
    /// use hookharness::invariants::Invariant;
    /// assert_eq!(Invariant::ALL.len(), 17);
    /// assert_eq!(Invariant::ALL[0], Invariant::OnExitSkippedAtMaxSteps);
    /// ```
    pub const ALL: [Invariant; 17] = [
        Invariant::OnExitSkippedAtMaxSteps,
        Invariant::AfterRunOnceUnlessFailed,
        Invariant::RemovedToolCallsDoNotRun,
        Invariant::ReservedStateKeysRejected,
        Invariant::BeforeRunFirstAndOnce,
        Invariant::HooksRunInRegistrationOrder,
        Invariant::StepCountIsLlmCalls,
        Invariant::ExitReasonIsKnown,
        Invariant::ContinueRunIsConsumed,
        Invariant::TokenUsageIsScriptedSum,
        Invariant::SameOutcome,
        Invariant::RejectedCallsNeverRun,
        Invariant::ApprovedArgumentsRun,
        Invariant::ContinuedStepsMakeProgress,
        Invariant::ToolResultsStayWithTheirCalls,
        Invariant::CompactionNeverGrows,
        Invariant::OffloadedResultsAreRetrievable,
    ];

    /// A short snake-case name, as reports and file names use it.
    ///
    /// ```
    /// use hookharness::invariants::Invariant;
    /// assert_eq!(Invariant::SameOutcome.name(), "same_outcome");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Invariant::OnExitSkippedAtMaxSteps => "on_exit_skipped_at_max_steps",
            Invariant::AfterRunOnceUnlessFailed => "after_run_once_unless_failed",
            Invariant::RemovedToolCallsDoNotRun => "removed_tool_calls_do_not_run",
            Invariant::ReservedStateKeysRejected => "reserved_state_keys_rejected",
            Invariant::BeforeRunFirstAndOnce => "before_run_first_and_once",
            Invariant::HooksRunInRegistrationOrder => "hooks_run_in_registration_order",
            Invariant::StepCountIsLlmCalls => "step_count_is_llm_calls",
            Invariant::ExitReasonIsKnown => "exit_reason_is_known",
            Invariant::ContinueRunIsConsumed => "continue_run_is_consumed",
            Invariant::TokenUsageIsScriptedSum => "token_usage_is_scripted_sum",
            Invariant::SameOutcome => "same_outcome",
            Invariant::RejectedCallsNeverRun => "rejected_calls_never_run",
            Invariant::ApprovedArgumentsRun => "approved_arguments_run",
            Invariant::ContinuedStepsMakeProgress => "continued_steps_make_progress",
            Invariant::ToolResultsStayWithTheirCalls => "tool_results_stay_with_their_calls",
            Invariant::CompactionNeverGrows => "compaction_never_grows",
            Invariant::OffloadedResultsAreRetrievable => "offloaded_results_are_retrievable",
        }
    }
}

impl Invariant {
    /// `true` for the invariants about what hooks decide and rewrite
    /// (rejections, approvals, progress, rewrites, compaction, offloading):
    /// a hook breaks them only by mistake, where a hook that writes run
    /// metadata (`exit_reason`, `step_count`, ...) breaks the others on
    /// purpose.
    ///
    /// ```
    /// use hookharness::invariants::Invariant;
    /// assert!(Invariant::RejectedCallsNeverRun.is_about_hooks());
    /// assert!(!Invariant::ExitReasonIsKnown.is_about_hooks());
    /// ```
    #[must_use]
    pub fn is_about_hooks(self) -> bool {
        matches!(
            self,
            Invariant::RejectedCallsNeverRun
                | Invariant::ApprovedArgumentsRun
                | Invariant::ContinuedStepsMakeProgress
                | Invariant::ToolResultsStayWithTheirCalls
                | Invariant::CompactionNeverGrows
                | Invariant::OffloadedResultsAreRetrievable
        )
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A broken invariant: which one, what broke it, and the trace around it.
///
/// ```
/// use hookharness::invariants::{Invariant, check_invariants};
/// use hookharness::outcome::{Outcome, Status, TraceEvent, TraceKind};
/// use serde_json::json;
///
/// // A run that ended at an exit that continued: the exit was not consumed.
/// let mut outcome = Outcome::new("broken", "", Status::Pass);
/// outcome.result = serde_json::from_value(json!({"exit_reason": "text", "step_count": 1,
///     "token_usage": {}, "tool_call_counts": {}, "messages": [], "last_message": null,
///     "state": {}})).ok();
/// outcome.trace = vec![
///     TraceEvent::new(Some(json!(0)), TraceKind::LlmStarted { messages_in: 1, last: None, model: None }),
///     TraceEvent::new(Some(json!(1)), TraceKind::Exit { reason: json!("text"), continues: true }),
/// ];
/// let violation = &check_invariants(&outcome)[0];
/// assert_eq!(violation.invariant, Invariant::ContinueRunIsConsumed);
/// assert_eq!(violation.at, Some(1));
/// assert_eq!(violation.excerpt.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Violation {
    /// The invariant.
    pub invariant: Invariant,
    /// What the outcome shows, in a sentence.
    pub message: String,
    /// The index of the trace event that shows it, when one does.
    pub at: Option<usize>,
    /// A few events of the outcome JSON's trace around `at` (the last
    /// events when `at` is `None`), with their indices, each as the JSON
    /// writes it.
    pub excerpt: Vec<(usize, Value)>,
}

/// How many events on each side of the violating one an excerpt shows.
const EXCERPT_RADIUS: usize = 2;

impl Violation {
    pub(crate) fn new(
        invariant: Invariant,
        trace: &[&TraceEvent],
        at: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        let at = at.filter(|&i| i < trace.len());
        let range = match at {
            Some(i) => i.saturating_sub(EXCERPT_RADIUS)..(i + EXCERPT_RADIUS + 1).min(trace.len()),
            None => trace.len().saturating_sub(2 * EXCERPT_RADIUS + 1)..trace.len(),
        };
        Violation {
            invariant,
            message: message.into(),
            at,
            excerpt: range
                .map(|i| {
                    (
                        i,
                        trace[i]
                            .wire_value()
                            .map_or(Value::Null, crate::value::sorted),
                    )
                })
                .collect(),
        }
    }
}

impl fmt::Display for Violation {
    /// The invariant and message, then the excerpt one event a line, the
    /// violating event marked with `>`.
    ///
    /// ```
    /// use hookharness::invariants::check_invariants;
    /// use hookharness::outcome::{Outcome, Status, TraceEvent, TraceKind};
    /// use hookharness::HookPoint;
    /// use serde_json::json;
    ///
    /// let mut outcome = Outcome::new("broken", "", Status::Pass);
    /// outcome.result = serde_json::from_value(json!({"exit_reason": "max_agent_steps",
    ///     "step_count": 1, "token_usage": {}, "tool_call_counts": {}, "messages": [],
    ///     "last_message": null, "state": {}})).ok();
    /// outcome.trace = vec![
    ///     TraceEvent::new(Some(json!(0)), TraceKind::LlmStarted { messages_in: 1, last: None, model: None }),
    ///     TraceEvent::new(
    ///         Some(json!(1)),
    ///         TraceKind::HookStarted { point: HookPoint::OnExit, index: 0, hook: "late".into() },
    ///     ),
    /// ];
    /// let text = check_invariants(&outcome)[0].to_string();
    /// assert!(text.starts_with("on_exit_skipped_at_max_steps: "), "{text}");
    /// assert!(text.contains("> trace[1] {\"event\":\"hook\""), "{text}");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.invariant, self.message)?;
        for (index, event) in &self.excerpt {
            let mark = if Some(*index) == self.at { '>' } else { ' ' };
            write!(f, "\n  {mark} trace[{index}] {event}")?;
        }
        Ok(())
    }
}

/// The invariants an outcome shows by itself: every violation, in the
/// order of [`Invariant::ALL`].
///
/// ```
/// use hookharness::invariants::check_invariants;
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str("model: [{text: hi}]", "hi.yaml", Format::Yaml)?;
/// let outcome = Replay::new().run(&scenario);
/// assert_eq!(check_invariants(&outcome), vec![]);
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[must_use]
pub fn check_invariants(outcome: &Outcome) -> Vec<Violation> {
    Invariants::new().check(outcome)
}

/// Compares two outcomes of one scenario (two runs, or the sync and async
/// paths): a [`Invariant::SameOutcome`] violation at the first difference,
/// or nothing. `file` is not compared.
///
/// ```
/// use hookharness::invariants::compare_outcomes;
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
///
/// let mut scenario = Scenario::from_str("model: [{text: hi}]", "hi.yaml", Format::Yaml)?;
/// let sync = Replay::new().run(&scenario);
/// scenario.run.is_async = true;
/// let on_async = Replay::new().run(&scenario);
/// assert_eq!(compare_outcomes(&sync, &on_async), vec![]);
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[must_use]
pub fn compare_outcomes(left: &Outcome, right: &Outcome) -> Vec<Violation> {
    outcome_checks::same_outcome(left, right)
}

/// A check of an outcome, with what else is known about its run.
///
/// ```
/// use hookharness::invariants::{Invariant, Invariants};
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
///
/// // An after_run hook that writes `exit_reason` breaks an invariant on purpose.
/// let scenario = Scenario::from_str(
///     "hooks: {after_run: [{do: [{set: {exit_reason: renamed}}]}]}\nmodel: [{text: hi}]",
///     "renamed.yaml",
///     Format::Yaml,
/// )?;
/// let outcome = Replay::new().run(&scenario);
/// let violations = Invariants::new().scenario(&scenario).check(&outcome);
/// assert!(violations.iter().all(|v| v.invariant == Invariant::ExitReasonIsKnown));
/// assert!(!violations.is_empty());
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Clone, Default)]
pub struct Invariants<'a> {
    scenario: Option<&'a Scenario>,
    approvers: Vec<String>,
    compactors: Vec<String>,
    stores: Vec<&'a dyn ToolResultStore>,
}

impl fmt::Debug for Invariants<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invariants")
            .field("scenario", &self.scenario.map(|s| &s.name))
            .field("approvers", &self.approvers)
            .field("compactors", &self.compactors)
            .field("stores", &self.stores.len())
            .finish()
    }
}

impl<'a> Invariants<'a> {
    /// A check that knows only the outcome: the same as [`check_invariants`].
    ///
    /// ```
    /// use hookharness::invariants::{Invariants, check_invariants};
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("model: [{text: hi}]", "hi.yaml", Format::Yaml)?;
    /// let outcome = Replay::new().run(&scenario);
    /// assert_eq!(Invariants::new().check(&outcome), check_invariants(&outcome));
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The scenario the outcome came from: registrations, scripted
    /// usages, tools, `stop_run` values, `max_agent_steps`, `state_schema`,
    /// and the hooks that may leave `continue_run` set.
    ///
    /// ```
    /// use hookharness::invariants::{Invariant, Invariants};
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("model: [{text: hi, usage: {prompt_tokens: 2}}]", "u.yaml", Format::Yaml)?;
    /// let mut outcome = Replay::new().run(&scenario);
    /// assert!(Invariants::new().scenario(&scenario).check(&outcome).is_empty());
    /// // Only the scenario tells what token_usage should be.
    /// outcome.result.as_mut().unwrap().token_usage["prompt_tokens"] = 3.into();
    /// let found = Invariants::new().scenario(&scenario).check(&outcome);
    /// assert_eq!(found[0].invariant, Invariant::TokenUsageIsScriptedSum);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn scenario(mut self, scenario: &'a Scenario) -> Self {
        self.scenario = Some(scenario);
        self
    }

    /// Names (as the trace shows them) a `before_tool` hook whose decisions
    /// are approvals: the calls it leaves pending must run with the
    /// arguments they had when it finished ([`Invariant::ApprovedArgumentsRun`]).
    /// A scenario's `confirmation:` entries are approvers without this.
    ///
    /// ```
    /// use hookharness::invariants::{Invariant, Invariants};
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// // `approve` lets the call through; `tamper`, after it, changes its arguments.
    /// let scenario = Scenario::from_str(
    ///     r#"
    /// tools: [{name: pay, results: [paid]}]
    /// hooks:
    ///   before_tool:
    ///     - {name: approve}
    ///     - {name: tamper, do: [{set_tool_arguments: {tool: pay, arguments: {amount: 1000}}}]}
    /// model:
    ///   - tool_calls: [{tool: pay, arguments: {amount: 10}}]
    ///   - text: paid
    /// "#,
    ///     "pay.yaml",
    ///     Format::Yaml,
    /// )?;
    /// let outcome = Replay::new().run(&scenario);
    /// assert!(Invariants::new().check(&outcome).is_empty());
    /// let found = Invariants::new().approver("approve").check(&outcome);
    /// assert_eq!(found[0].invariant, Invariant::ApprovedArgumentsRun);
    /// assert!(found[0].message.contains("`approve` at trace[1] approved {\"amount\":10}"), "{}", found[0]);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn approver(mut self, hook: impl Into<String>) -> Self {
        self.approvers.push(hook.into());
        self
    }

    /// Names (as the trace shows them) a hook that compacts the
    /// conversation ([`Invariant::CompactionNeverGrows`]). A scenario's
    /// `compaction:` entries are compactors without this.
    #[must_use]
    pub fn compactor(mut self, hook: impl Into<String>) -> Self {
        self.compactors.push(hook.into());
        self
    }

    /// A store that offloaded results must be readable from
    /// ([`Invariant::OffloadedResultsAreRetrievable`]); with none, the
    /// invariant is not checked.
    ///
    /// ```
    /// use hookharness::hooks::offload::{InMemoryToolResultStore, StoredContent, ToolResultStore};
    /// use hookharness::invariants::{Invariant, Invariants};
    /// use hookharness::outcome::Outcome;
    ///
    /// let store = InMemoryToolResultStore::new();
    /// store.write("kept.txt", StoredContent::Text("long".into())).unwrap();
    /// let outcome = Outcome::from_full_json(r#"{"scenario": "s", "file": "", "status": "pass",
    ///     "failures": [], "error": null, "trace": [], "result": {"exit_reason": "text",
    ///     "step_count": 1, "token_usage": {}, "tool_call_counts": {},
    ///     "messages": [{"role": "tool", "meta": {"tool_result_offloaded": ["memory://lost.txt"]},
    ///         "name": null, "content": [{"tool_call_result": {"result": "offloaded",
    ///         "origin": {"tool_name": "search", "arguments": {}, "id": "c"}, "error": false}}]}],
    ///     "last_message": null, "state": {}}}"#).unwrap();
    /// let found = Invariants::new().store(&store).check(&outcome);
    /// assert_eq!(found[0].invariant, Invariant::OffloadedResultsAreRetrievable);
    /// ```
    #[must_use]
    pub fn store(mut self, store: &'a dyn ToolResultStore) -> Self {
        self.stores.push(store);
        self
    }

    /// Every violation, ordered by [`Invariant`] then by trace position.
    ///
    /// ```
    /// use hookharness::invariants::Invariants;
    /// use hookharness::replay::Replay;
    /// use hookharness::scenario::{Format, Scenario};
    ///
    /// let scenario = Scenario::from_str("agent: {max_agent_steps: 0}\nmodel: []", "zero.yaml", Format::Yaml)?;
    /// let outcome = Replay::new().run(&scenario);
    /// assert_eq!(Invariants::new().scenario(&scenario).check(&outcome), vec![]);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    #[must_use]
    pub fn check(&self, outcome: &Outcome) -> Vec<Violation> {
        let trace: Vec<&TraceEvent> = outcome.trace.iter().filter(|e| e.on_wire()).collect();
        let view = View::new(outcome, &trace);
        let mut violations = outcome_checks::check(&view);
        violations.extend(round_checks::check(&view));
        let (mut approvers, mut compactors) = (self.approvers.clone(), self.compactors.clone());
        if let Some(scenario) = self.scenario {
            violations.extend(scenario_checks::check(&view, scenario));
            violations.extend(round_checks::check_continue_run(&view, scenario));
            approvers.extend(roles::ready_made(scenario, ReadyMadeKind::Confirmation));
            compactors.extend(roles::ready_made(scenario, ReadyMadeKind::Compaction));
        }
        violations.extend(decisions::check(&view, &approvers));
        violations.extend(progress::check(&view));
        violations.extend(conversation::check(&view, &compactors, &self.stores));
        violations.sort_by_key(|v| (v.invariant, v.at.unwrap_or(usize::MAX)));
        violations.dedup_by(|a, b| a.invariant == b.invariant && a.message == b.message);
        violations
    }
}
