//! Running one step's pending tool calls, by Haystack's rules.

use super::exec_error::ExecError;
use super::output;
use super::schedule::{schedule, state_io};
use super::{Tool, ToolError, ToolErrorKind, ToolInvocation};
use crate::message::{ChatMessage, ToolCall};
use crate::pyfmt;
use crate::state::State;
use crate::stream::{StreamingCallback, StreamingChunk};
use futures_util::FutureExt;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use tracing::Instrument;

/// A call that reached its tool (for the trace): its index in the
/// pending calls and whether it failed. Batches may run calls out of call
/// order; the trace sorts them back.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExecutedCall {
    pub index: usize,
    pub error: bool,
}

/// What one step's tool execution produced.
#[derive(Debug)]
pub(crate) struct ToolBatchReport {
    /// Not-found messages first, then executed results in call order.
    pub messages: Vec<ChatMessage>,
}

pub(crate) struct ExecOptions {
    pub raise_on_failure: bool,
    pub concurrency_limit: usize,
    pub is_async: bool,
    /// Receives each tool result, then an end-of-results chunk.
    pub streaming: Option<StreamingCallback>,
    /// Hands the callback to the tools (`tool_streaming_callback_passthrough`).
    pub passthrough: bool,
}

/// Executes the tool calls of `pending` (the last message, when it has
/// calls). `ordinals[i]` counts the earlier executions of `tools[i]`;
/// `executed` receives every call that ran, even when the step then fails.
/// With a streaming callback, each executed result is streamed as it is
/// merged, and a step in which a tool ran ends with an empty
/// `tool_call_results` chunk, as Haystack's `_run_tool` does.
/// `messages` is an empty list whose allocation the report's messages reuse
/// (the loop hands back the previous step's).
pub(crate) async fn execute_tool_calls(
    pending: &[&Arc<ToolCall>],
    state: &mut State,
    tools: &[Arc<dyn Tool>],
    ordinals: &mut [usize],
    executed: &mut Vec<ExecutedCall>,
    options: &ExecOptions,
    messages: Vec<ChatMessage>,
) -> Result<ToolBatchReport, ExecError> {
    let before = executed.len();
    let report = ToolBatchReport { messages };
    // The common case, one call to a known tool, goes straight to
    // `execute_one`: one future fewer to build.
    let single = match pending {
        [call] => tools
            .iter()
            .position(|t| t.spec().name == call.tool_name)
            .map(|position| (*call, position)),
        _ => None,
    };
    let report = match single {
        Some((call, position)) => {
            let tool = &tools[position];
            let ordinal = &mut ordinals[position];
            execute_one(call, tool, state, ordinal, executed, options, report).await?
        }
        None => execute_calls(pending, state, tools, ordinals, executed, options, report).await?,
    };
    if let Some(callback) = &options.streaming {
        // As `_run_tool`: a step whose calls all named unknown tools returns
        // before the end chunk.
        if executed.len() > before {
            callback
                .call_async(StreamingChunk::end_of_tool_results())
                .await;
        }
    }
    Ok(report)
}

/// Streams one merged tool result.
async fn stream_result(options: &ExecOptions, message: &ChatMessage, call: &ToolCall, index: i64) {
    if let (Some(callback), Some(result)) = (&options.streaming, message.tool_call_result()) {
        callback
            .call_async(StreamingChunk::tool_result(result, call, index))
            .await;
    }
}

