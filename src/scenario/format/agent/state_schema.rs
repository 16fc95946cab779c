//! `state_schema`: state key -> `{type, handler}`, in file order; reserved
//! keys are not checked here.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::{Field, Read, handlers};
use crate::state::keys;
use crate::state::{SchemaEntry, ValueType};

/// The format's spelling of each state type (`list` on `messages` is read
/// as [`ValueType::ChatMessages`]).
const VALUE_TYPES: &[(&str, ValueType)] = &[
    ("list", ValueType::List),
    ("str", ValueType::Str),
    ("int", ValueType::Int),
    ("float", ValueType::Float),
    ("bool", ValueType::Bool),
    ("dict", ValueType::Dict),
    ("any", ValueType::Any),
];

/// How the format writes a state type. `Optional[T]`, which a file cannot
/// name, is written as `optional[T]`, which the loader rejects.
fn type_name(ty: &ValueType) -> String {
    match ty {
        ValueType::ChatMessages => "list".to_owned(),
        ValueType::Optional(inner) => format!("optional[{}]", type_name(inner)),
        ty => VALUE_TYPES
            .iter()
            .find(|(_, t)| t == ty)
            .map_or_else(|| "any".to_owned(), |(name, _)| (*name).to_owned()),
    }
}

pub(super) fn read(field: &Field<'_>) -> Read<IndexMap<String, SchemaEntry>> {
    let mut schema = IndexMap::new();
    for (key, entry) in field.entries()? {
        schema.insert(key.to_owned(), read_entry(key, &entry)?);
    }
    Ok(schema)
}

fn read_entry(key: &str, field: &Field<'_>) -> Read<SchemaEntry> {
    let mut map = field.map()?;
    let ty = match map.required("type")?.variant(VALUE_TYPES)? {
        ValueType::List if key == keys::MESSAGES => ValueType::ChatMessages,
        ty => ty,
    };
    let handler = match map.get("handler") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.variant(&handlers())?),
        None => None,
    };
    map.finish()?;
    Ok(SchemaEntry { ty, handler })
}

pub(super) fn default() -> IndexMap<String, SchemaEntry> {
    IndexMap::new()
}

/// Each entry's type by its name, and its handler by its name (a custom
/// handler, which a file cannot name, by its own, which the loader rejects).
pub(super) fn write(schema: &IndexMap<String, SchemaEntry>) -> Value {
    let schema = schema
        .iter()
        .map(|(key, entry)| {
            let mut map = Map::new();
            map.insert("type".into(), json!(type_name(&entry.ty)));
            if let Some(handler) = &entry.handler {
                map.insert("handler".into(), json!(handler.name()));
            }
            (key.clone(), Value::Object(map))
        })
        .collect();
    Value::Object(schema)
}

pub(super) fn schema() -> Value {
    json!({
        "description": "key -> `{type: list|str|int|float|bool|dict|any, handler: merge_lists|replace_values}`; `handler` optional, default by type as in Haystack",
        "type": "object",
        "additionalProperties": {"$ref": "#/definitions/state_schema_entry"},
    })
}

/// The JSON Schema of one entry (the `state_schema_entry` definition
/// `schema` refers to).
pub(crate) fn entry_schema() -> Value {
    let handlers = handlers().into_iter().map(|(name, _)| json!(name));
    json!({
        "type": "object",
        "required": ["type"],
        "additionalProperties": false,
        "properties": {
            "type": {
                "description": "the value type of the state key (`list` on `messages` means a list of chat messages)",
                "enum": VALUE_TYPES.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
            },
            "handler": {
                "description": "`merge_lists` or `replace_values`; optional, default by type as in Haystack",
                "enum": handlers.chain([Value::Null]).collect::<Vec<_>>(),
            },
        },
    })
}
