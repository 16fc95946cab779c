//! Invariants of the loop, as properties over generated scenarios.
//!
//! Each property runs generated scenarios through the real loop and checks
//! one invariant with `hookharness::invariants`; a second group of tests
//! feeds deliberately broken outcomes (and faulty hooks) to the checks, so
//! that each property is shown to catch the bug it is about.
//!
//! Case counts: 64 per property (`PROPTEST_CASES` raises them). Failing
//! seeds go to `proptest-regressions/invariants.txt`; with
//! `HOOKHARNESS_FAILURES_DIR` set, the shrunk counterexample is written
//! there as a scenario file.

#![cfg(feature = "proptest")]

use hookharness::invariants::{Invariant, RunProbe, check_invariants, compare_outcomes};
use hookharness::replay::{Outcome, Replay};
use hookharness::scenario::{Format, Scenario, ScriptedResult};
use hookharness::state::keys::is_reserved;
use hookharness::strategies::{Property, Shape, scenarios, scenarios_shaped, state_schemas};
use proptest::prelude::*;
use support::{
    Coverage, add_hook, call_first_tool, focused, only, run_checked,
    sets_continue_run_outside_on_exit,
};

/// A property of this file; failing seeds go to
/// `proptest-regressions/invariants.txt`.
fn property(name: &'static str) -> Property {
    Property::new(name)
}

/// Asserts that the run of `scenario` keeps `invariant`, and returns its
/// outcome and probe.
fn keeps(invariant: Invariant, scenario: &Scenario) -> Result<(Outcome, RunProbe), TestCaseError> {
    let (outcome, probe, violations) = run_checked(scenario);
    let broken = only(&violations, invariant);
    prop_assert!(
        broken.is_empty(),
        "{}\n{}",
        broken
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        outcome.to_json_line()
    );
    Ok((outcome, probe))
}

/// on_exit never runs for the ending of a run that reached
/// `max_agent_steps`: every on_exit that ran belonged to an exit that
/// continued.
#[test]
fn on_exit_never_runs_in_a_run_that_ends_because_max_agent_steps_was_reached() {
    let covered = Coverage::new("max-steps endings after an on_exit that continued");
    let strategy = focused(&[|scenario| {
        add_hook(
            scenario,
            "on_exit",
            "{name: always_more, do: [{continue_run: true}], when: {times: 9}}",
        );
    }]);
    property("on_exit_never_runs_at_max_steps").run(strategy, |scenario| {
        let (outcome, _) = keeps(Invariant::OnExitSkippedAtMaxSteps, &scenario)?;
        let ended_at_max = outcome
            .result
            .as_ref()
            .is_some_and(|r| r["exit_reason"] == "max_agent_steps");
        covered.hit_if(
            ended_at_max
                && outcome
                    .trace
                    .iter()
                    .any(|e| e.to_value()["point"] == "on_exit"),
        );
        Ok(())
    });
    covered.assert_hit();
}

/// after_run runs exactly once, last, in every run that got past
/// construction and did not fail; it never runs when a hook (outside
/// after_run), the model or a tool raised.
#[test]
fn after_run_runs_exactly_once_in_every_run_that_did_not_fail() {
    let failed = Coverage::new("runs that failed after construction");
    property("after_run_runs_once_unless_failed").run(scenarios(), |scenario| {
        let (outcome, _) = keeps(Invariant::AfterRunOnceUnlessFailed, &scenario)?;
        failed.hit_if(outcome.result.is_none() && !outcome.trace.is_empty());
        Ok(())
    });
    failed.assert_hit();
}

