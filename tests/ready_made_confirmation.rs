//! `ConfirmationHook` (§10.3): serialized form, Haystack's error texts, the
//! scripted UI, and strategies that read per-run resources from `hook_context`.

use hookharness::hooks::confirmation::{
    AskOncePolicy, BlockingConfirmationStrategy, ConfirmationHook, ConfirmationRequest,
    ConfirmationStrategy, ConfirmationUIResult, ScriptedConfirmationUI, ToolExecutionDecision,
};
use hookharness::hooks::{FromValueError, ToolKey};
use hookharness::state::HookContext;
use hookharness::{
    Agent, AgentError, ChatMessage, HookError, RunOptions, ToolCall, ToolSpec, generator_fn,
    tool_fn,
};
use serde_json::{Map, Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

fn tool(name: &str) -> impl hookharness::Tool {
    tool_fn(ToolSpec::new(name), |_args: &Map<String, Value>| {
        Ok(json!("ran"))
    })
}

/// A model that asks for `calls` first, then answers "done".
fn model(calls: Vec<ToolCall>) -> impl hookharness::ChatGenerator {
    let n = AtomicUsize::new(0);
    generator_fn(move |_request| {
        Ok(vec![if n.fetch_add(1, Ordering::SeqCst) == 0 {
            ChatMessage::from_assistant_parts(None, calls.clone())
        } else {
            ChatMessage::from_assistant("done")
        }])
    })
}

#[test]
fn the_serialized_form_is_haystacks_with_tuple_keys_as_json_array_strings() {
    let ui = ScriptedConfirmationUI::new([ConfirmationUIResult::new("confirm")]);
    let hook = ConfirmationHook::new().strategy(
        ToolKey::from(["a", "b"]),
        BlockingConfirmationStrategy::new(AskOncePolicy::new(), ui),
    );
    // ConfirmationHook(...).to_dict() in Haystack 3.4.1, the UI aside (ours is scripted).
    let expected = json!({"type": "haystack.hooks.human_in_the_loop.hooks.ConfirmationHook", "init_parameters": {"confirmation_strategies": {"[\"a\", \"b\"]": {"type": "haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy", "init_parameters": {"confirmation_policy": {"type": "haystack.hooks.human_in_the_loop.policies.AskOncePolicy", "init_parameters": {}}, "confirmation_ui": {"type": "hookharness.hooks.confirmation.ScriptedConfirmationUI", "init_parameters": {"answers": [{"action": "confirm"}]}}, "reject_template": "Tool execution for '{tool_name}' was rejected by the user.", "modify_template": "The parameters for tool '{tool_name}' were updated by the user to:\n{final_tool_params}", "user_feedback_template": "With user feedback: {feedback}"}}}}});
    assert_eq!(hook.to_value(), expected);
    assert_eq!(
        ConfirmationHook::from_value(&expected).unwrap().to_value(),
        expected
    );
}

fn console_scenario(policy: &str, ui: &str) -> hookharness::replay::Outcome {
    let text = format!(
        r#"
name: console
hooks:
  before_tool:
    - name: confirm
      confirmation:
        confirmation_strategies:
          "*":
            type: haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy
            init_parameters:
              confirmation_policy: {{type: haystack.hooks.human_in_the_loop.policies.{policy}}}
              confirmation_ui: {{type: haystack.hooks.human_in_the_loop.user_interfaces.{ui}}}
tools: [{{name: search, results: [found]}}]
model: [{{tool_calls: [{{tool: search}}]}}, {{text: done}}]
run:
  messages: [{{role: user, text: hi}}]
"#
    );
    let scenario = hookharness::scenario::Scenario::from_str(
        &text,
        "console.yaml",
        hookharness::scenario::Format::Yaml,
    )
    .unwrap();
    hookharness::replay::Replay::new().run(&scenario)
}

#[test]
fn a_console_ui_runs_in_a_scenario_only_under_a_policy_that_never_asks() {
    let never = console_scenario("NeverAskPolicy", "SimpleConsoleUI");
    assert_eq!(
        never.status,
        hookharness::replay::Status::Pass,
        "{:?}",
        never.error
    );

    let always = console_scenario("AlwaysAskPolicy", "SimpleConsoleUI");
    let error = always.error.map(|e| e.message).unwrap_or_default();
    assert!(error.contains("asks a person at the console"), "{error}");
    assert!(error.contains("NeverAskPolicy"), "{error}");
    assert!(
        error.contains("hookharness.hooks.confirmation.ScriptedConfirmationUI"),
        "{error}"
    );

    let rich = console_scenario("NeverAskPolicy", "RichConsoleUI");
    let error = rich.error.map(|e| e.message).unwrap_or_default();
    assert!(error.contains("unknown confirmation UI type"), "{error}");
}

#[test]
fn a_simple_console_ui_is_read_from_its_serialized_form() {
    let hook = ConfirmationHook::from_params(&json!({"confirmation_strategies": {"*": {
        "type": "haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy",
        "init_parameters": {
            "confirmation_policy": {"type": "haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy"},
            "confirmation_ui": {"type": "haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI"}
        }}}}))
    .unwrap();
    let value = hook.to_value();
    assert_eq!(
        value["init_parameters"]["confirmation_strategies"]["*"]["init_parameters"]["confirmation_ui"],
        json!({"type": "haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI", "init_parameters": {}})
    );
    let err = ConfirmationHook::from_params(&json!({"confirmation_strategies": {"*": {
        "type": "haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy",
        "init_parameters": {
            "confirmation_policy": {"type": "haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy"},
            "confirmation_ui": {"type": "haystack.hooks.human_in_the_loop.user_interfaces.RichConsoleUI"}
        }}}}))
    .unwrap_err();
    assert!(matches!(err, FromValueError::Format { .. }));
}

#[test]
fn two_id_less_calls_to_the_same_tool_fail_with_haystacks_value_error() {
    let reject_all = BlockingConfirmationStrategy::new(
        hookharness::hooks::confirmation::AlwaysAskPolicy,
        ScriptedConfirmationUI::new([
            ConfirmationUIResult::new("reject"),
            ConfirmationUIResult::new("reject"),
        ]),
    );
    let agent = Agent::builder()
        .chat_generator(model(vec![
            ToolCall::new("t", Map::new()),
            ToolCall::new("t", json!({"x": 1}).as_object().unwrap().clone()),
        ]))
        .tool(tool("t"))
        .hook(
            "before_tool",
            ConfirmationHook::new().strategy("*", reject_all),
        )
        .build()
        .unwrap();
    let err = agent
        .run(vec![ChatMessage::from_user("go")], RunOptions::new())
        .unwrap_err();
    // Haystack 3.4.1, same calls: ValueError from _apply_tool_execution_decisions.
    assert!(
        err.to_string().ends_with(
            "No unused ToolExecutionDecision matches tool call 't' with ID None. \
             Set tool_call_id to match decisions to tool calls reliably."
        ),
        "{err}"
    );
    assert!(matches!(err, AgentError::Hook { .. }));
}

/// A strategy that takes its answers from a per-run channel in `hook_context`.
struct FromContext;

impl ConfirmationStrategy for FromContext {
    fn run(
        &self,
        request: &ConfirmationRequest<'_>,
        context: Option<&HookContext>,
    ) -> Result<ToolExecutionDecision, HookError> {
        let approvals = context
            .and_then(|c| c.get_shared::<Mutex<Vec<bool>>>("approvals"))
            .ok_or("no approvals channel in hook_context")?;
        let approved = approvals.lock().unwrap().remove(0);
        let mut decision =
            ToolExecutionDecision::execute(request.tool_name, request.tool_params.clone());
        decision.execute = approved;
        Ok(decision)
    }
}

#[test]
fn a_strategy_reads_per_run_resources_from_hook_context() {
    let agent = Agent::builder()
        .chat_generator(model(vec![
            ToolCall::new("a", Map::new()).with_id("1"),
            ToolCall::new("b", Map::new()).with_id("2"),
        ]))
        .tool(tool("a"))
        .tool(tool("b"))
        .hook(
            "before_tool",
            ConfirmationHook::new().strategy("*", FromContext),
        )
        .build()
        .unwrap();
    let mut context = HookContext::new();
    context.insert_shared("approvals", Mutex::new(vec![false, true]));
    let output = agent
        .run(
            vec![ChatMessage::from_user("go")],
            RunOptions::new().hook_context(context),
        )
        .unwrap();
    let texts: Vec<String> = output
        .messages
        .iter()
        .map(|m| match m.tool_call_result() {
            Some(r) => format!("tool:{}", r.result.as_text().unwrap()),
            None => format!(
                "{}:{}",
                m.role().as_str(),
                m.tool_calls()
                    .map(|c| c.tool_name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "user:",
            "assistant:a",
            "tool:Tool execution for 'a' was rejected by the user.",
            "assistant:b",
            "tool:ran",
            "assistant:",
        ]
    );
    assert_eq!(output.tool_call_counts(), Some(&json!({"a": 0, "b": 1})));
}
