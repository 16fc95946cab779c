//! Streaming: which callback a run uses (Haystack's
//! `select_streaming_callback`), what the scripted model and the tool step
//! stream, passthrough to tools, and `generation_kwargs` reaching the model.

mod support;

use hookharness::scripted::ModelReply;
use hookharness::stream::{AsyncCallbackError, StreamingCallback, StreamingChunk};
use hookharness::{
    AgentError, ChatMessage, RunOptions, Tool, ToolError, ToolInvocation, ToolSpec, generator_fn,
};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};
use support::*;

type Log = Arc<Mutex<Vec<String>>>;

/// A sync callback writing `label:content` (or `label:result`) lines.
fn recording(log: &Log, label: &'static str) -> StreamingCallback {
    let log = log.clone();
    StreamingCallback::new(move |chunk| log.lock().unwrap().push(describe(label, chunk)))
}

fn describe(label: &str, chunk: &StreamingChunk) -> String {
    match (&chunk.tool_call_result, &chunk.finish_reason) {
        (Some(result), _) => format!("{label}:result {}", result.result.as_text().unwrap_or("")),
        (None, Some(reason)) => format!("{label}:end {reason}"),
        (None, None) => format!("{label}:{}", chunk.content),
    }
}

fn lines(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

#[test]
fn the_runs_callback_wins_over_the_agents() {
    let log = Log::default();
    let agent = agent([ModelReply::text("").with_chunks(["a", "b"])])
        .streaming_callback(recording(&log, "agent"))
        .build()
        .unwrap();
    agent
        .run(
            user("go"),
            RunOptions::new().streaming_callback(recording(&log, "run")),
        )
        .unwrap();
    assert_eq!(lines(&log), ["run:a", "run:b"]);
}

#[test]
fn the_agents_callback_streams_when_the_run_gives_none() {
    let log = Log::default();
    let agent = agent([ModelReply::text("").with_chunks(["He", "llo"])])
        .streaming_callback(recording(&log, "agent"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(lines(&log), ["agent:He", "agent:llo"]);
    assert_eq!(output.last_message.unwrap().text(), Some("Hello"));
}

#[test]
fn an_async_callback_cannot_serve_a_sync_run() {
    let async_callback = StreamingCallback::new_async(|_| Box::pin(async {}));
    let on_agent = agent([text("done")])
        .streaming_callback(async_callback.clone())
        .build()
        .unwrap();
    assert_eq!(
        run(&on_agent).unwrap_err(),
        AgentError::StreamingCallback(AsyncCallbackError::Init)
    );
    let plain = agent([text("done")]).build().unwrap();
    assert_eq!(
        plain
            .run(
                user("go"),
                RunOptions::new().streaming_callback(async_callback)
            )
            .unwrap_err(),
        AgentError::StreamingCallback(AsyncCallbackError::Runtime)
    );
}

#[tokio::test]
async fn an_async_callback_is_awaited_on_the_async_path() {
    let log = Log::default();
    let sink = log.clone();
    let callback = StreamingCallback::new_async(move |chunk| {
        let sink = sink.clone();
        Box::pin(async move {
            tokio::task::yield_now().await;
            sink.lock().unwrap().push(describe("async", &chunk));
        })
    });
    let agent = agent([calls(&["a"]), ModelReply::text("").with_chunks(["ok"])])
        .tool(ok_tool("a"))
        .build()
        .unwrap();
    agent
        .run_async(user("go"), RunOptions::new().streaming_callback(callback))
        .await
        .unwrap();
    assert_eq!(
        lines(&log),
        ["async:result ok", "async:end tool_call_results", "async:ok"]
    );
}

#[test]
fn tool_results_stream_in_call_order_then_an_end_chunk() {
    let log = Log::default();
    let agent = agent([calls(&["a", "ghost", "b"]), text("done")])
        .tool(ok_tool("a"))
        .tool(failing_tool("b", "boom"))
        .tool_concurrency_limit(4)
        .build()
        .unwrap();
    agent
        .run(
            user("go"),
            RunOptions::new().streaming_callback(recording(&log, "s")),
        )
        .unwrap();
    assert_eq!(
        lines(&log),
        [
            "s:result ok",
            "s:result Failed to invoke Tool `b` with parameters {}. Error: boom",
            "s:end tool_call_results",
        ]
    );
}

#[test]
fn tool_result_chunks_are_numbered_by_the_results_merged_so_far() {
    // Haystack's `stream_index`: unknown tools' messages take no number.
    let indices = Arc::new(Mutex::new(Vec::new()));
    let sink = indices.clone();
    let callback = StreamingCallback::new(move |chunk| {
        if chunk.tool_call_result.is_some() {
            sink.lock().unwrap().push(chunk.index);
        }
    });
    let agent = agent([calls(&["a", "ghost", "b", "a"]), text("done")])
        .tool(ok_tool("a"))
        .tool(ok_tool("b"))
        .build()
        .unwrap();
    agent
        .run(user("go"), RunOptions::new().streaming_callback(callback))
        .unwrap();
    assert_eq!(*indices.lock().unwrap(), [Some(0), Some(1), Some(2)]);
}

#[test]
fn a_step_whose_calls_all_name_unknown_tools_streams_no_end_chunk() {
    let log = Log::default();
    let agent = agent([calls(&["ghost", "phantom"]), calls(&["a"]), text("done")])
        .tool(ok_tool("a"))
        .build()
        .unwrap();
    agent
        .run(
            user("go"),
            RunOptions::new().streaming_callback(recording(&log, "s")),
        )
        .unwrap();
    // Only the step whose call reached a tool ends with the end chunk.
    assert_eq!(lines(&log), ["s:result ok", "s:end tool_call_results"]);
}

/// A tool that reports whether it received the streaming callback.
struct Probe {
    spec: ToolSpec,
    received: Arc<Mutex<Vec<bool>>>,
}

impl Tool for Probe {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke(&self, invocation: ToolInvocation<'_>) -> Result<Value, ToolError> {
        if let Some(callback) = invocation.streaming_callback {
            callback.call(&StreamingChunk::text("from the tool"));
        }
        self.received
            .lock()
            .unwrap()
            .push(invocation.streaming_callback.is_some());
        Ok(json!("done"))
    }
}

#[test]
fn tools_receive_the_callback_only_with_passthrough() {
    for passthrough in [false, true] {
        let log = Log::default();
        let received = Arc::new(Mutex::new(Vec::new()));
        let agent = agent([calls(&["probe"]), text("done")])
            .tool(Probe {
                spec: ToolSpec::new("probe"),
                received: received.clone(),
            })
            .tool_streaming_callback_passthrough(passthrough)
            .build()
            .unwrap();
        agent
            .run(
                user("go"),
                RunOptions::new().streaming_callback(recording(&log, "s")),
            )
            .unwrap();
        assert_eq!(*received.lock().unwrap(), [passthrough]);
        assert_eq!(
            lines(&log).first().map(String::as_str),
            Some(if passthrough {
                "s:from the tool"
            } else {
                "s:result done"
            })
        );
    }
}

#[test]
fn generation_kwargs_reach_every_generator_call() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let model = generator_fn(move |request| {
        sink.lock()
            .unwrap()
            .push(request.generation_kwargs.cloned());
        Ok(vec![ChatMessage::from_assistant("ok")])
    });
    let agent = hookharness::Agent::builder()
        .chat_generator(model)
        .build()
        .unwrap();
    let mut kwargs = Map::new();
    kwargs.insert("temperature".into(), json!(0.2));
    agent
        .run(
            user("go"),
            RunOptions::new().generation_kwargs(kwargs.clone()),
        )
        .unwrap();
    agent.run(user("go"), RunOptions::new()).unwrap();
    assert_eq!(*seen.lock().unwrap(), [Some(kwargs), None]);
}