/// When before_tool hooks remove the pending tool calls, no tool runs in
/// that step, tool_call_counts does not change and no tool exit fires.
#[test]
fn when_before_tool_hooks_remove_the_pending_calls_no_tool_runs() {
    let covered = Coverage::new("steps whose pending calls were all removed");
    let strategy = focused(&[|scenario| {
        if call_first_tool(scenario).is_some() {
            add_hook(
                scenario,
                "before_tool",
                "{name: veto, do: [{drop_tool_calls: all}], when: {times: 1}}",
            );
        }
    }]);
    property("removed_tool_calls_do_not_run").run(strategy, |scenario| {
        let (_, probe) = keeps(Invariant::RemovedToolCallsDoNotRun, &scenario)?;
        covered.hit_if(
            probe
                .rounds
                .iter()
                .any(|r| r.pending.is_empty() && r.counts_after.is_some()),
        );
        Ok(())
    });
    covered.assert_hit();
}

/// Any state_schema with a reserved key is rejected at construction with
/// Haystack's message; one without is accepted.
#[test]
fn a_state_schema_with_a_reserved_key_is_rejected_and_one_without_is_accepted() {
    let strategy = (any::<bool>(), any::<bool>())
        .prop_flat_map(|(reserved, is_async)| (state_schemas(reserved), Just(is_async)));
    let base = Scenario::from_str("model: [{text: hi}]", "schema.yaml", Format::Yaml).unwrap();
    property("reserved_state_keys_are_rejected").run_with(
        strategy,
        |(schema, is_async)| {
            let mut scenario = base.clone();
            scenario.agent.state_schema = schema.clone();
            scenario.run.is_async = *is_async;
            scenario
        },
        |(schema, is_async)| {
            let mut scenario = base.clone();
            scenario.agent.state_schema = schema.clone();
            scenario.run.is_async = is_async;
            let (outcome, _) = keeps(Invariant::ReservedStateKeysRejected, &scenario)?;
            if schema.keys().any(|k| is_reserved(k)) {
                let error = outcome.error.unwrap_or_default();
                prop_assert!(
                    error.contains("are reserved for Agent internal state"),
                    "{error}"
                );
                prop_assert!(outcome.trace.is_empty());
            } else {
                prop_assert!(outcome.result.is_some(), "{:?}", outcome.error);
            }
            Ok(())
        },
    );
}

/// before_run hooks run exactly once, before anything else.
#[test]
fn before_run_runs_exactly_once_and_first() {
    property("before_run_runs_once_and_first").run(scenarios(), |scenario| {
        keeps(Invariant::BeforeRunFirstAndOnce, &scenario)?;
        Ok(())
    });
}

/// Each time a point is reached, its hooks run in registration order.
#[test]
fn hooks_at_one_point_run_in_registration_order() {
    let covered = Coverage::new("points reached more than once with two hooks or more");
    let strategy = focused(&[|scenario| {
        add_hook(scenario, "before_llm", "{name: first}");
        add_hook(scenario, "before_llm", "{name: second}");
    }]);
    property("hooks_run_in_registration_order").run(strategy, |scenario| {
        let (outcome, _) = keeps(Invariant::HooksRunInRegistrationOrder, &scenario)?;
        let before_llm = scenario.hooks.get("before_llm").map_or(0, Vec::len);
        let llm_calls = outcome
            .trace
            .iter()
            .filter(|e| e.to_value()["event"] == "llm")
            .count();
        covered.hit_if(before_llm >= 2 && llm_calls >= 2);
        Ok(())
    });
    covered.assert_hit();
}

/// step_count equals the number of LLM calls when the run ends by an exit
/// condition or by max_agent_steps. Restricted to runs that did not resume:
/// a before_run hook that sets step_count makes the loop count from there.
/// (The check also covers stop_run endings when no hook writes step_count:
/// a stop comes before the LLM call and the increment.)
#[test]
fn step_count_equals_the_number_of_llm_calls_at_exit_and_max_steps_endings() {
    let resumed = Coverage::new("runs resumed by a before_run hook");
    let strategy = focused(&[|scenario| {
        add_hook(
            scenario,
            "before_run",
            "{name: resume, do: [{set: {step_count: 1}}]}",
        );
    }]);
    property("step_count_is_llm_calls").run(strategy, |scenario| {
        let (outcome, _) = keeps(Invariant::StepCountIsLlmCalls, &scenario)?;
        let first_llm = outcome
            .trace
            .iter()
            .map(|e| e.to_value())
            .find(|e| e["event"] == "llm");
        resumed.hit_if(first_llm.is_some_and(|e| e["step"] != 0));
        Ok(())
    });
    resumed.assert_hit();
}

