//! `run` and `run_async` drive one loop: for varied agents they give equal
//! outputs, equal hook timelines and equal errors, and a run repeated on a
//! fresh agent gives the same output again.

mod support;

use hookharness::observe::Event;
use hookharness::scripted::{ModelReply, ScriptedResult, ScriptedTool};
use hookharness::state::{StateSchema, ValueType};
use hookharness::tool::StateOutput;
use hookharness::{
    Agent, AgentError, AgentOutput, ChatMessage, HookPoint, RunOptions, State, ToolSpec, hook_fn,
};
use serde_json::{Map, Value, json};
use support::*;

type Outcome = Result<(Vec<ChatMessage>, Option<ChatMessage>, Map<String, Value>), AgentError>;

fn outcome(result: Result<AgentOutput, AgentError>) -> Outcome {
    result.map(|o| (o.messages, o.last_message, o.data))
}

type Scenario = fn(&Log) -> Agent;

fn tools_and_hooks_everywhere(log: &Log) -> Agent {
    record_everywhere(
        agent([
            call("search", json!({"q": "fusion"})).with_usage(json!({"prompt_tokens": 3})),
            text("done").with_usage(json!({"prompt_tokens": 4, "completion_tokens": 1.5})),
        ])
        .tool(ok_tool("search")),
        log,
    )
    .build()
    .unwrap()
}

fn continue_run_nudge(log: &Log) -> Agent {
    let log = log.clone();
    agent([text("lazy"), text("better")])
        .hook(
            "on_exit",
            hook_fn(move |state: &mut State| {
                log.push(format!("on_exit({})", step(state)));
                if state.step_count() == Some(1) {
                    state
                        .append_messages(vec![ChatMessage::from_user("again")])
                        .unwrap();
                    state.set_continue_run(true);
                }
            }),
        )
        .build()
        .unwrap()
}

fn stop_run_on_second_step(log: &Log) -> Agent {
    record_everywhere(
        agent([call("a", json!({})), text("never")]).tool(ok_tool("a")),
        log,
    )
    .hook(
        "before_llm",
        hook_fn(|state: &mut State| {
            if state.step_count() == Some(1) {
                state.set_stop_run("halt");
            }
        }),
    )
    .build()
    .unwrap()
}

fn errors_and_unknown_tools(log: &Log) -> Agent {
    record_everywhere(
        agent([
            calls(&["a", "ghost", "b", "finish"]),
            call("finish", json!({"x": [1, 2.5, null]})),
        ])
        .tool(ok_tool("a"))
        .tool(failing_tool("b", "boom"))
        .tool(ok_tool("finish"))
        .exit_conditions(["finish", "ghost"]),
        log,
    )
    .build()
    .unwrap()
}

fn failing_hook(log: &Log) -> Agent {
    record_everywhere(
        agent([call("a", json!({})), text("done")]).tool(ok_tool("a")),
        log,
    )
    .hook(
        "after_tool",
        hook_fn(|_: &mut State| Err::<(), _>("refused")).named("guard"),
    )
    .build()
    .unwrap()
}

fn raised_tool_failure(log: &Log) -> Agent {
    record_everywhere(
        agent([call("b", json!({"q": "x"}))])
            .tool(failing_tool("b", "boom"))
            .raise_on_tool_invocation_failure(true),
        log,
    )
    .build()
    .unwrap()
}

fn failing_model(log: &Log) -> Agent {
    record_everywhere(
        agent([call("a", json!({})), ModelReply::error("overloaded")]).tool(ok_tool("a")),
        log,
    )
    .build()
    .unwrap()
}

fn parallel_state_tools(log: &Log) -> Agent {
    let in_flight = InFlight::default();
    let writer = ScriptedTool::new(
        ToolSpec::new("writer").output_to_state(
            "notes",
            StateOutput {
                source: Some("note".into()),
                handler: None,
            },
        ),
        [ScriptedResult::Json(json!({"note": "w"}))],
    )
    .repeat_last(true);
    let reader = hookharness::tool_fn(
        ToolSpec::new("reader").input_from_state("notes", "notes"),
        |args| Ok(Value::Object(args.clone())),
    );
    agent([
        calls(&["reader", "slow", "writer", "fast"]),
        calls(&["writer", "reader"]),
        text("done"),
    ])
    .tool(SleepyTool::new("slow", 20, log, &in_flight))
    .tool(SleepyTool::new("fast", 1, log, &in_flight))
    .tool(writer)
    .tool(reader)
    .state_schema(StateSchema::new().key("notes", ValueType::List))
    .build()
    .unwrap()
}

fn step_limit(log: &Log) -> Agent {
    record_everywhere(
        agent([call("a", json!({})), call("a", json!({})), text("never")]).tool(ok_tool("a")),
        log,
    )
    .max_agent_steps(2)
    .build()
    .unwrap()
}

