//! `hookharness drift`: the same scenarios on the Haystack engine under two
//! interpreters. Drift of an interpreter with itself always runs (it must
//! find no difference); drift against a second haystack-ai runs when
//! `HOOKHARNESS_DRIFT_PYTHON` names one (e.g. a venv with haystack-ai
//! 3.2.0), and is skipped with its reason printed otherwise.

use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The interpreter with haystack-ai 3.4.1 (as tests/engine_haystack.rs).
fn python() -> String {
    match std::env::var("HOOKHARNESS_PYTHON") {
        Ok(path) if !path.is_empty() => path,
        _ => panic!(
            "set HOOKHARNESS_PYTHON to a Python with haystack-ai 3.4.1 and time-machine installed \
             (e.g. HOOKHARNESS_PYTHON=.venv-ref/bin/python): these tests run the real Haystack Agent"
        ),
    }
}

fn hookharness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("HOOKHARNESS_PROGRESS")
        .stdin(Stdio::null())
        .output()
        .expect("the hookharness binary runs")
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

#[test]
fn drift_of_an_interpreter_with_itself_finds_no_difference() {
    let python = python();
    let output = hookharness(&[
        "drift",
        "scenarios/ready_made",
        "scenarios/stop_run",
        "--python",
        &python,
        "--python",
        &python,
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    let lines = lines(&output);
    let (summary, scenarios) = lines.split_last().expect("a summary line");
    assert!(scenarios.len() > 20, "{scenarios:?}");
    for line in scenarios {
        assert_eq!(line["drift"], "same", "{line}");
        assert_eq!(line["difference"], Value::Null, "{line}");
    }
    assert_eq!(summary["summary"]["differ"], 0, "{summary}");
    assert_eq!(summary["summary"]["same"], scenarios.len(), "{summary}");
}

#[test]
fn drift_needs_exactly_two_interpreters() {
    let output = hookharness(&["drift", "scenarios/ready_made", "--python", &python()]);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("give `--python PATH` exactly twice (got 1)"),
        "{stderr}"
    );
}

#[test]
fn drift_against_another_haystack_version_names_what_changes() {
    let Some(other) = std::env::var("HOOKHARNESS_DRIFT_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
    else {
        println!(
            "skipped: HOOKHARNESS_DRIFT_PYTHON names no second interpreter (a venv with \
             `pip install haystack-ai==3.2.0 time-machine==3.6.0`)"
        );
        return;
    };
    let output = hookharness(&[
        "drift",
        "scenarios/ready_made/compaction_offload.yaml",
        "scenarios/ready_made/offload_context_not_a_store.yaml",
        "scenarios/before_llm/stop_at_second_step.yaml",
        "--python",
        &other,
        "--python",
        &python(),
        "--format",
        "json",
    ]);
    let lines = lines(&output);
    let (summary, scenarios) = lines.split_last().expect("a summary line");
    let version = summary["interpreters"][0]["haystack"]
        .as_str()
        .unwrap_or_default();
    if version == "3.4.1" {
        assert_eq!(output.status.code(), Some(0));
        return;
    }
    // haystack-ai 3.2.0 (and 3.1.0) lack the offload compactor: the scenario's
    // error names the version and what it lacks, the worker lives on.
    assert_eq!(output.status.code(), Some(1), "{lines:?}");
    let compaction = &scenarios[0];
    assert_eq!(compaction["drift"], "differs", "{compaction}");
    assert_eq!(compaction["difference"]["path"], "error", "{compaction}");
    let message = compaction["difference"]["values"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "haystack-ai {version} has no `haystack.hooks.compaction"
        )),
        "{message}"
    );
    assert_eq!(scenarios[2]["status"][1], "pass", "{}", scenarios[2]);
}
