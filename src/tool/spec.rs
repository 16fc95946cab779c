//! What the model and the loop know about a tool.

use super::output::OutputsToString;
use super::spec_error::ToolSpecError;
use crate::pyfmt::pyset::PySet;
use crate::state::Handler;
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// Where a tool's dict result goes in State (a scenario tool's
/// `outputs_to_state` entry `{source, handler}`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateOutput {
    /// The result key to take (`None`: the whole result).
    pub source: Option<String>,
    /// The handler to merge with (`None`: the key's schema handler).
    pub handler: Option<Handler>,
}

/// A tool's description: name, description, JSON-Schema parameters, and how
/// it reads from and writes to State.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The name the model calls.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The JSON Schema of the arguments.
    pub parameters: Value,
    /// `state key -> parameter`: filled from State when the model left it out.
    pub inputs_from_state: IndexMap<String, String>,
    /// `state key -> output`: merged into State when the result is a map.
    pub outputs_to_state: IndexMap<String, StateOutput>,
    /// Which part of the result becomes the tool message's text (`None`:
    /// the whole result).
    pub outputs_to_string: Option<OutputsToString>,
    /// `true` when the tool receives the live State (it then reads and
    /// writes every key, so it runs apart from calls that touch State).
    pub takes_state: bool,
}

impl ToolSpec {
    /// A tool with this name, no description and no parameters.
    pub fn new(name: impl Into<String>) -> Self {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {}}),
            inputs_from_state: IndexMap::new(),
            outputs_to_state: IndexMap::new(),
            outputs_to_string: None,
            takes_state: false,
        }
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets the parameters' JSON Schema.
    pub fn parameters(mut self, parameters: Value) -> Self {
        self.parameters = parameters;
        self
    }

    /// Fills `param` from `state_key` when the model did not supply it.
    pub fn input_from_state(
        mut self,
        state_key: impl Into<String>,
        param: impl Into<String>,
    ) -> Self {
        self.inputs_from_state
            .insert(state_key.into(), param.into());
        self
    }

    /// Merges the result (or its `source` key) into `state_key`.
    pub fn output_to_state(mut self, state_key: impl Into<String>, output: StateOutput) -> Self {
        self.outputs_to_state.insert(state_key.into(), output);
        self
    }

    /// Renders the tool message's text from part of the result.
    pub fn outputs_to_string(mut self, config: OutputsToString) -> Self {
        self.outputs_to_string = Some(config);
        self
    }

    /// The tool receives the live State.
    pub fn takes_state(mut self) -> Self {
        self.takes_state = true;
        self
    }

    /// Haystack's construction-time check of `inputs_from_state` (in
    /// `Tool.__post_init__`): every mapped parameter must be a property of the
    /// parameters' schema, unless the schema declares none.
    ///
    /// ```
    /// use hookharness::ToolSpec;
    /// use serde_json::json;
    ///
    /// let spec = ToolSpec::new("search")
    ///     .parameters(json!({"type": "object", "properties": {"query": {"type": "string"}}}))
    ///     .input_from_state("topic", "qeury");
    /// assert_eq!(
    ///     spec.validate().unwrap_err().to_string(),
    ///     "inputs_from_state maps 'topic' to unknown parameter 'qeury'. Valid parameters are: {'query'}."
    /// );
    /// ```
    pub fn validate(&self) -> Result<(), ToolSpecError> {
        // Haystack's `_get_valid_inputs`: an empty set updated with the
        // function's parameters (a scenario tool's function declares none)
        // and then the schema's properties, in their order.
        let valid = PySet::from_items(
            self.parameters
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|p| p.keys()),
        );
        if valid.is_empty() {
            return Ok(());
        }
        match self
            .inputs_from_state
            .iter()
            .find(|(_, param)| !valid.contains(param))
        {
            Some((state_key, param)) => Err(ToolSpecError {
                state_key: state_key.clone(),
                param: param.clone(),
                valid: valid.iter().map(str::to_owned).collect(),
            }),
            None => Ok(()),
        }
    }

    /// The spec as the model sees it: `{name, description, parameters}`.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".into(), Value::String(self.name.clone()));
        map.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        map.insert("parameters".into(), self.parameters.clone());
        Value::Object(map)
    }
}
