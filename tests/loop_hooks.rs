//! Hooks: the worked timelines, construction errors, order, lifecycle,
//! sync/async function hooks, failures and the observer's events.

mod support;

use hookharness::scripted::ModelReply;
use hookharness::state::{StateSchema, ValueType};
use hookharness::{
    Agent, AgentError, ChatGenerator, ChatMessage, ChatRequest, Event, FunctionHook,
    GeneratorError, Hook, HookError, HookPoint, RunOptions, State, async_hook_fn, hook_fn,
};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::*;

// ---- worked timelines (reference §7) ---------------------------------------

#[test]
fn a_tool_step_then_text_runs_the_hooks_in_the_documented_order() {
    let log = Log::new();
    let agent = record_everywhere(
        agent([call("search", json!({"query": "fusion"})), text("done")]).tool(ok_tool("search")),
        &log,
    )
    .build()
    .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(log.entries(), TOOL_STEP_THEN_TEXT);
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn an_empty_reply_then_text_runs_the_same_timeline_as_a_tool_step() {
    let log = Log::new();
    let agent = record_everywhere(
        agent([ModelReply::empty(), text("done")]).tool(ok_tool("search")),
        &log,
    )
    .build()
    .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(log.entries(), TOOL_STEP_THEN_TEXT);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn max_agent_steps_of_two_with_endless_tool_calls_runs_two_full_steps() {
    let log = Log::new();
    let model = model([call("search", json!({})), call("search", json!({}))]);
    let agent = record_everywhere(agent_with(&model).tool(ok_tool("search")), &log)
        .max_agent_steps(2)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        log.entries(),
        [
            "before_run(0)",
            "before_llm(0)",
            "before_tool(0)",
            "after_tool(0)",
            "before_llm(1)",
            "before_tool(1)",
            "after_tool(1)",
            "after_run(2)"
        ]
    );
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("max_agent_steps"));
    assert_eq!(output.step_count(), Some(2));
}

#[test]
fn stop_run_in_before_run_gives_a_timeline_without_an_llm_call() {
    let log = Log::new();
    let model = model([text("never")]);
    let stop = hook_fn(|state: &mut State| state.set_stop_run("halt"));
    let agent = record_everywhere(agent_with(&model).hook("before_run", stop), &log)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        log.entries(),
        ["before_run(0)", "before_llm(0)", "after_run(0)"]
    );
    assert_eq!(model.calls(), 0);
    assert_eq!(output.step_count(), Some(0));
    assert_eq!(output.exit_reason(), Some("halt"));
}

// ---- construction errors ---------------------------------------------------

fn build_error(builder: hookharness::AgentBuilder) -> String {
    builder.build().unwrap_err().to_string()
}

#[test]
fn an_unknown_hook_point_is_rejected_with_haystacks_wording() {
    let error = build_error(agent([]).hook("before_lm", hook_fn(|_: &mut State| ())));
    assert_eq!(
        error,
        "Invalid hook point 'before_lm'. Valid hook points are: before_run, before_llm, before_tool, after_tool, on_exit, after_run."
    );
}

struct OnlyToolHooks;

impl Hook for OnlyToolHooks {
    fn run(&self, _state: &mut State) -> Result<(), HookError> {
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeTool, HookPoint::AfterTool])
    }
}

#[test]
fn a_hook_outside_its_allowed_hook_points_is_rejected_with_haystacks_wording() {
    let error = build_error(agent([]).hook("on_exit", OnlyToolHooks));
    assert_eq!(
        error,
        "Hook of type 'OnlyToolHooks' is registered under hook point 'on_exit' but only supports: before_tool, after_tool."
    );
    assert!(agent([]).hook("after_tool", OnlyToolHooks).build().is_ok());
}

#[test]
fn reserved_state_schema_keys_are_listed_sorted() {
    let schema = StateSchema::new()
        .key("tools", ValueType::List)
        .key("notes", ValueType::List)
        .key("step_count", ValueType::Int)
        .key("continue_run", ValueType::Bool);
    let error = build_error(agent([]).state_schema(schema));
    assert_eq!(
        error,
        "state_schema keys ['continue_run', 'step_count', 'tools'] are reserved for Agent internal state and cannot be redefined. Reserved keys: ['context_tokens', 'continue_run', 'exit_reason', 'hook_context', 'step_count', 'stop_run', 'token_usage', 'tool_call_counts', 'tools']."
    );
}

