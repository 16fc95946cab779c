//! Haystack's serialized form of a component: `{type, init_parameters}`.
//!
//! Every ready-made hook, store, policy, strategy and compactor writes itself
//! in this form (`to_value`) and reads itself back (`from_value`); scenario
//! files write the objects inside a hook's parameters the same way.

use serde_json::{Map, Value};

/// Why a serialized hook (or a part of it) could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FromValueError {
    /// The value is not the serialized form: a wrong or unknown `type`, an
    /// unknown or mistyped parameter. In a scenario, a file error, located
    /// at `path`.
    #[error("{message}")]
    Format {
        /// The key path of the wrong value, from the hook's tag
        /// (`token_budget.add_final_message`); empty when unknown.
        path: String,
        /// What is wrong and how to fix it.
        message: String,
        /// The mistake is the value at `path`, not its key: a report
        /// points at the value.
        at_value: bool,
    },
    /// The constructor rejected a parameter: Haystack's `ValueError`, in its
    /// words. In a scenario, an Agent construction error.
    #[error("{0}")]
    Invalid(String),
}

/// A parameter a ready-made hook's constructor rejects: Haystack's
/// `ValueError`, in its words.
///
/// ```
/// use hookharness::hooks::TokenBudgetHook;
///
/// let error = TokenBudgetHook::new(0).unwrap_err();
/// assert_eq!(
///     error.message(),
///     "`max_total_tokens` must be a positive number of tokens, got 0."
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParameterError {
    message: String,
}

impl ParameterError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ParameterError {
            message: message.into(),
        }
    }

    /// Haystack's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<ParameterError> for FromValueError {
    fn from(error: ParameterError) -> Self {
        FromValueError::Invalid(error.message)
    }
}

/// A [`FromValueError::Format`] about the value at `path`.
pub(crate) fn format_error(path: impl Into<String>, message: impl Into<String>) -> FromValueError {
    FromValueError::Format {
        path: path.into(),
        message: message.into(),
        at_value: false,
    }
}

/// A [`FromValueError::Format`] about the value at `path` itself (a word
/// outside its set), which a report points at rather than at its key.
pub(crate) fn value_error(path: impl Into<String>, message: impl Into<String>) -> FromValueError {
    FromValueError::Format {
        path: path.into(),
        message: message.into(),
        at_value: true,
    }
}

/// `{"type": type_name, "init_parameters": init}`.
pub(crate) fn component(type_name: &str, init: Map<String, Value>) -> Value {
    let mut map = Map::with_capacity(2);
    map.insert("type".into(), Value::String(type_name.to_owned()));
    map.insert("init_parameters".into(), Value::Object(init));
    Value::Object(map)
}

/// The `type` of a serialized component at `path`.
pub(crate) fn type_of<'a>(value: &'a Value, path: &str) -> Result<&'a str, FromValueError> {
    let map = value.as_object().ok_or_else(|| {
        format_error(path, format!(
            "`{path}` must be a serialized component `{{type: ..., init_parameters: {{...}}}}`, got {}", shown(value)))
    })?;
    for key in map.keys() {
        if key != "type" && key != "init_parameters" {
            return Err(format_error(
                format!("{path}.{key}"),
                format!(
                    "unknown key `{key}` in `{path}`; a serialized component holds `type` and `init_parameters`"
                ),
            ));
        }
    }
    match map.get("type") {
        Some(Value::String(name)) => Ok(name),
        Some(other) => Err(format_error(
            format!("{path}.type"),
            format!(
                "`{path}.type` must be a qualified class name, got {}",
                shown(other)
            ),
        )),
        None => Err(format_error(path, format!("`{path}` needs a `type`"))),
    }
}

/// The init parameters of a serialized component of type `expected` (an
/// absent `init_parameters` reads as `{}`, as in Haystack).
pub(crate) fn open<'a>(
    value: &'a Value,
    expected: &str,
    path: &str,
) -> Result<Init<'a>, FromValueError> {
    let found = type_of(value, path)?;
    if found != expected {
        return Err(format_error(
            format!("{path}.type"),
            format!("`{path}.type` is `{found}`, expected `{expected}`"),
        ));
    }
    let init = match value.get("init_parameters") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(other) => {
            return Err(format_error(
                format!("{path}.init_parameters"),
                format!(
                    "`{path}.init_parameters` must be a map, got {}",
                    shown(other)
                ),
            ));
        }
    };
    Ok(Init {
        map: init,
        path: format!("{path}.init_parameters"),
    })
}

/// The init parameters of one component, read key by key.
pub(crate) struct Init<'a> {
    map: Option<&'a Map<String, Value>>,
    path: String,
}

impl<'a> Init<'a> {
    /// Init parameters given directly (a scenario entry's parameters).
    pub(crate) fn direct(value: &'a Value, path: &str) -> Result<Self, FromValueError> {
        match value {
            Value::Object(map) => Ok(Init {
                map: Some(map),
                path: path.to_owned(),
            }),
            Value::Null => Ok(Init {
                map: None,
                path: path.to_owned(),
            }),
            other => Err(format_error(
                path,
                format!(
                    "`{path}` takes a map of constructor parameters, got {}",
                    shown(other)
                ),
            )),
        }
    }

    /// The path of one parameter.
    pub(crate) fn at(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    /// Fails on a key outside `known` (Haystack's `TypeError` on an
    /// unexpected keyword argument).
    pub(crate) fn only(&self, known: &[&str]) -> Result<(), FromValueError> {
        for key in self.map.into_iter().flat_map(Map::keys) {
            if !known.contains(&key.as_str()) {
                return Err(format_error(
                    self.at(key),
                    crate::wording::unknown_parameter(key, &self.path, known),
                ));
            }
        }
        Ok(())
    }

    /// A parameter, `None` when absent.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(key))
    }

