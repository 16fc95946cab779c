//! The step loop, written once for both paths.
//!
//! `run` is an async function; a sync run drives it with `block_on`, where
//! every call is a plain function call and the future is ready at once.
//! One body for both paths means the sync and async loops cannot drift.

use super::counter::StepCounter;
use super::exit::{model_exit_reason, tool_exit};
use super::prompts;
use super::select::select_tools;
use super::usage::{record_context_tokens, record_llm_usage};
use super::{Agent, AgentError, AgentOutput, RunOptions};
use crate::generator::ChatRequest;
use crate::hook::HookPoint;
use crate::message::{ChatMessage, ToolCall};
use crate::observe::{Event, Observer};
use crate::pyfmt::pyset::PySet;
use crate::state::{State, keys};
use crate::stream::{StreamingCallback, select_streaming_callback};
use crate::tool::{ExecOptions, ExecutedCall, Tool, ToolSpec, execute_tool_calls};
use crate::value::{add_one, truthy, type_name};
use serde_json::{Map, Value};
use std::sync::Arc;
use tracing::Instrument;

pub(super) struct Run<'a, 'o> {
    pub(super) agent: &'a Agent,
    /// The tools of this run (all configured ones, or those selected by name).
    pub(super) tools: Arc<[Arc<dyn Tool>]>,
    pub(super) state: State,
    /// The loop's counter: `step_count` as Python reads it after the
    /// `before_run` hooks (an int, or a float or bool a hook left there).
    pub(super) counter: StepCounter,
    pub(super) llm_calls: usize,
    /// Per tool (by position in the agent's tools): executions so far.
    pub(super) ordinals: Vec<usize>,
    pub(super) observer: Option<&'o mut dyn Observer>,
    pub(super) is_async: bool,
    /// The streaming callback of this run (`select_streaming_callback`).
    pub(super) streaming: Option<StreamingCallback>,
    /// The run's `generation_kwargs`, passed to every generator call.
    pub(super) generation_kwargs: Option<Map<String, Value>>,
    /// `true` once the tool names were checked: the run's tools are fixed,
    /// so the check Haystack makes at every step gives the same answer at
    /// every step.
    pub(super) names_checked: bool,
    /// The calls that ran in the current step, kept from step to step so
    /// that a step does not allocate it anew.
    pub(super) executed: Vec<ExecutedCall>,
    /// The list the step's tool messages are collected in, kept (empty)
    /// from step to step for the same reason.
    pub(super) tool_messages: Vec<ChatMessage>,
    /// `true` when a tool of this run could read or write the conversation
    /// (see [`touches_conversation`]); the run's tools are fixed, so it is
    /// found once.
    pub(super) conversation_tools: bool,
}

pub(super) async fn run(
    agent: &Agent,
    messages: Vec<ChatMessage>,
    options: RunOptions,
    observer: Option<&mut dyn Observer>,
    is_async: bool,
) -> Result<AgentOutput, AgentError> {
    warm_up(agent, is_async).await?;
    let (system, user) = prompts::render(&agent.prompts, &options)?;
    let tools = select_tools(&agent.tools, options.tools.as_deref())?;
    let runtime_callback = options.streaming_callback.clone();
    let generation_kwargs = options.generation_kwargs.clone();
    let state = initial_state(agent, &tools, system, messages, user, options)?;
    let streaming = select_streaming_callback(
        agent.streaming_callback.as_ref(),
        runtime_callback.as_ref(),
        is_async,
    )?;
    let conversation_tools = tools.iter().any(|tool| touches_conversation(tool.spec()));
    let mut run = Run {
        conversation_tools,
        streaming,
        generation_kwargs,
        agent,
        ordinals: vec![0; tools.len()],
        tools,
        state,
        counter: StepCounter::Int(0),
        llm_calls: 0,
        observer,
        is_async,
        names_checked: false,
        executed: Vec::new(),
        tool_messages: Vec::new(),
    };
    let span = tracing::info_span!(
        "haystack.agent.run",
        haystack.agent.steps_taken = tracing::field::Empty
    );
    let result = run.drive().instrument(span.clone()).await;
    span.record("haystack.agent.steps_taken", run.counter.number());
    result?;
    Ok(run.into_output())
}

