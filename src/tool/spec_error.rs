//! Why Haystack's `Tool` rejects a tool's configuration at construction.

/// An `inputs_from_state` entry maps a state key to a parameter the tool
/// does not take (Haystack's `Tool.__post_init__` `ValueError`).
///
/// ```
/// use hookharness::ToolSpec;
/// use serde_json::json;
///
/// let spec = ToolSpec::new("search")
///     .parameters(json!({"type": "object", "properties": {"query": {}, "limit": {}}}))
///     .input_from_state("topic", "qeury");
/// let error = spec.validate().unwrap_err();
/// assert_eq!(error.param, "qeury");
/// assert_eq!(
///     error.to_string(),
///     "inputs_from_state maps 'topic' to unknown parameter 'qeury'. Valid parameters are: {'query', 'limit'}."
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "inputs_from_state maps '{state_key}' to unknown parameter '{param}'. Valid parameters are: {}.",
    crate::pyfmt::set_of_strings(valid.iter().map(String::as_str))
)]
#[non_exhaustive]
pub struct ToolSpecError {
    /// The state key of the entry.
    pub state_key: String,
    /// The parameter it names.
    pub param: String,
    /// The parameters the tool takes, in the order CPython (run with
    /// `PYTHONHASHSEED=0`) iterates the set Haystack prints.
    pub valid: Vec<String>,
}
