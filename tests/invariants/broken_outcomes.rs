//! Each invariant's check, fed a deliberately broken outcome: the
//! violation is reported, at the event that shows it.

use crate::support::{error, exit, hook, llm, outcome, reported, result, scenario, tool};
use hookharness::HookPoint;
use hookharness::invariants::{Invariant, Invariants, check_invariants, compare_outcomes};
use hookharness::outcome::ErrorKind;
use serde_json::json;

#[test]
fn on_exit_after_a_max_agent_steps_ending_is_reported() {
    let broken = outcome(
        json!({"exit_reason": "max_agent_steps", "step_count": 1}),
        vec![llm(0), hook("on_exit", "late", 1)],
    );
    let violations = check_invariants(&broken);
    let found = reported(&violations, Invariant::OnExitSkippedAtMaxSteps);
    assert_eq!(found.at, Some(1));
    assert!(
        found
            .message
            .contains("an on_exit hook ran for the max_agent_steps ending")
    );

    let ended_at_exit = outcome(
        json!({"exit_reason": "max_agent_steps", "step_count": 1}),
        vec![llm(0), hook("on_exit", "h", 1), exit(1, "text", false)],
    );
    reported(
        &check_invariants(&ended_at_exit),
        Invariant::OnExitSkippedAtMaxSteps,
    );

    // The same trace with an exit that continued is fine.
    let continued = outcome(
        json!({"exit_reason": "max_agent_steps", "step_count": 1}),
        vec![llm(0), hook("on_exit", "h", 1), exit(1, "text", true)],
    );
    assert_eq!(check_invariants(&continued), vec![]);
}

#[test]
fn after_run_before_the_end_or_after_a_failure_or_twice_is_reported() {
    let early = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![hook("after_run", "a", 0), llm(0), exit(1, "text", false)],
    );
    let found = reported(
        &check_invariants(&early),
        Invariant::AfterRunOnceUnlessFailed,
    );
    assert_eq!(found.at, Some(0));

    let mut failed = outcome(json!(null), vec![llm(0), hook("after_run", "a", 0)]);
    failed.error = error(
        ErrorKind::Generator { call: 0, step: 0 },
        "the chat generator failed at LLM call 0 (step 0): rate limited",
    );
    let found = reported(
        &check_invariants(&failed),
        Invariant::AfterRunOnceUnlessFailed,
    );
    assert!(found.message.contains("a run that failed before after_run"));

    let registered = scenario("hooks: {after_run: [{name: a}]}\nmodel: [{text: hi}]");
    let twice = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![
            llm(0),
            exit(1, "text", false),
            hook("after_run", "a", 1),
            hook("after_run", "a", 1),
        ],
    );
    let violations = Invariants::new().scenario(&registered).check(&twice);
    reported(&violations, Invariant::AfterRunOnceUnlessFailed);
    let never = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![llm(0), exit(1, "text", false)],
    );
    reported(
        &Invariants::new().scenario(&registered).check(&never),
        Invariant::AfterRunOnceUnlessFailed,
    );
}