/// exit_reason is text, length, content_filter, a tool exit condition,
/// max_agent_steps or a stop_run value.
#[test]
fn exit_reason_is_a_model_reason_a_tool_max_agent_steps_or_a_stop_value() {
    let tool_exits = Coverage::new("tool exits (continued or not)");
    let stops = Coverage::new("stop_run endings");
    let strategy = focused(&[
        |scenario| {
            if let Some(tool) = call_first_tool(scenario) {
                scenario.agent.exit_conditions = vec![tool];
                scenario.tools[0]
                    .results
                    .insert(0, ScriptedResult::Text("found".into()));
            }
        },
        |scenario| {
            add_hook(
                scenario,
                "before_llm",
                "{do: [{stop_run: halt}], when: {step_count: 1}}",
            )
        },
    ]);
    property("exit_reason_is_known").run(strategy, |scenario| {
        let (outcome, _) = keeps(Invariant::ExitReasonIsKnown, &scenario)?;
        let reason = outcome.result.as_ref().map(|r| r["exit_reason"].clone());
        let reason = reason.as_ref().and_then(|r| r.as_str()).unwrap_or_default();
        let exits: Vec<serde_json::Value> = outcome
            .trace
            .iter()
            .map(|e| e.to_value())
            .filter(|e| e["event"] == "exit")
            .collect();
        tool_exits.hit_if(exits.iter().any(|e| {
            scenario
                .tools
                .iter()
                .any(|t| e["reason"] == t.name.as_str())
        }));
        stops.hit_if(hookharness::strategies::STOP_VALUES.contains(&reason));
        Ok(())
    });
    tool_exits.assert_hit();
    stops.assert_hit();
}

/// continue_run is false after the run (read by an observer when the run
/// finishes), and each exit's decision is followed: only on_exit hooks make
/// an exit continue, an exit that does not continue ends the run, one that
/// continues leads to another step. Restricted, for the final flag, to runs
/// where no hook outside on_exit sets continue_run: Haystack leaves such a
/// flag in place when no exit handling follows (generated before_llm and
/// after_tool hooks do set it, to check that it is ignored without on_exit
/// hooks).
#[test]
fn continue_run_is_false_after_the_run() {
    let continued = Coverage::new("exits that continued");
    let strategy = focused(&[
        |scenario| {
            add_hook(
                scenario,
                "on_exit",
                "{name: once_more, do: [{continue_run: true}], when: {times: 1}}",
            );
        },
        // Without on_exit hooks, a flag set elsewhere is never read.
        |scenario| {
            scenario.hooks.shift_remove("on_exit");
            add_hook(
                scenario,
                "before_llm",
                "{name: too_early, do: [{continue_run: true}], when: {times: 1}}",
            );
        },
    ]);
    property("continue_run_is_consumed").run(strategy, |scenario| {
        let (outcome, probe) = keeps(Invariant::ContinueRunIsConsumed, &scenario)?;
        if outcome.result.is_some() && !sets_continue_run_outside_on_exit(&scenario) {
            prop_assert_eq!(
                probe.continue_run_at_finish,
                Some(serde_json::Value::Bool(false))
            );
        }
        continued.hit_if(
            outcome
                .trace
                .iter()
                .any(|e| e.to_value()["continue"] == true),
        );
        Ok(())
    });
    continued.assert_hit();
}

