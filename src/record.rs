//! Recording: run a scenario against a live model and keep the replies as
//! the scenario's `model` script, so the run replays offline.
//!
//! ```text
//!  Scenario ──Replay::run_with_generator──▶ Agent (the scenario's tools, hooks, run inputs)
//!                                             │ each model call
//!                                             ▼
//!                               Recorder ──▶ live generator (HTTP, or any ChatGenerator)
//!                                 │ the reply as a `model` entry
//!                                 │ ──▶ the agent gets the message a replay of that entry gives
//!                                 ▼
//!  Recording { scenario: the input with `model` = the replies, each with
//!              `sees` = the request it answered (after the first: what is
//!              new since the request before); live: the live run's Outcome }
//! ```
//!
//! The agent receives, for each call, exactly the message that the scripted
//! generator will build from the recorded entry: text, tool calls with their
//! ids, `usage` and `finish_reason`. Meta keys that the scenario format does
//! not hold (`model`, `index`, `logprobs`) are therefore left out of the live
//! run too, and a replay of the recording is the same run: same result, same
//! trace. What is recorded is the conversation's replies, never a header or
//! a key.
//!
//! ```
//! use hookharness::record::{record, same_run};
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//! use hookharness::{ChatMessage, generator_fn};
//! use std::sync::Arc;
//!
//! let scenario = Scenario::from_str(
//!     "model: []\nrun:\n  messages: [{role: user, text: Hi}]\n",
//!     "hi.yaml",
//!     Format::Yaml,
//! )?;
//! let live = Arc::new(generator_fn(|_| Ok(vec![ChatMessage::from_assistant("Hello!")])));
//! let recording = record(&Replay::new(), &scenario, live);
//! assert_eq!(recording.scenario.model.len(), 1);
//! let sees = &recording.scenario.sees[&0];
//! assert_eq!(sees.messages.as_ref().map(Vec::len), Some(1));
//!
//! let text = recording.to_json();
//! let loaded = Scenario::from_str(&text, "hi.json", Format::Json)?;
//! let replayed = Replay::new().run(&loaded);
//! assert!(same_run(&recording.live, &replayed));
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

use crate::engine::{LiveCall, LiveModels};
use crate::future::CallFuture;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError, GeneratorFuture};
use crate::message::{ChatMessage, ChatRole};
use crate::replay::{Outcome, Replay, SeenRequest, seen};
use crate::scenario::Scenario;
use crate::scripted::{FinishReason, ModelReply, ScriptedToolCall};
use crate::tool::{Tool, ToolError, ToolInvocation, ToolSpec};
use indexmap::IndexMap;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// A scenario recorded against a live model.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Recording {
    /// The input scenario with `model` replaced by the replies received, one
    /// per model call (a failed call is an `{error: ...}` entry), each with
    /// `sees`: the request it answered, so that a replay fails as soon as a
    /// change sends the model another conversation. The first lists its
    /// messages (`messages`); each later one counts those its request shares
    /// with the request before (`previous_messages`) and lists the others
    /// (`new_messages`), so the recording holds each message once.
    pub scenario: Scenario,
    /// The outcome of the live run.
    pub live: Outcome,
    failed_call: Option<(usize, String)>,
    failed_named_call: Option<(String, usize, String)>,
    too_deep: Option<String>,
}

impl Recording {
    /// Why the recording cannot be written as a file its loader reads back
    /// (an entry nested past the loader's depth limit), if so.
    #[must_use]
    pub fn unloadable(&self) -> Option<&str> {
        self.too_deep.as_deref()
    }

    /// The replies received, in call order.
    #[must_use]
    pub fn replies(&self) -> &[ModelReply] {
        &self.scenario.model
    }

    /// How many model calls were recorded: the main `model`'s and, on an
    /// engine that runs them, the `models:` scripts'.
    #[must_use]
    pub fn calls(&self) -> usize {
        self.scenario.model.len()
            + self
                .scenario
                .python
                .models
                .values()
                .map(|m| m.replies.len())
                .sum::<usize>()
    }

    /// The first model call that failed (0-based index and message), if any.
    #[must_use]
    pub fn failed_call(&self) -> Option<(usize, &str)> {
        self.failed_call.as_ref().map(|(i, m)| (*i, m.as_str()))
    }

