//! Helpers shared by the loop's integration tests: quick agents, recording
//! hooks, scripted models and tools.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use hookharness::scripted::{ModelReply, ScriptedChatGenerator, ScriptedResult, ScriptedTool};
use hookharness::state::StateSchema;
use hookharness::{
    Agent, AgentBuilder, AgentError, AgentOutput, ChatMessage, ChatRequest, ChatRole,
    GeneratorError, Hook, HookPoint, RunOptions, State, Tool, ToolCall, ToolError, ToolInvocation,
    ToolSpec, generator_fn, hook_fn,
};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A shared, ordered log of what hooks and tools saw.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }

    pub fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    pub fn count(&self, prefix: &str) -> usize {
        self.entries()
            .iter()
            .filter(|e| e.starts_with(prefix))
            .count()
    }
}

/// The `step_count` a hook sees, or -1 when it is absent or not an integer.
pub fn step(state: &State) -> i64 {
    state.step_count().unwrap_or(-1)
}

/// A hook that logs `point(step_count)`.
pub fn recorder(log: &Log, point: HookPoint) -> impl Hook + Clone {
    labelled(log, point.as_str())
}

/// A hook that logs `label(step_count)`.
pub fn labelled(log: &Log, label: &str) -> impl Hook + Clone {
    let log = log.clone();
    let name = label.to_owned();
    let label = label.to_owned();
    hook_fn(move |state: &mut State| log.push(format!("{label}({})", step(state)))).named(name)
}

/// Registers a recorder at every hook point.
/// The hooks a tool step then a text exit run, with the `step_count` each
/// sees (reference §7, worked timelines).
pub const TOOL_STEP_THEN_TEXT: [&str; 7] = [
    "before_run(0)",
    "before_llm(0)",
    "before_tool(0)",
    "after_tool(0)",
    "before_llm(1)",
    "on_exit(2)",
    "after_run(2)",
];

pub fn record_everywhere(mut builder: AgentBuilder, log: &Log) -> AgentBuilder {
    for point in HookPoint::ALL {
        builder = builder.hook(point, recorder(log, point));
    }
    builder
}

/// A text reply.
pub fn text(text: &str) -> ModelReply {
    ModelReply::text(text)
}

/// A reply calling one tool.
pub fn call(tool: &str, arguments: Value) -> ModelReply {
    ModelReply::tool_call(tool, arguments)
}

/// A reply calling several tools with no arguments, in order.
pub fn calls(tools: &[&str]) -> ModelReply {
    tools.iter().fold(ModelReply::empty(), |reply, tool| {
        reply.with_tool_call(*tool, Value::Object(Map::new()))
    })
}

/// A scripted model that a test can still ask how often it was called.
pub fn model(replies: impl IntoIterator<Item = ModelReply>) -> Arc<ScriptedChatGenerator> {
    ScriptedChatGenerator::new(replies).shared()
}

/// An agent builder over a scripted model.
pub fn agent(replies: impl IntoIterator<Item = ModelReply>) -> AgentBuilder {
    Agent::builder().chat_generator(ScriptedChatGenerator::new(replies))
}

/// An agent builder over a shared scripted model.
pub fn agent_with(model: &Arc<ScriptedChatGenerator>) -> AgentBuilder {
    Agent::builder().chat_generator(model.clone())
}

/// A model that returns the `k`-th batch of replies on its `k`-th call
/// (batches may be empty or hold several replies).
pub fn batches(batches: Vec<Vec<ChatMessage>>) -> impl hookharness::ChatGenerator {
    let next = AtomicUsize::new(0);
    generator_fn(move |_request: ChatRequest<'_>| {
        let k = next.fetch_add(1, Ordering::SeqCst);
        batches
            .get(k)
            .cloned()
            .ok_or_else(|| GeneratorError::new(format!("no batch for LLM call {k}")))
    })
}

