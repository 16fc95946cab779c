//! `user_prompt`: a Jinja2 template rendered as `system_prompt` is (role
//! `user`), its messages appended after `run.messages`.

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
        "description": "a Jinja2 template rendered the same way (role `user`); its messages are appended after `run.messages`",
        "type": ["string", "null"],
    })
}