#[test]
fn messages_is_not_reserved_but_must_hold_chat_messages() {
    let ok = StateSchema::new().key("messages", ValueType::ChatMessages);
    assert!(agent([]).state_schema(ok).build().is_ok());
    for (ty, shown) in [
        (ValueType::List, "<class 'list'>"),
        (ValueType::Int, "<class 'int'>"),
    ] {
        let schema = StateSchema::new().key("messages", ty);
        assert_eq!(
            build_error(agent([]).state_schema(schema)),
            format!("StateSchema: 'messages' must be of type list[ChatMessage], got {shown}")
        );
    }
}

#[test]
fn a_tool_concurrency_limit_below_one_is_rejected_with_haystacks_wording() {
    for limit in [0, -1] {
        assert_eq!(
            build_error(agent([]).tool_concurrency_limit(limit)),
            "tool_concurrency_limit must be greater than or equal to 1."
        );
    }
    assert!(agent([]).tool_concurrency_limit(1).build().is_ok());
}

#[test]
fn construction_checks_run_in_haystacks_order() {
    // reserved keys (3) before the concurrency limit (5) before hooks (6)
    let reserved = StateSchema::new().key("stop_run", ValueType::Str);
    let error = build_error(
        agent([])
            .state_schema(reserved)
            .tool_concurrency_limit(0)
            .hook("nowhere", hook_fn(|_: &mut State| ())),
    );
    assert!(
        error.starts_with("state_schema keys ['stop_run']"),
        "{error}"
    );
    let error = build_error(
        agent([])
            .tool_concurrency_limit(0)
            .hook("nowhere", hook_fn(|_: &mut State| ())),
    );
    assert_eq!(
        error,
        "tool_concurrency_limit must be greater than or equal to 1."
    );
}

struct NoTools;

impl ChatGenerator for NoTools {
    fn run(&self, _request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        Ok(vec![ChatMessage::from_assistant("x")])
    }

    fn supports_tools(&self) -> bool {
        false
    }
}

#[test]
fn tools_given_to_a_generator_without_tool_support_are_rejected() {
    let error = build_error(Agent::builder().chat_generator(NoTools).tool(ok_tool("a")));
    assert_eq!(
        error,
        "NoTools does not accept tools parameter in its run method. The Agent component requires a chat generator that supports tools when tools are provided."
    );
    assert!(Agent::builder().chat_generator(NoTools).build().is_ok());
}

// ---- order and lifecycle ---------------------------------------------------

#[test]
fn hooks_at_one_point_run_in_registration_order() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", labelled(&log, "c"))
        .hook("on_exit", labelled(&log, "exit"))
        .hook("before_llm", labelled(&log, "a"))
        .hook("before_llm", labelled(&log, "b"))
        .build()
        .unwrap();
    run(&agent).unwrap();
    assert_eq!(log.entries(), ["c(0)", "a(0)", "b(0)", "exit(1)"]);
}

#[derive(Default)]
struct Lifecycle {
    warm_ups: AtomicUsize,
    async_warm_ups: AtomicUsize,
    runs: AtomicUsize,
    closes: AtomicUsize,
}

impl Hook for Lifecycle {
    fn run(&self, _state: &mut State) -> Result<(), HookError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn warm_up(&self) -> Result<(), HookError> {
        self.warm_ups.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn warm_up_async(&self) -> hookharness::HookFuture<'_> {
        self.async_warm_ups.fetch_add(1, Ordering::SeqCst);
        hookharness::HookFuture::new(async { Ok(()) })
    }