async fn execute_calls(
    pending: &[&Arc<ToolCall>],
    state: &mut State,
    tools: &[Arc<dyn Tool>],
    ordinals: &mut [usize],
    executed: &mut Vec<ExecutedCall>,
    options: &ExecOptions,
    mut report: ToolBatchReport,
) -> Result<ToolBatchReport, ExecError> {
    if pending.is_empty() {
        return Ok(report);
    }
    let mut calls: Vec<(&Arc<ToolCall>, &Arc<dyn Tool>)> = Vec::with_capacity(pending.len());
    let mut call_index = Vec::with_capacity(pending.len());
    let mut positions = Vec::with_capacity(pending.len());
    for (index, &call) in pending.iter().enumerate() {
        match tools.iter().position(|t| t.spec().name == call.tool_name) {
            Some(position) => {
                calls.push((call, &tools[position]));
                call_index.push(index);
                positions.push(position);
            }
            None => {
                let message = format!(
                    "Tool '{}' not found. Available tools: {}",
                    call.tool_name,
                    tools
                        .iter()
                        .map(|t| t.spec().name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                if options.raise_on_failure {
                    return Err(ExecError::NotFound { message });
                }
                report
                    .messages
                    .push(ChatMessage::from_tool(message, call.clone(), true));
            }
        }
    }
    if calls.is_empty() {
        return Ok(report);
    }

    // Ordinals are fixed at dispatch, so scripted results follow call order
    // whatever the thread timing, and a short script fails before any call runs.
    let mut call_ordinals = Vec::with_capacity(calls.len());
    let mut per_tool: Vec<(&Arc<dyn Tool>, usize, usize)> = Vec::new();
    for ((_, tool), &position) in calls.iter().zip(&positions) {
        call_ordinals.push(ordinals[position]);
        ordinals[position] += 1;
        match per_tool.iter_mut().find(|(t, _, _)| Arc::ptr_eq(t, tool)) {
            Some(entry) => entry.2 += 1,
            None => per_tool.push((tool, call_ordinals[call_ordinals.len() - 1], 1)),
        }
    }
    for (tool, first, count) in per_tool {
        tool.admit(first..first + count)
            .map_err(|error| fatal(&tool.spec().name, error))?;
    }

    // One call needs no scheduling (the common case: skip building key sets).
    let batches = if calls.len() == 1 {
        vec![vec![0]]
    } else {
        let io: Vec<_> = calls
            .iter()
            .map(|(call, tool)| state_io(tool.spec(), &call.arguments))
            .collect();
        schedule(&io)
    };
    let mut results: Vec<Option<ChatMessage>> = vec![None; calls.len()];
    let mut stream_index = 0;
    let parent = current_span();
    for batch in batches {
        // Arguments are prepared per batch, so readers see earlier batches' writes.
        let jobs: Vec<Job<'_>> = batch
            .iter()
            .map(|&i| Job {
                parent: parent.clone(),
                call: calls[i].0,
                tool: calls[i].1,
                index: call_index[i],
                arguments: prepare_arguments(calls[i].1, calls[i].0, state),
                ordinal: call_ordinals[i],
                streaming: passed_callback(options),
            })
            .collect();
        let outcomes = run_batch(&jobs, state, options).await;
        for (job, outcome) in jobs.iter().zip(&outcomes) {
            executed.push(ExecutedCall {
                index: job.index,
                error: outcome.is_err(),
            });
        }
        // Merged in call order within the batch, as Haystack does.
        for ((&index, job), outcome) in batch.iter().zip(&jobs).zip(outcomes) {
            let message = finalize(job, outcome, state, options)?;
            stream_result(options, &message, job.call, stream_index).await;
            stream_index += 1;
            results[index] = Some(message);
        }
    }
    report.messages.extend(results.into_iter().flatten());
    Ok(report)
}

/// The common case, one call to a known tool: the same rules as the general
/// path (admission, State inputs, span, finalizing), without batching.
async fn execute_one(
    call: &Arc<ToolCall>,
    tool: &Arc<dyn Tool>,
    state: &mut State,
    next_ordinal: &mut usize,
    executed: &mut Vec<ExecutedCall>,
    options: &ExecOptions,
    mut report: ToolBatchReport,
) -> Result<ToolBatchReport, ExecError> {
    let name = &tool.spec().name;
    let ordinal = *next_ordinal;
    *next_ordinal += 1;
    tool.admit(ordinal..ordinal + 1)
        .map_err(|error| fatal(name, error))?;
    let job = Job {
        parent: current_span(),
        index: 0,
        call,
        tool,
        arguments: prepare_arguments(tool, call, state),
        ordinal,
        streaming: passed_callback(options),
    };
    let outcome = if options.is_async {
        // A tool whose `invoke_async` finished in the call (a sync tool's
        // default) hands its result back without a future to poll; the call
        // and any future it hands back run in the tool's span, under a panic
        // guard. Written out here rather than in an `async fn` of its own, so
        // that a finished call builds no nested future.
        let span = tool_span(&job);
        // The closure owns its reborrow of `state`, so a future the call
        // hands back keeps it.
        let (reborrowed, job) = (&mut *state, &job);
        let call = move || {
            let state = reborrowed;
            job.tool
                .invoke_async(invocation(job, Some(state)))
                .into_ready()
        };
        let outcome = match span.in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(call))) {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(future)) => AssertUnwindSafe(future.instrument(span.clone()))
                .catch_unwind()
                .await
                .unwrap_or_else(|payload| Err(panicked(job, payload.as_ref()))),
            Err(payload) => Err(panicked(job, payload.as_ref())),
        };
        record_error(&span, &outcome);
        outcome
    } else {
        invoke_sync(&job, Some(&mut *state))
    };
    executed.push(ExecutedCall {
        index: 0,
        error: outcome.is_err(),
    });
    let message = finalize(&job, outcome, state, options)?;
    if options.streaming.is_some() {
        stream_result(options, &message, call, 0).await;
    }
    report.messages.push(message);
    Ok(report)
}