    /// The first call of a `models:` script that failed (the script's
    /// name, the call's 0-based index in it, the message), if any.
    #[must_use]
    pub fn failed_named_call(&self) -> Option<(&str, usize, &str)> {
        self.failed_named_call
            .as_ref()
            .map(|(name, i, m)| (name.as_str(), *i, m.as_str()))
    }

    /// The recorded scenario as JSON text (see [`Scenario::to_json`]).
    #[must_use]
    pub fn to_json(&self) -> String {
        self.scenario.to_json()
    }
}

/// Runs `scenario` with `generator` as its model (through `replay`, which
/// holds any custom hooks) and records each reply. On an engine set with
/// [`Replay::engine`] (the Haystack engine) every scripted model is live:
/// the main `model` and each `models:` script, whose replies are recorded
/// into their own script (without `sees`, which only `model` entries have).
pub fn record(
    replay: &Replay,
    scenario: &Scenario,
    generator: Arc<dyn ChatGenerator>,
) -> Recording {
    record_with(replay, scenario, generator, None)
}

/// [`record`], stopping the run before a model call whose request would
/// take the messages the recording lists in `sees` past `max_bytes` (about,
/// as compact JSON): that call fails, as [`Recording::failed_call`] says,
/// so a run whose conversation grows without end cannot exhaust memory.
pub fn record_within(
    replay: &Replay,
    scenario: &Scenario,
    generator: Arc<dyn ChatGenerator>,
    max_bytes: usize,
) -> Recording {
    record_with(replay, scenario, generator, Some(max_bytes))
}

fn record_with(
    replay: &Replay,
    scenario: &Scenario,
    generator: Arc<dyn ChatGenerator>,
    budget: Option<usize>,
) -> Recording {
    let recorder = Arc::new(Recorder {
        inner: generator,
        budget,
        log: Mutex::new(Log::default()),
    });
    // The input's own `sees` describe its old script, not this run.
    let mut input = scenario.clone();
    input.sees.clear();
    let live = replay
        .run_live(&input, &*recorder)
        .unwrap_or_else(|| replay.run_with_generator(&input, recorder.clone()));
    let mut log = std::mem::take(&mut *recorder.log.lock().unwrap_or_else(|e| e.into_inner()));
    let requests = log.requests;
    let mut recorded = input;
    recorded.model = log.replies;
    if replay.engine_name() != "rust" {
        // Each script holds this run's calls to it: none for a script the run never called.
        for (name, script) in &mut recorded.python.models {
            script.replies = log.named.shift_remove(name).unwrap_or_default();
        }
    }
    // Each request after the first as what is new since the one before:
    // a recording holds each message once, however long the run.
    recorded.sees = requests
        .iter()
        .enumerate()
        .map(|(i, request)| {
            let previous = i.checked_sub(1).map(|p| &requests[p]);
            (i, request.to_sees_after(previous))
        })
        .collect();
    drop(requests);
    recorded.file = None;
    let too_deep = recorded.first_too_deep_entry().map(|(entry, depth)| {
        format!(
            "`model[{entry}]` of the recording (a reply, with the request it answered in \
             `sees`) nests lists and maps {depth} levels deep, past the {} levels the scenario \
             loader reads, so the recording would not load back: the server's reply (its tool \
             call arguments, most likely) is nested too deeply to record",
            crate::scenario::MAX_DEPTH
        )
    });
    Recording {
        scenario: recorded,
        live,
        failed_call: log.failed_call,
        failed_named_call: log.failed_named_call,
        too_deep,
    }
}

/// `true` when two outcomes show the same run: equal result, trace and
/// error (status and failures may differ: a live run checks `unused_replies`
/// against the old script).
#[must_use]
pub fn same_run(a: &Outcome, b: &Outcome) -> bool {
    a.result == b.result && a.trace == b.trace && a.error == b.error
}

