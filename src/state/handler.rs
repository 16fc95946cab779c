//! How `State::set` combines the current value with a new one.

use serde_json::Value;
use std::fmt;
use std::sync::Arc;

type HandlerFn = dyn Fn(Option<Value>, Value) -> Result<Value, HandlerError> + Send + Sync;

/// Why a custom handler refused to combine two values. `?` turns a `String`
/// or `&str` error into one, so a handler can stay a short closure.
///
/// ```
/// use hookharness::state::HandlerError;
///
/// let error = HandlerError::new("expected an integer");
/// assert_eq!(error.to_string(), "expected an integer");
/// assert_eq!(HandlerError::from("expected an integer"), error);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HandlerError {
    message: String,
}

impl HandlerError {
    /// An error with this message (shown after `State: cannot set 'KEY': `).
    pub fn new(message: impl Into<String>) -> Self {
        HandlerError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        HandlerError::new(message)
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        HandlerError::new(message)
    }
}

/// A merge handler: Haystack's `merge_lists`, `replace_values`, or your own.
///
/// ```
/// use hookharness::state::Handler;
/// use serde_json::json;
///
/// assert_eq!(Handler::MergeLists.apply(Some(json!([1])), json!(2)).unwrap(), json!([1, 2]));
/// assert_eq!(Handler::ReplaceValues.apply(Some(json!(1)), json!(2)).unwrap(), json!(2));
///
/// let max = Handler::custom("max", |current, new| {
///     let current = current.and_then(|v| v.as_i64()).unwrap_or(i64::MIN);
///     Ok(json!(current.max(new.as_i64().ok_or("expected an integer")?)))
/// });
/// assert_eq!(max.apply(Some(json!(7)), json!(3)).unwrap(), json!(7));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum Handler {
    /// Concatenates lists; a non-list current value becomes `[current]`,
    /// a non-list new value is appended as one item, `None` becomes `[]`.
    MergeLists,
    /// The new value replaces the current one.
    ReplaceValues,
    /// A named function of `(current, new)`.
    Custom {
        /// The name shown in errors and debug output.
        name: String,
        /// The function.
        function: Arc<HandlerFn>,
    },
}

impl Handler {
    /// A custom handler.
    pub fn custom<F>(name: impl Into<String>, function: F) -> Self
    where
        F: Fn(Option<Value>, Value) -> Result<Value, HandlerError> + Send + Sync + 'static,
    {
        Handler::Custom {
            name: name.into(),
            function: Arc::new(function),
        }
    }

    /// The handler's name (`merge_lists`, `replace_values`, or the custom name).
    pub fn name(&self) -> &str {
        match self {
            Handler::MergeLists => "merge_lists",
            Handler::ReplaceValues => "replace_values",
            Handler::Custom { name, .. } => name,
        }
    }

    /// Combines `current` (absent or `None` as `None`) with `new`.
    pub fn apply(&self, current: Option<Value>, new: Value) -> Result<Value, HandlerError> {
        match self {
            Handler::MergeLists => Ok(merge_lists(current, new)),
            Handler::ReplaceValues => Ok(new),
            Handler::Custom { function, .. } => function(current, new),
        }
    }
}

/// Built-in handlers are equal by kind; custom ones when they share the name
/// and the very same function.
impl PartialEq for Handler {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Handler::MergeLists, Handler::MergeLists)
            | (Handler::ReplaceValues, Handler::ReplaceValues) => true,
            (
                Handler::Custom { name, function },
                Handler::Custom {
                    name: other_name,
                    function: other_function,
                },
            ) => name == other_name && Arc::ptr_eq(function, other_function),
            _ => false,
        }
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Haystack's `merge_lists`: always a new list.
pub fn merge_lists(current: Option<Value>, new: Value) -> Value {
    let mut merged = match current {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => vec![other],
    };
    match new {
        Value::Array(items) => merged.extend(items),
        other => merged.push(other),
    }
    Value::Array(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_lists_wraps_a_scalar_current_value() {
        assert_eq!(
            merge_lists(Some(json!("a")), json!(["b"])),
            json!(["a", "b"])
        );
    }

    #[test]
    fn merge_lists_appends_a_scalar_new_value_as_one_item() {
        assert_eq!(
            merge_lists(Some(json!(["a"])), json!("x")),
            json!(["a", "x"])
        );
    }

    #[test]
    fn custom_handlers_are_equal_only_when_they_share_name_and_function() {
        let max = Handler::custom("max", |_, new| Ok(new));
        assert_eq!(max, max.clone());
        assert_ne!(max, Handler::custom("max", |_, new| Ok(new)));
        assert_ne!(max, Handler::ReplaceValues);
        assert_eq!(Handler::MergeLists, Handler::MergeLists);
    }

    #[test]
    fn merge_lists_of_none_and_none_is_a_list_holding_none() {
        assert_eq!(merge_lists(None, Value::Null), json!([null]));
    }
}
