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

use super::reader::{Field, Read};
use crate::scripted::ScriptedResult;
use crate::tool::{OutputsToString, StateOutput};

/// The table: each key, the type of its value, and whether a tool entry
/// must give it (`required`) or may leave it at its file's `default()`
/// (`optional`, which the writer then leaves out).
macro_rules! tool_keys {
    ($($(#[doc = $doc:literal])* $key:ident: $ty:ty, $presence:ident;)*) => {
        /// A scripted tool (`tools:` entry).
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct ToolScript {
            $($(#[doc = $doc])* pub $key: $ty,)*
        }

        impl ToolScript {
            /// A tool of this name, every other key at its default (no
            /// results).
            ///
            /// ```
            /// let tool = hookharness::scenario::ToolScript::new("search");
            /// assert_eq!(tool.name, "search");
            /// assert!(tool.results.is_empty() && !tool.repeat_last);
            /// ```
            #[must_use]
            pub fn new(name: impl Into<String>) -> Self {
                let mut tool = ToolScript {
                    $($key: tool_keys!(@default $presence, $key),)*
                };
                tool.name = name.into();
                tool
            }

            /// The entry as the scenario file writes it: required keys
            /// always, the others unless at their default.
            pub(crate) fn to_value(&self) -> Value {
                let mut out = Map::new();
                $(tool_keys!(@write $presence, $key, self, out);)*
                Value::Object(out)
            }
        }

        /// Reads one `tools` entry, its keys in the table's order.
        pub(crate) fn read_tool(field: &Field<'_>) -> Read<ToolScript> {
            let mut map = field.map()?;
            let tool = ToolScript {
                $($key: tool_keys!(@read $presence, $key, map),)*
            };
            map.finish()?;
            Ok(tool)
        }

        /// The JSON Schema of a `tools` entry: each key's schema as its
        /// file gives it.
        pub(crate) fn schema() -> Value {
            let mut required: Vec<&str> = Vec::new();
            let mut properties = Map::new();
            $(
                tool_keys!(@require $presence, $key, required);
                properties.insert(stringify!($key).into(), $key::schema());
            )*
            json!({
                "type": "object",
                "required": required,
                "additionalProperties": false,
                "properties": properties,
            })
        }
    };
    (@default required, $key:ident) => { Default::default() };
    (@default optional, $key:ident) => { $key::default() };
    (@read required, $key:ident, $map:ident) => {
        $key::read(&$map.required(stringify!($key))?)?
    };
    (@read optional, $key:ident, $map:ident) => {
        match $map.get(stringify!($key)) {
            Some(field) => $key::read(&field)?,
            None => $key::default(),
        }
    };
    (@write required, $key:ident, $tool:ident, $out:ident) => {
        $out.insert(stringify!($key).into(), $key::write(&$tool.$key));
    };
    (@write optional, $key:ident, $tool:ident, $out:ident) => {
        if $tool.$key != $key::default() {
            $out.insert(stringify!($key).into(), $key::write(&$tool.$key));
        }
    };
    (@require required, $key:ident, $required:ident) => {
        $required.push(stringify!($key))
    };
    (@require optional, $key:ident, $required:ident) => {};
}

tool_keys! {
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
