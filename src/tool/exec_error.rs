//! Why a step's tool execution stopped the run.
//!
//! The executor reports in its own terms; the loop turns an [`ExecError`]
//! into the matching [`AgentError`](crate::AgentError) variant, so tools
//! depend on nothing above them.

/// A tool failure that ends the run. The messages are Haystack's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExecError {
    /// A call to an unknown tool with `raise_on_tool_invocation_failure`:
    /// `Tool 'x' not found. Available tools: a, b`.
    NotFound { message: String },
    /// A failed call with `raise_on_tool_invocation_failure`:
    /// ``Failed to invoke Tool `x` with parameters {...}. Error: ...``.
    Invocation { message: String },
    /// A failure that stops the run whatever the settings.
    Fatal { tool: String, message: String },
    /// Outputs that could not be merged into State:
    /// `Tool 'x': failed to merge outputs into state. ...`.
    StateMerge { message: String },
}
