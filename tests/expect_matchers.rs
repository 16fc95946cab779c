//! Match modes and value matchers: each corpus scenario in
//! `scenarios/expect/` passes (`tests/scenarios.rs`), and its twin in
//! `tests/failing_scenarios/`, the same run with one expectation changed,
//! fails with the report pinned here: the human text (lines and diffs, which
//! JUnit carries too) and the failures' expected and actual values of
//! `--trace full`.

use hookharness::outcome::Status;
use hookharness::replay::Replay;
use hookharness::report::{human_outcome, junit};
use hookharness::scenario::Scenario;
use std::path::Path;

fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_failing_twin_fails_with_its_pinned_report() {
    insta::glob!("failing_scenarios/*.yaml", |path| {
        let mut scenario = Scenario::from_path(path).unwrap_or_else(|e| panic!("{e}"));
        scenario.file = Some(relative(path).into());
        let outcome = Replay::new().run(&scenario);
        assert_eq!(outcome.status, Status::Fail, "{}", human_outcome(&outcome));
        let full = outcome.to_full_value();
        let failures = serde_json::to_string_pretty(&full["failures"]).unwrap();
        insta::assert_snapshot!(format!("{}\n{failures}", human_outcome(&outcome)));

        // JUnit carries the same text: every line of the human report's
        // failures, diffs included.
        let xml = junit(std::slice::from_ref(&outcome))
            .replace("&#10;", "\n")
            .replace("&quot;", "\"")
            .replace("&gt;", ">")
            .replace("&lt;", "<")
            .replace("&apos;", "'")
            .replace("&amp;", "&");
        for line in human_outcome(&outcome).lines().skip(1) {
            assert!(xml.contains(line.trim()), "{line}\n{xml}");
        }
    });
}

#[test]
fn every_failing_twin_has_its_passing_corpus_scenario() {
    let names = |dir: &str| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names("tests/failing_scenarios"), names("scenarios/expect"));
}