    /// A required parameter.
    pub(crate) fn required(&self, key: &str) -> Result<&'a Value, FromValueError> {
        self.get(key)
            .ok_or_else(|| format_error(&self.path, format!("`{}` needs `{key}`", self.path)))
    }

    pub(crate) fn int(&self, key: &str, default: i64) -> Result<i64, FromValueError> {
        match self.get(key) {
            None => Ok(default),
            Some(value) => int_at(value, &self.at(key)),
        }
    }

    pub(crate) fn required_int(&self, key: &str) -> Result<i64, FromValueError> {
        int_at(self.required(key)?, &self.at(key))
    }

    #[expect(dead_code, reason = "read by the confirmation and compaction hooks")]
    pub(crate) fn float(&self, key: &str, default: f64) -> Result<f64, FromValueError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Number(n)) => n.as_f64().ok_or_else(|| {
                format_error(self.at(key), format!("`{}` must be a number", self.at(key)))
            }),
            Some(other) => Err(format_error(
                self.at(key),
                format!("`{}` must be a number, got {}", self.at(key), shown(other)),
            )),
        }
    }

    pub(crate) fn bool(&self, key: &str, default: bool) -> Result<bool, FromValueError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format_error(
                self.at(key),
                format!(
                    "`{}` must be true or false, got {}",
                    self.at(key),
                    shown(other)
                ),
            )),
        }
    }

    /// A string parameter; `null` reads as `None` (Haystack's `None`).
    pub(crate) fn opt_string(
        &self,
        key: &str,
        default: Option<&str>,
    ) -> Result<Option<String>, FromValueError> {
        match self.get(key) {
            None => Ok(default.map(str::to_owned)),
            Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format_error(
                self.at(key),
                format!("`{}` must be a string, got {}", self.at(key), shown(other)),
            )),
        }
    }

    /// A required string parameter that is one of `valid` (a typo is a
    /// file error that names the closest, never another value's meaning).
    pub(crate) fn required_one_of(
        &self,
        key: &str,
        valid: &[&str],
    ) -> Result<&'a str, FromValueError> {
        match self.required(key)? {
            Value::String(s) if valid.contains(&s.as_str()) => Ok(s),
            Value::String(s) => Err(value_error(
                self.at(key),
                crate::wording::invalid_value(s, &self.at(key), valid),
            )),
            other => Err(format_error(
                self.at(key),
                format!("`{}` must be a string, got {}", self.at(key), shown(other)),
            )),
        }
    }

    pub(crate) fn string(&self, key: &str, default: &str) -> Result<String, FromValueError> {
        match self.get(key) {
            None => Ok(default.to_owned()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format_error(
                self.at(key),
                format!("`{}` must be a string, got {}", self.at(key), shown(other)),
            )),
        }
    }

    /// A map parameter (`{}` when absent).
    pub(crate) fn map(&self, key: &str) -> Result<Option<&'a Map<String, Value>>, FromValueError> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(format_error(
                self.at(key),
                format!("`{}` must be a map, got {}", self.at(key), shown(other)),
            )),
        }
    }
}

fn int_at(value: &Value, path: &str) -> Result<i64, FromValueError> {
    match value {
        Value::Number(n) if n.is_i64() => Ok(n.as_i64().unwrap_or_default()),
        Value::Number(n) if n.is_u64() => Err(format_error(
            path,
            format!(
                "`{path}` must be an integer from {} to {}, got {n}, which is out of range",
                i64::MIN,
                i64::MAX
            ),
        )),
        other => Err(format_error(
            path,
            format!("`{path}` must be an integer, got {}", shown(other)),
        )),
    }
}

/// The longest value text an error message shows.
const SHOWN_CHARS: usize = 80;

/// A value as an error message shows it: its JSON text, cut past
/// [`SHOWN_CHARS`] characters with the count of the rest, so that a
/// megabyte-long wrong value does not fill the report.
pub(crate) fn shown(value: &Value) -> String {
    crate::elide::elide(&value.to_string(), SHOWN_CHARS)
}

/// Python's `text[:n]` on code points (a negative `n` counts from the end).
pub(crate) fn py_prefix(text: &str, n: i64) -> &str {
    let len = text.chars().count() as i64;
    let keep = if n < 0 { (len + n).max(0) } else { n.min(len) };
    match text.char_indices().nth(keep as usize) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_component_of_another_type_is_a_format_error_that_names_both() {
        let value = json!({"type": "a.B", "init_parameters": {}});
        let err = open(&value, "a.C", "store").err().unwrap();
        assert_eq!(err.to_string(), "`store.type` is `a.B`, expected `a.C`");
    }

    #[test]
    fn an_integer_past_64_bits_is_out_of_range_and_a_long_value_is_cut() {
        let init = json!({"n": 18446744073709551615u64, "s": "x".repeat(100)});
        let init = Init::direct(&init, "hook").unwrap();
        assert_eq!(
            init.int("n", 0).unwrap_err().to_string(),
            "`hook.n` must be an integer from -9223372036854775808 to 9223372036854775807, \
             got 18446744073709551615, which is out of range"
        );
        assert_eq!(
            init.int("s", 0).unwrap_err().to_string(),
            format!(
                "`hook.s` must be an integer, got \"{}... (22 more characters)",
                "x".repeat(79)
            )
        );
    }

    #[test]
    fn python_prefixes_count_code_points_and_negative_lengths_from_the_end() {
        assert_eq!(py_prefix("héllo", 2), "hé");
        assert_eq!(py_prefix("héllo", 9), "héllo");
        assert_eq!(py_prefix("héllo", -2), "hél");
        assert_eq!(py_prefix("hé", -5), "");
    }
}
