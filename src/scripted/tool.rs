//! A tool that returns scripted results.

use crate::tool::{Tool, ToolError, ToolInvocation, ToolSpec};
use serde_json::Value;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One scripted tool result: a `results` entry of a scenario's tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScriptedResult {
    /// A string: the tool returns this text.
    Text(String),
    /// `{json: V}`: the tool returns a structured value, rendered as
    /// Python's `json.dumps` renders it.
    Json(Value),
    /// `{error: MESSAGE}`: the tool raises with this message.
    Error(String),
    /// `{echo_arguments: true}`: the tool returns the arguments it was
    /// invoked with (the call's plus those filled from State) as a map.
    EchoArguments,
}

/// A tool that answers its `n`-th call with the `n`-th scripted result.
///
/// Results are picked by the call's ordinal, fixed when the step's calls are
/// dispatched, so they follow call order whatever the thread timing. A step
/// that would call past the end fails before any of its calls runs:
/// "tool `search` was called 3 times; the scenario scripts 2 results".
///
/// ```
/// use hookharness::scripted::{ScriptedTool, ScriptedResult};
/// use hookharness::ToolSpec;
///
/// let search = ScriptedTool::new(
///     ToolSpec::new("search"),
///     [ScriptedResult::Text("found it".into()), ScriptedResult::Error("timeout".into())],
/// );
/// # let _ = search;
/// ```
pub struct ScriptedTool {
    spec: ToolSpec,
    results: Vec<ScriptedResult>,
    repeat_last: bool,
    calls: AtomicUsize,
}

impl ScriptedTool {
    /// A tool with these results, one per call.
    pub fn new(spec: ToolSpec, results: impl IntoIterator<Item = ScriptedResult>) -> Self {
        ScriptedTool {
            spec,
            results: results.into_iter().collect(),
            repeat_last: false,
            calls: AtomicUsize::new(0),
        }
    }

    /// Answers calls past the end with the last result.
    pub fn repeat_last(mut self, repeat: bool) -> Self {
        self.repeat_last = repeat;
        self
    }

    /// How many calls ran.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn result_for(&self, ordinal: usize) -> Option<&ScriptedResult> {
        self.results.get(ordinal).or_else(|| {
            if self.repeat_last {
                self.results.last()
            } else {
                None
            }
        })
    }

    fn exhausted(&self, calls: usize) -> ToolError {
        ToolError::fatal(format!(
            "tool `{}` was called {calls} times; the scenario scripts {} results; \
             {}, or set `repeat_last: true`",
            self.spec.name,
            self.results.len(),
            super::wording::TOOL_EXHAUSTED
        ))
    }
}

impl Tool for ScriptedTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn admit(&self, ordinals: Range<usize>) -> Result<(), ToolError> {
        match ordinals.end.checked_sub(1) {
            Some(last) if self.result_for(last).is_none() => Err(self.exhausted(ordinals.end)),
            _ => Ok(()),
        }
    }

    fn invoke(&self, invocation: ToolInvocation<'_>) -> Result<Value, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        match self.result_for(invocation.ordinal) {
            Some(ScriptedResult::Text(text)) => Ok(Value::String(text.clone())),
            Some(ScriptedResult::Json(value)) => Ok(value.clone()),
            Some(ScriptedResult::Error(message)) => Err(ToolError::new(message.clone())),
            Some(ScriptedResult::EchoArguments) => Ok(Value::Object(invocation.arguments.clone())),
            None => Err(self.exhausted(invocation.ordinal + 1)),
        }
    }
}
