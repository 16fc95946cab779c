//! Tools the model can call.
//!
//! Implement [`Tool`] (a [`ToolSpec`] and `invoke`), or wrap a closure with
//! [`tool_fn`]. Tools run by Haystack's rules: unknown names become error
//! messages placed first, failures become error tool messages (or fail the
//! run with `raise_on_tool_invocation_failure`), calls that read State keys
//! other calls write run in later batches, and results keep call order.
//!
//! ```
//! use hookharness::{tool_fn, ToolSpec};
//! use serde_json::{json, Value};
//!
//! let search = tool_fn(ToolSpec::new("search").description("Search the web"), |args| {
//!     let query = args.get("query").and_then(Value::as_str).unwrap_or("");
//!     Ok(json!(format!("results for {query}")))
//! });
//! # let _ = search;
//! ```

mod exec;
mod exec_error;
mod function;
mod output;
mod schedule;
mod spec;
mod spec_error;

pub use function::{FunctionTool, tool_fn};
pub use output::OutputsToString;
pub use spec::{StateOutput, ToolSpec};
pub use spec_error::ToolSpecError;

pub(crate) use exec::{ExecOptions, ExecutedCall, execute_tool_calls};
pub(crate) use exec_error::ExecError;

use crate::future::CallFuture;
use crate::message::ToolCall;
use crate::state::State;
use crate::stream::StreamingCallback;
use serde_json::{Map, Value};
use std::ops::Range;

/// What [`Tool::invoke_async`] returns: the result already there, or a
/// future to await (see [`CallFuture`]).
pub type ToolFuture<'a> = CallFuture<'a, Result<Value, ToolError>>;

/// How a tool failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The tool raised: the message becomes
    /// ``Failed to invoke Tool `name` with parameters {...}. Error: <message>``.
    Raised,
    /// The invocation itself failed with a complete message (shown as is).
    Invocation,
    /// The run must stop whatever `raise_on_tool_invocation_failure` says
    /// (a scripted tool whose script ran out, for example).
    Fatal,
}

/// The error a tool returns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
}

impl ToolError {
    /// The tool raised with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Raised,
            message: message.into(),
        }
    }

    /// The invocation failed with this complete message.
    pub fn invocation(message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Invocation,
            message: message.into(),
        }
    }

    /// The run must stop.
    pub fn fatal(message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Fatal,
            message: message.into(),
        }
    }

    /// How the tool failed.
    pub fn kind(&self) -> &ToolErrorKind {
        &self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// One call of a tool.
#[non_exhaustive]
pub struct ToolInvocation<'a> {
    /// The final arguments: the model's, plus those filled from State.
    pub arguments: &'a Map<String, Value>,
    /// The call as the model wrote it.
    pub call: &'a ToolCall,
    /// How many times this tool ran earlier in this run (0-based).
    pub ordinal: usize,
    /// The live State, for tools whose spec says `takes_state`.
    pub state: Option<&'a mut State>,
    /// The run's streaming callback, when the Agent passes it through to
    /// its tools (`tool_streaming_callback_passthrough`).
    pub streaming_callback: Option<&'a StreamingCallback>,
}

/// A tool the model can call.
pub trait Tool: Send + Sync + 'static {
    /// The name, description, parameters and State mappings.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool. A string result becomes the tool message's text;
    /// any other value is rendered as Python's `json.dumps` renders it.
    fn invoke(&self, invocation: ToolInvocation<'_>) -> Result<Value, ToolError>;

    /// Runs the tool on the async path. The default calls
    /// [`invoke`](Tool::invoke) and hands back its result as a finished
    /// future, which the loop takes without allocating or polling; override
    /// it only to await something (`ToolFuture::new(async move { ... })`).
    fn invoke_async<'a>(&'a self, invocation: ToolInvocation<'a>) -> ToolFuture<'a> {
        CallFuture::ready(self.invoke(invocation))
    }

    /// Called once per step before any call runs, with the ordinals this
    /// step's calls to this tool will have. A scripted tool fails here when
    /// its script is too short; the default accepts every call.
    fn admit(&self, _ordinals: Range<usize>) -> Result<(), ToolError> {
        Ok(())
    }

    /// Prepares the tool; called at the start of every run.
    fn warm_up(&self) -> Result<(), ToolError> {
        Ok(())
    }
}
