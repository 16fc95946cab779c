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

#[test]
fn the_readme_matcher_example_holds_for_the_scenario_example() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let scenario = block_after(&readme, "## A scenario", "yaml");
    let matchers = block_after(&readme, "Expectations can say only what matters", "yaml");
    let without_expect = &scenario[..scenario.find("expect:").unwrap()];
    let text = format!("{without_expect}{matchers}");
    let scenario =
        Scenario::from_str(&text, "README.md", Format::Yaml).unwrap_or_else(|e| panic!("{e}"));
    assert!(scenario.expect.trace.is_some());
    let outcome = Replay::new().run(&scenario);
    assert!(outcome.passed(), "{:?}", outcome.failures);
}

/// The fenced block of `lang` that follows `heading` in the README.
fn block_after(readme: &str, heading: &str, lang: &str) -> String {
    let section = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README has {heading}"));
    let fence = format!("```{lang}\n");
    let start = section
        + readme[section..]
            .find(&fence)
            .unwrap_or_else(|| panic!("{heading} has a {lang} block"))
        + fence.len();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end].to_owned()
}

const USER_CRATE: &str = "## Every scenario a test";

#[test]
fn the_readme_user_crate_test_is_compiled_and_run_as_readme_scenarios() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let snippet = block_after(&readme, USER_CRATE, "rust");
    let target = include_str!("readme_scenarios.rs");
    let marker = "// The README's snippet, verbatim:\n";
    let verbatim = &target[target.find(marker).expect("the marker") + marker.len()..];
    assert_eq!(
        verbatim, snippet,
        "README.md and tests/readme_scenarios.rs differ"
    );
}

#[test]
fn the_readme_user_crate_manifest_declares_the_test_target_as_this_crate_does() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let manifest = block_after(&readme, USER_CRATE, "toml");
    let target = &manifest[manifest.find("[[test]]").expect("a [[test]] table")..];
    assert!(
        include_str!("../Cargo.toml").contains(target),
        "Cargo.toml has no test target as README.md shows it:\n{target}"
    );
    assert!(manifest.contains("datatest-stable = \"0.3\""), "{manifest}");
}
