//! The README's scenario example replays and passes.

use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};

#[test]
fn the_readme_scenario_example_passes() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("```yaml\n").expect("README has a yaml example") + "```yaml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let scenario = Scenario::from_str(&readme[start..end], "README.md", Format::Yaml)
        .unwrap_or_else(|e| panic!("{e}"));
    let outcome = Replay::new().run(&scenario);
    assert!(
        outcome.passed(),
        "{:?} {:?}",
        outcome.failures,
        outcome.error
    );
}
