//! `outputs_to_state`: state key <- result key, merged with a handler
//! (`source` and `handler` optional; null options read as `{}`).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::super::agent::handlers;
use super::{Field, Read};
use crate::tool::StateOutput;

pub(super) fn read(field: &Field<'_>) -> Read<IndexMap<String, StateOutput>> {
    let mut outputs = IndexMap::new();
    for (key, entry) in field.entries()? {
        outputs.insert(key.to_owned(), read_output(&entry)?);
    }
    Ok(outputs)
}

/// One entry; null options (`received:` alone) read as `{}`.
fn read_output(field: &Field<'_>) -> Read<StateOutput> {
    if field.is_null() {
        return Ok(StateOutput {
            source: None,
            handler: None,
        });
    }
    let mut map = field.map()?;
    let source = match map.get("source") {
        Some(f) => Some(f.string()?),
        None => None,
    };
    let handler = match map.get("handler") {
        Some(f) => Some(f.variant(&handlers())?),
        None => None,
    };
    map.finish()?;
    Ok(StateOutput { source, handler })
}

pub(super) fn default() -> IndexMap<String, StateOutput> {
    IndexMap::new()
}

pub(super) fn write(outputs: &IndexMap<String, StateOutput>) -> Value {
    let outputs = outputs
        .iter()
        .map(|(key, output)| {
            let mut entry = Map::new();
            if let Some(source) = &output.source {
                entry.insert("source".into(), json!(source));
            }
            if let Some(handler) = &output.handler {
                entry.insert("handler".into(), json!(handler.name()));
            }
            (key.clone(), Value::Object(entry))
        })
        .collect();
    Value::Object(outputs)
}

pub(super) fn schema() -> Value {
    let handlers: Vec<&str> = handlers().iter().map(|(name, _)| *name).collect();
    json!({
        "description": "state key <- result key (source and handler optional; null options read as {})",
        "type": "object",
        "additionalProperties": {
            "type": ["object", "null"],
            "additionalProperties": false,
            "properties": {
                "source": {"type": "string"},
                "handler": {
                    "description": "`merge_lists` or `replace_values`",
                    "enum": handlers,
                },
            },
        },
    })
}