    fn close(&self) -> Result<(), HookError> {
        self.closes.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[test]
fn a_hook_shared_across_points_warms_up_once_per_run_and_on_every_run() {
    let shared_hook = Arc::new(Lifecycle::default());
    let other = Arc::new(Lifecycle::default());
    let agent = agent([text("one"), text("two")])
        .hook_arc("before_llm", shared_hook.clone())
        .hook_arc("on_exit", shared_hook.clone())
        .hook_arc("after_run", shared_hook.clone())
        .hook_arc("after_run", other.clone())
        .build()
        .unwrap();
    assert_eq!(shared_hook.warm_ups.load(Ordering::SeqCst), 0);
    run(&agent).unwrap();
    assert_eq!(shared_hook.warm_ups.load(Ordering::SeqCst), 1);
    assert_eq!(shared_hook.runs.load(Ordering::SeqCst), 3);
    assert_eq!(other.warm_ups.load(Ordering::SeqCst), 1);
    run(&agent).unwrap();
    assert_eq!(shared_hook.warm_ups.load(Ordering::SeqCst), 2);
    assert_eq!(other.warm_ups.load(Ordering::SeqCst), 2);
    assert_eq!(shared_hook.closes.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_async_run_warms_each_distinct_hook_up_once_through_warm_up_async() {
    let shared_hook = Arc::new(Lifecycle::default());
    let agent = agent([text("one")])
        .hook_arc("before_llm", shared_hook.clone())
        .hook_arc("after_run", shared_hook.clone())
        .build()
        .unwrap();
    agent
        .run_async(user("go"), RunOptions::new())
        .await
        .unwrap();
    assert_eq!(shared_hook.async_warm_ups.load(Ordering::SeqCst), 1);
    assert_eq!(shared_hook.warm_ups.load(Ordering::SeqCst), 0);
}

#[test]
fn close_is_never_called_by_a_run_and_agent_close_closes_each_distinct_hook_once() {
    let shared_hook = Arc::new(Lifecycle::default());
    let agent = agent([text("one")])
        .hook_arc("before_llm", shared_hook.clone())
        .hook_arc("after_run", shared_hook.clone())
        .build()
        .unwrap();
    run(&agent).unwrap();
    assert_eq!(shared_hook.closes.load(Ordering::SeqCst), 0);
    agent.close().unwrap();
    assert_eq!(shared_hook.closes.load(Ordering::SeqCst), 1);
}

// ---- sync and async function hooks -----------------------------------------

const ASYNC_ONLY: &str = "This FunctionHook only has an `async_function` and cannot run in a synchronous Agent run. Use the Agent's async run methods, or provide a synchronous `function`.";

fn async_only(log: &Log) -> FunctionHook {
    let log = log.clone();
    async_hook_fn(move |state| {
        let log = log.clone();
        Box::pin(async move {
            log.push(format!("async({})", step(state)));
            Ok(())
        })
    })
    .named("async_only")
}

#[test]
fn an_async_only_function_hook_fails_a_sync_run_with_haystacks_runtime_error_text() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", async_only(&log))
        .build()
        .unwrap();
    match run(&agent).unwrap_err() {
        AgentError::Hook {
            hook,
            point,
            step,
            message,
            panicked,
        } => {
            assert_eq!(hook, "async_only");
            assert_eq!(point, HookPoint::BeforeLlm);
            assert_eq!(step, 0);
            assert_eq!(message, ASYNC_ONLY);
            assert!(!panicked);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(log.entries().is_empty());
}

#[tokio::test]
async fn an_async_only_function_hook_runs_in_run_async() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", async_only(&log))
        .build()
        .unwrap();
    let output = agent
        .run_async(user("go"), RunOptions::new())
        .await
        .unwrap();
    assert_eq!(log.entries(), ["async(0)"]);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[tokio::test]
async fn a_function_hook_with_both_functions_uses_the_one_of_the_path() {
    let log = Log::new();
    let (sync_log, async_log) = (log.clone(), log.clone());
    let both = FunctionHook::from_fn(move |_: &mut State| sync_log.push("sync")).with_async(
        move |_state| {
            let log = async_log.clone();
            Box::pin(async move {
                log.push("async");
                Ok(())
            })
        },
    );
    let agent = agent([text("a"), text("b")])
        .hook("before_llm", both)
        .build()
        .unwrap();
    run(&agent).unwrap();
    agent
        .run_async(user("go"), RunOptions::new())
        .await
        .unwrap();
    assert_eq!(log.entries(), ["sync", "async"]);
}

#[tokio::test]
async fn a_sync_only_hook_runs_on_the_async_path() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", recorder(&log, HookPoint::BeforeLlm))
        .build()
        .unwrap();
    agent
        .run_async(user("go"), RunOptions::new())
        .await
        .unwrap();
    assert_eq!(log.entries(), ["before_llm(0)"]);
}

// ---- failures --------------------------------------------------------------

#[test]
fn a_hook_error_fails_the_run_naming_the_hook_the_point_and_the_step() {
    let log = Log::new();
    let agent = agent([call("search", json!({})), text("done")])
        .tool(ok_tool("search"))
        .hook(
            "after_tool",
            hook_fn(|_: &mut State| Err::<(), _>("too many calls")).named("guard"),
        )
        .hook("on_exit", labelled(&log, "on_exit"))
        .build()
        .unwrap();
    let error = run(&agent).unwrap_err();
    assert_eq!(
        error,
        AgentError::Hook {
            hook: "guard".into(),
            point: HookPoint::AfterTool,
            step: 0,
            message: "too many calls".into(),
            panicked: false,
        }
    );
    assert_eq!(
        error.to_string(),
        "hook `guard` failed at after_tool (step 0): too many calls"
    );
    assert!(log.entries().is_empty());
}

#[test]
fn a_failing_hook_stops_the_hooks_after_it_at_the_same_point() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", labelled(&log, "first"))
        .hook("before_llm", hook_fn(|_: &mut State| Err::<(), _>("no")))
        .hook("before_llm", labelled(&log, "third"))
        .build()
        .unwrap();
    assert!(run(&agent).is_err());
    assert_eq!(log.entries(), ["first(0)"]);
}

#[test]
fn a_panicking_hook_is_reported_as_that_hooks_failure() {
    let agent = agent([text("done")])
        .hook(
            "on_exit",
            hook_fn(|_: &mut State| -> () { panic!("boom") }).named("fragile"),
        )
        .build()
        .unwrap();
    match run(&agent).unwrap_err() {
        AgentError::Hook {
            hook,
            point,
            step,
            message,
            panicked,
        } => {
            assert_eq!(hook, "fragile");
            assert_eq!(point, HookPoint::OnExit);
            assert_eq!(step, 1);
            assert!(message.contains("boom"), "{message}");
            assert!(panicked);
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// The hook, point and message of a run that failed because a hook panicked.
fn panicked_hook(error: AgentError) -> (String, HookPoint, String) {
    match error {
        AgentError::Hook {
            hook,
            point,
            message,
            panicked: true,
            ..
        } => (hook, point, message),
        other => panic!("expected a panicking hook's error, got {other:?}"),
    }
}

#[test]
fn a_panic_among_several_hooks_names_the_hook_that_panicked_and_stops_the_rest() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", labelled(&log, "first"))
        .hook(
            "before_llm",
            hook_fn(|_: &mut State| -> () { panic!("boom") }).named("second"),
        )
        .hook("before_llm", labelled(&log, "third"))
        .build()
        .unwrap();
    let (hook, point, _) = panicked_hook(run(&agent).unwrap_err());
    assert_eq!((hook.as_str(), point), ("second", HookPoint::BeforeLlm));
    assert_eq!(log.entries(), ["first(0)"]);
}

#[tokio::test]
async fn a_panicking_hook_is_reported_on_the_async_path_too() {
    let agent = agent([text("done")])
        .hook(
            "before_run",
            hook_fn(|_: &mut State| -> () { panic!("boom") }).named("fragile"),
        )
        .build()
        .unwrap();
    let error = agent
        .run_async(user("go"), RunOptions::new())
        .await
        .unwrap_err();
    let (hook, point, _) = panicked_hook(error);
    assert_eq!((hook.as_str(), point), ("fragile", HookPoint::BeforeRun));
}

#[tokio::test]
async fn a_panic_among_several_sync_hooks_on_the_async_path_names_the_hook_and_stops_the_rest() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_llm", labelled(&log, "first"))
        .hook(
            "before_llm",
            hook_fn(|_: &mut State| -> () { panic!("boom") }).named("second"),
        )
        .hook("before_llm", labelled(&log, "third"))
        .build()
        .unwrap();
    let error = agent.run_async(user("go"), RunOptions::new()).await;
    let (hook, point, message) = panicked_hook(error.unwrap_err());
    assert_eq!((hook.as_str(), point), ("second", HookPoint::BeforeLlm));
    assert!(message.contains("boom"), "{message}");
    assert_eq!(log.entries(), ["first(0)"]);
}

#[tokio::test]
async fn an_async_hook_that_panics_while_awaited_is_reported_with_its_name() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook(
            "before_llm",
            async_hook_fn(|_| {
                Box::pin(async {
                    tokio::task::yield_now().await;
                    panic!("late")
                })
            })
            .named("slow"),
        )
        .hook("before_llm", labelled(&log, "after"))
        .build()
        .unwrap();
    let error = agent.run_async(user("go"), RunOptions::new()).await;
    let (hook, point, message) = panicked_hook(error.unwrap_err());
    assert_eq!((hook.as_str(), point), ("slow", HookPoint::BeforeLlm));
    assert!(message.contains("late"), "{message}");
    assert!(log.entries().is_empty());
}

// ---- hooks act on the live state -------------------------------------------

#[test]
fn a_before_tool_hook_can_rewrite_the_pending_call_arguments() {
    let seen = Log::new();
    let tool_log = seen.clone();
    let tool = hookharness::tool_fn(hookharness::ToolSpec::new("search"), move |args| {
        tool_log.push(serde_json::Value::Object(args.clone()).to_string());
        Ok(json!("ok"))
    });
    let agent = agent([call("search", json!({"q": "old"})), text("done")])
        .tool(tool)
        .hook(
            "before_tool",
            hook_fn(|state: &mut State| {
                let last = state.messages_mut().last_mut().unwrap();
                for call in last.tool_calls_mut() {
                    call.arguments.insert("q".into(), json!("new"));
                }
            }),
        )
        .build()
        .unwrap();
    run(&agent).unwrap();
    assert_eq!(seen.entries(), [r#"{"q":"new"}"#]);
}

// ---- the observer ----------------------------------------------------------

fn describe(event: &Event<'_>) -> String {
    match event {
        Event::RunStarted { .. } => "run_started".into(),
        Event::HookStarted { point, index, .. } => format!("hook_started {point} #{index}"),
        Event::HookFinished {
            point,
            index,
            error,
            ..
        } => format!("hook_finished {point} #{index} error={error:?}"),
        Event::LlmStarted { messages, .. } => format!("llm_started {}", messages.len()),
        Event::LlmFinished { replies, .. } => format!("llm_finished {}", replies.len()),
        Event::LlmFailed { error, .. } => format!("llm_failed {error}"),
        Event::ToolFinished { call, error, .. } => {
            format!("tool_finished {} error={error}", call.tool_name)
        }
        Event::Exit {
            reason, continues, ..
        } => format!("exit {reason} continues={continues}"),
        Event::Stopped { reason, .. } => format!("stopped {reason}"),
        Event::ToolsFinished { state } => {
            format!("tools_finished {}", state.messages().len())
        }
        Event::MaxStepsReached { .. } => "max_steps_reached".into(),
        Event::RunFinished { .. } => "run_finished".into(),
        _ => "other".into(),
    }
}

#[test]
fn the_observer_sees_hooks_llm_calls_tools_and_exits_in_order() {
    let agent = agent([calls(&["search", "fail"]), text("done")])
        .tool(ok_tool("search"))
        .tool(failing_tool("fail", "boom"))
        .hook("before_llm", hook_fn(|_: &mut State| ()))
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                if state.step_count() == Some(2) {
                    state.set_continue_run(false);
                }
            }),
        )
        .build()
        .unwrap();
    let mut events = Vec::new();
    let mut observer = |event: &Event<'_>| events.push(describe(event));
    agent
        .run_observed(user("go"), RunOptions::new(), &mut observer)
        .unwrap();
    assert_eq!(
        events,
        [
            "run_started",
            "hook_started before_llm #0",
            "hook_finished before_llm #0 error=None",
            "llm_started 1",
            "llm_finished 1",
            "tool_finished search error=false",
            "tool_finished fail error=true",
            "tools_finished 4",
            "hook_started before_llm #0",
            "hook_finished before_llm #0 error=None",
            "llm_started 4",
            "llm_finished 1",
            "hook_started on_exit #0",
            "hook_finished on_exit #0 error=None",
            "exit \"text\" continues=false",
            "run_finished",
        ]
    );
}

#[test]
fn the_observer_sees_a_stop_a_step_limit_and_a_failing_hook() {
    let mut events = Vec::new();
    let stop = agent([])
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| state.set_stop_run("halt")),
        )
        .build()
        .unwrap();
    let mut observer = |event: &Event<'_>| events.push(describe(event));
    stop.run_observed(user("go"), RunOptions::new(), &mut observer)
        .unwrap();
    assert!(
        events.contains(&"stopped \"halt\"".to_string()),
        "{events:?}"
    );

