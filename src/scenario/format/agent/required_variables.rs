//! `required_variables`: a list of names, `"*"` (every variable of both
//! prompts) or null (none), as in Haystack.

use serde_json::{Value, json};

use super::super::error::ScenarioErrorKind;
use super::{Field, Read};
use crate::prompt::RequiredVariables;

/// `"*"`, a list of names, or null; any other string is a file error.
pub(super) fn read(field: &Field<'_>) -> Read<RequiredVariables> {
    if field.is_null() {
        return Ok(RequiredVariables::None);
    }
    match field.as_str() {
        Some("*") => Ok(RequiredVariables::All),
        Some(other) => Err(field.error(ScenarioErrorKind::RequiredVariablesString {
            value: other.to_owned(),
        })),
        None => Ok(RequiredVariables::Listed(field.strings()?)),
    }
}

pub(super) fn default() -> RequiredVariables {
    RequiredVariables::All
}

pub(super) fn write(required: &RequiredVariables) -> Value {
    match required {
        RequiredVariables::All => json!("*"),
        RequiredVariables::Listed(names) => json!(names),
        RequiredVariables::None => Value::Null,
    }
}

pub(super) fn schema() -> Value {
    json!({
        "description": "a list of variable names, `\"*\"` (every variable of both prompts) or `null` (none), as in Haystack; any other string is a file error. Default: \"*\".",
        "oneOf": [
            {"const": "*"},
            {"type": "null"},
            {"type": "array", "items": {"type": "string"}},
        ],
    })
}
