//! Tools made from closures.

use super::{Tool, ToolError, ToolInvocation, ToolSpec};
use serde_json::{Map, Value};

type ToolFnBox = dyn Fn(&Map<String, Value>) -> Result<Value, ToolError> + Send + Sync;

/// A tool whose `invoke` is a closure over the arguments.
pub struct FunctionTool {
    spec: ToolSpec,
    function: Box<ToolFnBox>,
}

/// Wraps a closure over the arguments into a tool.
pub fn tool_fn<F>(spec: ToolSpec, function: F) -> FunctionTool
where
    F: Fn(&Map<String, Value>) -> Result<Value, ToolError> + Send + Sync + 'static,
{
    FunctionTool {
        spec,
        function: Box::new(function),
    }
}

impl Tool for FunctionTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke(&self, invocation: ToolInvocation<'_>) -> Result<Value, ToolError> {
        (self.function)(invocation.arguments)
    }
}
