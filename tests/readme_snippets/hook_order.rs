// tests/hook_order.rs
use hookharness::invariants::Invariants;
use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};
use hookharness::strategies::{Property, install, permuted_registrations};
use hookharness::{ChatMessage, Hook, HookError, HookPoint, State, hook_fn};
use my_agent::RedactSecrets;
use proptest::prop_assert;
use std::sync::Arc;

const RESEARCH: &str = r#"
tools:
  - {name: search, results: ["Milestones reported. (api_key=sk-live-1234)"], repeat_last: true}
model:
  - text: "Fusion is going well."
  - tool_calls: [{tool: search, arguments: {query: fusion}}]
  - text: "Startups reported milestones."
run:
  messages: [{role: user, text: "What is new in fusion?"}]
expect:
  unused_replies: allow
"#;

#[test]
fn no_order_of_the_hooks_leaves_a_secret_in_the_conversation() {
    let base = Scenario::from_str(RESEARCH, "research.yaml", Format::Yaml).unwrap();
    let require_search = hook_fn(|state: &mut State| -> Result<(), HookError> {
        if state.tool_call_count("search") == 0 {
            state.append_messages(vec![ChatMessage::from_system("Search before answering.")])?;
            state.set_continue_run(true);
        }
        Ok(())
    })
    .named("require_search");
    let hooks: Vec<(HookPoint, Arc<dyn Hook>)> = vec![
        (HookPoint::BeforeLlm, Arc::new(RedactSecrets)), // allowed at before_llm and after_tool
        (HookPoint::OnExit, Arc::new(require_search)),
    ];
    Property::new("no_secret_stays_in_the_conversation").run_with(
        permuted_registrations(hooks),
        |order| install(&base, order, Replay::new()).0, // the scenario a failure is written as
        |order| {
            let (scenario, replay) = install(&base, &order, Replay::new());
            let outcome = replay.run(&scenario);
            let violations = Invariants::new().scenario(&scenario).check(&outcome);
            prop_assert!(violations.is_empty(), "{violations:?}");
            let leaked = outcome.result.iter().flat_map(|r| &r.messages).any(|m| {
                let result = m.tool_call_result().and_then(|r| r.result.as_text());
                result.is_some_and(|text| text.contains("sk-live-"))
            });
            prop_assert!(!leaked, "a tool result kept its secret"); // a property of your own
            Ok(())
        },
    );
}
