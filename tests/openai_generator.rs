//! The HTTP generator against a local OpenAI-compatible server: one test per
//! case, each also pinning the exact request body it sent.

mod openai_support;

use hookharness::openai::OpenAiErrorKind;
use hookharness::{ChatGenerator, ChatMessage, ChatRequest, Tool, ToolCall};
use openai_support::*;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wiremock::ResponseTemplate;

fn ask(
    server: &Server,
    messages: &[ChatMessage],
    tools: &[Arc<dyn Tool>],
) -> Result<Vec<ChatMessage>, hookharness::GeneratorError> {
    server.generator().run(ChatRequest::new(messages, tools))
}

fn user(text: &str) -> Vec<ChatMessage> {
    vec![ChatMessage::from_user(text)]
}

/// The body for one user message and the search tool.
fn body_with_search(text: &str) -> Value {
    json!({
        "model": "local-model",
        "messages": [{"role": "user", "content": text}],
        "n": 1,
        "tools": [search_tool_json()],
        "stream": false,
    })
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("arguments must be a map"),
    }
}

#[test]
fn a_tool_call_response_becomes_an_assistant_message_with_haystacks_meta() {
    let server = Server::start();
    server.answer_json(tool_calls_completion(vec![openai_call(
        "call_abc",
        "search",
        r#"{"query": "fusion"}"#,
    )]));

    let replies = ask(&server, &user("What is new in fusion?"), &[search_tool()]).unwrap();

    assert_eq!(replies.len(), 1);
    assert_json_eq(
        &replies[0].to_value(),
        &json!({
            "role": "assistant",
            "meta": {"model": "local-model", "index": 0, "finish_reason": "tool_calls", "usage": null},
            "name": null,
            "content": [{"tool_call": {"tool_name": "search", "arguments": {"query": "fusion"}, "id": "call_abc", "extra": null}}],
        }),
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_json_eq(
        &server.bodies()[0],
        &body_with_search("What is new in fusion?"),
    );
    assert_eq!(
        requests[0].headers.get("authorization").unwrap(),
        &format!("Bearer {KEY}")
    );
    assert_eq!(
        requests[0].headers.get("content-type").unwrap(),
        "application/json"
    );
}

#[test]
fn several_tool_calls_in_one_response_keep_their_order_and_ids() {
    let server = Server::start();
    server.answer_json(tool_calls_completion(vec![
        openai_call("call_1", "search", r#"{"query": "tokamak"}"#),
        openai_call(
            "call_2",
            "search",
            r#"{"query": "stellarator", "limit": 3}"#,
        ),
        openai_call("call_3", "search", ""),
    ]));
    // A conversation with an earlier tool round, to pin how each kind of
    // message is written.
    let earlier =
        ToolCall::new("search", args(json!({"query": "fusion", "exact": true}))).with_id("call_0");
    let messages = vec![
        ChatMessage::from_system("You are a research assistant."),
        ChatMessage::from_user("Compare fusion designs."),
        ChatMessage::from_assistant_parts(Some("Let me look.".into()), vec![earlier.clone()]),
        ChatMessage::from_tool("Fusion: ITER, Wendelstein 7-X.", earlier, false),
    ];

    let replies = ask(&server, &messages, &[search_tool()]).unwrap();

    let calls: Vec<(Option<&str>, &str, String)> = replies[0]
        .tool_calls()
        .map(|c| {
            (
                c.id.as_deref(),
                c.tool_name.as_str(),
                serde_json::to_string(&c.arguments).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                Some("call_1"),
                "search",
                r#"{"query":"tokamak"}"#.to_owned()
            ),
            (
                Some("call_2"),
                "search",
                r#"{"query":"stellarator","limit":3}"#.to_owned()
            ),
            (Some("call_3"), "search", "{}".to_owned()),
        ]
    );
    assert_eq!(replies[0].text(), None);
    assert_json_eq(
        &server.bodies()[0],
        &json!({
            "model": "local-model",
            "messages": [
                {"role": "system", "content": "You are a research assistant."},
                {"role": "user", "content": "Compare fusion designs."},
                {"role": "assistant", "content": "Let me look.", "tool_calls": [
                    {"type": "function", "function": {"name": "search", "arguments": "{\"query\": \"fusion\", \"exact\": true}"}, "id": "call_0"},
                ]},
                {"role": "tool", "content": "Fusion: ITER, Wendelstein 7-X.", "tool_call_id": "call_0"},
            ],
            "n": 1,
            "tools": [search_tool_json()],
            "stream": false,
        }),
    );
}

#[test]
fn usage_and_a_length_finish_are_mapped_into_meta() {
    let server = Server::start();
    server.answer_json(completion(
        json!({"role": "assistant", "content": "Fusion is"}),
        "length",
        json!({
            "prompt_tokens": 12,
            "completion_tokens": 3,
            "total_tokens": 15,
            "completion_tokens_details": {"reasoning_tokens": 0},
        }),
    ));
    let generator = server
        .builder()
        .generation_kwarg("max_completion_tokens", json!(3))
        .generation_kwarg("temperature", json!(0.0))
        .build()
        .unwrap();

    let replies = generator
        .run(ChatRequest::new(&user("Tell me about fusion."), &[]))
        .unwrap();

    assert_json_eq(
        &replies[0].to_value(),
        &json!({
            "role": "assistant",
            "meta": {
                "model": "local-model",
                "index": 0,
                "finish_reason": "length",
                "usage": {
                    "completion_tokens": 3,
                    "prompt_tokens": 12,
                    "total_tokens": 15,
                    "completion_tokens_details": {
                        "accepted_prediction_tokens": null,
                        "audio_tokens": null,
                        "reasoning_tokens": 0,
                        "rejected_prediction_tokens": null,
                        "text_tokens": null,
                    },
                    "prompt_tokens_details": null,
                },
            },
            "name": null,
            "content": [{"text": "Fusion is"}],
        }),
    );
    assert_eq!(replies[0].finish_reason(), Some("length"));
    assert_json_eq(
        &server.bodies()[0],
        &json!({
            "model": "local-model",
            "messages": [{"role": "user", "content": "Tell me about fusion."}],
            "n": 1,
            "max_completion_tokens": 3,
            "temperature": 0.0,
            "stream": false,
        }),
    );
}

#[test]
fn a_429_is_retried_after_the_wait_retry_after_asks_for_then_succeeds() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(429)
            .insert_header("retry-after", "0.05")
            .set_body_json(json!({"error": {"message": "Rate limit reached", "type": "requests"}})),
        Some(1),
    );
    server.answer_json(text_completion("Here you are."));

    let started = Instant::now();
    let replies = ask(&server, &user("Hi"), &[search_tool()]).unwrap();
    let elapsed = started.elapsed();

    assert_eq!(replies[0].text(), Some("Here you are."));
    // The backoff base is 1 ms: only the header explains a 50 ms wait.
    assert!(elapsed >= Duration::from_millis(50), "{elapsed:?}");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        assert_json_eq(body, &body_with_search("Hi"));
    }
}