#[derive(Default)]
struct Log {
    replies: Vec<ModelReply>,
    /// The replies of each `models:` script called, by name.
    named: IndexMap<String, Vec<ModelReply>>,
    failed_call: Option<(usize, String)>,
    failed_named_call: Option<(String, usize, String)>,
    /// Each call's request, its messages shared with the request before.
    requests: Vec<SeenRequest>,
    /// About how many bytes the requests' `sees` take (see [`seen::new_bytes`]).
    seen_bytes: usize,
}

/// Wraps the live generator: keeps each request, records each reply and
/// hands the agent the message a replay of the recorded entry gives.
struct Recorder {
    inner: Arc<dyn ChatGenerator>,
    /// The most bytes the requests' `sees` may take.
    budget: Option<usize>,
    log: Mutex<Log>,
}

impl Recorder {
    /// Keeps the request; an error when it takes the recording past the
    /// budget (the call is then not made).
    fn see(&self, request: &ChatRequest<'_>) -> Result<(), GeneratorError> {
        let tools = request.tools.iter().map(|tool| tool.spec().name.clone());
        self.see_parts(request.messages, tools.collect())
    }

    /// [`see`](Self::see) of a request's messages and tool names.
    fn see_parts(
        &self,
        messages: &[ChatMessage],
        tools: Vec<String>,
    ) -> Result<(), GeneratorError> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let seen = SeenRequest {
            messages: seen::shared_with(messages, log.requests.last()),
            tools,
        };
        log.seen_bytes += seen::new_bytes(&seen, log.requests.last());
        log.requests.push(seen);
        match self.budget {
            Some(budget) if log.seen_bytes > budget => Err(GeneratorError::new(format!(
                "the conversation the recording lists would take about {} bytes, past the \
                 {budget}-byte limit on the whole recording; stopped before this call (raise \
                 the limit, `--max-recording-bytes` for `hookharness record`, if a recording \
                 this large is expected)",
                log.seen_bytes
            ))),
            _ => Ok(()),
        }
    }

    fn keep(
        &self,
        result: Result<Vec<ChatMessage>, GeneratorError>,
    ) -> Result<Vec<ChatMessage>, GeneratorError> {
        let (call, entry) = self.keep_entry(result);
        entry.to_message(call).map(|m| vec![m])
    }

    /// Records one reply of the main `model` as its entry (a failed call:
    /// an error entry), with the call's index.
    fn keep_entry(&self, result: Result<Vec<ChatMessage>, GeneratorError>) -> (usize, ModelReply) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let call = log.replies.len();
        let entry = result
            .and_then(|replies| entry_of(&replies))
            .and_then(|entry| loadable(entry, call));
        let entry = entry.unwrap_or_else(|error| {
            log.failed_call
                .get_or_insert_with(|| (call, error.message().to_owned()));
            ModelReply::Error(error.message().to_owned())
        });
        log.replies.push(entry.clone());
        (call, entry)
    }

    /// Records one reply of the `models:` script `name`.
    fn keep_named(
        &self,
        name: &str,
        result: Result<Vec<ChatMessage>, GeneratorError>,
    ) -> ModelReply {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let call = log.named.get(name).map_or(0, Vec::len);
        let entry = result
            .and_then(|replies| entry_of(&replies))
            .and_then(|entry| loadable_named(entry, name));
        let entry = entry.unwrap_or_else(|error| {
            log.failed_named_call
                .get_or_insert_with(|| (name.to_owned(), call, error.message().to_owned()));
            ModelReply::Error(error.message().to_owned())
        });
        log.named
            .entry(name.to_owned())
            .or_default()
            .push(entry.clone());
        entry
    }
}

/// The model calls an engine relays (the Haystack engine's worker): the
/// main `model`'s kept for `sees` within the budget, every call made with
/// the live generator and its reply recorded into its own script.
impl LiveModels for Recorder {
    fn answer(&self, call: LiveCall<'_>) -> ModelReply {
        let tools: Vec<Arc<dyn Tool>> = call
            .tools
            .iter()
            .map(|spec| Arc::new(Offered(spec.clone())) as Arc<dyn Tool>)
            .collect();
        let mut request = ChatRequest::new(call.messages, &tools);
        request.generation_kwargs = call.generation_kwargs;
        let Some(name) = call.model else {
            let names = call.tools.iter().map(|t| t.name.clone()).collect();
            let result = match self.see_parts(call.messages, names) {
                Ok(()) => self.inner.run(request),
                Err(error) => Err(error),
            };
            return self.keep_entry(result).1;
        };
        let result = self.inner.run(request);
        self.keep_named(name, result)
    }
}