/// The span tool spans hang under; with no subscriber anywhere there is
/// none to look up.
fn current_span() -> tracing::Span {
    if tracing::dispatcher::has_been_set() {
        tracing::Span::current()
    } else {
        tracing::Span::none()
    }
}

/// The callback a tool receives: only with `tool_streaming_callback_passthrough`.
fn passed_callback(options: &ExecOptions) -> Option<&StreamingCallback> {
    options.streaming.as_ref().filter(|_| options.passthrough)
}

struct Job<'a> {
    parent: tracing::Span,
    index: usize,
    /// Shared with the result's `origin`.
    call: &'a Arc<ToolCall>,
    tool: &'a Arc<dyn Tool>,
    arguments: Cow<'a, Map<String, Value>>,
    ordinal: usize,
    /// The streaming callback handed to the tool, with passthrough on.
    streaming: Option<&'a StreamingCallback>,
}

/// The model's arguments, plus those filled from State (copied only when
/// there is something to fill).
fn prepare_arguments<'a>(
    tool: &Arc<dyn Tool>,
    call: &'a Arc<ToolCall>,
    state: &State,
) -> Cow<'a, Map<String, Value>> {
    let mut arguments = Cow::Borrowed(&call.arguments);
    for (state_key, param) in &tool.spec().inputs_from_state {
        if !arguments.contains_key(param) {
            if let Some(value) = state.get(state_key) {
                arguments.to_mut().insert(param.clone(), value);
            }
        }
    }
    arguments
}

async fn run_batch(
    jobs: &[Job<'_>],
    state: &mut State,
    options: &ExecOptions,
) -> Vec<Result<Value, ToolError>> {
    if options.is_async {
        run_batch_async(jobs, state, options.concurrency_limit).await
    } else if jobs.len() == 1 || options.concurrency_limit <= 1 {
        jobs.iter()
            .map(|job| invoke_sync(job, Some(&mut *state)))
            .collect()
    } else {
        run_batch_threads(jobs, state, options.concurrency_limit)
    }
}

fn invocation<'a>(job: &'a Job<'a>, state: Option<&'a mut State>) -> ToolInvocation<'a> {
    ToolInvocation {
        arguments: &job.arguments,
        call: job.call,
        ordinal: job.ordinal,
        streaming_callback: job.streaming,
        state: if job.tool.spec().takes_state {
            state
        } else {
            None
        },
    }
}

/// Haystack's `haystack.agent.step.tool` span; calls of one step are
/// siblings under the step span, whichever thread runs them.
fn tool_span(job: &Job<'_>) -> tracing::Span {
    let spec = job.tool.spec();
    tracing::info_span!(
        parent: &job.parent,
        "haystack.agent.step.tool",
        haystack.tool.name = spec.name.as_str(),
        haystack.tool.description = spec.description.as_str(),
        haystack.tool.error = tracing::field::Empty,
    )
}

fn record_error(span: &tracing::Span, outcome: &Result<Value, ToolError>) {
    if outcome.is_err() {
        span.record("haystack.tool.error", true);
    }
}

fn invoke_sync(job: &Job<'_>, state: Option<&mut State>) -> Result<Value, ToolError> {
    let span = tool_span(job);
    let outcome = span.in_scope(|| {
        std::panic::catch_unwind(AssertUnwindSafe(|| job.tool.invoke(invocation(job, state))))
            .unwrap_or_else(|payload| Err(panicked(job, payload.as_ref())))
    });
    record_error(&span, &outcome);
    outcome
}

/// A tool that panics ends the run, as a hook that panics does: the panic is
/// a bug in the tool, not a failure the model should see and work around.
fn panicked(job: &Job<'_>, payload: &(dyn std::any::Any + Send)) -> ToolError {
    ToolError::fatal(format!(
        "the tool `{}` panicked: {}",
        job.tool.spec().name,
        crate::panic::payload_text(payload)
    ))
}