fn resumed_run(log: &Log) -> Agent {
    record_everywhere(agent([text("done")]), log)
        .max_agent_steps(4)
        .hook(
            "before_run",
            hook_fn(|state: &mut State| {
                state.set("step_count", json!(3)).unwrap();
            }),
        )
        .build()
        .unwrap()
}

const SCENARIOS: [(&str, Scenario); 10] = [
    ("tools_and_hooks_everywhere", tools_and_hooks_everywhere),
    ("continue_run_nudge", continue_run_nudge),
    ("stop_run_on_second_step", stop_run_on_second_step),
    ("errors_and_unknown_tools", errors_and_unknown_tools),
    ("failing_hook", failing_hook),
    ("raised_tool_failure", raised_tool_failure),
    ("failing_model", failing_model),
    ("parallel_state_tools", parallel_state_tools),
    ("step_limit", step_limit),
    ("resumed_run", resumed_run),
];

fn options() -> RunOptions {
    RunOptions::new().context("user", json!("u1"))
}

/// Hook entries only: tool completion order is timing, not behaviour.
fn hook_entries(log: &Log) -> Vec<String> {
    log.entries()
        .into_iter()
        .filter(|e| !e.starts_with("done "))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn run_and_run_async_give_equal_outputs_timelines_and_errors() {
    for (name, scenario) in SCENARIOS {
        let (sync_log, async_log) = (Log::new(), Log::new());
        let sync = outcome(scenario(&sync_log).run(user("go"), options()));
        let run_async = outcome(scenario(&async_log).run_async(user("go"), options()).await);
        assert_eq!(sync, run_async, "{name}");
        assert_eq!(hook_entries(&sync_log), hook_entries(&async_log), "{name}");
    }
}

/// One line per hook event: where, which hook, and its error.
fn hook_events(lines: &mut Vec<String>) -> impl FnMut(&Event<'_>) + Send + '_ {
    move |event| match event {
        Event::HookStarted { point, index, .. } => lines.push(format!("started {point} #{index}")),
        Event::HookFinished {
            point,
            index,
            error,
            ..
        } => lines.push(format!("finished {point} #{index} {error:?}")),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_observer_sees_the_same_hook_events_on_both_paths() {
    let mut hooks_seen = 0;
    for (name, scenario) in SCENARIOS {
        let (mut sync_events, mut async_events) = (Vec::new(), Vec::new());
        let sync = outcome(scenario(&Log::new()).run_observed(
            user("go"),
            options(),
            &mut hook_events(&mut sync_events),
        ));
        let run_async = outcome(
            scenario(&Log::new())
                .run_async_observed(user("go"), options(), &mut hook_events(&mut async_events))
                .await,
        );
        assert_eq!(sync, run_async, "{name}");
        assert_eq!(sync_events, async_events, "{name}");
        // Every hook that started is seen finishing (or failing).
        let started = sync_events
            .iter()
            .filter(|e| e.starts_with("started"))
            .count();
        let finished = sync_events
            .iter()
            .filter(|e| e.starts_with("finished"))
            .count();
        assert_eq!(started, finished, "{name}: {sync_events:?}");
        hooks_seen += started;
    }
    assert!(hooks_seen > 0);
}

#[test]
fn the_same_run_twice_gives_equal_outputs() {
    for (name, scenario) in SCENARIOS {
        let (first_log, second_log) = (Log::new(), Log::new());
        let first = outcome(scenario(&first_log).run(user("go"), options()));
        let second = outcome(scenario(&second_log).run(user("go"), options()));
        assert_eq!(first, second, "{name}");
        assert_eq!(
            hook_entries(&first_log),
            hook_entries(&second_log),
            "{name}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_async_run_twice_gives_equal_outputs() {
    for (name, scenario) in SCENARIOS {
        let first = outcome(scenario(&Log::new()).run_async(user("go"), options()).await);
        let second = outcome(scenario(&Log::new()).run_async(user("go"), options()).await);
        assert_eq!(first, second, "{name}");
    }
}

#[test]
fn the_scenarios_cover_every_hook_point_and_several_endings() {
    // Guards the comparison above against silently testing nothing.
    let mut reasons = Vec::new();
    let mut failures = 0;
    for (_, scenario) in SCENARIOS {
        match scenario(&Log::new()).run(user("go"), options()) {
            Ok(output) => reasons.push(output.exit_reason().unwrap().to_owned()),
            Err(_) => failures += 1,
        }
    }
    reasons.sort();
    reasons.dedup();
    assert_eq!(reasons, ["finish", "halt", "max_agent_steps", "text"]);
    assert_eq!(failures, 3);
    let log = Log::new();
    tools_and_hooks_everywhere(&log)
        .run(user("go"), options())
        .unwrap();
    for point in HookPoint::ALL {
        assert!(log.count(point.as_str()) > 0, "{point}");
    }
}