/// A tool as the engine offered it to the model: its spec alone (the
/// engine runs the tool itself; the live generator only describes it).
struct Offered(ToolSpec);

impl Tool for Offered {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn invoke(&self, _: ToolInvocation<'_>) -> Result<Value, ToolError> {
        Err(ToolError::new(format!(
            "`{}` is only described to the live model here: the engine runs its tools",
            self.0.name
        )))
    }
}

/// `entry` of the script `models.NAME`, unless the recording would nest it
/// past the loader's depth limit.
fn loadable_named(entry: ModelReply, name: &str) -> Result<ModelReply, GeneratorError> {
    let depth = crate::scenario::named_recorded_depth(&entry);
    if depth > crate::scenario::MAX_DEPTH {
        return Err(GeneratorError::new(format!(
            "the reply nests lists and maps {depth} levels deep where the recording writes it \
             (`models.{name}.replies`; its tool call arguments, most likely), past the {} levels \
             the scenario loader reads, so the recording would not load back; it cannot be \
             recorded",
            crate::scenario::MAX_DEPTH
        )));
    }
    Ok(entry)
}

impl ChatGenerator for Recorder {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        if let Err(error) = self.see(&request) {
            return self.keep(Err(error));
        }
        let result = self.inner.run(request);
        self.keep(result)
    }

    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        if let Err(error) = self.see(&request) {
            return CallFuture::ready(self.keep(Err(error)));
        }
        match self.inner.run_async(request).into_ready() {
            Ok(result) => CallFuture::ready(self.keep(result)),
            Err(pending) => CallFuture::new(async move { self.keep(pending.await) }),
        }
    }

    fn supports_tools(&self) -> bool {
        self.inner.supports_tools()
    }

    fn warm_up(&self) -> Result<(), GeneratorError> {
        self.inner.warm_up()
    }

    fn close(&self) -> Result<(), GeneratorError> {
        self.inner.close()
    }
}

/// `entry`, unless the recording would nest it past the loader's depth
/// limit: then the call fails, so the run stops at that reply instead of
/// making more live calls for a recording that cannot be written.
fn loadable(entry: ModelReply, call: usize) -> Result<ModelReply, GeneratorError> {
    let depth = crate::scenario::recorded_depth(&entry, call);
    if depth > crate::scenario::MAX_DEPTH {
        return Err(GeneratorError::new(format!(
            "the reply nests lists and maps {depth} levels deep where the recording writes it \
             (its tool call arguments, most likely), past the {} levels the scenario loader \
             reads, so the recording would not load back; it cannot be recorded",
            crate::scenario::MAX_DEPTH
        )));
    }
    Ok(entry)
}

/// One reply as a `model` entry: its first text, its tool calls with their
/// ids, `meta.usage` when a map, `meta.finish_reason` when one the format
/// knows.
fn entry_of(replies: &[ChatMessage]) -> Result<ModelReply, GeneratorError> {
    let [reply] = replies else {
        return Err(GeneratorError::new(format!(
            "a recorded model call must return one reply, got {}; record with n = 1",
            replies.len()
        )));
    };
    if reply.role() != ChatRole::Assistant {
        return Err(GeneratorError::new(format!(
            "a recorded model call must return an assistant message, got a `{}` message",
            reply.role()
        )));
    }
    let tool_calls = reply
        .tool_calls()
        .map(|call| ScriptedToolCall {
            id: call.id.clone(),
            ..ScriptedToolCall::new(call.tool_name.clone(), call.arguments.clone())
        })
        .collect();
    let usage = reply
        .meta()
        .get("usage")
        .and_then(|u| u.as_object())
        .cloned();
    let finish_reason = reply.finish_reason().and_then(FinishReason::parse);
    Ok(ModelReply::Reply {
        text: reply.text().map(str::to_owned),
        tool_calls,
        usage,
        finish_reason,
        chunks: None,
    })
}