#[test]
fn a_removed_call_that_ran_or_counted_or_exited_is_reported() {
    let counted = outcome(
        json!({"exit_reason": "text", "step_count": 2, "tool_call_counts": {"search": 2}}),
        vec![
            llm(0),
            tool(0, "search", "call_0_0", false),
            llm(1),
            exit(2, "text", false),
        ],
    );
    let found = reported(
        &check_invariants(&counted),
        Invariant::RemovedToolCallsDoNotRun,
    );
    assert_eq!(found.at, Some(1));

    let exit_without_run = outcome(
        json!({"exit_reason": "search", "step_count": 1, "tool_call_counts": {"search": 0}}),
        vec![
            llm(0),
            hook("before_tool", "veto", 0),
            exit(1, "search", false),
        ],
    );
    let found = reported(
        &check_invariants(&exit_without_run),
        Invariant::RemovedToolCallsDoNotRun,
    );
    assert_eq!(found.at, Some(2));

    // A call that ran although no message holds it any more.
    let declared = scenario(
        "tools: [{name: search, results: [x]}]\nmodel: [{tool_calls: [{tool: search}]}, {text: done}]",
    );
    let mut ran_removed = outcome(
        json!({"exit_reason": "text", "step_count": 2, "tool_call_counts": {"search": 1},
               "messages": [{"role": "assistant", "content": [], "meta": {}, "name": null}]}),
        vec![
            llm(0),
            tool(0, "search", "call_0_0", false),
            llm(1),
            exit(2, "text", false),
        ],
    );
    let violations = Invariants::new().scenario(&declared).check(&ran_removed);
    let found = reported(&violations, Invariant::RemovedToolCallsDoNotRun);
    assert!(
        found.message.contains("no message of the history holds"),
        "{found}"
    );

    // A declared tool counted although it never ran.
    ran_removed.trace = vec![llm(0), llm(1), exit(2, "text", false)];
    let violations = Invariants::new().scenario(&declared).check(&ran_removed);
    let found = reported(&violations, Invariant::RemovedToolCallsDoNotRun);
    assert!(found.message.contains("`search` never ran"), "{found}");
}

#[test]
fn an_accepted_reserved_key_or_a_rejected_plain_schema_is_reported() {
    let reserved =
        scenario("agent: {state_schema: {step_count: {type: int}}}\nmodel: [{text: hi}]");
    let built = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![llm(0), exit(1, "text", false)],
    );
    let violations = Invariants::new().scenario(&reserved).check(&built);
    reported(&violations, Invariant::ReservedStateKeysRejected);

    let plain = scenario("agent: {state_schema: {notes: {type: list}}}\nmodel: [{text: hi}]");
    let mut rejected = outcome(json!(null), vec![]);
    rejected.error = error(
        ErrorKind::ReservedStateKeys,
        "state_schema keys ['notes'] are reserved for Agent internal state and cannot be redefined.",
    );
    let violations = Invariants::new().scenario(&plain).check(&rejected);
    reported(&violations, Invariant::ReservedStateKeysRejected);
}

#[test]
fn before_run_after_the_start_or_missing_is_reported() {
    let late = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![
            llm(0),
            hook("before_run", "setup", 0),
            exit(1, "text", false),
        ],
    );
    let found = reported(&check_invariants(&late), Invariant::BeforeRunFirstAndOnce);
    assert_eq!(found.at, Some(1));

    let registered = scenario("hooks: {before_run: [{name: setup}]}\nmodel: [{text: hi}]");
    let missing = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![llm(0), exit(1, "text", false)],
    );
    reported(
        &Invariants::new().scenario(&registered).check(&missing),
        Invariant::BeforeRunFirstAndOnce,
    );
}

#[test]
fn hooks_out_of_registration_order_are_reported() {
    let swapped = outcome(
        json!({"exit_reason": "text", "step_count": 2}),
        vec![
            hook("before_llm", "a", 0),
            hook("before_llm", "b", 0),
            llm(0),
            hook("before_llm", "b", 1),
            hook("before_llm", "a", 1),
            llm(1),
            exit(2, "text", false),
        ],
    );
    let found = reported(
        &check_invariants(&swapped),
        Invariant::HooksRunInRegistrationOrder,
    );
    assert_eq!(found.at, Some(3));

    let registered = scenario("hooks: {before_llm: [{name: a}, {name: b}]}\nmodel: [{text: hi}]");
    let once_swapped = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![
            hook("before_llm", "b", 0),
            hook("before_llm", "a", 0),
            llm(0),
            exit(1, "text", false),
        ],
    );
    let violations = Invariants::new().scenario(&registered).check(&once_swapped);
    let found = reported(&violations, Invariant::HooksRunInRegistrationOrder);
    assert_eq!(found.at, Some(0));
}

