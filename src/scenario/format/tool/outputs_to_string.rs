//! `outputs_to_string`: which part of the result becomes the tool
//! message's text. Handlers are Python callables in Haystack, so only
//! `source` is read.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::{Field, Read};
use crate::tool::OutputsToString;

/// `{source: KEY}` (or `{}`: the whole result), else the multiple-output
/// form `{out: {source: KEY}, ...}`.
pub(super) fn read(field: &Field<'_>) -> Read<Option<OutputsToString>> {
    let mut map = field.map()?;
    if map.has("source") || map.keys().is_empty() {
        let source = match map.get("source") {
            Some(f) => Some(f.string()?),
            None => None,
        };
        map.finish()?;
        return Ok(Some(OutputsToString::Single { source }));
    }
    let mut outputs = IndexMap::new();
    for (key, entry) in field.entries()? {
        let mut output = entry.map()?;
        let source = output.required("source")?.string()?;
        output.finish()?;
        outputs.insert(key.to_owned(), source);
    }
    Ok(Some(OutputsToString::Multiple(outputs)))
}

/// None: the whole result, as Haystack renders it.
pub(super) fn default() -> Option<OutputsToString> {
    None
}

/// The given form (`None`, the default, is never written).
pub(super) fn write(config: &Option<OutputsToString>) -> Value {
    match config {
        None => Value::Null,
        Some(OutputsToString::Single { source: None }) => json!({}),
        Some(OutputsToString::Single {
            source: Some(source),
        }) => json!({"source": source}),
        Some(OutputsToString::Multiple(outputs)) => Value::Object(
            outputs
                .iter()
                .map(|(key, source)| (key.clone(), json!({"source": source})))
                .collect(),
        ),
    }
}

pub(super) fn schema() -> Value {
    json!({
        "description": "{source: KEY}, or {out: {source: KEY}, ...} (multiple-output form); takes `source` only",
        "oneOf": [
            {
                "type": "object",
                "additionalProperties": false,
                "properties": {"source": {"type": "string"}},
            },
            {
                "type": "object",
                "minProperties": 1,
                "not": {"required": ["source"]},
                "additionalProperties": {
                    "type": "object",
                    "required": ["source"],
                    "additionalProperties": false,
                    "properties": {"source": {"type": "string"}},
                },
            },
        ],
    })
}
