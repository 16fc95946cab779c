//! The corpus replays the same way every time: across runs, tool
//! concurrency limits, and the sync and async paths. (Each scenario passing
//! and matching its snapshot is `tests/scenarios.rs`, one test per file.)

use hookharness::outcome::{Detail, Outcome};
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use std::path::Path;

fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string()
}

fn load(path: &Path) -> Scenario {
    let mut scenario = Scenario::from_path(path).unwrap_or_else(|e| panic!("{e}"));
    scenario.file = Some(relative(path).into());
    scenario
}

#[test]
fn outcomes_are_identical_across_runs_and_tool_concurrency_limits() {
    insta::glob!("../scenarios", "**/*.{yaml,yml,json}", |path| {
        let scenario = load(path);
        let first = Replay::new().run(&scenario).to_json_line();
        let again = Replay::new().run(&scenario).to_json_line();
        assert_eq!(first, again, "{}", relative(path));
        for limit in [1, 2, 8] {
            let mut other = scenario.clone();
            other.agent.tool_concurrency_limit = limit;
            if scenario.agent.tool_concurrency_limit < 1 {
                continue; // a construction-error scenario is about the limit itself
            }
            assert_eq!(
                first,
                Replay::new().run(&other).to_json_line(),
                "{} at limit {limit}",
                relative(path)
            );
        }
    });
}

#[test]
fn sync_and_async_replays_of_the_corpus_give_the_same_outcome() {
    insta::glob!("../scenarios", "**/*.{yaml,yml,json}", |path| {
        let scenario = load(path);
        let mut flipped = scenario.clone();
        flipped.run.is_async = !scenario.run.is_async;
        assert_eq!(
            Replay::new().run(&scenario).to_json_line(),
            Replay::new().run(&flipped).to_json_line(),
            "{}",
            relative(path)
        );
    });
}

#[test]
fn a_full_outcome_reads_back_equal_for_every_corpus_scenario() {
    insta::glob!("../scenarios", "**/*.{yaml,yml,json}", |path| {
        let outcome = Replay::new().detail(Detail::Full).run(&load(path));
        let line = outcome.to_full_value().to_string();
        let saved = Outcome::from_full_json(&line).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(saved, outcome, "{}", relative(path));
        assert_eq!(saved.to_json_line(), outcome.to_json_line());
    });
}