/// token_usage equals the recursive sum of the scripted usages of the
/// replies the run consumed.
#[test]
fn token_usage_equals_the_recursive_sum_of_the_consumed_usages() {
    let nested = Coverage::new("runs that summed nested usages");
    property("token_usage_is_scripted_sum").run(scenarios(), |scenario| {
        let (outcome, _) = keeps(Invariant::TokenUsageIsScriptedSum, &scenario)?;
        let usage = outcome.result.as_ref().map(|r| r["token_usage"].clone());
        nested.hit_if(usage.is_some_and(|u| u["details"].is_object()));
        Ok(())
    });
    nested.assert_hit();
}

/// Sync and async runs of a scenario give identical outcomes, and running
/// it again gives the same outcome JSON.
#[test]
fn sync_and_async_runs_agree_and_outcomes_are_deterministic() {
    property("same_outcome_sync_async_and_again").run(scenarios(), |mut scenario| {
        scenario.run.is_async = false;
        let sync = Replay::new().run(&scenario);
        let again = Replay::new().run(&scenario);
        scenario.run.is_async = true;
        let on_async = Replay::new().run(&scenario);
        let differences = compare_outcomes(&sync, &on_async);
        prop_assert!(differences.is_empty(), "{}", differences[0]);
        prop_assert_eq!(sync.to_json_line(), again.to_json_line());
        prop_assert_eq!(sync.to_json_line(), on_async.to_json_line());
        Ok(())
    });
}

/// Every invariant at once, with the scenario and the probe, and the
/// outcome-only checks on their own.
#[test]
fn every_generated_run_keeps_every_invariant() {
    property("every_invariant").run(scenarios(), |scenario| {
        let (outcome, _, violations) = run_checked(&scenario);
        prop_assert!(violations.is_empty(), "{violations:#?}");
        prop_assert!(check_invariants(&outcome).is_empty());
        Ok(())
    });
}

/// Scenarios written out load back as the same scenario, as YAML and JSON.
#[test]
fn generated_scenarios_round_trip_through_the_writer() {
    let shape = Shape::default().reserved_keys(true);
    property("scenarios_round_trip").run(scenarios_shaped(shape), |scenario| {
        let text = scenario.to_yaml();
        let yaml = Scenario::from_str(&text, "generated.yaml", Format::Yaml);
        let json = Scenario::from_str(&text, "generated.json", Format::Json);
        prop_assert_eq!(
            yaml.as_ref().ok(),
            Some(&scenario),
            "{}\n{:?}",
            text,
            yaml.as_ref().err()
        );
        prop_assert_eq!(json.as_ref().ok(), Some(&scenario), "{}", text);
        Ok(())
    });
}

/// Each invariant's check, fed a deliberately broken outcome: the
/// violation is reported, at the event that shows it.
mod broken_outcomes {
    use super::support::{exit, hook, llm, outcome, reported, scenario, tool};
    use hookharness::invariants::{Invariant, Invariants, check_invariants, compare_outcomes};
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
        failed.error =
            Some("the chat generator failed at LLM call 0 (step 0): rate limited".into());
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
        rejected.error = Some(
            "state_schema keys ['notes'] are reserved for Agent internal state and cannot be redefined.".into(),
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

        let registered =
            scenario("hooks: {before_llm: [{name: a}, {name: b}]}\nmodel: [{text: hi}]");
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
        failed.error =
            Some("the chat generator failed at LLM call 1 (step 1): model script exhausted".into());
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
        right.result = Some(json!({"exit_reason": "text", "step_count": 2}));
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
}

/// Faulty hooks on the real loop: where a hook can break an invariant, the
/// check reports it. (No hook can make the loop run before_run late, run
/// hooks out of order, run after_run twice, run on_exit at a max-steps
/// ending or accept a reserved key: those only break with the loop.)
mod faulty_hooks {
    use super::support::{reported, run_checked, scenario};
    use hookharness::hook::BoxFuture;
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
        run_checked(&scenario(&text)).2
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
        fn run_async<'a>(&'a self, state: &'a mut State) -> BoxFuture<'a, Result<(), HookError>> {
            Box::pin(async move {
                state.set("exit_reason", json!("async"))?;
                Ok(())
            })
        }
    }

