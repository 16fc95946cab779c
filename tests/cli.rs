//! The `hookharness` command line, as a user runs it.

use std::path::Path;
use std::process::{Command, Output};

fn hookharness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the hookharness binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

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