/// The sync path: at most `limit` calls at once, as Haystack's
/// `ThreadPoolExecutor(max_workers=limit)`. The one State-taking call a batch
/// can hold (scheduling puts it only beside calls that touch no State) runs on
/// this thread and takes one of the `limit` places; scoped threads take the
/// others (`limit` is at least 2 here: `run_batch` runs a limit of 1 in turn).
fn run_batch_threads(
    jobs: &[Job<'_>],
    state: &mut State,
    limit: usize,
) -> Vec<Result<Value, ToolError>> {
    let slots: Vec<Mutex<Option<Result<Value, ToolError>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    let plain: Vec<usize> = (0..jobs.len())
        .filter(|&i| !jobs[i].tool.spec().takes_state)
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = limit.saturating_sub(jobs.len() - plain.len());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(plain.len()) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(&i) = plain.get(k) else { break };
                    let outcome = invoke_sync(&jobs[i], None);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                }
            });
        }
        for (i, job) in jobs.iter().enumerate() {
            if job.tool.spec().takes_state {
                let outcome = invoke_sync(job, Some(&mut *state));
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
            }
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err(ToolError::fatal("the tool's thread panicked")))
        })
        .collect()
}

/// The async path: every call awaited concurrently under a semaphore.
async fn run_batch_async(
    jobs: &[Job<'_>],
    state: &mut State,
    limit: usize,
) -> Vec<Result<Value, ToolError>> {
    let semaphore = tokio::sync::Semaphore::new(limit.max(1));
    let mut state_slot = Some(state);
    let futures = jobs.iter().map(|job| {
        let state = if job.tool.spec().takes_state {
            state_slot.take()
        } else {
            None
        };
        let semaphore = &semaphore;
        async move {
            let _permit = semaphore.acquire().await;
            let span = tool_span(job);
            // The call is made inside the future: a sync tool's
            // `invoke_async` may run `invoke` eagerly, and its panic must be
            // caught too.
            let call = async move { job.tool.invoke_async(invocation(job, state)).await };
            let outcome = AssertUnwindSafe(call.instrument(span.clone()))
                .catch_unwind()
                .await
                .unwrap_or_else(|payload| Err(panicked(job, payload.as_ref())));
            record_error(&span, &outcome);
            outcome
        }
    });
    futures_util::future::join_all(futures).await
}

fn finalize(
    job: &Job<'_>,
    outcome: Result<Value, ToolError>,
    state: &mut State,
    options: &ExecOptions,
) -> Result<ChatMessage, ExecError> {
    let name = &job.tool.spec().name;
    let value = match outcome {
        Ok(value) => value,
        Err(error) => {
            let message = match error.kind() {
                ToolErrorKind::Fatal => return Err(fatal(name, error)),
                ToolErrorKind::Invocation => error.message().to_owned(),
                ToolErrorKind::Raised => format!(
                    "Failed to invoke Tool `{name}` with parameters {}. Error: {}",
                    pyfmt::repr(&Value::Object(job.arguments.clone().into_owned())),
                    error.message()
                ),
            };
            if options.raise_on_failure {
                return Err(ExecError::Invocation { message });
            }
            return Ok(ChatMessage::from_tool(message, job.call.clone(), true));
        }
    };
    let spec = job.tool.spec();
    if let Value::Object(result) = &value {
        for (state_key, output) in &spec.outputs_to_state {
            // As Haystack: an empty `source` is no source.
            let merged = match output.source.as_deref().filter(|s| !s.is_empty()) {
                Some(source) => match result.get(source) {
                    Some(v) => v.clone(),
                    None => continue,
                },
                None => value.clone(),
            };
            let outcome = match &output.handler {
                Some(handler) => state.set_with(state_key, merged, handler),
                None => state.set(state_key, merged),
            };
            outcome.map_err(|e| ExecError::StateMerge {
                message: format!("Tool '{name}': failed to merge outputs into state. {e}"),
            })?;
        }
    }
    let text = match (&spec.outputs_to_string, value) {
        (Some(config), value) => config.render(&value),
        (None, Value::String(text)) => text,
        (None, other) => output::result_to_string(&other),
    };
    Ok(ChatMessage::from_tool(text, job.call.clone(), false))
}

fn fatal(tool: &str, error: ToolError) -> ExecError {
    ExecError::Fatal {
        tool: tool.to_owned(),
        message: error.message().to_owned(),
    }
}