    #[test]
    fn a_hook_that_differs_on_the_async_path_breaks_same_outcome() {
        let mut scenario =
            scenario("hooks: {after_run: [{custom: two_faced}]}\nmodel: [{text: hi}]");
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
}

/// A failing property writes its shrunk counterexample as a scenario
/// file that loads and replays.
mod counterexamples {
    use super::support::scenario;
    use hookharness::replay::{Replay, Status};
    use hookharness::scenario::Scenario;
    use hookharness::strategies::{Property, scenarios};
    use proptest::prop_assert;
    use std::path::PathBuf;
    use std::sync::OnceLock;

    const REGRESSIONS: &str = concat!(
        env!("CARGO_TARGET_TMPDIR"),
        "/counterexample-regressions.txt"
    );

    fn failures_dir(name: &str) -> PathBuf {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// Runs, once for the tests below, a property that fails as soon as a
    /// tool runs; returns the counterexample file and the panic message.
    fn fail_when_a_tool_runs() -> &'static (PathBuf, String) {
        static WRITTEN: OnceLock<(PathBuf, String)> = OnceLock::new();
        WRITTEN.get_or_init(|| {
            let dir = failures_dir("failures-written");
            let into = dir.clone();
            let panic = std::panic::catch_unwind(move || {
                Property::new("no_tool_ever_runs")
                    .regressions(REGRESSIONS)
                    .failures_dir(into)
                    .run(scenarios(), |scenario| {
                        let outcome = Replay::new().run(&scenario);
                        let tools = outcome
                            .trace
                            .iter()
                            .filter(|e| e.to_value()["event"] == "tool")
                            .count();
                        prop_assert!(tools == 0, "{tools} tool call(s) ran");
                        Ok(())
                    });
            })
            .expect_err("the property fails");
            let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
            (dir.join("no_tool_ever_runs.yaml"), message)
        })
    }

    #[test]
    fn a_failing_property_writes_its_shrunk_counterexample_as_a_scenario_file() {
        let (file, message) = fail_when_a_tool_runs();
        assert!(
            message.starts_with("property `no_tool_ever_runs` failed: "),
            "{message}"
        );
        assert!(
            message.contains(&format!("written to {}", file.display())),
            "{message}"
        );
        assert!(message.contains("PROPTEST_RNG_SEED="), "{message}");

        let written = Scenario::from_path(file).unwrap();
        assert_eq!(written.name, "no_tool_ever_runs");
        let description = written.description.clone().unwrap_or_default();
        assert!(
            description.starts_with("Counterexample to the property `no_tool_ever_runs`: "),
            "{description}"
        );
        // Shrunk: one tool, no hooks, one step, one reply that calls the tool.
        let text = written.to_yaml();
        assert_eq!(written.tools.len(), 1, "{text}");
        assert!(written.hooks.is_empty(), "{text}");
        assert_eq!(written.agent.max_agent_steps, 1, "{text}");
        assert_eq!(written.model.len(), 1, "{text}");
        // Replaying the file reproduces the failure.
        let outcome = Replay::new().run_file(file);
        assert!(
            outcome
                .trace
                .iter()
                .any(|e| e.to_value()["event"] == "tool")
        );
        assert_ne!(outcome.status, Status::Error, "{:?}", outcome.error);
    }

    #[cfg(feature = "cli")]
    #[test]
    fn the_cli_replays_a_written_counterexample() {
        let (file, _) = fail_when_a_tool_runs();
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_hookharness"))
            .arg("run")
            .arg(file)
            .output()
            .unwrap();
        // 0: pass, 1: expectations failed; 2 (invalid file) and 3 (nothing found) are not.
        assert!(matches!(run.status.code(), Some(0 | 1)), "{run:?}");
    }

