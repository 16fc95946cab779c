//! The README's scenario examples replay and pass, and its links to the
//! ready-made hooks' sections hold.

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
    assert!(scenario.expect.get("trace").is_some());
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

/// GitHub's anchor of a heading: lowercase, punctuation other than `-` and
/// `_` dropped, spaces made `-`.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn the_readme_links_each_ready_made_hook_to_its_section() {
    use hookharness::scenario::ReadyMadeKind;
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let doc = "docs/scenario-format-extensions.md";
    let extensions = std::fs::read_to_string(format!("{root}/{doc}")).unwrap();
    let kinds = [
        ReadyMadeKind::TokenBudget,
        ReadyMadeKind::ToolResultOffload,
        ReadyMadeKind::Confirmation,
        ReadyMadeKind::Compaction,
    ];
    for kind in kinds.map(ReadyMadeKind::as_str) {
        let heading = extensions
            .lines()
            .find_map(|l| {
                l.strip_prefix(&format!("### `{kind}:`"))
                    .map(|rest| format!("{kind}:{rest}"))
            })
            .unwrap_or_else(|| panic!("{doc} has no section for `{kind}:`"));
        let link = format!("[`{kind}:`]({doc}#{})", anchor(&heading));
        assert!(readme.contains(&link), "README.md lacks {link}");
    }
}

/// Every fenced Rust block (```` ```rust ````, ```` ```rust,no_run ````, ...) of
/// `text`, without its fences.
fn rust_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("```rust") {
        let after = &rest[at..];
        let Some(body) = after.find('\n') else { break };
        let body = &after[body + 1..];
        let end = body.find("```").expect("a closed block");
        blocks.push(body[..end].to_owned());
        rest = &body[end + 3..];
    }
    blocks
}

#[test]
fn every_rust_block_of_the_readme_and_the_docs_is_a_compiled_file() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut compiled: Vec<String> = std::fs::read_dir(format!("{root}/tests/readme_snippets"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    compiled.push(include_str!("readme_scenarios.rs").to_owned());
    let mut documents = vec![format!("{root}/README.md")];
    for entry in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path.display().to_string());
        }
    }
    let mut checked = 0;
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        for block in rust_blocks(&text) {
            checked += 1;
            assert!(
                compiled.iter().any(|file| file.ends_with(&block)),
                "{document}: this Rust block is not the end of a file under tests/readme_snippets/ \
                 (nor of tests/readme_scenarios.rs), so nothing compiles it; add it there (or, when `cargo fmt` reformatted that file, copy \
                 the file back into the document):\n{block}"
            );
        }
    }
    assert!(checked >= 5, "{checked} Rust blocks found");
}
