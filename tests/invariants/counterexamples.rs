//! A failing property writes its shrunk counterexample as a scenario
//! file that loads and replays.

use crate::support::scenario;
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
                        .wire_trace()
                        .filter(|e| e["event"] == "tool")
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
    assert!(outcome.wire_trace().any(|e| e["event"] == "tool"));
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
    let files = crate::support::corpus_files();
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