    let mut events = Vec::new();
    let limit = agent([]).max_agent_steps(0).build().unwrap();
    let mut observer = |event: &Event<'_>| events.push(describe(event));
    limit
        .run_observed(user("go"), RunOptions::new(), &mut observer)
        .unwrap();
    assert_eq!(events, ["run_started", "max_steps_reached", "run_finished"]);

    let mut events = Vec::new();
    let failing = agent([])
        .hook("before_run", hook_fn(|_: &mut State| Err::<(), _>("nope")))
        .build()
        .unwrap();
    let mut observer = |event: &Event<'_>| events.push(describe(event));
    assert!(
        failing
            .run_observed(user("go"), RunOptions::new(), &mut observer)
            .is_err()
    );
    assert_eq!(
        events,
        [
            "run_started",
            "hook_started before_run #0",
            "hook_finished before_run #0 error=Some(\"nope\")"
        ]
    );
}

// ---- more construction and lifecycle rules ---------------------------------

#[test]
fn duplicate_tool_names_fail_the_first_step_after_before_run_with_haystacks_wording() {
    let log = Log::default();
    let agent = record_everywhere(
        agent([])
            .tool(ok_tool("a"))
            .tool(ok_tool("b"))
            .tool(ok_tool("a")),
        &log,
    )
    .build()
    .expect("Haystack checks tool names at each step, not at construction");
    let error = run(&agent).unwrap_err().to_string();
    assert_eq!(error, "Duplicate tool names found: {'a'}");
    assert_eq!(log.entries(), ["before_run(0)"]);
}

