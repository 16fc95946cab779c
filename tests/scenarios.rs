//! Every corpus scenario is its own test: it replays, passes, and matches
//! its snapshot.
//!
//! The harness is datatest-stable (`harness = false` in Cargo.toml), so
//! `cargo test --test scenarios -- --list` lists one test per file, a
//! filter runs one (`cargo test --test scenarios -- clears_messages`), and
//! nextest runs, retries and partitions them one by one. This is the code
//! path of `hookharness run scenarios/`: the same loader, the same replay,
//! the same outcome JSON, through `Replay::test`.

use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use std::path::Path;

/// The snapshot each scenario has had since the corpus was one test: the
/// same files under `tests/snapshots/`, named as `insta::glob!` named them.
const SNAPSHOT: &str = "corpus__every_corpus_scenario_passes_and_matches_its_snapshot";

fn scenario(path: &Path) -> datatest_stable::Result<()> {
    let mut scenario = Scenario::from_path(path)?;
    scenario.file = Some(path.into());
    let outcome = Replay::new().test(&scenario)?;
    let pretty = serde_json::to_string_pretty(&outcome.to_value())?;
    let within = path.strip_prefix("scenarios")?;
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(path);
    settings.set_snapshot_suffix(within.to_string_lossy().replace('/', "__"));
    settings.bind(|| insta::assert_snapshot!(SNAPSHOT, pretty));
    Ok(())
}

datatest_stable::harness! {
    { test = scenario, root = "scenarios", pattern = r"\.(yaml|yml|json)$" },
}
