//! Tool execution inside a step: unknown tools, failures, counts, pending
//! calls after `before_tool`, State inputs and outputs, batching, order,
//! concurrency, live State, and the rendering of results.

mod support;

use hookharness::scripted::{ScriptedResult, ScriptedTool};
use hookharness::state::{Handler, StateSchema, ValueType};
use hookharness::tool::{OutputsToString, StateOutput};
use hookharness::{
    Agent, AgentError, ChatMessage, RunOptions, State, Tool, ToolError, ToolInvocation, ToolSpec,
    hook_fn, tool_fn,
};
use serde_json::{Value, json};
use support::*;

fn fixture_texts(kind: &str) -> Vec<(Value, String)> {
    let texts: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/haystack/texts.json"
    )))
    .unwrap();
    texts
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == kind)
        .map(|t| (t["input"].clone(), t["output"].as_str().unwrap().to_owned()))
        .collect()
}

// ---- unknown tools and failures --------------------------------------------

#[test]
fn not_found_messages_come_first_with_haystacks_text() {
    let agent = agent([calls(&["a", "ghost", "b"]), text("done")])
        .tool(ok_tool("a"))
        .tool(ok_tool("b"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        tool_results(&output.messages),
        [
            (
                "ghost".into(),
                "Tool 'ghost' not found. Available tools: a, b".into(),
                true
            ),
            ("a".into(), "ok".into(), false),
            ("b".into(), "ok".into(), false),
        ]
    );
}

#[test]
fn not_found_texts_match_haystack_fixtures() {
    let cases = fixture_texts("tool_not_found");
    assert!(!cases.is_empty());
    for (input, expected) in cases {
        let name = input["call"].as_str().unwrap();
        let mut builder = agent([call(name, json!({})), text("done")]);
        for tool in input["tools"].as_array().unwrap() {
            builder = builder.tool(ok_tool(tool.as_str().unwrap()));
        }
        let output = run(&builder.build().unwrap()).unwrap();
        assert_eq!(
            tool_results(&output.messages),
            [(name.to_owned(), expected, true)]
        );
    }
}

#[test]
fn an_unknown_tool_fails_the_run_before_any_tool_runs_with_raise_on_tool_invocation_failure() {
    let a = shared(ok_tool("a"));
    let agent = agent([calls(&["a", "ghost"])])
        .tool_arc(a.clone())
        .raise_on_tool_invocation_failure(true)
        .build()
        .unwrap();
    assert_eq!(
        run(&agent).unwrap_err(),
        AgentError::ToolNotFound {
            message: "Tool 'ghost' not found. Available tools: a".into()
        }
    );
    assert_eq!(a.calls(), 0);
}

#[test]
fn a_failing_tool_gives_haystacks_error_message_with_python_repr_arguments() {
    let cases = fixture_texts("tool_error");
    assert!(!cases.is_empty());
    for (input, expected) in cases {
        let error = input["error"].as_str().unwrap();
        let agent = agent([call("search", input["arguments"].clone()), text("done")])
            .tool(failing_tool("search", error))
            .build()
            .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(
            tool_results(&output.messages),
            [("search".to_owned(), expected, true)]
        );
    }
}

#[test]
fn a_failing_tool_fails_the_run_with_raise_on_tool_invocation_failure() {
    let (input, expected) = fixture_texts("tool_error").remove(2);
    let agent = agent([call("search", input["arguments"].clone())])
        .tool(failing_tool("search", input["error"].as_str().unwrap()))
        .raise_on_tool_invocation_failure(true)
        .build()
        .unwrap();
    assert_eq!(
        run(&agent).unwrap_err(),
        AgentError::ToolInvocation { message: expected }
    );
}

#[test]
fn the_error_message_shows_arguments_filled_from_state() {
    let tool = ScriptedTool::new(
        ToolSpec::new("r").input_from_state("doc", "document"),
        [ScriptedResult::Error("boom".into())],
    );
    let agent = agent([call("r", json!({"q": "x"})), text("done")])
        .tool(tool)
        .state_schema(StateSchema::new().key("doc", ValueType::Str))
        .build()
        .unwrap();
    let output = agent
        .run(user("go"), RunOptions::new().state("doc", json!("hello")))
        .unwrap();
    assert_eq!(
        tool_results(&output.messages)[0].1,
        "Failed to invoke Tool `r` with parameters {'q': 'x', 'document': 'hello'}. Error: boom"
    );
}

#[test]
fn a_tool_whose_script_runs_out_stops_the_run_whatever_the_failure_setting() {
    let tool = shared(ScriptedTool::new(
        ToolSpec::new("a"),
        [ScriptedResult::Text("ok".into())],
    ));
    let agent = agent([calls(&["a", "a"])])
        .tool_arc(tool.clone())
        .build()
        .unwrap();
    assert!(matches!(
        run(&agent).unwrap_err(),
        AgentError::ToolFatal { .. }
    ));
    // The batch is checked against the script before any of its calls runs.
    assert_eq!(tool.calls(), 0);
}

#[test]
fn a_single_call_past_the_script_fails_before_the_tool_runs() {
    let tool = shared(ScriptedTool::new(
        ToolSpec::new("a"),
        [ScriptedResult::Text("ok".into())],
    ));
    let agent = agent([call("a", json!({})), call("a", json!({}))])
        .tool_arc(tool.clone())
        .build()
        .unwrap();
    assert!(matches!(
        run(&agent).unwrap_err(),
        AgentError::ToolFatal { .. }
    ));
    assert_eq!(tool.calls(), 1);
}

// ---- tool_call_counts ------------------------------------------------------

#[test]
fn tool_call_counts_count_errored_and_unknown_calls_and_add_keys() {
    let agent = agent([calls(&["a", "b", "ghost", "a"]), text("done")])
        .tool(ok_tool("a"))
        .tool(failing_tool("b", "boom"))
        .tool(ok_tool("unused"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    let counts = output.tool_call_counts().unwrap();
    assert_eq!(counts.to_string(), r#"{"a":2,"b":1,"unused":0,"ghost":1}"#);
}

fn keep_only(tools: &'static [&'static str]) -> impl hookharness::Hook {
    hook_fn(move |state: &mut State| {
        let mut last = state.messages_mut().pop().unwrap();
        last.content_mut().retain(|part| match part {
            hookharness::ContentPart::ToolCall(call) => tools.contains(&call.tool_name.as_str()),
            _ => true,
        });
        if !last.has_tool_calls() {
            last = ChatMessage::from_assistant("calls withdrawn");
        }
        state.append_messages(vec![last]).unwrap();
    })
}

#[test]
fn a_before_tool_hook_that_removes_the_pending_calls_runs_no_tool() {
    let log = Log::new();
    let a = shared(ok_tool("a"));
    let model = model([call("a", json!({})), text("done")]);
    let agent = agent_with(&model)
        .tool_arc(a.clone())
        .exit_conditions(["a"])
        .hook("before_tool", keep_only(&[]))
        .hook("after_tool", labelled(&log, "after_tool"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(a.calls(), 0);
    assert_eq!(output.tool_call_counts(), Some(&json!({"a": 0})));
    assert_eq!(log.entries(), ["after_tool(0)"]);
    assert_eq!(model.calls(), 2);
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn calls_removed_by_a_before_tool_hook_are_not_counted_and_cannot_exit() {
    let model = model([calls(&["finish", "a"]), text("done")]);
    let agent = agent_with(&model)
        .tool(ok_tool("a"))
        .tool(ok_tool("finish"))
        .exit_conditions(["finish"])
        .hook("before_tool", keep_only(&["a"]))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        output.tool_call_counts(),
        Some(&json!({"a": 1, "finish": 0}))
    );
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn only_the_last_message_calls_run_when_one_llm_result_has_two_replies() {
    let a = shared(ok_tool("a"));
    let b = shared(ok_tool("b"));
    let model = batches(vec![
        vec![assistant_calls(None, &["a"]), assistant_calls(None, &["b"])],
        vec![ChatMessage::from_assistant("done")],
    ]);
    let agent = Agent::builder()
        .chat_generator(model)
        .tool_arc(a.clone())
        .tool_arc(b.clone())
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!((a.calls(), b.calls()), (0, 1));
    assert_eq!(output.tool_call_counts(), Some(&json!({"a": 0, "b": 1})));
    // Both replies are in the history; the first call stays unanswered.
    assert_eq!(output.messages.len(), 5);
    assert_eq!(tool_results(&output.messages).len(), 1);
}

#[test]
fn an_empty_reply_list_re_reads_the_pending_calls_of_the_incoming_history() {
    let a = shared(ok_tool("a"));
    let agent = Agent::builder()
        .chat_generator(batches(vec![
            vec![],
            vec![ChatMessage::from_assistant("done")],
        ]))
        .tool_arc(a.clone())
        .build()
        .unwrap();
    let history = vec![ChatMessage::from_user("go"), assistant_calls(None, &["a"])];
    let output = agent.run(history, RunOptions::new()).unwrap();
    assert_eq!(a.calls(), 1);
    assert_eq!(output.tool_call_counts(), Some(&json!({"a": 1})));
}

// ---- inputs_from_state and outputs_to_state --------------------------------

fn echo_arguments(spec: ToolSpec) -> impl Tool {
    tool_fn(spec, |args| Ok(Value::Object(args.clone())))
}

#[test]
fn inputs_from_state_fill_parameters_the_model_left_out() {
    let spec = ToolSpec::new("read").input_from_state("doc", "document");
    let agent = agent([
        call("read", json!({"q": 1})),
        call("read", json!({"document": "from model"})),
        text("done"),
    ])
    .tool(echo_arguments(spec))
    .state_schema(StateSchema::new().key("doc", ValueType::Str))
    .build()
    .unwrap();
    let output = agent
        .run(
            user("go"),
            RunOptions::new().state("doc", json!("from state")),
        )
        .unwrap();
    let texts: Vec<_> = tool_results(&output.messages)
        .into_iter()
        .map(|r| r.1)
        .collect();
    assert_eq!(
        texts,
        [
            r#"{"q": 1, "document": "from state"}"#,
            r#"{"document": "from model"}"#
        ]
    );
}

#[test]
fn inputs_from_state_leave_a_parameter_out_when_the_key_is_unset() {
    let spec = ToolSpec::new("read").input_from_state("doc", "document");
    let agent = agent([call("read", json!({})), text("done")])
        .tool(echo_arguments(spec))
        .state_schema(StateSchema::new().key("doc", ValueType::Str))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(tool_results(&output.messages)[0].1, "{}");
}

#[test]
fn outputs_to_state_merge_a_source_key_or_the_whole_result_through_the_schema_handler() {
    let spec = ToolSpec::new("w")
        .output_to_state(
            "notes",
            StateOutput {
                source: Some("note".into()),
                handler: None,
            },
        )
        .output_to_state("last", StateOutput::default())
        .output_to_state(
            "absent",
            StateOutput {
                source: Some("missing".into()),
                handler: None,
            },
        );
    let tool = ScriptedTool::new(
        spec,
        [
            ScriptedResult::Json(json!({"note": "first", "n": 1})),
            ScriptedResult::Json(json!({"note": ["second", "third"], "n": 2})),
        ],
    );
    let schema = StateSchema::new()
        .key("notes", ValueType::List)
        .key("last", ValueType::Dict)
        .key("absent", ValueType::Str);
    let agent = agent([call("w", json!({})), call("w", json!({})), text("done")])
        .tool(tool)
        .state_schema(schema)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        output.get("notes"),
        Some(&json!(["first", "second", "third"]))
    );
    assert_eq!(
        output.get("last"),
        Some(&json!({"note": ["second", "third"], "n": 2}))
    );
    assert_eq!(output.get("absent"), None);
}

#[test]
fn an_outputs_to_state_handler_overrides_the_schema_handler() {
    let spec = ToolSpec::new("w").output_to_state(
        "notes",
        StateOutput {
            source: Some("note".into()),
            handler: Some(Handler::ReplaceValues),
        },
    );
    let tool = ScriptedTool::new(spec, [ScriptedResult::Json(json!({"note": ["fresh"]}))]);
    let agent = agent([call("w", json!({})), text("done")])
        .tool(tool)
        .state_schema(StateSchema::new().key("notes", ValueType::List))
        .build()
        .unwrap();
    let output = agent
        .run(user("go"), RunOptions::new().state("notes", json!(["old"])))
        .unwrap();
    assert_eq!(output.get("notes"), Some(&json!(["fresh"])));
}

#[test]
fn a_result_that_is_not_a_map_is_not_merged_into_state() {
    let spec = ToolSpec::new("w").output_to_state("notes", StateOutput::default());
    let tool = ScriptedTool::new(
        spec,
        [
            ScriptedResult::Text("just text".into()),
            ScriptedResult::Json(json!([1, 2])),
        ],
    );
    let agent = agent([call("w", json!({})), call("w", json!({})), text("done")])
        .tool(tool)
        .state_schema(StateSchema::new().key("notes", ValueType::List))
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().get("notes"), None);
}

#[test]
fn a_merge_failure_always_fails_the_run() {
    let log = Log::new();
    let refusing = Handler::custom("refuse", |_, _| Err("nope".into()));
    let spec = ToolSpec::new("w").output_to_state(
        "notes",
        StateOutput {
            source: None,
            handler: Some(refusing),
        },
    );
    let tool = ScriptedTool::new(spec, [ScriptedResult::Json(json!({"v": 1}))]);
    let agent = agent([call("w", json!({})), text("done")])
        .tool(tool)
        .state_schema(StateSchema::new().key("notes", ValueType::List))
        .raise_on_tool_invocation_failure(false)
        .hook("after_run", labelled(&log, "after_run"))
        .build()
        .unwrap();
    let error = run(&agent).unwrap_err();
    assert!(matches!(error, AgentError::StateMerge { .. }));
    let message = error.to_string();
    assert!(
        message.starts_with("Tool 'w': failed to merge outputs into state. "),
        "{message}"
    );
    assert!(message.contains("nope"), "{message}");
    assert!(log.entries().is_empty());
}

#[test]
fn a_merge_into_an_undeclared_key_fails_the_run_naming_the_key() {
    let spec = ToolSpec::new("w").output_to_state("ghost", StateOutput::default());
    let tool = ScriptedTool::new(spec, [ScriptedResult::Json(json!({"v": 1}))]);
    let agent = agent([call("w", json!({})), text("done")])
        .tool(tool)
        .build()
        .unwrap();
    let message = run(&agent).unwrap_err().to_string();
    assert!(
        message.starts_with(
            "Tool 'w': failed to merge outputs into state. State: Key 'ghost' not found in schema."
        ),
        "{message}"
    );
}

// ---- batching, order and concurrency ---------------------------------------

fn read_after_write_agent(limit: i64) -> Agent {
    let reader = echo_arguments(ToolSpec::new("reader").input_from_state("doc", "document"));
    let writer = ScriptedTool::new(
        ToolSpec::new("writer").output_to_state(
            "doc",
            StateOutput {
                source: Some("doc".into()),
                handler: None,
            },
        ),
        [ScriptedResult::Json(json!({"doc": "written"}))],
    );
    agent([calls(&["reader", "writer"]), text("done")])
        .tool(reader)
        .tool(writer)
        .tool_concurrency_limit(limit)
        .state_schema(StateSchema::new().key("doc", ValueType::Str))
        .build()
        .unwrap()
}

fn read_after_write_results() -> Vec<(String, String, bool)> {
    vec![
        ("reader".into(), r#"{"document": "written"}"#.into(), false),
        ("writer".into(), r#"{"doc": "written"}"#.into(), false),
    ]
}

#[test]
fn a_reader_called_before_a_writer_still_sees_the_writers_output() {
    for limit in [1, 4] {
        let output = run(&read_after_write_agent(limit)).unwrap();
        assert_eq!(tool_results(&output.messages), read_after_write_results());
    }
}

#[test]
fn tool_events_follow_call_order_even_when_batches_run_a_later_call_first() {
    let agent = read_after_write_agent(4);
    let mut seen: Vec<String> = Vec::new();
    let mut observer = |event: &hookharness::Event<'_>| {
        if let hookharness::Event::ToolFinished { call, .. } = event {
            seen.push(call.tool_name.clone());
        }
    };
    agent
        .run_observed(user("go"), RunOptions::new(), &mut observer)
        .unwrap();
    let call_order: Vec<String> = read_after_write_results()
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(
        seen, call_order,
        "the writer runs first, but the reader was called first"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reader_called_before_a_writer_still_sees_the_writers_output_on_the_async_path() {
    for limit in [1, 4] {
        let output = read_after_write_agent(limit)
            .run_async(user("go"), RunOptions::new())
            .await
            .unwrap();
        assert_eq!(tool_results(&output.messages), read_after_write_results());
    }
}

fn sleepy_agent(limit: i64, log: &Log, in_flight: &InFlight) -> Agent {
    agent([calls(&["slow", "fast", "mid", "fast"]), text("done")])
        .tool(SleepyTool::new("slow", 40, log, in_flight))
        .tool(SleepyTool::new("fast", 1, log, in_flight))
        .tool(SleepyTool::new("mid", 15, log, in_flight))
        .tool_concurrency_limit(limit)
        .build()
        .unwrap()
}

fn names(output: &hookharness::AgentOutput) -> Vec<String> {
    tool_results(&output.messages)
        .into_iter()
        .map(|r| r.1)
        .collect()
}

#[test]
fn results_keep_call_order_with_concurrency_limits_one_and_four() {
    for limit in [1, 4] {
        let (log, in_flight) = (Log::new(), InFlight::default());
        let output = run(&sleepy_agent(limit, &log, &in_flight)).unwrap();
        assert_eq!(names(&output), ["slow", "fast", "mid", "fast"]);
        assert_eq!(log.count("done"), 4);
        assert!(in_flight.max() <= limit as usize, "limit {limit}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn results_keep_call_order_with_concurrency_limits_one_and_four_on_the_async_path() {
    for limit in [1, 4] {
        let (log, in_flight) = (Log::new(), InFlight::default());
        let output = sleepy_agent(limit, &log, &in_flight)
            .run_async(user("go"), RunOptions::new())
            .await
            .unwrap();
        assert_eq!(names(&output), ["slow", "fast", "mid", "fast"]);
        assert_eq!(log.count("done"), 4);
        assert!(in_flight.max() <= limit as usize, "limit {limit}");
    }
}

/// Calls that each wait for `parties` calls to arrive: they meet only when
/// the batch runs them at the same time.
struct Rendezvous {
    spec: ToolSpec,
    arrived: std::sync::Arc<(std::sync::Mutex<usize>, std::sync::Condvar)>,
    parties: usize,
    wait: std::time::Duration,
}

impl Tool for Rendezvous {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke(&self, _invocation: ToolInvocation<'_>) -> Result<Value, ToolError> {
        let (count, arrived) = &*self.arrived;
        let mut count = count.lock().unwrap();
        *count += 1;
        arrived.notify_all();
        let (count, _) = arrived
            .wait_timeout_while(count, self.wait, |count| *count < self.parties)
            .unwrap();
        Ok(Value::from(if *count >= self.parties {
            "met"
        } else {
            "alone"
        }))
    }
}

fn rendezvous_run(limit: i64, wait: std::time::Duration) -> Vec<String> {
    let agent = agent([calls(&["meet", "meet"]), text("done")])
        .tool(Rendezvous {
            spec: ToolSpec::new("meet"),
            arrived: Default::default(),
            parties: 2,
            wait,
        })
        .tool_concurrency_limit(limit)
        .build()
        .unwrap();
    tool_results(&run(&agent).unwrap().messages)
        .into_iter()
        .map(|r| r.1)
        .collect()
}

/// Part of the contract, as in Haystack (a `ThreadPoolExecutor` of
/// `tool_concurrency_limit` workers): the sync path runs a batch's calls at
/// the same time, up to the limit.
#[test]
fn a_sync_batch_runs_its_calls_at_the_same_time_up_to_the_limit() {
    let parallel = rendezvous_run(2, std::time::Duration::from_secs(10));
    assert_eq!(parallel, ["met", "met"]);
    let one_at_a_time = rendezvous_run(1, std::time::Duration::from_millis(50));
    assert_eq!(one_at_a_time, ["alone", "met"]);
}

/// A batch of one State-taking call and plain calls, all meeting at one
/// rendezvous.
fn rendezvous_with_state_run(tools: &[&str], limit: i64) -> Vec<String> {
    let arrived = std::sync::Arc::new(Default::default());
    let meeting = |spec: ToolSpec| Rendezvous {
        spec,
        arrived: std::sync::Arc::clone(&arrived),
        parties: tools.len(),
        wait: std::time::Duration::from_millis(500),
    };
    let agent = agent([calls(tools), text("done")])
        .tool(meeting(ToolSpec::new("meet_state").takes_state()))
        .tool(meeting(ToolSpec::new("meet")))
        .tool_concurrency_limit(limit)
        .build()
        .unwrap();
    tool_results(&run(&agent).unwrap().messages)
        .into_iter()
        .map(|r| r.1)
        .collect()
}

#[test]
fn a_state_taking_call_counts_toward_the_concurrency_limit() {
    // Two at once: the third call starts only when one of the first two has
    // given up waiting, so at least one of them waited alone.
    let two_at_once = rendezvous_with_state_run(&["meet_state", "meet", "meet"], 2);
    assert!(two_at_once.iter().any(|r| r == "alone"), "{two_at_once:?}");
    // One at a time.
    assert_eq!(
        rendezvous_with_state_run(&["meet_state", "meet"], 1),
        ["alone", "met"]
    );
}

// ---- the live State --------------------------------------------------------

struct Notary {
    spec: ToolSpec,
}

impl Tool for Notary {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke(&self, invocation: ToolInvocation<'_>) -> Result<Value, ToolError> {
        let state = invocation
            .state
            .ok_or_else(|| ToolError::new("no live state"))?;
        let seen = state.messages().len();
        state
            .set("notes", json!(format!("saw {seen} messages")))
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(json!("noted"))
    }
}

fn notary_agent() -> Agent {
    agent([calls(&["note", "plain"]), text("done")])
        .tool(Notary {
            spec: ToolSpec::new("note").takes_state(),
        })
        .tool(ok_tool("plain"))
        .state_schema(StateSchema::new().key("notes", ValueType::List))
        .build()
        .unwrap()
}

#[test]
fn a_tool_that_takes_state_receives_the_live_state() {
    let output = run(&notary_agent()).unwrap();
    assert_eq!(output.get("notes"), Some(&json!(["saw 2 messages"])));
    assert_eq!(tool_results(&output.messages)[0].1, "noted");
}

#[tokio::test]
async fn a_tool_that_takes_state_receives_the_live_state_on_the_async_path() {
    let output = notary_agent()
        .run_async(user("go"), RunOptions::new())
        .await
        .unwrap();
    assert_eq!(output.get("notes"), Some(&json!(["saw 2 messages"])));
}

// ---- rendering -------------------------------------------------------------

#[test]
fn json_results_are_rendered_like_pythons_json_dumps() {
    let cases = fixture_texts("json_result");
    assert!(!cases.is_empty());
    for (value, expected) in cases {
        let tool = ScriptedTool::new(
            ToolSpec::new("fetch"),
            [ScriptedResult::Json(value.clone())],
        );
        let agent = agent([call("fetch", json!({})), text("done")])
            .tool(tool)
            .build()
            .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(
            tool_results(&output.messages),
            [("fetch".to_owned(), expected, false)],
            "{value}"
        );
    }
}

#[test]
fn a_tool_message_keeps_the_call_as_its_origin() {
    let agent = agent([call("a", json!({"k": [1, {"x": null}]})), text("done")])
        .tool(ok_tool("a"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    let request = output.messages[1].tool_calls().next().unwrap();
    let result = output.messages[2].tool_call_result().unwrap();
    assert_eq!(*result.origin, *request);
}

#[test]
fn a_message_a_tool_merges_into_messages_lands_after_the_call_and_before_the_result() {
    let spec = ToolSpec::new("remember").output_to_state(
        "messages",
        StateOutput {
            source: Some("message".into()),
            handler: None,
        },
    );
    let note = hookharness::ChatMessage::from_system("remembered").to_value();
    let tool = ScriptedTool::new(spec, [ScriptedResult::Json(json!({"message": note}))]);
    let agent = agent([call("remember", json!({})), text("done")])
        .tool(tool)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    let roles: Vec<&str> = output.messages.iter().map(|m| m.role().as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "system", "tool", "assistant"]);
    assert_eq!(output.messages[2].text(), Some("remembered"));
}

// ---- outputs_to_string and run-time selection ------------------------------

#[test]
fn outputs_to_string_makes_the_source_key_the_message_text() {
    let spec = ToolSpec::new("w")
        .outputs_to_string(OutputsToString::source("summary"))
        .output_to_state(
            "docs",
            StateOutput {
                source: Some("docs".into()),
                handler: None,
            },
        );
    let tool = ScriptedTool::new(
        spec,
        [ScriptedResult::Json(
            json!({"summary": "two hits", "docs": ["a", "b"]}),
        )],
    );
    let agent = agent([call("w", json!({})), text("done")])
        .tool(tool)
        .state_schema(StateSchema::new().key("docs", ValueType::List))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        tool_results(&output.messages),
        [("w".to_owned(), "two hits".to_owned(), false)]
    );
    assert_eq!(output.get("docs"), Some(&json!(["a", "b"])));
}

#[test]
fn echoed_arguments_show_what_inputs_from_state_injected() {
    let spec = ToolSpec::new("w")
        .parameters(json!({"type": "object", "properties": {"q": {}, "repo": {}}}))
        .input_from_state("repository", "repo");
    let tool = ScriptedTool::new(spec, [ScriptedResult::EchoArguments]);
    let agent = agent([call("w", json!({"q": "x"})), text("done")])
        .tool(tool)
        .state_schema(StateSchema::new().key("repository", ValueType::Str))
        .build()
        .unwrap();
    let output = agent
        .run(
            user("go"),
            RunOptions::new().state("repository", json!("hh")),
        )
        .unwrap();
    assert_eq!(
        tool_results(&output.messages)[0].1,
        r#"{"q": "x", "repo": "hh"}"#
    );
}

#[test]
fn an_inputs_from_state_parameter_the_tool_does_not_take_fails_the_build() {
    let spec = ToolSpec::new("w")
        .parameters(json!({"type": "object", "properties": {"repo": {}}}))
        .input_from_state("repository", "repository");
    let err = agent([text("done")])
        .tool(ScriptedTool::new(spec, []))
        .build()
        .unwrap_err();
    assert!(matches!(&err, AgentError::InvalidTool(e) if e.param == "repository"));
    assert_eq!(
        err.to_string(),
        "inputs_from_state maps 'repository' to unknown parameter 'repository'. Valid parameters are: {'repo'}."
    );
}

#[test]
fn run_options_tools_select_the_tools_of_one_run() {
    let model = model([calls(&["a", "b"]), text("done")]);
    let agent = agent_with(&model)
        .tool(ok_tool("a"))
        .tool(ok_tool("b"))
        .build()
        .unwrap();
    let output = agent
        .run(user("go"), RunOptions::new().tools(["b"]))
        .unwrap();
    assert_eq!(
        output.get("tool_call_counts"),
        Some(&json!({"b": 1, "a": 1}))
    );
    let results = tool_results(&output.messages);
    assert_eq!(results[0].1, "Tool 'a' not found. Available tools: b");
    assert!(results[0].2);
}

#[test]
fn selecting_an_unknown_tool_fails_the_run_before_any_llm_call() {
    let model = model([text("done")]);
    let agent = agent_with(&model).tool(ok_tool("a")).build().unwrap();
    let err = agent
        .run(user("go"), RunOptions::new().tools(["b"]))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "The following tool names are not valid: {'b'}. Valid tool names are: {'a'}."
    );
    assert_eq!(model.calls(), 0);
}

// ---- panics ----------------------------------------------------------------

fn panicking_tool(name: &str) -> impl Tool {
    tool_fn(ToolSpec::new(name), |_| panic!("the index is corrupt"))
}

fn assert_tool_panic_ends_the_run(result: Result<hookharness::AgentOutput, AgentError>) {
    match result {
        Err(AgentError::ToolFatal { tool, message, .. }) => {
            assert_eq!(tool, "boom");
            assert_eq!(message, "the tool `boom` panicked: the index is corrupt");
        }
        other => panic!("expected the tool's panic as its fatal error, got {other:?}"),
    }
}

#[test]
fn a_tool_that_panics_ends_the_run_with_its_panic_as_the_error() {
    // Alone, and beside other calls of the same batch on the thread pool.
    for replies in [calls(&["boom"]), calls(&["a", "boom", "a"])] {
        let agent = agent([replies, text("done")])
            .tool(ok_tool("a"))
            .tool(panicking_tool("boom"))
            .build()
            .unwrap();
        assert_tool_panic_ends_the_run(run(&agent));
    }
}

#[tokio::test]
async fn a_tool_that_panics_ends_the_run_with_its_panic_as_the_error_on_the_async_path() {
    let agent = agent([calls(&["a", "boom"]), text("done")])
        .tool(ok_tool("a"))
        .tool(panicking_tool("boom"))
        .build()
        .unwrap();
    assert_tool_panic_ends_the_run(agent.run_async(user("go"), RunOptions::new()).await);
}

#[tokio::test]
async fn a_lone_tool_call_that_panics_ends_the_run_with_its_panic_as_the_error_on_the_async_path() {
    let agent = agent([calls(&["boom"]), text("done")])
        .tool(panicking_tool("boom"))
        .build()
        .unwrap();
    assert_tool_panic_ends_the_run(agent.run_async(user("go"), RunOptions::new()).await);
}