struct WarmTool {
    spec: hookharness::ToolSpec,
    log: Log,
}

impl hookharness::Tool for WarmTool {
    fn spec(&self) -> &hookharness::ToolSpec {
        &self.spec
    }

    fn invoke(
        &self,
        _invocation: hookharness::ToolInvocation<'_>,
    ) -> Result<serde_json::Value, hookharness::ToolError> {
        Ok(json!("ok"))
    }

    fn warm_up(&self) -> Result<(), hookharness::ToolError> {
        self.log.push("tool");
        Ok(())
    }
}

struct WarmHook(Log);

impl Hook for WarmHook {
    fn run(&self, _state: &mut State) -> Result<(), HookError> {
        Ok(())
    }

    fn warm_up(&self) -> Result<(), HookError> {
        self.0.push("hook");
        Ok(())
    }
}

/// A hook whose warm-up fails.
struct ColdHook;

impl Hook for ColdHook {
    fn run(&self, _state: &mut State) -> Result<(), HookError> {
        Ok(())
    }

    fn warm_up(&self) -> Result<(), HookError> {
        Err(HookError::new("no connection"))
    }
}

#[test]
fn a_failed_hook_warm_up_fails_the_run_naming_that_hook() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("before_run", ColdHook)
        .hook("after_run", WarmHook(log.clone()))
        .build()
        .unwrap();
    assert_eq!(
        run(&agent).unwrap_err(),
        AgentError::WarmUp {
            what: "hook `ColdHook`".into(),
            message: "no connection".into()
        }
    );
}

