//! The `hookharness` command line, as a user runs it.

mod common;

use common::{hookharness, stderr, stdout};
use std::path::Path;

#[test]
fn run_exits_0_and_reports_every_corpus_scenario_as_passed() {
    let output = hookharness(&["run", "scenarios/docs_examples"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.lines().filter(|l| l.starts_with("PASS ")).count() >= 9);
    assert!(
        text.trim_end().ends_with("passed, 0 failed, 0 errors"),
        "{text}"
    );
}

#[test]
fn a_failed_expectation_exits_1_and_shows_expected_against_actual_with_a_diff() {
    let output = hookharness(&["run", "tests/cli_inputs/failing.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn a_run_error_is_shown_after_the_events_that_led_to_it_in_the_human_and_junit_reports() {
    let file = "tests/cli_inputs/hook_fails.yaml";
    let human = hookharness(&["run", file]);
    assert_eq!(human.status.code(), Some(1));
    insta::assert_snapshot!("hook_fails_human", stdout(&human));
    let junit = hookharness(&["run", "--format", "junit", file]);
    assert_eq!(junit.status.code(), Some(1));
    insta::assert_snapshot!("hook_fails_junit", stdout(&junit));
}

#[test]
fn an_invalid_scenario_exits_2_and_names_the_file_line_and_key() {
    let output = hookharness(&["run", "tests/cli_inputs/invalid.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).contains(
        "tests/cli_inputs/invalid.yaml:1:9: unknown key `exit_condition` in `agent`; did you mean `exit_conditions`?"
    ));
}

#[test]
fn a_folder_without_scenarios_exits_3() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-scenarios");
    std::fs::create_dir_all(&empty).unwrap();
    let output = hookharness(&["run", empty.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(3));
}

#[test]
fn a_filter_that_matches_nothing_exits_3() {
    let output = hookharness(&[
        "run",
        "scenarios/docs_examples",
        "--filter",
        "no-such-scenario",
    ]);
    assert_eq!(output.status.code(), Some(3));
}

#[test]
fn check_validates_without_running_and_exits_2_on_an_invalid_file() {
    let output = hookharness(&[
        "check",
        "scenarios/docs_examples",
        "tests/cli_inputs/invalid.yaml",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = stdout(&output);
    assert!(text.contains("unknown key `exit_condition`"), "{text}");
    assert!(text.trim_end().ends_with("9 valid, 1 invalid"), "{text}");
}

#[test]
fn check_says_which_valid_files_only_the_haystack_engine_runs_and_run_says_how_to_run_them() {
    let file = "examples/haystack/scenarios/audit_tool_calls_printed.yaml";
    let output = hookharness(&["check", file]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.contains(&format!("`hookharness run {file} --engine haystack`")),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("1 valid (1 only with --engine haystack), 0 invalid"),
        "{text}"
    );
    // The Rust engine refuses it with the one line that names the engine.
    let output = hookharness(&["run", file]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains(
            "which only the Haystack engine runs: run this scenario with `--engine haystack`"
        ),
        "{text}"
    );
}

#[test]
fn json_output_is_one_sorted_outcome_per_line_and_identical_across_runs() {
    let first = hookharness(&["run", "scenarios/docs_examples", "--format", "json"]);
    let second = hookharness(&["run", "scenarios/docs_examples", "--format", "json"]);
    assert_eq!(first.stdout, second.stdout);
    let text = stdout(&first);
    for line in text.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(value["status"], "pass");
    }
}

#[test]
fn junit_output_is_well_formed_xml_with_one_testcase_per_scenario() {
    let output = hookharness(&[
        "run",
        "scenarios/docs_examples/build_context.yaml",
        "tests/cli_inputs/failing.yaml",
        "--format",
        "junit",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let xml = stdout(&output);
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut testcases = 0;
    let mut failures = 0;
    let mut suites = 0;
    loop {
        match reader.read_event().expect("well-formed XML") {
            quick_xml::events::Event::Eof => break,
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                match e.name().as_ref() {
                    b"testcase" => testcases += 1,
                    b"failure" => failures += 1,
                    b"testsuite" => {
                        suites += 1;
                        let tests = e.try_get_attribute("tests").unwrap().unwrap();
                        assert_eq!(&*tests.value, b"2");
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    assert_eq!((suites, testcases, failures), (1, 2, 1));
    assert!(
        xml.contains("exit_reason: expected &quot;max_agent_steps&quot;, got &quot;text&quot;")
    );
}

#[test]
fn explain_prints_the_timeline_of_a_run() {
    let output = hookharness(&["explain", "scenarios/docs_examples/require_search.yaml"]);
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn explain_shows_every_message_a_ready_made_hook_adds_removes_or_changes_in_text_and_html() {
    let file = "scenarios/ready_made/confirmation_confirm_modify_reject.yaml";
    let text = stdout(&hookharness(&["explain", file]));
    for line in [
        "    messages rewritten: 2 -> 5\n",
        "    ~ message 1 assistant: \"Let me look.\", call delete_file({\"path\":\"/tmp/x\"}) (was assistant:",
        "    + message 2 tool: result of delete_file (error): \"Tool execution for 'delete_file' was rejected",
        "    + message 3 user: \"The parameters for tool 'fetch' were updated by the user to:",
        "    + message 4 assistant: \"Let me look.\", call search({\"query\":\"fusion\"}), call fetch(",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    let html = stdout(&hookharness(&["explain", file, "--format", "html"]));
    assert!(
        html.contains("+ message 2 tool: result of delete_file (error): &quot;Tool execution for"),
        "{html}"
    );
    let offload = stdout(&hookharness(&[
        "explain",
        "scenarios/ready_made/offload_over_chars.yaml",
    ]));
    assert!(
        offload.contains(
            "    ~ message 2 tool: result of search: \"Tool result offloaded to text (62 characters) at"
        ),
        "{offload}"
    );
}

#[test]
fn a_ready_made_hook_with_a_mistyped_parameter_is_an_invalid_file_for_run_and_check() {
    let run = hookharness(&["run", "tests/cli_inputs/bad_ready_made.yaml"]);
    assert_eq!(run.status.code(), Some(2));
    let check = hookharness(&["check", "tests/cli_inputs/bad_ready_made.yaml"]);
    assert_eq!(check.status.code(), Some(2));
    assert!(
        stdout(&check).contains("`token_budget.add_final_message`"),
        "{}",
        stdout(&check)
    );
}

#[test]
fn check_accepts_a_custom_hook_the_cli_cannot_register() {
    let output = hookharness(&["check", "examples/scenarios/require_citation.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn explain_of_a_saved_full_outcome_prints_what_explain_of_the_scenario_prints() {
    let output = hookharness(&["run", "--format", "json", "--trace", "full", "scenarios"]);
    assert_eq!(output.status.code(), Some(0));
    let lines = stdout(&output);
    let dir = std::env::temp_dir().join(format!("hookharness-saved-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let saved = dir.join("outcome.jsonl");
    let mut compared = 0;
    for line in lines.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = value["file"].as_str().unwrap().to_owned();
        std::fs::write(&saved, format!("{line}\n")).unwrap();
        let from_run = hookharness(&["explain", &file]);
        let from_saved = hookharness(&["explain", "--outcome", saved.to_str().unwrap()]);
        assert_eq!(stdout(&from_saved), stdout(&from_run), "{file}");
        assert_eq!(from_saved.status.code(), from_run.status.code(), "{file}");
        compared += 1;
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let corpus = walk(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .as_path(),
    );
    assert_eq!(compared, corpus, "one saved outcome per corpus scenario");
}

/// Scenario files under a folder, recursively.
fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .map(|path| {
            if path.is_dir() {
                walk(&path)
            } else {
                usize::from(matches!(
                    path.extension().and_then(|e| e.to_str()),
                    Some("yaml" | "yml" | "json")
                ))
            }
        })
        .sum()
}

#[test]
fn color_always_paints_the_status_and_the_diff_and_never_a_machine_format() {
    let file = "tests/failing_scenarios/sees_conversation.yaml";
    let painted = stdout(&hookharness(&["run", file, "--color", "always"]));
    assert!(
        painted
            .starts_with("\x1b[1;31mFAIL\x1b[0m  tests/failing_scenarios/sees_conversation.yaml"),
        "{painted}"
    );
    assert!(painted.contains("\x1b[31m        - "), "{painted}");
    assert!(painted.contains("\x1b[32m        + "), "{painted}");
    let plain = stdout(&hookharness(&["run", file]));
    assert!(!plain.contains('\x1b'), "{plain}");
    assert_eq!(
        painted
            .replace("\x1b[1;31m", "")
            .replace("\x1b[31m", "")
            .replace("\x1b[32m", "")
            .replace("\x1b[0m", ""),
        plain
    );
    for format in ["json", "junit"] {
        let machine = stdout(&hookharness(&[
            "run", file, "--color", "always", "--format", format,
        ]));
        assert!(!machine.contains('\x1b'), "{format}: {machine}");
    }
    let never = stdout(&hookharness(&["run", file, "--color", "never"]));
    assert_eq!(never, plain);
}

#[test]
fn explain_of_a_json_lines_file_suggests_outcome() {
    let output = hookharness(&["explain", "all.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "all.jsonl: a JSON Lines file, not a scenario; if it holds saved outcomes (`hookharness run \
         --format json --trace full`), `hookharness explain --outcome all.jsonl` explains each\n"
    );
}

#[test]
fn explain_of_a_file_that_holds_no_saved_outcome_says_how_to_write_one() {
    let output = hookharness(&[
        "explain",
        "--outcome",
        "scenarios/docs_examples/require_search.yaml",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(
        text.starts_with(
            "scenarios/docs_examples/require_search.yaml:1:2: line 1 is not a saved outcome (expected ident)"
        ),
        "{text}"
    );
    assert!(
        text.contains("`hookharness run --format json --trace full SCENARIO`"),
        "{text}"
    );
}

#[test]
fn json_with_the_full_trace_keeps_the_failures_values_and_the_typed_error() {
    let output = hookharness(&[
        "run",
        "--format",
        "json",
        "--trace",
        "full",
        "tests/cli_inputs",
    ]);
    let outcomes: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let failed = outcomes
        .iter()
        .find(|o| o["status"] == "fail")
        .expect("tests/cli_inputs holds a failing scenario");
    let failure = &failed["failures"][0];
    assert!(failure["message"].is_string(), "{failure}");
    assert!(
        failure.get("expected").is_some() && failure.get("actual").is_some(),
        "{failure}"
    );
    let invalid = outcomes
        .iter()
        .find(|o| o["status"] == "invalid")
        .expect("tests/cli_inputs holds an invalid file");
    assert_eq!(invalid["error"]["kind"], "invalid");
    assert!(invalid["error"]["message"].is_string());
}

#[test]
fn explain_html_of_a_saved_failing_outcome_is_the_page_of_the_scenario() {
    let failing = "tests/cli_inputs/failing.yaml";
    let output = hookharness(&["run", "--format", "json", "--trace", "full", failing]);
    assert_eq!(output.status.code(), Some(1));
    let dir = common::scratch("cli", "saved_html");
    let saved = dir.join("outcome.jsonl");
    std::fs::write(&saved, &output.stdout).unwrap();

    let from_saved = hookharness(&[
        "explain",
        "--outcome",
        saved.to_str().unwrap(),
        "--format",
        "html",
    ]);
    let from_file = hookharness(&["explain", failing, "--format", "html"]);
    assert_eq!(from_saved.status.code(), Some(1), "the run failed");
    assert_eq!(from_file.status.code(), Some(1));
    let page = stdout(&from_saved);
    assert_eq!(page, stdout(&from_file));
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.trim_end().ends_with("</html>"), "{page}");
}

#[test]
fn a_saved_outcome_with_a_byte_order_mark_explains_as_without_one() {
    let failing = "tests/cli_inputs/failing.yaml";
    let output = hookharness(&["run", "--format", "json", "--trace", "full", failing]);
    let dir = common::scratch("cli", "saved_bom");
    let plain = dir.join("plain.jsonl");
    let marked = dir.join("marked.jsonl");
    std::fs::write(&plain, &output.stdout).unwrap();
    let mut with_bom = "\u{feff}".as_bytes().to_vec();
    with_bom.extend_from_slice(&output.stdout);
    std::fs::write(&marked, with_bom).unwrap();
    let from_plain = hookharness(&["explain", "--outcome", plain.to_str().unwrap()]);
    let from_marked = hookharness(&["explain", "--outcome", marked.to_str().unwrap()]);
    assert_eq!(
        from_marked.status.code(),
        Some(1),
        "{}",
        stderr(&from_marked)
    );
    assert_eq!(stdout(&from_marked), stdout(&from_plain));
}

#[test]
fn a_saved_outcome_line_that_is_not_one_is_located_at_its_line_and_column() {
    let dir = common::scratch("cli", "saved_broken");
    let saved = dir.join("outcomes.jsonl");
    let failing = "tests/cli_inputs/failing.yaml";
    let output = hookharness(&["run", "--format", "json", "--trace", "full", failing]);
    let mut text = output.stdout.clone();
    text.extend_from_slice(b"{\"scenario\": 3}\n");
    std::fs::write(&saved, text).unwrap();
    let explained = hookharness(&["explain", "--outcome", saved.to_str().unwrap()]);
    assert_eq!(explained.status.code(), Some(2));
    let message = stderr(&explained);
    let expected = format!(
        "{}:2:14: line 2 is not a saved outcome (invalid type: integer `3`, expected a string)",
        saved.display()
    );
    assert!(message.starts_with(&expected), "{message}");
}

#[test]
fn a_scripted_confirmation_answer_outside_confirm_modify_reject_is_an_invalid_file() {
    let file = "tests/cli_inputs/confirmation_typo.yaml";
    let expected = format!(
        "{file}:22:32: invalid value `deny` for `confirmation.confirmation_strategies.*.init_parameters\
         .confirmation_ui.init_parameters.answers[2].action`; use one of `confirm`, `modify`, `reject`"
    );
    let check = hookharness(&["check", file]);
    assert_eq!(check.status.code(), Some(2), "{}", stdout(&check));
    assert!(stdout(&check).starts_with(&expected), "{}", stdout(&check));
    // `run` runs nothing: the call the answer meant to reject is not run.
    let run = hookharness(&["run", file]);
    assert_eq!(run.status.code(), Some(2), "{}", stdout(&run));
    assert!(stdout(&run).contains(&expected), "{}", stdout(&run));
    assert!(!stdout(&run).contains("delete_file"), "{}", stdout(&run));
}

#[test]
fn every_command_reports_a_construction_error_the_file_decides_as_check_does_and_exits_2() {
    let file = "tests/cli_inputs/hook_point_typo.yaml";
    let expected = format!(
        "{file}:6:3: the Agent cannot be built: Invalid hook point 'before_tools'. Valid hook \
         points are: before_run, before_llm, before_tool, after_tool, on_exit, after_run. — did you \
         mean `before_tool`? (or expect the error with `expect.error` to test it)\n"
    );
    let check = hookharness(&["check", file]);
    assert_eq!(check.status.code(), Some(2));
    assert_eq!(stdout(&check), format!("{expected}0 valid, 1 invalid\n"));
    for command in ["explain", "rebase"] {
        let output = hookharness(&[command, file]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert_eq!(stdout(&output), "", "{command}");
        assert_eq!(stderr(&output), expected, "{command}");
    }
    for command in ["mutate", "explore"] {
        let output = hookharness(&[command, file]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert!(
            stdout(&output).starts_with(&expected),
            "{command}: {}",
            stdout(&output)
        );
    }
    // `run` reports the file as invalid with the verdicts of a failed run
    // (`tools_run` checked against the empty trace), and still runs the
    // other scenarios.
    let run = hookharness(&["run", file, "scenarios/docs_examples/require_search.yaml"]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stdout(&run),
        format!(
            "ERROR {file}  (hook-point-typo)\n      {expected}\
             \x20     tools_run: expected [\"search\"], got []\n\
             \x20       --- expected / +++ actual\n\
             \x20       - \"search\"\n\
             PASS  scenarios/docs_examples/require_search.yaml  (docs-require-search)\n\n\
             1 passed, 0 failed, 1 errors\n"
        )
    );
}

#[test]
fn a_template_syntax_error_is_located_at_the_template_for_check_and_run() {
    let file = "tests/cli_inputs/prompt_syntax_error.yaml";
    let expected = format!(
        "{file}:3:18: the Agent cannot be built: unexpected '}}' — fix the template (or expect \
         the error with `expect.error` to test it)"
    );
    let check = hookharness(&["check", file]);
    assert_eq!(check.status.code(), Some(2));
    assert!(stdout(&check).starts_with(&expected), "{}", stdout(&check));
    let run = hookharness(&["run", file]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stdout(&run).contains(&expected), "{}", stdout(&run));
}

#[test]
fn check_locates_each_construction_error_at_its_key_or_entry() {
    let dir = common::scratch("cli", "construction_places");
    let file = dir.join("two.yaml");
    std::fs::write(
        &file,
        "agent:\n  tool_concurrency_limit: 0\n  state_schema: {tools: {type: list}}\nhooks:\n  before_llm:\n    - token_budget: {max_total_tokens: 0}\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let check = hookharness(&["check", file.to_str().unwrap()]);
    let text = stdout(&check);
    let places: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|line| line.strip_prefix(file.to_str().unwrap()))
        .map(|line| {
            let (place, rest) = line.split_once(": the Agent cannot be built: ").unwrap();
            (place, rest.rsplit_once(" — ").unwrap().1)
        })
        .collect();
    assert_eq!(
        places,
        [
            (
                ":6:7",
                "fix the hook's parameters (or expect the error with `expect.error` to test it)"
            ),
            (
                ":3:3",
                "rename the reserved keys in `agent.state_schema` (or expect the error with `expect.error` to test it)"
            ),
            (
                ":2:3",
                "set it to 1 or more (or expect the error with `expect.error` to test it)"
            ),
        ],
        "{text}"
    );
}

#[test]
fn a_construction_error_keeps_the_verdicts_of_a_failed_run() {
    // Haystack's reference gives these failures: trace-based expectations
    // are checked against the empty trace, result-based ones have no result.
    let file = "conformance/selftest/construction_error_verdicts.yaml";
    let run = hookharness(&["run", "--format", "json", file]);
    assert_eq!(run.status.code(), Some(2), "{}", stdout(&run));
    let outcome: serde_json::Value = serde_json::from_str(stdout(&run).trim()).unwrap();
    assert_eq!(outcome["status"], "error");
    assert_eq!(
        outcome["failures"],
        serde_json::json!([
            "exit_reason: no result to check (the run failed)",
            "llm_calls: expected 1, got 0"
        ])
    );
    assert!(
        outcome["error"].as_str().unwrap().starts_with(&format!(
            "{file}:5:7: the Agent cannot be built: Hook of type"
        )),
        "{}",
        outcome["error"]
    );
}

#[test]
fn a_construction_error_keeps_haystacks_text_whole_in_the_outcome() {
    // The outcome contract compares error texts by substring: Haystack's
    // message, its final period included, must be inside the located one.
    let dir = common::scratch("cli", "construction_text_whole");
    let file = dir.join("allowed.yaml");
    std::fs::write(
        &file,
        "hooks:\n  before_llm:\n    - {do: [], allowed_hook_points: [after_run]}\n  on_exit:\n    - {do: [], allowed_hook_points: []}\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let run = hookharness(&["run", "--format", "json", file.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    let outcome: serde_json::Value = serde_json::from_str(stdout(&run).trim()).unwrap();
    assert_eq!(outcome["status"], "error");
    let error = outcome["error"].as_str().unwrap();
    let lines: Vec<&str> = error.lines().collect();
    assert_eq!(lines.len(), 2, "{error}");
    assert!(
        lines[0].contains(
            ": the Agent cannot be built: Hook of type 'DeclarativeHook' is registered under \
             hook point 'before_llm' but only supports: after_run. — register the hook at one \
             of its points (after_run) ("
        ),
        "{error}"
    );
    assert!(
        lines[1].contains(
            "but only supports: . — its `allowed_hook_points` is empty, so no point takes it: \
             list this point there, or remove the hook ("
        ),
        "{error}"
    );
}

#[test]
fn explain_of_a_saved_run_explains_every_outcome_in_order_and_filter_picks_among_them() {
    let files = [
        "scenarios/docs_examples/require_search.yaml",
        "tests/cli_inputs/failing.yaml",
    ];
    let run = hookharness(&[
        "run", "--format", "json", "--trace", "full", files[0], files[1],
    ]);
    let dir = common::scratch("cli", "explain_saved_run");
    let saved = dir.join("all.jsonl");
    std::fs::write(&saved, stdout(&run)).unwrap();
    let saved = saved.to_str().unwrap();
    let each: Vec<String> = files
        .iter()
        .map(|file| stdout(&hookharness(&["explain", file])))
        .collect();

    let all = hookharness(&["explain", "--outcome", saved]);
    assert_eq!(stdout(&all), format!("{}\n{}", each[0], each[1]));
    assert_eq!(all.status.code(), Some(1), "one of them fails");

    let picked = hookharness(&["explain", "--outcome", saved, "--filter", "require-search"]);
    assert_eq!(stdout(&picked), each[0]);
    assert_eq!(picked.status.code(), Some(0));

    let none = hookharness(&[
        "explain",
        "--outcome",
        saved,
        "--filter",
        "no-such-scenario",
    ]);
    assert_eq!(none.status.code(), Some(3));
    assert_eq!(stderr(&none), "no saved outcome matches the filter\n");

    let page = hookharness(&["explain", "--outcome", saved, "--format", "html"]);
    assert_eq!(page.status.code(), Some(4));
    assert!(
        stderr(&page).contains("pick one with `--filter NAME`"),
        "{}",
        stderr(&page)
    );
    let page = hookharness(&[
        "explain",
        "--outcome",
        saved,
        "--format",
        "html",
        "--filter",
        "failing",
    ]);
    assert_eq!(page.status.code(), Some(1));
    assert!(stdout(&page).starts_with("<!DOCTYPE html>"));
}

#[test]
fn a_command_that_takes_one_file_says_so_when_given_a_folder() {
    for command in ["explain", "rebase"] {
        let output = hookharness(&[command, "scenarios/docs_examples"]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert_eq!(
            stderr(&output),
            "scenarios/docs_examples: not a regular file (a folder); this command takes one \
             scenario file (`run`, `check`, `mutate` and `explore` also search folders)\n",
            "{command}"
        );
    }
}

#[test]
fn unused_replies_fail_with_the_count_and_the_fix() {
    let dir = common::scratch("cli", "unused_replies");
    let file = dir.join("extra.yaml");
    std::fs::write(&file, "model: [{text: one}, {text: two}, {text: three}]\n").unwrap();
    let run = hookharness(&["run", file.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stdout(&run).contains(
            "unused_replies: the scenario scripts 3 replies but the run made 1 LLM calls; remove \
             the 2 unused replies from `model`, or set `expect.unused_replies: allow` if the run \
             is meant to stop before them"
        ),
        "{}",
        stdout(&run)
    );
}

#[test]
fn a_syntax_error_on_a_later_line_of_a_literal_block_template_is_located_at_that_line() {
    let dir = common::scratch("cli", "template_line");
    let file = dir.join("block.yaml");
    std::fs::write(
        &file,
        "agent:\n  system_prompt: |\n    You help {{ user }}.\n    Hi {{ user_name }\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let check = hookharness(&["check", file.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(2));
    assert!(
        stdout(&check).starts_with(&format!(
            "{}:4:5: the Agent cannot be built: unexpected '}}' — fix the template",
            file.display()
        )),
        "{}",
        stdout(&check)
    );
}
