//! Regression-test a custom Rust hook with a scenario file.
//!
//! The hook sends an answer back to the model once when it cites no source.
//! The scenario in `examples/scenarios/require_citation.yaml` scripts the
//! model and says what the run must show; `tests/custom_hook.rs` pins the
//! whole outcome with an insta snapshot.
//!
//! Run it with `cargo run --example require_citation`.

use hookharness::replay::Replay;
use hookharness::report::human_outcome;
use hookharness::scenario::Scenario;
use hookharness::{ChatMessage, Hook, HookError, HookPoint, State};
use std::sync::atomic::{AtomicBool, Ordering};

/// An `on_exit` hook: an answer without `[source: ...]` is sent back once.
#[derive(Default)]
pub struct RequireCitation {
    asked: AtomicBool,
}

impl Hook for RequireCitation {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let cites = state
            .messages()
            .last()
            .and_then(|m| m.text())
            .is_some_and(|text| text.contains("[source:"));
        if !cites && !self.asked.swap(true, Ordering::SeqCst) {
            state.append_messages(vec![ChatMessage::from_user(
                "Cite the source of your answer as [source: tool].",
            )])?;
            state.set_continue_run(true);
        }
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::OnExit])
    }
}

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/scenarios/require_citation.yaml"
    );
    let scenario = Scenario::from_path(path.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let outcome = Replay::new()
        .custom_hook("require_citation", RequireCitation::default())
        .run(&scenario);
    print!("{}", human_outcome(&outcome));
    std::process::exit(if outcome.passed() { 0 } else { 1 });
}
