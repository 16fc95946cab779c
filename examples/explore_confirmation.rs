//! Exploring every answer to a confirmation, from Rust.
//!
//! A research agent asks the user before each tool call (Haystack's
//! `ConfirmationHook`, scripted in the scenario). A second hook of our own,
//! `RetryFailedCalls`, re-queues every call whose result was an error, so
//! that a flaky tool gets a second chance. It also re-queues the calls the
//! user *rejected*, whose results are errors too: the bug users report as
//! "a rejected call still ran".
//!
//! `Explore` runs the scenario in both orders of the two hooks and under
//! every answer (confirm or reject for each question: the script has no
//! `modify` answer to take parameters from) and checks the invariants on
//! each. With the retry after the confirmation, as written, every answer set
//! with a rejection (3 of the 4) breaks `rejected_calls_never_run`; with the
//! retry first there is nothing to retry yet. Without the retry hook, every
//! variant is clean.
//!
//! ```sh
//! cargo run --example explore_confirmation
//! ```

use hookharness::explore::Explore;
use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};
use hookharness::{ChatMessage, Hook, HookError, State, ToolCall};

const RESEARCH: &str = r#"
name: confirm-then-retry
tools:
  - {name: search, results: ["Fusion news."]}
  - {name: delete_file, results: ["deleted"]}
hooks:
  before_tool:
    - name: confirm
      confirmation:
        confirmation_strategies:
          "*":
            type: haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy
            init_parameters:
              confirmation_policy: {type: haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy}
              confirmation_ui:
                type: hookharness.hooks.confirmation.ScriptedConfirmationUI
                init_parameters:
                  answers: [{action: confirm}, {action: reject, feedback: "Never delete files."}]
    - custom: retry
model:
  - tool_calls:
      - {tool: search, arguments: {query: fusion}}
      - {tool: delete_file, arguments: {path: /tmp/notes}}
  - text: "Here is what I found."
run:
  messages: [{role: user, text: "Research fusion, then clean up."}]
expect:
  always: {llm_calls: 2}
"#;

/// Re-queues every call whose result is an error, rejected calls included.
pub struct RetryFailedCalls;

impl Hook for RetryFailedCalls {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let failed: Vec<_> = state
            .messages()
            .iter()
            .filter_map(ChatMessage::tool_call_result)
            .filter(|result| result.error)
            .map(|result| ToolCall::clone(&result.origin))
            .collect();
        if !failed.is_empty() {
            let mut messages = state.messages().to_vec();
            messages.push(ChatMessage::from_assistant_parts(None, failed));
            state.replace_messages(messages);
        }
        Ok(())
    }
}

/// Does nothing: the scenario without a retry.
struct NoRetry;

impl Hook for NoRetry {
    fn run(&self, _: &mut State) -> Result<(), HookError> {
        Ok(())
    }
}

fn report(title: &str, replay: &Replay, scenario: &Scenario) -> usize {
    let exploration = Explore::new().run(replay, scenario);
    let broken: Vec<_> = exploration.broken().collect();
    println!(
        "{title}: {} variants, {} broken",
        exploration.variants.len(),
        broken.len()
    );
    for checked in &broken {
        let changes = if checked.variant.changes.is_empty() {
            "as written".to_owned()
        } else {
            checked.variant.changes.join("; ")
        };
        println!("  variant {}: {changes}", checked.variant.number);
        for reason in &checked.reasons {
            println!("    {reason}");
        }
    }
    broken.len()
}

fn main() {
    let scenario = Scenario::from_str(RESEARCH, "research.yaml", Format::Yaml)
        .expect("the example scenario loads");
    let with_retry = Replay::new().custom_hook("retry", RetryFailedCalls);
    let broken = report("with RetryFailedCalls", &with_retry, &scenario);
    // Each answer set that rejects a call, with the retry after the confirmation.
    assert_eq!(broken, 3);
    let without = Replay::new().custom_hook("retry", NoRetry);
    assert_eq!(report("without it", &without, &scenario), 0);
}