    #[test]
    fn without_a_failures_dir_the_message_says_how_to_get_the_file() {
        let panic = std::panic::catch_unwind(|| {
            Property::new("always_fails")
                .regressions(REGRESSIONS)
                .cases(1)
                .run_with(
                    proptest::strategy::Just(()),
                    |()| scenario("model: []"),
                    |()| {
                        prop_assert!(false, "on purpose");
                        Ok(())
                    },
                );
        })
        .expect_err("the property fails");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        if std::env::var_os("HOOKHARNESS_FAILURES_DIR").is_none() {
            assert!(
                message.contains("set HOOKHARNESS_FAILURES_DIR to write it as a scenario file"),
                "{message}"
            );
        }
        assert!(message.contains("minimal failing input: ()"), "{message}");
    }

    #[test]
    #[should_panic(expected = "property `always_fails_loudly` failed: on purpose")]
    fn a_failing_property_panics_with_its_name_and_reason() {
        Property::new("always_fails_loudly")
            .regressions(REGRESSIONS)
            .cases(1)
            .run_with(
                proptest::strategy::Just(()),
                |()| scenario("model: []"),
                |()| {
                    prop_assert!(false, "on purpose");
                    Ok(())
                },
            );
    }

    /// Every corpus file written back out loads as the same scenario.
    #[test]
    fn every_corpus_scenario_round_trips_through_the_writer() {
        let mut files = Vec::new();
        let mut dirs = vec![PathBuf::from("scenarios")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        assert!(files.len() > 100);
        for file in files {
            let loaded = Scenario::from_path(&file).unwrap();
            let text = loaded.to_yaml();
            let mut again = hookharness::scenario::Scenario::from_str(
                &text,
                "again.yaml",
                hookharness::scenario::Format::Yaml,
            )
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", file.display()));
            again.file = loaded.file.clone();
            assert_eq!(again, loaded, "{}", file.display());
        }
    }
}

/// Permuted registrations of a user's hooks.
mod permutations {
    use hookharness::replay::Replay;
    use hookharness::strategies::{Registration, install, permuted_registrations};
    use hookharness::{Hook, HookError, HookPoint, State, hook_fn};
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    use std::sync::Arc;

    struct Anywhere;
    impl Hook for Anywhere {
        fn run(&self, _: &mut State) -> Result<(), HookError> {
            Ok(())
        }
        fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
            Some(&[HookPoint::BeforeLlm, HookPoint::AfterTool])
        }
    }

    fn hooks() -> Vec<(HookPoint, Arc<dyn Hook>)> {
        let a: Arc<dyn Hook> = Arc::new(hook_fn(|_: &mut State| {}).named("a"));
        let b: Arc<dyn Hook> = Arc::new(hook_fn(|_: &mut State| {}).named("a"));
        vec![
            (HookPoint::BeforeLlm, a.clone()),
            (HookPoint::BeforeLlm, b),
            (HookPoint::BeforeLlm, Arc::new(Anywhere)),
            (HookPoint::OnExit, a),
        ]
    }

    fn sample(n: usize) -> Vec<Vec<Registration>> {
        let strategy = permuted_registrations(hooks());
        let mut runner = TestRunner::deterministic();
        (0..n)
            .map(|_| strategy.new_tree(&mut runner).unwrap().current())
            .collect()
    }

