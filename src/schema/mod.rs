//! The JSON Schema of the scenario format, for editors and validators.
//!
//! `hookharness schema` prints [`text`]; `schema/scenario.schema.json` in the
//! repository is a copy of it (a test keeps the two equal), which editors
//! read through a `# yaml-language-server: $schema=...` line or their
//! settings. The schema checks the shape of a file (keys, types, the words
//! of each enumeration, which keys go together); what needs the whole file
//! or the run (a `run.state` key outside `state_schema`, a duplicate YAML
//! key, a hook point the Agent refuses) is left to `hookharness check`.
//!
//! The words of each enumeration (roles, actions, hook kinds, event kinds,
//! match modes, state types and handlers, finish reasons, versions) are the
//! loader's own lists; the keys of each map are checked against the loader
//! by `tests/schema.rs`, and each description is the documentation's
//! sentence for its key (`docs/scenario-format.md`,
//! `docs/scenario-format-extensions.md`).
//!
//! ```
//! let schema = hookharness::schema::scenario_schema();
//! assert_eq!(schema["required"], serde_json::json!(["model"]));
//! assert!(hookharness::schema::text().ends_with("}\n"));
//! ```

mod expect;
pub(crate) use expect::{list as list_expectation, pattern as value_pattern};
mod hooks;
mod parts;

use serde_json::{Map, Value, json};

/// The JSON Schema (draft-07) of a scenario file, as a JSON value.
#[must_use]
pub fn scenario_schema() -> Value {
    let mut definitions = Map::new();
    for (name, definition) in parts::definitions()
        .into_iter()
        .chain(hooks::definitions())
        .chain(expect::definitions())
    {
        definitions.insert(name.to_owned(), definition);
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "hookharness scenario",
        "description": "A scenario is one scripted agent run: the agent's configuration, the tools with scripted results, the hooks, the replies the mock chat generator replays, the run's inputs, and what the run must produce (docs/scenario-format.md).",
        "type": "object",
        "required": ["model"],
        "additionalProperties": false,
        "properties": top_level(),
        "definitions": definitions,
    })
}

/// [`scenario_schema`] as the text `hookharness schema` prints: two-space
/// indented JSON, keys in the schema's order, a final newline.
#[must_use]
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&scenario_schema())
        .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
    text.push('\n');
    text
}

fn top_level() -> Value {
    json!({
        "version": {
            "description": "the format's version; an unknown version is an error. Default: 1.",
            "type": "integer",
            "enum": crate::scenario::SUPPORTED_VERSIONS,
        },
        "name": {
            "description": "shown in reports. Default: the file stem.",
            "type": "string",
        },
        "description": {
            "description": "free text",
            "type": "string",
        },
        "agent": {"$ref": "#/definitions/agent"},
        "tools": {
            "description": "scripted tools: one entry per tool, with its scripted results. Default: [].",
            "type": "array",
            "items": {"$ref": "#/definitions/tool"},
        },
        "hooks": {"$ref": "#/definitions/hooks"},
        "model": {
            "description": "the mock chat generator's replies, one entry per LLM call. Required. A call past the end of `model` fails the run with \"model script exhausted at LLM call N (the scenario scripts M replies)\".",
            "type": "array",
            "items": {"$ref": "#/definitions/model_reply"},
        },
        "run": {"$ref": "#/definitions/run"},
        "expect": {"$ref": "#/definitions/expect"},
        "shared_hooks": {
            "description": "hook objects registered at several points with `shared: NAME`. Default: {}.",
            "type": "object",
            "additionalProperties": {"$ref": "#/definitions/shared_hook_definition"},
        },
        "python_path": {
            "description": "folders put first on sys.path, relative to the scenario's folder; default [\".\"] (Haystack engine).",
            "type": "array",
            "items": {"type": "string"},
        },
        "clock": {
            "description": "freezes datetime.now/utcnow, date.today, time.time/time_ns (Haystack engine), e.g. \"2026-03-01T09:00:00+00:00\".",
            "type": "string",
            // The loader's rule: a date, or a date, `T` or a space, and hours and minutes.
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}.*)?$",
        },
        "models": {
            "description": "named scripted models besides `model`: each answers from its own `replies`.",
            "type": "object",
            "propertyNames": {"not": {"const": "model"}},
            "additionalProperties": {"$ref": "#/definitions/named_model"},
        },
    })
}

/// A `python` target as the loader reads it, `package.module:name` (the
/// loader also checks each dotted part is an identifier).
pub(crate) const PYTHON_TARGET: &str = "^[^:\\s]+:[^:\\s]+$";

/// `{"enum": [...]}` of the first item of each pair.
fn names<T>(pairs: &[(&'static str, T)]) -> Vec<&'static str> {
    pairs.iter().map(|(name, _)| *name).collect()
}

/// The roles a message may have, in Haystack's order.
fn roles() -> Value {
    json!(names(&crate::scenario::vocabulary::roles()))
}