#[test]
fn a_step_count_that_is_not_the_llm_calls_is_reported() {
    let off = outcome(
        json!({"exit_reason": "text", "step_count": 3}),
        vec![llm(0), llm(1), exit(2, "text", false)],
    );
    let found = reported(&check_invariants(&off), Invariant::StepCountIsLlmCalls);
    assert!(
        found
            .message
            .contains("step_count is 3 after 2 LLM call(s)"),
        "{found}"
    );

    // A run resumed by a before_run hook is left out.
    let resumed = outcome(
        json!({"exit_reason": "text", "step_count": 3}),
        vec![
            hook("before_run", "restore", 0),
            llm(2),
            exit(3, "text", false),
        ],
    );
    assert_eq!(check_invariants(&resumed), vec![]);
}

#[test]
fn an_unknown_or_rewritten_exit_reason_is_reported() {
    let null = outcome(json!({"exit_reason": null, "step_count": 1}), vec![llm(0)]);
    reported(&check_invariants(&null), Invariant::ExitReasonIsKnown);

    let rewritten = outcome(
        json!({"exit_reason": "renamed", "step_count": 1}),
        vec![llm(0), exit(1, "text", false)],
    );
    let found = reported(&check_invariants(&rewritten), Invariant::ExitReasonIsKnown);
    assert_eq!(found.at, Some(1));

    let plain = scenario("model: [{text: hi}]");
    let stray = outcome(json!({"exit_reason": "halt", "step_count": 0}), vec![]);
    reported(
        &Invariants::new().scenario(&plain).check(&stray),
        Invariant::ExitReasonIsKnown,
    );
}

#[test]
fn an_exit_decision_that_is_not_followed_is_reported() {
    let went_on = outcome(
        json!({"exit_reason": "text", "step_count": 2}),
        vec![
            llm(0),
            exit(1, "text", false),
            llm(1),
            exit(2, "text", false),
        ],
    );
    let found = reported(
        &check_invariants(&went_on),
        Invariant::ContinueRunIsConsumed,
    );
    assert_eq!(found.at, Some(2));

    let stopped = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        vec![llm(0), exit(1, "text", true)],
    );
    let found = reported(
        &check_invariants(&stopped),
        Invariant::ContinueRunIsConsumed,
    );
    assert_eq!(found.at, Some(1));

    let limited = scenario("agent: {max_agent_steps: 3}\nmodel: [{text: hi}]");
    let early_max = outcome(
        json!({"exit_reason": "max_agent_steps", "step_count": 1}),
        vec![llm(0), hook("on_exit", "h", 1), exit(1, "text", true)],
    );
    reported(
        &Invariants::new().scenario(&limited).check(&early_max),
        Invariant::ContinueRunIsConsumed,
    );
}

#[test]
fn an_exit_that_continues_without_on_exit_hooks_is_reported_even_in_a_failed_run() {
    let mut failed = outcome(
        json!(null),
        vec![
            hook("before_llm", "too_early", 0),
            llm(0),
            exit(1, "text", true),
            hook("before_llm", "too_early", 1),
            llm(1),
        ],
    );
    failed.error = error(
        ErrorKind::Generator { call: 1, step: 1 },
        "the chat generator failed at LLM call 1 (step 1): model script exhausted",
    );
    let found = reported(&check_invariants(&failed), Invariant::ContinueRunIsConsumed);
    assert_eq!(found.at, Some(2));
    assert_eq!(
        found.message,
        "an exit continued although no on_exit hook ran for it"
    );
}