    #[test]
    fn every_order_and_every_allowed_point_comes_up() {
        let seen: BTreeSet<String> = sample(400).iter().map(|regs| format!("{regs:?}")).collect();
        // 4! orders of the registrations, times 2 points for `Anywhere`; at
        // one point, what counts is the relative order.
        let at_points: BTreeSet<String> = sample(400)
            .iter()
            .map(|regs| {
                let mut by_point: Vec<String> = HookPoint::ALL
                    .iter()
                    .map(|p| {
                        regs.iter()
                            .filter(|r| r.point == *p)
                            .map(|r| r.name.clone())
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .collect();
                by_point.retain(|s| !s.is_empty());
                by_point.join(" | ")
            })
            .collect();
        assert!(seen.len() > 20, "{seen:#?}");
        assert_eq!(at_points.len(), 6 + 2, "{at_points:#?}");
    }

    #[test]
    fn names_are_unique_per_hook_object_and_shared_by_one_object() {
        let regs = &sample(1)[0];
        let names: BTreeSet<&str> = regs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, BTreeSet::from(["Anywhere", "a", "a#2"]));
        let a: Vec<&Registration> = regs.iter().filter(|r| r.name == "a").collect();
        assert_eq!(a.len(), 2);
        assert!(Arc::ptr_eq(&a[0].hook, &a[1].hook));
    }

    #[test]
    fn installed_registrations_run_in_their_order() {
        let base = super::support::scenario("model: [{text: hi}]");
        for regs in sample(16) {
            let (scenario, replay) = install(&base, &regs, Replay::new());
            let outcome = replay.run(&scenario);
            assert!(outcome.passed(), "{:?}", outcome.error);
            let ran: Vec<String> = outcome
                .trace
                .iter()
                .map(|e| e.to_value())
                .filter(|e| e["point"] == "before_llm")
                .map(|e| e["hook"].as_str().unwrap_or_default().to_owned())
                .collect();
            let registered: Vec<String> = regs
                .iter()
                .filter(|r| r.point == HookPoint::BeforeLlm)
                .map(|r| r.name.clone())
                .collect();
            assert_eq!(ran, registered);
        }
    }
}

mod support {
    use hookharness::invariants::{Invariant, Invariants, RunProbe, Violation};
    use hookharness::replay::{Outcome, Replay, Status, TraceEvent};
    use hookharness::scenario::{Action, Format, HookEntry, Scenario};
    use hookharness::strategies::scenarios;
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Generated scenarios: some as generated, the others changed by one
    /// of `focuses` towards the situation a property is about.
    pub fn focused(focuses: &[fn(&mut Scenario)]) -> BoxedStrategy<Scenario> {
        let mut arms = vec![scenarios()];
        for &focus in focuses {
            arms.push(
                scenarios()
                    .prop_map(move |mut scenario| {
                        focus(&mut scenario);
                        scenario
                    })
                    .boxed(),
            );
        }
        proptest::strategy::Union::new(arms).boxed()
    }

    /// Makes the first reply call the first tool (when there is one), and
    /// returns the tool's name.
    pub fn call_first_tool(scenario: &mut Scenario) -> Option<String> {
        let tool = scenario.tools.first()?.name.clone();
        let text = format!("model: [{{tool_calls: [{{tool: {tool}}}]}}]\n");
        let template = Scenario::from_str(&text, "reply.yaml", Format::Yaml).unwrap();
        match scenario.model.first_mut() {
            Some(first) => *first = template.model[0].clone(),
            None => return None,
        }
        Some(tool)
    }

    /// `true` when a hook at a point other than on_exit and after_run has a
    /// `continue_run: true` action.
    pub fn sets_continue_run_outside_on_exit(scenario: &Scenario) -> bool {
        let resolve = |entry: &'_ HookEntry| match entry {
            HookEntry::Shared(key) => scenario.shared_hooks.get(key).cloned(),
            other => Some(other.clone()),
        };
        scenario
            .hooks
            .iter()
            .filter(|(point, _)| !matches!(point.as_str(), "on_exit" | "after_run"))
            .flat_map(|(_, entries)| entries.iter().filter_map(resolve))
            .any(|entry| match entry {
                HookEntry::Declarative { actions, .. } => actions
                    .iter()
                    .any(|a| matches!(a, Action::ContinueRun(true))),
                _ => false,
            })
    }

    /// Appends a hook, written as a scenario hook entry, at `point`.
    pub fn add_hook(scenario: &mut Scenario, point: &str, entry: &str) {
        let text = format!("hooks: {{{point}: [{entry}]}}\nmodel: []\n");
        let mut template = Scenario::from_str(&text, "hook.yaml", Format::Yaml).unwrap();
        let entry = template.hooks[point].remove(0);
        scenario
            .hooks
            .entry(point.to_owned())
            .or_default()
            .push(entry);
    }