async fn warm_up(agent: &Agent, is_async: bool) -> Result<(), AgentError> {
    for tool in agent.tools.iter() {
        tool.warm_up().map_err(|e| {
            super::warm_up_error(&format!("tool `{}`", tool.spec().name), e.message())
        })?;
    }
    super::dispatch::warm_up_hooks(agent, is_async).await?;
    agent
        .generator
        .warm_up()
        .map_err(|e| super::warm_up_error("the chat generator", e.message()))
}

/// Haystack's run initialisation, in its order of keys.
fn initial_state(
    agent: &Agent,
    tools: &Arc<[Arc<dyn Tool>]>,
    system: Option<ChatMessage>,
    messages: Vec<ChatMessage>,
    user: Option<ChatMessage>,
    options: RunOptions,
) -> Result<State, AgentError> {
    let mut state = State::from_schema(agent.schema.clone());
    for (key, value) in options.state {
        if key == keys::MESSAGES || !agent.schema.contains(&key) {
            return Err(AgentError::UnknownRunStateKey { key });
        }
        state.data_mut().insert(key, value);
    }
    // Variables are keyword arguments too: those naming a state key seed it.
    for (key, value) in options.variables {
        if key != keys::MESSAGES && agent.schema.contains(&key) {
            state.data_mut().insert(key, value);
        }
    }
    let mut prepared = Vec::with_capacity(messages.len() + 2);
    prepared.extend(system);
    prepared.extend(messages);
    prepared.extend(user);
    state.append_messages(prepared)?;
    let data = state.data_mut();
    data.insert(keys::STEP_COUNT.into(), Value::from(0));
    data.insert(keys::TOKEN_USAGE.into(), Value::Object(Map::new()));
    data.insert(keys::CONTEXT_TOKENS.into(), Value::from(0));
    data.insert(
        keys::TOOL_CALL_COUNTS.into(),
        Value::Object(
            tools
                .iter()
                .map(|t| (t.spec().name.clone(), Value::from(0)))
                .collect(),
        ),
    );
    data.insert(keys::EXIT_REASON.into(), Value::Null);
    data.insert(keys::CONTINUE_RUN.into(), Value::Bool(false));
    state.set_tools(tools.clone());
    state.set_hook_context(options.hook_context);
    Ok(state)
}

