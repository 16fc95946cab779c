// tests/citation.rs
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use my_agent::RequireCitation;

#[test]
fn the_citation_hook_sends_an_uncited_answer_back_once() {
    let path = "examples/scenarios/require_citation.yaml";
    let scenario = Scenario::from_path(path.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let outcome = Replay::new()
        .custom_hook("require_citation", RequireCitation::default())
        .run(&scenario);
    assert!(outcome.passed(), "{:?}", outcome.failures);
    insta::assert_json_snapshot!(outcome.snapshot());
}
