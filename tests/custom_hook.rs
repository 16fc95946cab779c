//! A custom Rust hook regression-tested with a scenario file and a snapshot.
//!
//! This is the pattern the README shows: the scenario scripts the model, the
//! Rust test registers the hook under the scenario's `custom:` name, and the
//! snapshot pins the whole outcome (messages, trace, run metadata).

#[path = "../examples/require_citation.rs"]
#[allow(dead_code)]
mod example;

use example::RequireCitation;
use hookharness::outcome::ErrorKind;
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;

fn scenario() -> Scenario {
    let mut scenario = Scenario::from_path("examples/scenarios/require_citation.yaml".as_ref())
        .unwrap_or_else(|e| panic!("{e}"));
    scenario.file = Some("examples/scenarios/require_citation.yaml".into());
    scenario
}

#[test]
fn the_citation_hook_sends_an_uncited_answer_back_once() {
    let outcome = Replay::new()
        .custom_hook("require_citation", RequireCitation::default())
        .run(&scenario());
    assert!(
        outcome.passed(),
        "{:?} {:?}",
        outcome.failures,
        outcome.error
    );
    insta::assert_json_snapshot!(outcome.snapshot());
}

#[test]
fn a_scenario_naming_an_unregistered_custom_hook_says_how_to_register_it() {
    let outcome = Replay::new().run(&scenario());
    let error = outcome.error.unwrap();
    assert_eq!(
        error.kind,
        ErrorKind::UnregisteredHook {
            name: "require_citation".into()
        }
    );
    assert_eq!(
        Some(error.message.as_str()),
        Some(
            "examples/scenarios/require_citation.yaml: custom hook `require_citation` is not registered; \
             register it with `Replay::new().custom_hook(\"require_citation\", hook)` in the Rust test that \
             runs this scenario"
        )
    );
}

#[test]
fn a_mistyped_custom_hook_name_suggests_the_registered_one() {
    let mut scenario = scenario();
    for entries in scenario.hooks.values_mut() {
        for entry in entries {
            *entry = hookharness::scenario::HookEntry::Custom("require_citaton".into());
        }
    }
    let outcome = Replay::new()
        .custom_hook("require_citation", RequireCitation::default())
        .run(&scenario);
    assert_eq!(
        outcome.error.map(|e| e.message),
        Some(
            "examples/scenarios/require_citation.yaml: custom hook `require_citaton` is not registered; \
             did you mean `require_citation`, the name the Rust test registers?"
                .into()
        )
    );
}

#[test]
fn a_panic_in_a_custom_generator_is_that_scenarios_error_and_the_next_run_goes_on() {
    let replay = Replay::new().custom_hook("require_citation", RequireCitation::default());
    let panicking = std::sync::Arc::new(hookharness::generator_fn(|_request| {
        panic!("the model client is broken")
    }));
    let outcome = replay.run_with_generator(&scenario(), panicking);
    assert_eq!(outcome.status, hookharness::replay::Status::Error);
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Panicked);
    let error = error.message;
    assert!(
        error.starts_with(
            "examples/scenarios/require_citation.yaml: the run panicked: the model client is broken; "
        ),
        "{error}"
    );
    assert!(replay.run(&scenario()).passed());
}
