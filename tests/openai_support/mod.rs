//! A local OpenAI-compatible server (wiremock on 127.0.0.1) for the HTTP
//! generator's tests, usable from sync tests: it owns the runtime that
//! drives wiremock's API, while the server itself runs on its own thread.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use hookharness::openai::{OpenAiChatGenerator, OpenAiChatGeneratorBuilder};
use hookharness::{Tool, ToolSpec, tool_fn};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The key the tests send; no test output may show it.
pub const KEY: &str = "sk-test-0123456789-secret";

pub struct Server {
    runtime: tokio::runtime::Runtime,
    server: MockServer,
}

impl Server {
    pub fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(MockServer::start());
        Server { runtime, server }
    }

    fn server(&self) -> &MockServer {
        &self.server
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server().uri())
    }

    /// Answers the next `times` POSTs to `/v1/chat/completions` (all of them
    /// with `None`) with `response`; earlier mounts answer first.
    pub fn answer(&self, response: ResponseTemplate, times: Option<u64>) {
        let mock = Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(response);
        let mock = match times {
            Some(n) => mock.up_to_n_times(n),
            None => mock,
        };
        self.runtime.block_on(self.server().register(mock));
    }

    /// Answers every POST to `/v1/chat/completions` with what `respond`
    /// makes of the request.
    pub fn answer_with(
        &self,
        respond: impl Fn(&wiremock::Request) -> ResponseTemplate + Send + Sync + 'static,
    ) {
        let mock = Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(respond);
        self.runtime.block_on(self.server().register(mock));
    }

    /// Answers every request with this completion.
    pub fn answer_json(&self, completion: Value) {
        self.answer(ResponseTemplate::new(200).set_body_json(completion), None);
    }

    /// The requests received, in order.
    pub fn requests(&self) -> Vec<wiremock::Request> {
        self.runtime
            .block_on(self.server().received_requests())
            .unwrap_or_default()
    }

    /// The request bodies, parsed (key order kept).
    pub fn bodies(&self) -> Vec<Value> {
        self.requests()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).expect("the generator sends JSON"))
            .collect()
    }

    /// A builder aimed at this server: a key, no environment, fast retries.
    pub fn builder(&self) -> OpenAiChatGeneratorBuilder {
        OpenAiChatGenerator::builder()
            .ignore_env()
            .base_url(self.base_url())
            .model("local-model")
            .api_key(KEY)
            .timeout(Duration::from_secs(10))
            .max_retries(2)
            .backoff_base(Duration::from_millis(1))
            .backoff_max(Duration::from_millis(4))
    }

    pub fn generator(&self) -> OpenAiChatGenerator {
        self.builder().build().unwrap()
    }
}

/// Asserts equal JSON with equal key order (the bytes serde_json writes).
#[track_caller]
pub fn assert_json_eq(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

/// A chat completion with one choice.
pub fn completion(message: Value, finish_reason: &str, usage: Value) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "local-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": null}],
        "usage": usage,
    })
}

pub fn text_completion(text: &str) -> Value {
    completion(
        json!({"role": "assistant", "content": text}),
        "stop",
        Value::Null,
    )
}

/// An OpenAI tool call: `{id, type, function: {name, arguments}}`.
pub fn openai_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

pub fn tool_calls_completion(calls: Vec<Value>) -> Value {
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": calls}),
        "tool_calls",
        Value::Null,
    )
}

pub fn search_tool() -> Arc<dyn Tool> {
    Arc::new(tool_fn(
        ToolSpec::new("search")
            .description("Search the web")
            .parameters(json!({
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            })),
        |args| {
            let query = args.get("query").and_then(Value::as_str).unwrap_or("");
            Ok(json!(format!("results for {query}")))
        },
    ))
}

/// `search` as the request body's `tools` lists it.
pub fn search_tool_json() -> Value {
    json!({"type": "function", "function": {
        "name": "search",
        "description": "Search the web",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    }})
}
