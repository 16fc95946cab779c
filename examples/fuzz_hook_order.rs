//! Fuzzing the registration order of your own hooks.
//!
//! Three hooks of a research agent:
//!
//! - `RedactSecrets` blanks API keys out of tool results; it may run at
//!   `before_llm` or `after_tool`;
//! - `Audit` keeps a copy of every tool result for an audit trail; it may
//!   run at `before_llm` or `after_run`;
//! - `require_search` asks for a search (`on_exit`) when the model answers
//!   without one.
//!
//! `permuted_registrations` tries them in every order, at every point each
//! allows. Two properties of our own are checked, together with the loop's
//! invariants:
//!
//! 1. the model never sees a secret: holds whatever the order;
//! 2. the audit trail never holds a secret: fails when `Audit` runs before
//!    `RedactSecrets` at `before_llm`. proptest shrinks the failure to that
//!    order; with `HOOKHARNESS_FAILURES_DIR` set, the scenario that shows it
//!    is written there.
//!
//! ```sh
//! cargo run --example fuzz_hook_order
//! HOOKHARNESS_FAILURES_DIR=target/failures cargo run --example fuzz_hook_order
//! ```

use hookharness::invariants::Invariants;
use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};
use hookharness::strategies::{Property, Registration, install, permuted_registrations};
use hookharness::{
    ChatMessage, ContentPart, Event, Hook, HookError, HookPoint, State, ToolResult, hook_fn,
};
use proptest::prop_assert;
use std::sync::{Arc, Mutex};

/// The scenario the hooks are tried on: the model first answers without
/// searching, then searches (the result holds a key), then answers.
const RESEARCH: &str = r#"
name: research
tools:
  - name: search
    results: ["Net-energy-gain milestones reported. (api_key=sk-live-1234)"]
    repeat_last: true
model:
  - text: "Fusion is going well."
  - tool_calls: [{tool: search, arguments: {query: fusion}}]
  - text: "Startups reported net-energy-gain milestones."
run:
  messages: [{role: user, text: "What is new in fusion?"}]
expect:
  unused_replies: allow
"#;

const SECRET: &str = "sk-live-";

/// Every text in a message: text parts and tool results.
fn texts(message: &ChatMessage) -> Vec<String> {
    message
        .content()
        .iter()
        .filter_map(|part| match part {
            ContentPart::Text(text) => Some(text.clone()),
            ContentPart::ToolCallResult(result) => result.result.as_text().map(str::to_owned),
            _ => None,
        })
        .collect()
}

/// Blanks API keys out of tool results.
pub struct RedactSecrets;

impl Hook for RedactSecrets {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        for message in state.messages_mut() {
            for part in message.content_mut() {
                if let ContentPart::ToolCallResult(result) = part {
                    if let ToolResult::Text(text) = &mut result.result {
                        if let Some(at) = text.find(SECRET) {
                            text.replace_range(at.., "[redacted])");
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeLlm, HookPoint::AfterTool])
    }
}

/// Keeps a copy of every tool result it sees.
#[derive(Default)]
struct Audit {
    trail: Mutex<Vec<String>>,
}

impl Audit {
    fn clear(&self) {
        self.trail.lock().unwrap().clear();
    }

    fn holds_secret(&self) -> bool {
        self.trail
            .lock()
            .unwrap()
            .iter()
            .any(|t| t.contains(SECRET))
    }
}

impl Hook for Audit {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let mut trail = self.trail.lock().unwrap();
        for message in state.messages() {
            if message.tool_call_result().is_some() {
                trail.extend(texts(message));
            }
        }
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeLlm, HookPoint::AfterRun])
    }
}

/// Asks for a search when the model answers without one.
fn require_search() -> impl Hook {
    hook_fn(|state: &mut State| -> Result<(), HookError> {
        if state.tool_call_count("search") == 0 {
            state.append_messages(vec![ChatMessage::from_system("Search before answering.")])?;
            state.set_continue_run(true);
        }
        Ok(())
    })
    .named("require_search")
}

/// Runs the scenario with the registrations; returns whether the model saw
/// a secret, and the loop's broken invariants.
fn run(base: &Scenario, registrations: &[Registration]) -> (bool, Vec<String>) {
    let (scenario, replay) = install(base, registrations, Replay::new());
    let mut model_saw_secret = false;
    let mut observer = |event: &Event<'_>| {
        if let Event::LlmStarted { messages, .. } = event {
            model_saw_secret |= messages.iter().flat_map(texts).any(|t| t.contains(SECRET));
        }
    };
    let outcome = replay.run_observed(&scenario, &mut observer);
    let violations = Invariants::new().scenario(&scenario).check(&outcome);
    (
        model_saw_secret,
        violations.iter().map(ToString::to_string).collect(),
    )
}

fn main() {
    let base =
        Scenario::from_str(RESEARCH, "research.yaml", Format::Yaml).expect("a valid scenario");
    let audit = Arc::new(Audit::default());
    let hooks: Vec<(HookPoint, Arc<dyn Hook>)> = vec![
        (HookPoint::BeforeLlm, Arc::new(RedactSecrets)),
        (HookPoint::AfterRun, audit.clone()),
        (HookPoint::OnExit, Arc::new(require_search())),
    ];
    let as_scenario =
        |registrations: &Vec<Registration>| install(&base, registrations, Replay::new()).0;

    // 1. Holds for every order: the loop's invariants and our own property.
    Property::new("the_model_never_sees_a_secret").run_with(
        permuted_registrations(hooks.clone()),
        as_scenario,
        |registrations| {
            audit.clear();
            let (model_saw_secret, violations) = run(&base, &registrations);
            prop_assert!(violations.is_empty(), "{}", violations.join("\n"));
            prop_assert!(!model_saw_secret, "the model saw a secret");
            Ok(())
        },
    );
    println!("the_model_never_sees_a_secret: held for every registration order tried");

    // 2. Fails for some orders; proptest finds the smallest one. A test
    //    would let it fail; here the failure is caught and shown.
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let failure = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Property::new("the_audit_trail_never_holds_a_secret")
            .without_regressions()
            .run_with(
                permuted_registrations(hooks.clone()),
                as_scenario,
                |registrations| {
                    audit.clear();
                    run(&base, &registrations);
                    prop_assert!(!audit.holds_secret(), "the audit trail holds a secret");
                    Ok(())
                },
            );
    }));
    std::panic::set_hook(quiet);
    match failure {
        Ok(()) => println!("the_audit_trail_never_holds_a_secret: held (unexpected)"),
        Err(panic) => {
            let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
            let summary: Vec<&str> = message.lines().take(4).collect();
            println!(
                "the_audit_trail_never_holds_a_secret: found a bad order\n{}",
                summary.join("\n")
            );
        }
    }
}