#[test]
fn a_500_that_persists_exhausts_the_retries() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(500).set_body_json(json!({"error": {"message": "boom"}})),
        None,
    );

    let error = server
        .generator()
        .run(ChatRequest::new(&user("Hi"), &[search_tool()]))
        .unwrap_err();

    let endpoint = format!("{}/chat/completions", server.base_url());
    assert_eq!(
        error.message(),
        format!("{endpoint} answered 500 Internal Server Error: boom; gave up after 3 attempts")
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3, "the first attempt and max_retries = 2");
    for body in &bodies {
        assert_json_eq(body, &body_with_search("Hi"));
    }
}

#[test]
fn a_server_slower_than_the_timeout_fails_with_a_timeout_after_the_retries() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200)
            .set_body_json(text_completion("too late"))
            .set_delay(Duration::from_secs(3)),
        None,
    );
    let generator = server
        .builder()
        .timeout(Duration::from_millis(150))
        .max_retries(1)
        .build()
        .unwrap();

    let started = Instant::now();
    let error = generator
        .run(ChatRequest::new(&user("Hi"), &[search_tool()]))
        .unwrap_err();

    assert!(
        started.elapsed() < Duration::from_secs(3),
        "waited for the server"
    );
    let endpoint = format!("{}/chat/completions", server.base_url());
    assert_eq!(
        error.message(),
        format!(
            "no complete answer from {endpoint} within 150ms (the timeout: raise it with \
             `--timeout` for `hookharness record`, else $OPENAI_TIMEOUT, if the server is this \
             slow); gave up after 2 attempts"
        )
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        assert_json_eq(body, &body_with_search("Hi"));
    }
}

