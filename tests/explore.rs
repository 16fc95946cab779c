//! `hookharness explore`: every hook order, confirmation answer and fault
//! of a scenario, checked against the invariants and `expect.always`; the
//! broken variants written as scenario files that `run` and `explain`
//! replay; exit codes and errors.

mod common;

/// The example's hook, which re-queues failed calls, rejected ones included.
#[path = "../examples/explore_confirmation.rs"]
#[allow(dead_code)]
mod example;

use common::{hookharness, scratch, stderr, stdout};
use hookharness::explore::Explore;
use hookharness::invariants::Invariant;
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use std::process::Command;

const ORDER_MATTERS: &str = "examples/explore/order_matters.yaml";
const HOOKS_COMMUTE: &str = "scenarios/explore/hooks_commute.yaml";

#[test]
fn a_scenario_whose_hook_order_matters_breaks_in_the_other_order_and_exits_1() {
    let output = hookharness(&["explore", ORDER_MATTERS]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "examples/explore/order_matters.yaml: 2 variants (every one of 2 orders and answers), 1 broken\n\
         \x20 variant 2: on_exit: [require_search, accept]\n\
         \x20   tool_call_counts: expected {\"search\": 1}, got {\"search\": 0}\n\
         \x20   last_message.text: expected \"Net energy gain was reported.\", got \"Search before answering.\"\n\
         explored 2 variants: 1 broken\n"
    );
}

