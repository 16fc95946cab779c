//! `tools`: scripted tools and the results they return, call by call.
//!
//! Each key of a tool entry lives in one file named as the key, with
//! everything about it side by side: its value's reading, default,
//! writing and JSON Schema. The table in this file lists the keys, in the
//! order they are read, written and given in the schema, and says whether
//! each one is `required` or `optional` (left out of a file at its
//! default). [`ToolScript`], the reader (unknown keys, with the known ones
//! and a typo's hint), the writer and the schema follow from the table.
//!
//! Adding a key: its file here, its `mod` line and its line in the table,
//! and its use where a run builds the tool (`crate::replay`'s `build.rs`).

mod description;
mod inputs_from_state;
mod name;
mod outputs_to_state;
mod outputs_to_string;
mod parameters;
mod repeat_last;
mod results;

pub(crate) use parameters::default as default_parameters;
pub(crate) use results::item_schema as result_schema;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::keys::key_table;
use super::reader::{Field, Read};
use crate::scripted::ScriptedResult;
use crate::tool::{OutputsToString, StateOutput};

key_table! {
    /// A scripted tool (`tools:` entry).
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub struct ToolScript {
        /// `name`.
        name: String, required;
        /// `description` (default `""`).
        description: String, optional;
        /// `parameters`, a JSON Schema (default `{type: object, properties: {}}`);
        /// arguments are not validated against it.
        parameters: Map<String, Value>, optional;
        /// `results`: one per call, in call order.
        results: Vec<ScriptedResult>, optional;
        /// `repeat_last`: past the end of `results`, repeat the last one.
        repeat_last: bool, optional;
        /// `inputs_from_state`: state key -> parameter the tool receives.
        inputs_from_state: IndexMap<String, String>, optional;
        /// `outputs_to_state`: state key <- result key, merged with a handler.
        outputs_to_state: IndexMap<String, StateOutput>, optional;
        /// `outputs_to_string`: which part of the result becomes the message text.
        outputs_to_string: Option<OutputsToString>, optional;
    }
}

impl ToolScript {
    /// A tool of this name, every other key at its default (no results).
    ///
    /// ```
    /// let tool = hookharness::scenario::ToolScript::new("search");
    /// assert_eq!(tool.name, "search");
    /// assert!(tool.results.is_empty() && !tool.repeat_last);
    /// ```
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        ToolScript {
            name: name.into(),
            ..Self::defaults()
        }
    }

    /// The entry as the scenario file writes it: `name`, and each other
    /// key unless at its default.
    pub(crate) fn to_value(&self) -> Value {
        let mut out = Map::new();
        self.write_keys(&mut out);
        Value::Object(out)
    }
}

/// Reads one `tools` entry.
pub(crate) fn read_tool(field: &Field<'_>) -> Read<ToolScript> {
    let mut map = field.map()?;
    let tool = ToolScript::read_keys(&mut map)?;
    map.finish()?;
    Ok(tool)
}

/// The JSON Schema of a `tools` entry: each key's schema as its file gives
/// it.
pub(crate) fn schema() -> Value {
    let (required, properties) = ToolScript::key_schemas();
    json!({
        "type": "object",
        "required": required,
        "additionalProperties": false,
        "properties": properties,
    })
}