#[test]
fn a_json_body_that_is_not_a_chat_completion_names_the_missing_field() {
    let server = Server::start();
    server.answer_json(
        json!({"id": "chatcmpl-1", "model": "local-model", "object": "chat.completion"}),
    );

    let error = ask(&server, &user("Hi"), &[search_tool()]).unwrap_err();

    let endpoint = format!("{}/chat/completions", server.base_url());
    assert_eq!(
        error.message(),
        format!("the answer from {endpoint} is not a chat completion: `choices` is missing")
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1, "a malformed answer is not retried");
    assert_json_eq(&bodies[0], &body_with_search("Hi"));
}

#[test]
fn a_body_that_is_not_json_is_a_clear_error() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200)
            .set_body_raw("<html><body>Bad gateway</body></html>", "text/html"),
        None,
    );

    let error = ask(&server, &user("Hi"), &[search_tool()]).unwrap_err();

    let endpoint = format!("{}/chat/completions", server.base_url());
    assert_eq!(
        error.message(),
        format!(
            "the answer from {endpoint} is not JSON (expected value at line 1 column 1); \
             it starts with \"<html><body>Bad gateway</body></html>\""
        )
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1);
    assert_json_eq(&bodies[0], &body_with_search("Hi"));
}

#[test]
fn a_401_is_not_retried_and_its_error_never_shows_the_key() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(401).set_body_json(json!({"error": {
            "message": format!("Incorrect API key provided: {KEY}."),
            "type": "invalid_request_error",
        }})),
        None,
    );
    let generator = server.generator();

    let error = generator
        .run(ChatRequest::new(&user("Hi"), &[]))
        .unwrap_err();

    let endpoint = format!("{}/chat/completions", server.base_url());
    assert_eq!(
        error.message(),
        format!("{endpoint} answered 401 Unauthorized: Incorrect API key provided: [redacted].")
    );
    assert_eq!(server.requests().len(), 1);
    assert!(!format!("{generator:?}").contains(KEY));
}

#[test]
fn an_unreachable_server_is_a_connection_error() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let generator = hookharness::openai::OpenAiChatGenerator::builder()
        .ignore_env()
        .base_url(format!("http://127.0.0.1:{port}/v1"))
        .max_retries(0)
        .build()
        .unwrap();
    let error = generator
        .run(ChatRequest::new(&user("Hi"), &[]))
        .unwrap_err();
    assert!(
        error.message().starts_with(&format!(
            "cannot reach http://127.0.0.1:{port}/v1/chat/completions: "
        )),
        "{error}"
    );
}

#[test]
fn no_messages_send_no_request() {
    let server = Server::start();
    server.answer_json(text_completion("unused"));
    assert_eq!(ask(&server, &[], &[]).unwrap(), Vec::new());
    assert!(server.requests().is_empty());
}

#[test]
fn the_typed_error_tells_the_cases_apart() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(404).set_body_string("no such route"),
        None,
    );
    let generator = server.generator();
    let error = generator
        .chat(ChatRequest::new(&user("Hi"), &[]))
        .unwrap_err();
    assert_eq!(error.kind(), OpenAiErrorKind::Status(404));
    assert_eq!(error.attempts(), 1);
    assert!(
        error
            .message()
            .ends_with("answered 404 Not Found: no such route"),
        "{error}"
    );

    let no_id = vec![ChatMessage::from_assistant_parts(
        None,
        vec![ToolCall::new("search", Map::new())],
    )];
    let error = generator.chat(ChatRequest::new(&no_id, &[])).unwrap_err();
    assert_eq!(error.kind(), OpenAiErrorKind::InvalidMessage);
    assert_eq!(
        server.requests().len(),
        1,
        "an invalid message sends nothing"
    );
}

#[test]
fn a_runs_generation_kwargs_are_merged_over_the_generators_own() {
    let server = Server::start();
    server.answer_json(text_completion("ok"));
    let generator = server
        .builder()
        .generation_kwarg("temperature", json!(0.0))
        .generation_kwarg("seed", json!(7))
        .build()
        .unwrap();
    let run_kwargs = args(json!({"temperature": 0.5, "max_completion_tokens": 9}));
    let messages = user("hi");
    let mut request = ChatRequest::new(&messages, &[]);
    request.generation_kwargs = Some(&run_kwargs);

    generator.run(request).unwrap();

    let body = &server.bodies()[0];
    assert_eq!(body["temperature"], json!(0.5));
    assert_eq!(body["seed"], json!(7));
    assert_eq!(body["max_completion_tokens"], json!(9));
}
