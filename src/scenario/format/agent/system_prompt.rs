//! `system_prompt`: a Jinja2 template, rendered as Haystack's
//! `ChatPromptBuilder` renders it.

use serde_json::{Value, json};

use super::{Field, Read};

pub(super) fn read(field: &Field<'_>) -> Read<Option<String>> {
    field.opt_string()
}

pub(super) fn default() -> Option<String> {
    None
}

pub(super) fn write(prompt: &Option<String>) -> Value {
    json!(prompt)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "a Jinja2 template, rendered as Haystack's `ChatPromptBuilder` renders it (plain text, or `{% message role=\"system\" %}` blocks), with `run.variables`; as there, rendered text is stripped and a message that renders empty is an error",
        "type": ["string", "null"],
    })
}
