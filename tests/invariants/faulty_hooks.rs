//! Faulty hooks on the real loop: where a hook can break an invariant, the
//! check reports it. (No hook can make the loop run before_run late, run
//! hooks out of order, run after_run twice, run on_exit at a max-steps
//! ending or accept a reserved key: those only break with the loop.)

use crate::support::{reported, run_checked, scenario};
use hookharness::HookFuture;
use hookharness::invariants::{Invariant, compare_outcomes};
use hookharness::replay::Replay;
use hookharness::{Hook, HookError, State};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};

fn broken_by(after_run: &str) -> Vec<hookharness::invariants::Violation> {
    let text = format!(
        "tools: [{{name: search, results: [found]}}]\nhooks: {{after_run: [{{name: faulty, do: [{after_run}]}}]}}\n\
         model: [{{tool_calls: [{{tool: search}}], usage: {{prompt_tokens: 1}}}}, {{text: done}}]"
    );
    run_checked(&scenario(&text)).1
}

#[test]
fn an_after_run_hook_that_renames_the_exit_reason_breaks_exit_reason_is_known() {
    reported(
        &broken_by("{set: {exit_reason: renamed}}"),
        Invariant::ExitReasonIsKnown,
    );
}

#[test]
fn an_after_run_hook_that_writes_step_count_breaks_step_count_is_llm_calls() {
    reported(
        &broken_by("{set: {step_count: 7}}"),
        Invariant::StepCountIsLlmCalls,
    );
}

#[test]
fn an_after_run_hook_that_writes_token_usage_breaks_token_usage_is_scripted_sum() {
    reported(
        &broken_by("{set: {token_usage: {prompt_tokens: 99}}}"),
        Invariant::TokenUsageIsScriptedSum,
    );
}

#[test]
fn an_after_run_hook_that_writes_tool_call_counts_breaks_removed_tool_calls_do_not_run() {
    reported(
        &broken_by("{set: {tool_call_counts: {search: 5}}}"),
        Invariant::RemovedToolCallsDoNotRun,
    );
}

#[test]
fn an_after_run_hook_that_sets_continue_run_breaks_continue_run_is_consumed() {
    let found = reported(
        &broken_by("{continue_run: true}"),
        Invariant::ContinueRunIsConsumed,
    );
    assert_eq!(found.message, "continue_run is true after the run");
}

/// A hook whose async path does something else than its sync path.
struct TwoFaced;
impl Hook for TwoFaced {
    fn run(&self, _: &mut State) -> Result<(), HookError> {
        Ok(())
    }
    fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
        HookFuture::new(async move {
            state.set("exit_reason", json!("async"))?;
            Ok(())
        })
    }
}

#[test]
fn a_hook_that_differs_on_the_async_path_breaks_same_outcome() {
    let mut scenario = scenario("hooks: {after_run: [{custom: two_faced}]}\nmodel: [{text: hi}]");
    let replay = Replay::new().custom_hook("two_faced", TwoFaced);
    let sync = replay.run(&scenario);
    scenario.run.is_async = true;
    let on_async = replay.run(&scenario);
    let found = compare_outcomes(&sync, &on_async);
    assert_eq!(found[0].invariant, Invariant::SameOutcome);
    assert!(
        found[0].message.starts_with("`result` differs"),
        "{}",
        found[0]
    );
}

/// A hook that remembers earlier runs.
struct Counting(AtomicUsize);
impl Hook for Counting {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let n = self.0.fetch_add(1, Ordering::SeqCst);
        state.set("exit_reason", json!(format!("run {n}")))?;
        Ok(())
    }
}

#[test]
fn a_hook_that_remembers_earlier_runs_breaks_same_outcome() {
    let scenario = scenario("hooks: {after_run: [{custom: counting}]}\nmodel: [{text: hi}]");
    let replay = Replay::new().custom_hook("counting", Counting(AtomicUsize::new(0)));
    let first = replay.run(&scenario);
    let second = replay.run(&scenario);
    assert_eq!(
        compare_outcomes(&first, &second)[0].invariant,
        Invariant::SameOutcome
    );
}
