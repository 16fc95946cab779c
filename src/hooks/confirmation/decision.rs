//! What a confirmation UI answers and what a strategy decides.

use serde_json::{Map, Value};

/// What the user answered (Haystack's `ConfirmationUIResult`): `action` is
/// `confirm`, `reject` or `modify`. Not enforced here, as in Haystack (any
/// other action runs the call); a scenario file's scripted answers take only
/// these three.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationUIResult {
    /// `confirm`, `reject`, `modify`, or a custom action.
    pub action: String,
    /// Optional feedback from the user.
    pub feedback: Option<String>,
    /// New parameters, for `modify`.
    pub new_tool_params: Option<Map<String, Value>>,
}

impl ConfirmationUIResult {
    /// An answer with only an action.
    pub fn new(action: impl Into<String>) -> Self {
        ConfirmationUIResult {
            action: action.into(),
            feedback: None,
            new_tool_params: None,
        }
    }

    /// Adds feedback (builder style).
    pub fn with_feedback(mut self, feedback: impl Into<String>) -> Self {
        self.feedback = Some(feedback.into());
        self
    }

    /// Adds new parameters (builder style).
    pub fn with_params(mut self, params: Map<String, Value>) -> Self {
        self.new_tool_params = Some(params);
        self
    }
}

/// What to do with one tool call (Haystack's `ToolExecutionDecision`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExecutionDecision {
    /// The tool's name.
    pub tool_name: String,
    /// `false` rejects the call.
    pub execute: bool,
    /// The call's id; the hook rebinds it to the call it asked about.
    pub tool_call_id: Option<String>,
    /// The text shown to the model for a rejection or a modification.
    pub feedback: Option<String>,
    /// The arguments to run the tool with (`None` reads as `{}`).
    pub final_tool_params: Option<Map<String, Value>>,
}

impl ToolExecutionDecision {
    /// Run the call with `params`.
    pub fn execute(tool_name: impl Into<String>, params: Map<String, Value>) -> Self {
        ToolExecutionDecision {
            tool_name: tool_name.into(),
            execute: true,
            tool_call_id: None,
            feedback: None,
            final_tool_params: Some(params),
        }
    }

    /// `asdict(decision)`.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("tool_name".into(), Value::String(self.tool_name.clone()));
        map.insert("execute".into(), Value::Bool(self.execute));
        map.insert(
            "tool_call_id".into(),
            self.tool_call_id.clone().map_or(Value::Null, Value::String),
        );
        map.insert(
            "feedback".into(),
            self.feedback.clone().map_or(Value::Null, Value::String),
        );
        map.insert(
            "final_tool_params".into(),
            self.final_tool_params
                .clone()
                .map_or(Value::Null, Value::Object),
        );
        Value::Object(map)
    }
}
