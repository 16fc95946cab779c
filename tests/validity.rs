//! One verdict on an invalid file: the library gives it, and `hookharness
//! run`, `check`, `Replay::test` (the `cargo test` path), `mutate` and
//! `explore` report the same status, message and position.

mod common;

use common::{hookharness, stdout};
use hookharness::replay::{Replay, Status};
use std::path::PathBuf;

/// Every invalid file, and the files whose Agent cannot be built.
fn invalid_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/invalid_scenarios")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files.extend(
        [
            "tests/cli_inputs/hook_point_typo.yaml",
            "tests/cli_inputs/prompt_syntax_error.yaml",
            "tests/cli_inputs/bad_ready_made.yaml",
            "tests/cli_inputs/invalid.yaml",
            "conformance/selftest/construction_error_verdicts.yaml",
        ]
        .map(PathBuf::from),
    );
    files
}

#[test]
fn every_invalid_file_has_one_status_message_and_position_through_every_command() {
    for file in invalid_files() {
        let name = file.to_str().unwrap();
        let failure = Replay::new().test_file(&file).unwrap_err();
        let outcome = failure.outcome();
        assert_eq!(outcome.status, Status::Invalid, "{name}");
        let message = outcome.error.as_ref().unwrap().message.clone();
        assert!(message.starts_with(name), "{name}: {message}");

        let check = hookharness(&["check", name]);
        assert_eq!(check.status.code(), Some(2), "check {name}");
        assert_eq!(
            stdout(&check),
            format!("{message}\n0 valid, 1 invalid\n"),
            "check {name}"
        );

        let run = hookharness(&["run", "--format", "json", name]);
        assert_eq!(run.status.code(), Some(2), "run {name}");
        let json: serde_json::Value = serde_json::from_str(stdout(&run).trim()).unwrap();
        assert_eq!(json["error"], message.as_str(), "run {name}");
        assert_eq!(json, outcome.to_value(), "run {name}");

        let human = hookharness(&["run", name]);
        assert_eq!(human.status.code(), Some(2), "run {name}");
        assert!(
            stdout(&human).contains(&failure.to_string()),
            "run {name}: {}\n---\n{failure}",
            stdout(&human)
        );

        for command in ["mutate", "explore"] {
            let output = hookharness(&[command, name]);
            assert_eq!(output.status.code(), Some(2), "{command} {name}");
            assert!(
                stdout(&output).starts_with(&format!("{message}\n")),
                "{command} {name}: {}",
                stdout(&output)
            );
        }
    }
}