#[test]
fn variants_that_leave_the_script_are_counted_apart_and_do_not_fail_the_corpus() {
    let output = hookharness(&["explore", "scenarios/"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let out = stdout(&output);
    assert!(
        out.contains(
            "scenarios/on_exit/continue_false_explicit.yaml: 2 variants (every one of 2 orders and \
             answers), 0 broken, 1 leaves the script\n\
             \x20 variant 2: on_exit: [no_hook, yes_hook]\n\
             \x20   leaves the script: add a reply to explore it (the chat generator failed at LLM call 1"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "    leaves the script: add a result to explore it (tool `rm` stopped the run"
        ),
        "{out}"
    );
    assert!(
        out.contains("    leaves the script: add an answer to explore it (hook `confirm` failed"),
        "{out}"
    );
    let last = out.lines().last().unwrap();
    assert!(
        last.contains(": 0 broken, ")
            && last.ends_with(
                " leave the script (add a reply, a result or an answer to explore them)"
            ),
        "{last}"
    );
    let json = hookharness(&[
        "explore",
        "scenarios/on_exit/continue_false_explicit.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(json.status.code(), Some(0));
    let document: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(document["broken"], 0);
    assert_eq!(document["leaves_script"], 1);
    assert_eq!(document["files"][0]["leaves_script"][0]["add"], "a reply");
}

#[test]
fn the_broken_variant_is_written_and_run_and_explain_replay_it_as_failing() {
    let dir = scratch("explore", "written");
    let out = dir.to_str().unwrap();
    let output = hookharness(&["explore", ORDER_MATTERS, "--out", out]);
    assert_eq!(output.status.code(), Some(1));
    let written = dir.join("order_matters.variant-2.yaml");
    assert!(
        stdout(&output).contains(&format!("    written: {}\n", written.display())),
        "{}",
        stdout(&output)
    );
    let variant = Scenario::from_path(&written).unwrap();
    assert_eq!(variant.name, "explore-order-matters (variant 2)");
    assert_eq!(variant.expect.keys(), ["tool_call_counts", "last_message"]);
    assert!(variant.expect.always.is_none());
    // Shrunk: the two hooks in the breaking order, the one reply the run uses.
    let hooks: Vec<String> = variant.hooks["on_exit"]
        .iter()
        .map(|e| match e {
            hookharness::scenario::HookEntry::Declarative { name, .. } => name.clone().unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(hooks, ["require_search", "accept"]);
    assert_eq!(variant.model.len(), 1);
    assert!(
        variant
            .description
            .as_deref()
            .unwrap()
            .ends_with("(shrunk: 0 hooks and 2 trailing model replies it does not need left out)")
    );

    let run = hookharness(&["run", written.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1), "{}", stdout(&run));
    assert!(
        stdout(&run).contains("tool_call_counts: expected {\"search\": 1}, got {\"search\": 0}")
    );
    let explain = hookharness(&["explain", written.to_str().unwrap()]);
    assert_eq!(explain.status.code(), Some(1));
    assert!(
        stdout(&explain).contains("[step 1] on_exit: hook `accept` ran"),
        "{}",
        stdout(&explain)
    );
}

#[test]
fn hooks_that_commute_are_clean_over_every_order_placement_and_fault() {
    let output = hookharness(&["explore", "--faults", HOOKS_COMMUTE]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        "scenarios/explore/hooks_commute.yaml: 10 variants (every one of 3 orders and answers; 7 faults), 0 broken\n\
         explored 10 variants: 0 broken\n"
    );
}

#[test]
fn every_confirmation_decision_of_the_corpus_keeps_the_invariants() {
    let replay = Replay::new();
    let mut explored = 0;
    for file in std::fs::read_dir("scenarios/ready_made").unwrap() {
        let path = file.unwrap().path();
        if !path.to_string_lossy().contains("confirmation") {
            continue;
        }
        let scenario = Scenario::from_path(&path).unwrap();
        let exploration = Explore::new().orders(false).run(&replay, &scenario);
        explored += exploration.variants.len();
        for checked in &exploration.variants {
            assert!(
                checked.violations.is_empty(),
                "{} variant {}: {:#?}",
                path.display(),
                checked.variant.number,
                checked.violations
            );
        }
    }
    // confirm_modify_reject alone has 3 questions: 27 answer sets.
    assert!(explored >= 27 + 9, "{explored}");
}

#[test]
fn exploring_the_answers_catches_a_hook_that_runs_rejected_calls() {
    let mut scenario = Scenario::from_path(std::path::Path::new(
        "scenarios/ready_made/confirmation_confirm_modify_reject.yaml",
    ))
    .unwrap();
    let custom = Scenario::from_str(
        "hooks: {before_tool: [{custom: requeue}]}\nmodel: []",
        "custom.yaml",
        hookharness::scenario::Format::Yaml,
    )
    .unwrap();
    scenario.hooks["before_tool"].push(custom.hooks["before_tool"][0].clone());
    let replay = Replay::new().custom_hook("requeue", example::RetryFailedCalls);
    let exploration = Explore::new().orders(false).run(&replay, &scenario);
    assert_eq!(exploration.variants.len(), 27);
    let caught: Vec<usize> = exploration
        .variants
        .iter()
        .filter(|c| {
            c.violations
                .iter()
                .any(|v| v.invariant == Invariant::RejectedCallsNeverRun)
        })
        .map(|c| c.variant.number)
        .collect();
    // Every answer set with a rejection: 27 minus the 8 without one.
    assert_eq!(caught.len(), 19, "{caught:?}");
}

/// Six hooks at one point: 720 orders.
const SIX_HOOKS: &str = "\
name: six
hooks:
  before_llm: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}]
model: [{text: done}]
";

#[test]
fn beyond_max_variants_the_orders_are_sampled_with_a_printed_seed_that_repeats_them() {
    let dir = scratch("explore", "sampled");
    let file = dir.join("six.yaml");
    std::fs::write(&file, SIX_HOOKS).unwrap();
    let file = file.to_str().unwrap();
    let first = hookharness(&["explore", file, "--max-variants", "5"]);
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    let text = stdout(&first);
    let seed = text
        .split("sampled with seed ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("no seed in {text}"));
    assert!(
        text.contains(&format!(
            ": 5 variants (5 of 720 orders and answers, sampled with seed {seed}: --seed {seed} repeats them), 0 broken"
        )),
        "{text}"
    );
    let again = hookharness(&["explore", file, "--max-variants", "5", "--seed", seed]);
    assert_eq!(stdout(&again), text);
    let other = hookharness(&["explore", file, "--max-variants", "5", "--seed", "1"]);
    assert!(stdout(&other).contains("sampled with seed 1:"));
}

/// 75 hooks that may each take all six points: the count of their layouts
/// is past what 128 bits hold, found without listing counts per point (it
/// took more than the minute a file has before).
#[test]
fn hooks_that_may_take_every_point_are_sampled_without_counting_each_layout() {
    let dir = scratch("explore", "every_point");
    let file = dir.join("every_point.yaml");
    let hook = "    - {name: judge, allowed_hook_points: [before_run, before_llm, before_tool, after_tool, on_exit, after_run]}\n";
    std::fs::write(
        &file,
        format!(
            "name: every_point\nhooks:\n  on_exit:\n{}model: [{{text: done}}]\n",
            hook.repeat(75)
        ),
    )
    .unwrap();
    let output = hookharness(&["explore", file.to_str().unwrap(), "--max-variants", "3"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    assert!(
        text.contains(": 3 variants (3 of more than 10^38 orders and answers, sampled with seed "),
        "{text}"
    );
}

/// A broken variant of a thousand hooks, each of which its failure lines
/// name (the `hooks` expectation lists every run): no removal keeps the
/// failure the same, and shrinking stops after a bounded number of runs,
/// saying so in the written file (it ran a thousand runs of a thousand
/// hooks before).
#[test]
fn shrinking_a_variant_of_many_hooks_stops_after_a_bounded_search() {
    let dir = scratch("explore", "shrink_bounded");
    let file = dir.join("many.yaml");
    let seed = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/docs_examples/require_search.yaml"),
    )
    .unwrap();
    // A reply whose `sees` no longer holds breaks the faulted variants.
    let text = seed
        .replacen(
            "  on_exit:\n",
            &format!(
                "  on_exit:\n{}",
                "    - name: require_search\n".repeat(1000)
            ),
            1,
        )
        .replace("milestones this year.\"}", "milestones this yeav.\"}");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("variants");
    let _ = std::fs::remove_dir_all(&out);
    let output = hookharness(&[
        "explore",
        file.to_str().unwrap(),
        "--faults",
        "--max-variants",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    let written: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().collect();
    assert!(!written.is_empty(), "{}", stdout(&output));
    for entry in written {
        let variant = std::fs::read_to_string(entry.path()).unwrap();
        assert!(
            variant.contains("(shrinking stopped after "),
            "{variant:.2000}"
        );
    }
}

#[test]
fn the_report_is_the_same_bytes_every_time() {
    let args = [
        "explore",
        "--faults",
        "scenarios/explore",
        "scenarios/ready_made",
    ];
    let (first, second) = (hookharness(&args), hookharness(&args));
    assert_eq!(stdout(&first), stdout(&second));
    assert!(!stdout(&first).is_empty());
}

#[test]
fn bad_flags_exit_4_with_a_message() {
    let zero = hookharness(&["explore", ORDER_MATTERS, "--max-variants", "0"]);
    assert_eq!(zero.status.code(), Some(4));
    assert!(
        stderr(&zero).contains("--max-variants"),
        "{}",
        stderr(&zero)
    );
    let unknown = hookharness(&["explore", ORDER_MATTERS, "--fault"]);
    assert_eq!(unknown.status.code(), Some(4));
    assert!(
        stderr(&unknown).contains("--faults"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn an_invalid_file_exits_2_with_its_place_and_no_scenario_exits_3() {
    let dir = scratch("explore", "invalid");
    let file = dir.join("bad.yaml");
    std::fs::write(
        &file,
        "model: [{text: hi}]\nexpect:\n  always:\n    exit_reason: text\n    under_faults: [exit_reson]\n",
    )
    .unwrap();
    let output = hookharness(&["explore", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stdout(&output),
        format!(
            "{}:5:20: invalid value `exit_reson` for `expect.always.under_faults[0]`; did you mean `exit_reason`? (valid: `exit_reason`)\n\
             explored 0 variants: 0 broken\n",
            file.display()
        )
    );
    let empty = scratch("explore", "empty");
    let none = hookharness(&["explore", empty.to_str().unwrap()]);
    assert_eq!(none.status.code(), Some(3));
}

#[test]
fn an_error_expectation_is_not_allowed_in_always() {
    let error = Scenario::from_str(
        "model: []\nexpect:\n  always: {error: boom}\n",
        "always.yaml",
        hookharness::scenario::Format::Yaml,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("always.yaml:3:12: unknown key `error` in `expect.always`"),
        "{error}"
    );
}

#[test]
fn the_progress_bar_goes_to_stderr_when_asked_and_never_to_stdout() {
    let output = Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(["explore", HOOKS_COMMUTE])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOOKHARNESS_PROGRESS", "always")
        .output()
        .unwrap();
    assert!(
        stderr(&output).contains("variants [####################] 3/3"),
        "{}",
        stderr(&output)
    );
    assert!(!stdout(&output).contains("variants ["));
}

#[test]
fn orders_and_answers_can_be_explored_alone() {
    let file = "scenarios/ready_made/confirmation_confirm_modify_reject.yaml";
    let orders = hookharness(&["explore", "--orders", file]);
    assert!(
        stdout(&orders).starts_with(&format!(
            "{file}: 1 variants (every one of 1 orders and answers), 0 broken\n"
        )),
        "{}",
        stdout(&orders)
    );
    let answers = hookharness(&["explore", "--answers", file]);
    assert!(
        stdout(&answers).starts_with(&format!(
            "{file}: 27 variants (every one of 27 orders and answers), "
        )),
        "{}",
        stdout(&answers)
    );
}

#[test]
fn json_gives_ci_one_document_with_every_broken_variant() {
    let dir = scratch("explore", "json");
    let output = hookharness(&[
        "explore",
        HOOKS_COMMUTE,
        ORDER_MATTERS,
        "--format",
        "json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let document: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(document["variants"], 5);
    assert_eq!(document["broken"], 1);
    assert_eq!(document["leaves_script"], 0);
    let broken = &document["files"][1]["broken"][0];
    assert_eq!(document["files"][1]["file"], ORDER_MATTERS);
    assert_eq!(broken["variant"], 2);
    assert_eq!(
        broken["changes"],
        serde_json::json!(["on_exit: [require_search, accept]"])
    );
    assert_eq!(
        broken["written"],
        dir.join("order_matters.variant-2.yaml")
            .display()
            .to_string()
    );
    assert_eq!(document["files"][0]["broken"], serde_json::json!([]));
}

#[test]
fn a_scenario_with_a_custom_hook_is_not_explored_and_says_how_to_from_rust() {
    let dir = scratch("explore", "custom");
    let file = dir.join("custom.yaml");
    std::fs::write(
        &file,
        "hooks: {before_llm: [{custom: redact}]}\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let output = hookharness(&["explore", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        format!(
            "{}: not explored: it uses `custom: redact`, a hook your test registers; \
             explore it with `hookharness::explore::Explore` and a `Replay` that registers it\n\
             explored 0 variants: 0 broken\n",
            file.display()
        )
    );
}

#[test]
fn an_out_folder_that_cannot_be_made_exits_5_as_an_output_that_cannot_be_written() {
    let dir = scratch("explore", "out-file");
    let taken = dir.join("taken");
    std::fs::write(&taken, "a file, not a folder").unwrap();
    let output = hookharness(&["explore", ORDER_MATTERS, "--out", taken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(5));
    assert!(
        stderr(&output).starts_with(&format!(
            "{}: cannot create the --out folder: ",
            taken.display()
        )),
        "{}",
        stderr(&output)
    );
}

#[test]
fn under_faults_holds_only_the_listed_keys_and_a_failed_run_only_its_trace_keys() {
    let text = |under: &str| {
        format!(
            "tools: [{{name: search, results: [found]}}]\n\
             model: [{{tool_calls: [{{tool: search}}]}}, {{text: done}}]\n\
             expect:\n  always:\n    tools_run: [search]\n    exit_reason: text\n{under}"
        )
    };
    let faults = |text: &str| {
        let scenario =
            Scenario::from_str(text, "faults.yaml", hookharness::scenario::Format::Yaml).unwrap();
        let exploration = Explore::new().faults(true).run(&Replay::new(), &scenario);
        let broken: Vec<(Vec<String>, Vec<String>)> = exploration
            .broken()
            .map(|c| (c.variant.changes.clone(), c.reasons.clone()))
            .collect();
        broken
    };
    // Without `under_faults`, a fault is held to the invariants only.
    assert_eq!(faults(&text("")), []);
    // With it, the first model call failing leaves no search to have run;
    // `exit_reason` needs a result, which a failed run does not have.
    assert_eq!(
        faults(&text("    under_faults: all\n")),
        [(
            vec!["fault: model call 1 errors".to_owned()],
            vec!["tools_run: expected [\"search\"], got []".to_owned()]
        )]
    );
}

/// The safety check docs/explore.md recommends, on the guard of
/// `hooks_commute.yaml`: `tools_run: {excludes: [...]}` holds in every
/// order and under faults, and breaks once the guard is gone; the whole-map
/// `tool_call_counts: {delete_file: 0}` it replaces breaks as soon as
/// another tool runs.
#[test]
fn excludes_is_the_safety_check_that_holds_whatever_else_runs() {
    let dir = scratch("explore", "excludes");
    let base = std::fs::read_to_string(HOOKS_COMMUTE).unwrap();
    let as_written = &base[..base.find("  always:").unwrap()];
    let write = |name: &str, text: String| {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        file.to_str().unwrap().to_owned()
    };
    let excludes =
        "  always:\n    tools_run: {excludes: [delete_file]}\n    under_faults: [tools_run]\n";
    let guarded = write("guarded.yaml", format!("{as_written}{excludes}"));
    let output = hookharness(&["explore", "--faults", &guarded]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    let unguarded = as_written.replace(
        "    - {name: guard, do: [{drop_tool_calls: [delete_file]}]}\n",
        "",
    );
    let unguarded = write("unguarded.yaml", format!("{unguarded}{excludes}"));
    let output = hookharness(&["explore", &unguarded]);
    assert!(
        stdout(&output).contains(
            "tools_run.excludes: found excluded [\"delete_file\"]; got [\"delete_file\", \"search\"]"
        ),
        "{}",
        stdout(&output)
    );

    let whole_map = "  always:\n    tool_call_counts: {delete_file: 0}\n";
    let whole_map = write("whole_map.yaml", format!("{as_written}{whole_map}"));
    let output = hookharness(&["explore", &whole_map]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains(
            "tool_call_counts: expected {\"delete_file\": 0}, got {\"delete_file\": 0, \"search\": 1}"
        ),
        "{}",
        stdout(&output)
    );
}

/// A reply whose `sees` does not hold on a variant (other answers send
/// the model other tool results) was written for the scenario as written:
/// the variant leaves the script, it is not broken, and the report does not
/// advise a rebase (the scenario as written still holds).
#[test]
fn a_variant_whose_conversation_a_reply_was_not_written_for_leaves_the_script() {
    let file = "scenarios/ready_made/confirmation_confirm_modify_reject.yaml";
    let output = hookharness(&["explore", file]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let out = stdout(&output);
    assert!(
        out.starts_with(&format!(
            "{file}: 27 variants (every one of 27 orders and answers), 0 broken, 23 leave the \
             script\n  variant 3: confirm[*] answers: [reject, modify, reject]\n    leaves the \
             script: add a reply for this conversation to explore it (model[1].sees ({file}:30:5): \
             LLM call 1 was sent another request: tool_results: expected"
        )),
        "{out}"
    );
    assert!(!out.contains("rebase"), "{out}");
    let json = hookharness(&["explore", file, "--format", "json"]);
    let document: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(document["broken"], 0);
    assert_eq!(document["leaves_script"], 23);
    assert_eq!(
        document["files"][0]["leaves_script"][0]["add"],
        "a reply for this conversation"
    );
}