    /// A scenario from YAML text.
    pub fn scenario(text: &str) -> Scenario {
        Scenario::from_str(text, "case.yaml", Format::Yaml).unwrap()
    }

    /// An outcome with this result (`null`: the run failed) and trace;
    /// missing result keys get empty values.
    pub fn outcome(result: Value, trace: Vec<TraceEvent>) -> Outcome {
        let result = match result {
            Value::Object(mut map) => {
                for key in ["messages", "token_usage", "tool_call_counts", "state"] {
                    let empty = if key == "messages" {
                        json!([])
                    } else {
                        json!({})
                    };
                    map.entry(key).or_insert(empty);
                }
                Some(Value::Object(map))
            }
            _ => None,
        };
        Outcome {
            scenario: "broken".into(),
            file: "broken.yaml".into(),
            status: if result.is_some() {
                Status::Pass
            } else {
                Status::Error
            },
            failures: Vec::new(),
            error: None,
            result,
            trace,
        }
    }

    pub fn hook(point: &str, name: &str, step: i64) -> TraceEvent {
        TraceEvent::Hook {
            point: point.into(),
            hook: name.into(),
            step: json!(step),
        }
    }

    pub fn llm(step: i64) -> TraceEvent {
        TraceEvent::Llm {
            step: json!(step),
            messages_in: 1,
        }
    }

    pub fn tool(step: i64, name: &str, id: &str, error: bool) -> TraceEvent {
        TraceEvent::Tool {
            step: json!(step),
            tool: name.into(),
            id: Some(id.into()),
            error,
        }
    }

    pub fn exit(step: i64, reason: &str, continues: bool) -> TraceEvent {
        TraceEvent::Exit {
            step: json!(step),
            reason: json!(reason),
            continues,
        }
    }

    /// The first violation of `invariant`; fails when there is none.
    #[track_caller]
    pub fn reported(violations: &[Violation], invariant: Invariant) -> Violation {
        match violations.iter().find(|v| v.invariant == invariant) {
            Some(found) => found.clone(),
            None => panic!("{invariant} was not reported; reported: {violations:#?}"),
        }
    }

    /// Runs a scenario with a probe and checks every invariant.
    pub fn run_checked(scenario: &Scenario) -> (Outcome, RunProbe, Vec<Violation>) {
        let mut probe = RunProbe::default();
        let outcome = Replay::new().run_observed(scenario, &mut probe);
        let violations = Invariants::new()
            .scenario(scenario)
            .probe(&probe)
            .check(&outcome);
        (outcome, probe, violations)
    }

    /// The violations of one invariant.
    pub fn only(violations: &[Violation], invariant: Invariant) -> Vec<&Violation> {
        violations
            .iter()
            .filter(|v| v.invariant == invariant)
            .collect()
    }

    /// Counts the generated cases that reach a situation, so that a
    /// property cannot pass by never meeting what it is about.
    pub struct Coverage {
        what: &'static str,
        hits: AtomicUsize,
        cases: AtomicUsize,
    }

    impl Coverage {
        pub fn new(what: &'static str) -> Self {
            Coverage {
                what,
                hits: AtomicUsize::new(0),
                cases: AtomicUsize::new(0),
            }
        }

        pub fn hit_if(&self, hit: bool) {
            self.cases.fetch_add(1, Ordering::Relaxed);
            if hit {
                self.hits.fetch_add(1, Ordering::Relaxed);
            }
        }

        pub fn assert_hit(&self) {
            let (hits, cases) = (
                self.hits.load(Ordering::Relaxed),
                self.cases.load(Ordering::Relaxed),
            );
            eprintln!("coverage: {hits} of {cases} cases had {}", self.what);
            // Runs are seeded by the property's name, so this holds or
            // fails the same way every time (a PROPTEST_CASES below 32 may
            // legitimately miss).
            if cases >= 32 {
                assert!(
                    hits > 0,
                    "no generated case had {} ({cases} cases)",
                    self.what
                );
            }
        }
    }
}
