//! The HTTP generator under every kind of caller: no runtime, inside a
//! tokio runtime (current-thread and multi-thread), awaited by tokio or by
//! another executor, and driving a whole agent run.

mod openai_support;

use hookharness::openai::OpenAiChatGenerator;
use hookharness::{Agent, ChatGenerator, ChatMessage, ChatRequest, RunOptions};
use openai_support::*;
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use wiremock::ResponseTemplate;

fn hi() -> Vec<ChatMessage> {
    vec![ChatMessage::from_user("Hi")]
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A minimal executor that is not tokio: polls on this thread, parks between polls.
fn park_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

#[test]
fn the_sync_run_works_outside_any_runtime() {
    let server = Server::start();
    server.answer_json(text_completion("hello"));
    assert!(tokio::runtime::Handle::try_current().is_err());

    let replies = server
        .generator()
        .run(ChatRequest::new(&hi(), &[]))
        .unwrap();

    assert_eq!(replies[0].text(), Some("hello"));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn the_sync_run_does_not_panic_inside_a_current_thread_runtime() {
    let server = Server::start();
    server.answer_json(text_completion("hello"));
    let generator = server.generator();

    let replies = current_thread().block_on(async {
        assert!(tokio::runtime::Handle::try_current().is_ok());
        generator.run(ChatRequest::new(&hi(), &[]))
    });

    assert_eq!(replies.unwrap()[0].text(), Some("hello"));
}

#[test]
fn the_sync_run_does_not_panic_on_a_multi_thread_runtime_worker() {
    let server = Server::start();
    server.answer_json(text_completion("hello"));
    let generator = Arc::new(server.generator());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    let task = {
        let generator = generator.clone();
        runtime.spawn(async move { generator.run(ChatRequest::new(&hi(), &[])) })
    };
    let replies = runtime.block_on(task).unwrap().unwrap();

    assert_eq!(replies[0].text(), Some("hello"));
}

#[test]
fn the_async_run_is_awaited_by_tokio_and_by_another_executor() {
    let server = Server::start();
    server.answer_json(text_completion("hello"));
    let generator = server.generator();
    let messages = hi();

    let by_tokio = current_thread()
        .block_on(generator.run_async(ChatRequest::new(&messages, &[])))
        .unwrap();
    let by_other = park_on(generator.run_async(ChatRequest::new(&messages, &[]))).unwrap();

    assert_eq!(by_tokio, by_other);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn the_generator_can_be_dropped_inside_a_runtime() {
    let server = Server::start();
    let generator = server.generator();
    current_thread().block_on(async move { drop(generator) });
}

#[test]
fn an_agent_runs_its_tools_against_the_server_on_both_paths_alike() {
    let server = Server::start();
    // Each run: a tool call, then a text answer.
    for _ in 0..2 {
        server.answer(
            ResponseTemplate::new(200).set_body_json(tool_calls_completion(vec![openai_call(
                "call_1",
                "search",
                r#"{"query": "fusion"}"#,
            )])),
            Some(1),
        );
        server.answer(
            ResponseTemplate::new(200).set_body_json(text_completion("ITER is being built.")),
            Some(1),
        );
    }
    let generator: OpenAiChatGenerator = server.generator();
    let agent = Agent::builder()
        .chat_generator(generator)
        .tool_arc(search_tool())
        .system_prompt("Be brief.")
        .build()
        .unwrap();
    let question = vec![ChatMessage::from_user("What is new in fusion?")];

    let sync = agent.run(question.clone(), RunOptions::new()).unwrap();
    let asynchronous = current_thread()
        .block_on(agent.run_async(question, RunOptions::new()))
        .unwrap();

    assert_eq!(sync.messages, asynchronous.messages);
    assert_eq!(sync.exit_reason(), Some("text"));
    assert_eq!(
        sync.last_message.as_ref().and_then(|m| m.text()),
        Some("ITER is being built.")
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4);
    assert_json_eq(&bodies[2], &bodies[0]);
    assert_json_eq(&bodies[3], &bodies[1]);
    assert_json_eq(
        &bodies[1],
        &json!({
            "model": "local-model",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is new in fusion?"},
                {"role": "assistant", "tool_calls": [
                    {"type": "function", "function": {"name": "search", "arguments": "{\"query\": \"fusion\"}"}, "id": "call_1"},
                ]},
                {"role": "tool", "content": "results for fusion", "tool_call_id": "call_1"},
            ],
            "n": 1,
            "tools": [search_tool_json()],
            "stream": false,
        }),
    );
}