impl Run<'_, '_> {
    async fn drive(&mut self) -> Result<(), AgentError> {
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::RunStarted { state: &self.state });
        }
        self.run_hooks(HookPoint::BeforeRun).await?;
        // A before_run hook may restore a saved State: resume from its count,
        // whatever it holds, as Haystack does (`state.data.get("step_count", 0)`).
        self.counter = match self.state.data().get(keys::STEP_COUNT) {
            Some(value) => StepCounter::from_value(value.clone()),
            None => StepCounter::Int(0),
        };
        let mut stopped_by_step = false;
        while self.below_max_steps()? {
            let step_span = tracing::info_span!(
                "haystack.agent.step",
                haystack.agent.step = self.counter.number()
            );
            if !self.step().instrument(step_span).await? {
                stopped_by_step = true;
                break;
            }
        }
        if !stopped_by_step {
            tracing::warn!(
                "Agent reached maximum agent steps of {}, stopping.",
                self.agent.max_agent_steps
            );
            self.state
                .put(keys::EXIT_REASON, Value::from("max_agent_steps"));
            if let Some(observer) = self.observer.as_deref_mut() {
                observer.on_event(&Event::MaxStepsReached { state: &self.state });
            }
        }
        self.run_hooks(HookPoint::AfterRun).await?;
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::RunFinished { state: &self.state });
        }
        Ok(())
    }

    /// One step; `Ok(false)` ends the loop.
    async fn step(&mut self) -> Result<bool, AgentError> {
        let tools = self.tools.clone();
        if !self.names_checked {
            check_duplicate_names(&tools)?;
            self.names_checked = true;
        }
        self.state.set_tools(tools.clone());
        self.run_hooks(HookPoint::BeforeLlm).await?;
        if self.stop_requested() {
            return Ok(false);
        }

        let replies = self.call_llm(&tools).await?;
        record_llm_usage(&mut self.state, &replies);
        record_context_tokens(&mut self.state, &replies);
        let model_exit = model_exit_reason(&replies);
        self.state.append_messages(replies)?;
        if tools.is_empty() || model_exit.is_some() {
            self.advance()?;
            self.state
                .put(keys::EXIT_REASON, Value::from(model_exit.unwrap_or("text")));
            return self.continue_after_exit().await;
        }

        self.run_hooks(HookPoint::BeforeTool).await?;
        let exit = self.run_tools(&tools).await?;
        self.run_hooks(HookPoint::AfterTool).await?;
        self.advance()?;
        match exit {
            Some(tool) => {
                self.state.put(keys::EXIT_REASON, Value::from(tool));
                self.continue_after_exit().await
            }
            None => Ok(true),
        }
    }

    /// `counter < max_agent_steps`, with Python's error for a counter that
    /// is no number.
    fn below_max_steps(&self) -> Result<bool, AgentError> {
        self.counter
            .less_than(self.agent.max_agent_steps)
            .map_err(|python| {
                AgentError::InvalidControlKey(format!(
                    "{python}: `step_count` is {} after the before_run hooks, and the loop compares it with max_agent_steps; set it to an integer",
                    crate::pyfmt::repr(&self.counter.to_value())
                ))
            })
    }

    /// `counter += 1`, written to `step_count` (the counter is a number: it
    /// passed the comparison with `max_agent_steps`).
    fn advance(&mut self) -> Result<(), AgentError> {
        let value = self
            .counter
            .advance()
            .map_err(|python| AgentError::InvalidControlKey(python.to_string()))?;
        self.state.put(keys::STEP_COUNT, value);
        Ok(())
    }

    /// The stop check after `before_llm`: a `stop_run` value ends the run
    /// with that value as its exit reason.
    fn stop_requested(&mut self) -> bool {
        let Some(reason) = self
            .state
            .lookup(keys::STOP_RUN)
            .filter(|v| !v.is_null())
            .cloned()
        else {
            return false;
        };
        self.state.put(keys::EXIT_REASON, reason.clone());
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::Stopped {
                state: &self.state,
                reason: &reason,
            });
        }
        true
    }

    /// Runs the pending calls of the last message (re-read here: a
    /// `before_tool` hook may have rewritten or removed them), appends the
    /// tool messages and returns the tool exit condition met, if any.
    async fn run_tools(&mut self, tools: &[Arc<dyn Tool>]) -> Result<Option<String>, AgentError> {
        let options = ExecOptions {
            raise_on_failure: self.agent.raise_on_tool_invocation_failure,
            concurrency_limit: self.agent.tool_concurrency_limit,
            is_async: self.is_async,
            streaming: self.streaming.clone(),
            passthrough: self.agent.tool_streaming_callback_passthrough,
        };
        // The calls are borrowed from that message, which leaves the
        // conversation while the tools run, unless a tool could read or write
        // the conversation (a State-taking tool, an output merged into
        // `messages`): then the message is copied and stays.
        let copied =
            self.conversation_tools && calls_conversation_tool(self.state.messages().last(), tools);
        let held = if copied {
            self.state.messages().last().cloned()
        } else {
            match self.state.messages().last() {
                Some(message) if message.has_tool_calls() => self.state.messages_mut().pop(),
                _ => None,
            }
        };
        let mut executed = std::mem::take(&mut self.executed);
        executed.clear();
        // The calls are reported at the step they ran in, whatever a tool
        // writes into `step_count` (read only when someone is watching).
        let step = self
            .observer
            .is_some()
            .then(|| self.state.data().get(keys::STEP_COUNT).cloned())
            .flatten();
        let pending = Calls::of(held.as_ref());
        let outcome = execute_tool_calls(
            pending.as_slice(),
            &mut self.state,
            tools,
            &mut self.ordinals,
            &mut executed,
            &options,
            std::mem::take(&mut self.tool_messages),
        )
        .await;
        let exit = match &outcome {
            Ok(report) if self.checks_tool_exit() => tool_exit(
                &self.agent.exit_conditions,
                pending.as_slice(),
                &report.messages,
            )
            .map(str::to_owned),
            _ => None,
        };
        // The popped message goes back, untouched, before anyone looks.
        let copy = if copied {
            held
        } else {
            if let Some(message) = held {
                self.state.messages_mut().push(message);
            }
            None
        };
        self.emit_tool_finished(copy.as_ref(), step.as_ref(), &mut executed);
        self.executed = executed;
        let mut tool_messages = outcome?.messages;
        // Haystack appends, then counts; a failure of either fails the run
        // (appending first), and neither shows in a failed run's outcome.
        let counted = record_tool_calls(&mut self.state, &tool_messages);
        self.state.append_messages_from(&mut tool_messages)?;
        self.tool_messages = tool_messages;
        counted?;
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::ToolsFinished { state: &self.state });
        }
        Ok(exit)
    }

    /// `false` when `text` is the only exit condition: no tool can end the run.
    fn checks_tool_exit(&self) -> bool {
        !(self.agent.exit_conditions.len() == 1 && self.agent.exit_conditions[0] == "text")
    }

    /// One `ToolFinished` per call that ran, in call order; the pending
    /// batch is the copy, or the message back at the end of the conversation.
    fn emit_tool_finished(
        &mut self,
        copy: Option<&ChatMessage>,
        step: Option<&Value>,
        executed: &mut [ExecutedCall],
    ) {
        let Some(observer) = self.observer.as_deref_mut() else {
            return;
        };
        let source = copy.or_else(|| self.state.messages().last());
        let pending: Vec<&ToolCall> = source.map(|m| m.tool_calls().collect()).unwrap_or_default();
        executed.sort_by_key(|ran| ran.index);
        for ran in executed.iter() {
            observer.on_event(&Event::ToolFinished {
                state: &self.state,
                step,
                call: pending[ran.index],
                error: ran.error,
            });
        }
    }

    async fn call_llm(&mut self, tools: &[Arc<dyn Tool>]) -> Result<Vec<ChatMessage>, AgentError> {
        let call = self.llm_calls;
        self.llm_calls += 1;
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::LlmStarted {
                state: &self.state,
                messages: self.state.messages(),
            });
        }
        let mut request = ChatRequest::new(self.state.messages(), tools);
        request.streaming_callback = self.streaming.as_ref();
        request.generation_kwargs = self.generation_kwargs.as_ref();
        let generator = &self.agent.generator;
        let span = tracing::info_span!("haystack.agent.step.llm");
        let outcome = if self.is_async {
            // A generator whose `run_async` finished in the call (a sync
            // generator's default) hands its replies back without a future.
            match span.in_scope(|| generator.run_async(request).into_ready()) {
                Ok(outcome) => outcome,
                Err(future) => future.instrument(span).await,
            }
        } else {
            span.in_scope(|| generator.run(request))
        };
        match outcome {
            Ok(replies) => {
                if let Some(observer) = self.observer.as_deref_mut() {
                    observer.on_event(&Event::LlmFinished {
                        state: &self.state,
                        replies: &replies,
                    });
                }
                Ok(replies)
            }
            Err(error) => {
                if let Some(observer) = self.observer.as_deref_mut() {
                    observer.on_event(&Event::LlmFailed {
                        state: &self.state,
                        error: error.message(),
                    });
                }
                Err(AgentError::Generator {
                    call,
                    step: self.counter.number(),
                    message: error.message().to_owned(),
                })
            }
        }
    }

    /// Exit handling: on_exit hooks (only when registered), then the
    /// `continue_run` flag is consumed.
    async fn continue_after_exit(&mut self) -> Result<bool, AgentError> {
        let continues = if self.agent.hooks.at(HookPoint::OnExit).is_empty() {
            false
        } else {
            self.state.set_continue_run(false);
            self.run_hooks(HookPoint::OnExit).await?;
            let flag = match self.state.data().get(keys::CONTINUE_RUN) {
                Some(value) => truthy(value),
                None => {
                    return Err(AgentError::InvalidControlKey(
                        "an on_exit hook removed `continue_run` from the state data; set it to true or false instead"
                            .into(),
                    ));
                }
            };
            self.state.set_continue_run(false);
            flag
        };
        if let Some(observer) = self.observer.as_deref_mut() {
            let reason = self
                .state
                .data()
                .get(keys::EXIT_REASON)
                .unwrap_or(&Value::Null);
            observer.on_event(&Event::Exit {
                state: &self.state,
                reason,
                continues,
            });
        }
        Ok(continues)
    }

    fn into_output(mut self) -> AgentOutput {
        let messages = self.state.take_messages().unwrap_or_default();
        let hook_context = self.state.take_hook_context();
        let mut data = std::mem::take(self.state.data_mut());
        data.retain(|key, _| !keys::is_internal(key));
        AgentOutput {
            last_message: messages.last().cloned(),
            messages,
            data,
            hook_context,
        }
    }
}

