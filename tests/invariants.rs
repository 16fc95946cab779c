//! Invariants of the loop, as properties over generated scenarios.
//!
//! Each property runs generated scenarios through the real loop and checks
//! one invariant with `hookharness::invariants`. Beside them, in
//! `tests/invariants/`: `broken_outcomes` and `faulty_hooks` feed
//! deliberately broken outcomes and faulty hooks to the checks, so that each
//! property is shown to catch the bug it is about; `counterexamples` (failing
//! properties write scenario files), `permutations` (orders of user hooks),
//! `support` (helpers).
//!
//! Case counts: 64 per property (`PROPTEST_CASES` raises them). Failing
//! seeds go to `proptest-regressions/invariants.txt`; with
//! `HOOKHARNESS_FAILURES_DIR` set, the shrunk counterexample is written
//! there as a scenario file.

#![cfg(feature = "proptest")]

use hookharness::invariants::{Invariant, check_invariants, compare_outcomes};
use hookharness::outcome::{ErrorKind, Outcome, TraceKind};
use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};
use hookharness::scripted::ScriptedResult;
use hookharness::state::keys::is_reserved;
use hookharness::strategies::{Property, Shape, scenarios, scenarios_shaped, state_schemas};
use proptest::prelude::*;
use support::{
    Coverage, add_hook, call_first_tool, focused, only, run_checked,
    sets_continue_run_outside_on_exit,
};

#[path = "invariants/broken_outcomes.rs"]
mod broken_outcomes;

#[path = "invariants/faulty_hooks.rs"]
mod faulty_hooks;

#[path = "invariants/counterexamples.rs"]
mod counterexamples;

#[path = "invariants/permutations.rs"]
mod permutations;

#[path = "invariants/hook_decisions.rs"]
mod hook_decisions;

#[path = "invariants/support.rs"]
mod support;

/// A property of this file; failing seeds go to
/// `proptest-regressions/invariants.txt`.
fn property(name: &'static str) -> Property {
    Property::new(name)
}

/// Asserts that the run of `scenario` keeps `invariant`, and returns its
/// outcome.
fn keeps(invariant: Invariant, scenario: &Scenario) -> Result<Outcome, TestCaseError> {
    let (outcome, violations) = run_checked(scenario);
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
    Ok(outcome)
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
        let outcome = keeps(Invariant::OnExitSkippedAtMaxSteps, &scenario)?;
        let ended_at_max = outcome
            .result
            .as_ref()
            .is_some_and(|r| r.exit_reason == "max_agent_steps");
        covered.hit_if(ended_at_max && outcome.wire_trace().any(|e| e["point"] == "on_exit"));
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
        let outcome = keeps(Invariant::AfterRunOnceUnlessFailed, &scenario)?;
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
        let outcome = keeps(Invariant::RemovedToolCallsDoNotRun, &scenario)?;
        // A before_tool hook left no call pending, and the step's tools were counted.
        let emptied = outcome.trace.iter().position(|e| {
            matches!(&e.kind, TraceKind::HookFinished { tools: Some(tools), .. } if tools.pending.is_empty())
        });
        covered.hit_if(emptied.is_some_and(|i| {
            outcome.trace[i..]
                .iter()
                .any(|e| matches!(e.kind, TraceKind::ToolsFinished { .. }))
        }));
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
            let outcome = keeps(Invariant::ReservedStateKeysRejected, &scenario)?;
            if schema.keys().any(|k| is_reserved(k)) {
                // The file decides the construction error: an invalid
                // file, located at `agent.state_schema`, in Haystack's words.
                let error = outcome.error.clone().expect("an error");
                prop_assert_eq!(error.kind, ErrorKind::Invalid);
                prop_assert!(
                    error
                        .message
                        .contains("are reserved for Agent internal state")
                );
                prop_assert!(outcome.trace.is_empty());
            } else {
                prop_assert!(outcome.result.is_some(), "{:?}", outcome.error);
            }
            Ok(())
        },
    );
}

/// The reserved-key check comes before hook validation (Haystack's
/// construction order), so a schema with a reserved key is rejected for it
/// even when a hook's `allowed_hook_points` names something that is not a
/// hook point (Haystack compares registered points with that list and
/// never validates the names in it).
#[test]
fn a_reserved_key_is_rejected_before_an_unknown_name_in_allowed_hook_points_is_looked_at() {
    let scenario = Scenario::from_str(
        "agent: {state_schema: {step_count: {type: int}}}\n\
         hooks: {on_exit: [{name: h, allowed_hook_points: [on_exit, bogus]}]}\n\
         model: [{text: hi}]",
        "reserved_first.yaml",
        Format::Yaml,
    )
    .unwrap();
    let (outcome, violations) = run_checked(&scenario);
    assert!(
        only(&violations, Invariant::ReservedStateKeysRejected).is_empty(),
        "{:?}",
        outcome.error
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
        let outcome = keeps(Invariant::HooksRunInRegistrationOrder, &scenario)?;
        let before_llm = scenario.hooks.get("before_llm").map_or(0, Vec::len);
        let llm_calls = outcome.wire_trace().filter(|e| e["event"] == "llm").count();
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
        let outcome = keeps(Invariant::StepCountIsLlmCalls, &scenario)?;
        let first_llm = outcome.wire_trace().find(|e| e["event"] == "llm");
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
        let outcome = keeps(Invariant::ExitReasonIsKnown, &scenario)?;
        let reason = outcome.result.as_ref().map(|r| r.exit_reason.clone());
        let reason = reason.as_ref().and_then(|r| r.as_str()).unwrap_or_default();
        let exits: Vec<serde_json::Value> = outcome
            .wire_trace()
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
        let outcome = keeps(Invariant::ContinueRunIsConsumed, &scenario)?;
        if outcome.result.is_some() && !sets_continue_run_outside_on_exit(&scenario) {
            let at_finish = outcome.trace.iter().find_map(|e| match &e.kind {
                TraceKind::RunFinished { continue_run, .. } => Some(continue_run.clone()),
                _ => None,
            });
            prop_assert_eq!(at_finish, Some(serde_json::Value::Bool(false)));
        }
        continued.hit_if(outcome.wire_trace().any(|e| e["continue"] == true));
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
        let outcome = keeps(Invariant::TokenUsageIsScriptedSum, &scenario)?;
        let usage = outcome.result.as_ref().map(|r| r.token_usage.clone());
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
        let (outcome, violations) = run_checked(&scenario);
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