struct WarmGenerator(Log);

impl ChatGenerator for WarmGenerator {
    fn run(&self, _request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        self.0.push("llm");
        Ok(vec![ChatMessage::from_assistant("done")])
    }

    fn warm_up(&self) -> Result<(), GeneratorError> {
        self.0.push("generator");
        Ok(())
    }
}

#[test]
fn every_run_warms_up_tools_then_hooks_then_the_generator() {
    let log = Log::new();
    let agent = Agent::builder()
        .chat_generator(WarmGenerator(log.clone()))
        .tool(WarmTool {
            spec: hookharness::ToolSpec::new("a"),
            log: log.clone(),
        })
        .hook("after_run", WarmHook(log.clone()))
        .build()
        .unwrap();
    assert!(log.entries().is_empty());
    run(&agent).unwrap();
    run(&agent).unwrap();
    assert_eq!(
        log.entries(),
        [
            "tool",
            "hook",
            "generator",
            "llm",
            "tool",
            "hook",
            "generator",
            "llm"
        ]
    );
}

#[test]
fn a_run_state_key_outside_the_schema_is_rejected() {
    // Haystack ignores such kwargs silently; RunOptions::state is explicit,
    // so a typo fails loudly instead.
    let agent = agent([text("done")]).build().unwrap();
    let error = agent
        .run(user("go"), RunOptions::new().state("notez", json!(1)))
        .unwrap_err();
    assert_eq!(
        error,
        AgentError::UnknownRunStateKey {
            key: "notez".into()
        }
    );
}