/// `true` for a tool that could read or write the conversation: one that
/// takes State or merges an output into `messages`.
fn touches_conversation(spec: &ToolSpec) -> bool {
    spec.takes_state || spec.outputs_to_state.contains_key(keys::MESSAGES)
}

/// `true` when a pending call goes to a tool that could read or write the
/// conversation.
fn calls_conversation_tool(last: Option<&ChatMessage>, tools: &[Arc<dyn Tool>]) -> bool {
    last.is_some_and(|message| {
        message.tool_calls().any(|call| {
            tools.iter().any(|tool| {
                let spec = tool.spec();
                spec.name == call.tool_name && touches_conversation(spec)
            })
        })
    })
}

/// The tool calls of a held message as a slice; the common single call
/// needs no allocation. The calls are the message's shared handles, which
/// the tool results keep as their `origin`.
enum Calls<'m> {
    One([&'m Arc<ToolCall>; 1]),
    Many(Vec<&'m Arc<ToolCall>>),
}

impl<'m> Calls<'m> {
    fn of(message: Option<&'m ChatMessage>) -> Self {
        let Some(message) = message else {
            return Calls::Many(Vec::new());
        };
        let mut calls = message.shared_tool_calls();
        match (calls.next(), calls.next()) {
            (Some(call), None) => Calls::One([call]),
            _ => Calls::Many(message.shared_tool_calls().collect()),
        }
    }

    fn as_slice(&self) -> &[&'m Arc<ToolCall>] {
        match self {
            Calls::One(one) => one,
            Calls::Many(many) => many,
        }
    }
}

/// Counts every returned tool message with a result, errored and unknown
/// calls included; results written by hooks are not counted.
///
/// As Haystack's `_record_tool_calls`: `counts = state.data.get("tool_call_counts") or {}`,
/// then `counts[name] = counts.get(name, 0) + 1` on whatever a hook left
/// there, failing with Python's text where Python fails.
fn record_tool_calls(state: &mut State, tool_messages: &[ChatMessage]) -> Result<(), AgentError> {
    if !tool_messages.iter().any(|m| m.tool_call_result().is_some()) {
        return Ok(());
    }
    // Looked up by `&str`: `entry` would allocate the key at every step.
    if state.lookup(keys::TOOL_CALL_COUNTS).is_none() {
        state.put(keys::TOOL_CALL_COUNTS, Value::Null);
    }
    let Some(slot) = state.lookup_mut(keys::TOOL_CALL_COUNTS) else {
        return Ok(());
    };
    if !slot.is_object() {
        if truthy(slot) {
            return Err(AgentError::InvalidControlKey(format!(
                "'{}' object has no attribute 'get': `tool_call_counts` is {}, and the loop counts tool calls in it; keep it a map of tool names to integers",
                type_name(slot),
                crate::pyfmt::repr(slot)
            )));
        }
        // Missing, or a falsy value (`None`, `0`, `[]`, `""`): a new map.
        *slot = Value::Object(Map::new());
    }
    let Value::Object(counts) = slot else {
        return Ok(());
    };
    for message in tool_messages {
        if let Some(result) = message.tool_call_result() {
            let name = &result.origin.tool_name;
            match crate::state::find::get_mut(counts, name) {
                Some(count) => {
                    *count = add_one(count).map_err(|python| {
                        AgentError::InvalidControlKey(format!(
                            "{python}: `tool_call_counts[{}]` is {}, and the loop adds 1 to it after the tool ran; keep it an integer",
                            crate::pyfmt::repr(&Value::String(name.clone())),
                            crate::pyfmt::repr(count)
                        ))
                    })?;
                }
                None => {
                    counts.insert(name.clone(), Value::from(1));
                }
            }
        }
    }
    Ok(())
}

/// Haystack checks tool names at every step, after `before_run`.
fn check_duplicate_names(tools: &[Arc<dyn Tool>]) -> Result<(), AgentError> {
    // `{name for name in tool_names if tool_names.count(name) > 1}`.
    let names: Vec<&str> = tools.iter().map(|t| t.spec().name.as_str()).collect();
    let count = |name: &str| names.iter().filter(|n| **n == name).count();
    let duplicates = PySet::from_items(names.iter().copied().filter(|n| count(n) > 1));
    if duplicates.is_empty() {
        return Ok(());
    }
    Err(AgentError::DuplicateToolNames {
        names: duplicates.repr(),
    })
}