#[test]
fn a_token_usage_that_is_not_the_scripted_sum_is_reported() {
    let scripted = scenario(
        "model:\n  - {tool_calls: [{tool: t}], usage: {prompt_tokens: 3, details: {cached: 1}}}\n  - {text: hi, usage: {prompt_tokens: 2, details: {cached: 2}}}",
    );
    let right = outcome(
        json!({"exit_reason": "text", "step_count": 1, "token_usage": {"prompt_tokens": 5, "details": {"cached": 3}}}),
        vec![llm(0), llm(1), exit(2, "text", false)],
    );
    let violations = Invariants::new().scenario(&scripted).check(&right);
    assert!(
        violations
            .iter()
            .all(|v| v.invariant != Invariant::TokenUsageIsScriptedSum)
    );
    let wrong = outcome(
        json!({"exit_reason": "text", "step_count": 2, "token_usage": {"prompt_tokens": 5, "details": {"cached": 2}}}),
        vec![llm(0), llm(1), exit(2, "text", false)],
    );
    let violations = Invariants::new().scenario(&scripted).check(&wrong);
    let found = reported(&violations, Invariant::TokenUsageIsScriptedSum);
    assert!(
        found
            .message
            .contains(r#"script {"prompt_tokens":5,"details":{"cached":3}}"#),
        "{found}"
    );
}

#[test]
fn two_outcomes_that_differ_are_reported_at_the_first_difference() {
    let trace = vec![llm(0), exit(1, "text", false)];
    let left = outcome(
        json!({"exit_reason": "text", "step_count": 1}),
        trace.clone(),
    );
    let mut right = left.clone();
    right.trace[1] = exit(1, "length", false);
    let found = compare_outcomes(&left, &right);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].invariant, Invariant::SameOutcome);
    assert_eq!(found[0].at, Some(1));
    let mut right = left.clone();
    right.result = Some(result(json!({"exit_reason": "text", "step_count": 2})));
    let found = compare_outcomes(&left, &right);
    assert!(
        found[0].message.starts_with("`result` differs"),
        "{}",
        found[0]
    );
    right.file = "elsewhere.yaml".into();
    right.result = left.result.clone();
    assert_eq!(compare_outcomes(&left, &right), vec![]);
}

#[test]
fn a_violation_prints_its_invariant_message_and_excerpt() {
    let broken = outcome(
        json!({"exit_reason": "max_agent_steps", "step_count": 2}),
        vec![
            llm(0),
            exit(1, "text", true),
            llm(1),
            hook("on_exit", "late", 2),
        ],
    );
    let text = check_invariants(&broken)[0].to_string();
    assert_eq!(
        text,
        "on_exit_skipped_at_max_steps: an on_exit hook ran for the max_agent_steps ending (no exit decision follows it)\n\
         \x20   trace[1] {\"continue\":true,\"event\":\"exit\",\"reason\":\"text\",\"step\":1}\n\
         \x20   trace[2] {\"event\":\"llm\",\"messages_in\":1,\"step\":1}\n\
         \x20 > trace[3] {\"event\":\"hook\",\"hook\":\"late\",\"point\":\"on_exit\",\"step\":2}"
    );
}

#[test]
fn a_hook_failure_is_read_from_the_typed_error_whatever_its_wording() {
    // The same run and the same text, once failed by an after_run hook and
    // once by the model: only the error's kind tells them apart.
    let trace = vec![
        llm(0),
        exit(1, "text", false),
        hook("after_run", "audit", 1),
    ];
    let wording = "audit said no";
    let mut in_after_run = outcome(json!(null), trace.clone());
    in_after_run.error = error(
        ErrorKind::Hook {
            hook: "audit".into(),
            point: HookPoint::AfterRun,
            step: 1,
            panicked: false,
        },
        wording,
    );
    assert!(
        check_invariants(&in_after_run)
            .iter()
            .all(|v| v.invariant != Invariant::AfterRunOnceUnlessFailed),
        "{:#?}",
        check_invariants(&in_after_run)
    );
    let mut elsewhere = outcome(json!(null), trace);
    elsewhere.error = error(ErrorKind::Generator { call: 1, step: 1 }, wording);
    let found = reported(
        &check_invariants(&elsewhere),
        Invariant::AfterRunOnceUnlessFailed,
    );
    assert_eq!(found.at, Some(2));
}