/// An assistant message with these tool calls (ids `id_<tool>`).
pub fn assistant_calls(text: Option<&str>, tools: &[&str]) -> ChatMessage {
    ChatMessage::from_assistant_parts(
        text.map(str::to_owned),
        tools
            .iter()
            .map(|t| ToolCall::new(*t, Map::new()).with_id(format!("id_{t}")))
            .collect(),
    )
}

/// The user's first message.
pub fn user(text: &str) -> Vec<ChatMessage> {
    vec![ChatMessage::from_user(text)]
}

/// Runs with one user message and no options.
pub fn run(agent: &Agent) -> Result<AgentOutput, AgentError> {
    agent.run(user("go"), RunOptions::new())
}

/// A tool that answers every call with `"ok"`.
pub fn ok_tool(name: &str) -> ScriptedTool {
    ScriptedTool::new(ToolSpec::new(name), [ScriptedResult::Text("ok".into())]).repeat_last(true)
}

/// A tool that fails every call with this message.
pub fn failing_tool(name: &str, message: &str) -> ScriptedTool {
    ScriptedTool::new(ToolSpec::new(name), [ScriptedResult::Error(message.into())])
        .repeat_last(true)
}

/// A shared tool, so a test can count its calls after the run.
pub fn shared(tool: ScriptedTool) -> Arc<ScriptedTool> {
    Arc::new(tool)
}

/// `(tool name, result text, error)` of every tool message, in order.
pub fn tool_results(messages: &[ChatMessage]) -> Vec<(String, String, bool)> {
    messages
        .iter()
        .filter(|m| m.is_from(ChatRole::Tool))
        .filter_map(|m| m.tool_call_result())
        .map(|r| {
            (
                r.origin.tool_name.clone(),
                r.result.as_text().unwrap_or("<parts>").to_owned(),
                r.error,
            )
        })
        .collect()
}

/// How many calls run at once, and the most that ever did.
#[derive(Clone, Default)]
pub struct InFlight(Arc<(AtomicUsize, AtomicUsize)>);

impl InFlight {
    pub fn enter(&self) {
        let now = self.0.0.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.1.fetch_max(now, Ordering::SeqCst);
    }

    pub fn leave(&self) {
        self.0.0.fetch_sub(1, Ordering::SeqCst);
    }

    /// The most calls that ever ran at once.
    pub fn max(&self) -> usize {
        self.0.1.load(Ordering::SeqCst)
    }
}

/// A tool that sleeps, logs its name when done and returns its name.
/// The sleep only shuffles completion order; no test asserts on time.
pub struct SleepyTool {
    spec: ToolSpec,
    sleep: Duration,
    log: Log,
    in_flight: InFlight,
}

impl SleepyTool {
    pub fn new(name: &str, millis: u64, log: &Log, in_flight: &InFlight) -> Self {
        SleepyTool {
            spec: ToolSpec::new(name),
            sleep: Duration::from_millis(millis),
            log: log.clone(),
            in_flight: in_flight.clone(),
        }
    }
}

impl Tool for SleepyTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke(&self, _invocation: ToolInvocation<'_>) -> Result<Value, ToolError> {
        self.in_flight.enter();
        std::thread::sleep(self.sleep);
        self.in_flight.leave();
        self.log.push(format!("done {}", self.spec.name));
        Ok(Value::String(self.spec.name.clone()))
    }

    fn invoke_async<'a>(&'a self, _invocation: ToolInvocation<'a>) -> hookharness::ToolFuture<'a> {
        hookharness::ToolFuture::new(async move {
            self.in_flight.enter();
            tokio::time::sleep(self.sleep).await;
            self.in_flight.leave();
            self.log.push(format!("done {}", self.spec.name));
            Ok(Value::String(self.spec.name.clone()))
        })
    }
}

/// A schema with these list-typed user keys.
pub fn list_keys(keys: &[&str]) -> StateSchema {
    keys.iter().fold(StateSchema::new(), |schema, key| {
        schema.key(*key, hookharness::state::ValueType::List)
    })
}
