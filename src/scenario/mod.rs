//! Scenario files: parsing and checking, into typed, immutable values.
//!
//! A scenario is one scripted agent run: the Agent's settings, scripted
//! tools, hooks, the mock chat generator's replies, the run's inputs and
//! the expectations. The format is fixed by `scenario-format.md`; this
//! module reads it and rejects anything else with an error that names the
//! file, the key path, and the line and column.
//!
//! ```text
//!  text ──text/yaml/ (mod.rs, subset.rs) / text/json.rs──▶ spanned tree (text/node.rs)
//!                                                  │ text/reader.rs: typed access, known keys
//!                                                  ▼
//!        format/: spec.rs, agent/, tool/, model.rs, hook.rs, when.rs,
//!        action.rs, message.rs, run.rs, crate::expect (pattern.rs,
//!        list_expect.rs, event_pattern.rs) ──▶ Scenario
//! ```
//!
//! A scenario holds the run's own types wherever the run has one, so no
//! converter stands between file and run: `model` entries are
//! [`ModelReply`](crate::scripted::ModelReply)s, tool `results` are
//! [`ScriptedResult`](crate::scripted::ScriptedResult)s, `state_schema`
//! entries are [`SchemaEntry`](crate::state::SchemaEntry)s, `outputs_to_state`
//! entries are [`StateOutput`](crate::tool::StateOutput)s and roles are
//! [`ChatRole`](crate::ChatRole)s. A new key touches its type, its reader
//! in `format/` and `format/write.rs`; a key of a tool entry or of `agent`
//! is its own file in `format/tool/` or `format/agent/` and its line in
//! the table there, from which type, reader, writer and schema follow.
//!
//! ```
//! use hookharness::scenario::{Format, Scenario};
//!
//! let scenario = Scenario::from_str(
//!     "model:\n  - text: hello\n",
//!     "scenarios/hello.yaml",
//!     Format::Yaml,
//! )
//! .unwrap();
//! assert_eq!(scenario.name, "hello");
//! assert_eq!(scenario.agent.max_agent_steps, 100);
//!
//! let error = Scenario::from_str(
//!     "agent: {exit_condition: [text]}\nmodel: []\n",
//!     "x.yaml",
//!     Format::Yaml,
//! )
//! .unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "x.yaml:1:9: unknown key `exit_condition` in `agent`; did you mean `exit_conditions`?"
//! );
//! ```

mod error;
mod format;
mod load;
mod text;

use format::{
    action, agent, event_pattern, hook, list_expect, message, pattern, python, run, sees, spec,
    tool, when, write,
};
use text::{json, locate, node, reader, source_map, yaml};

pub use crate::expect::{
    Always, Expect, Expectation, LastMessageExpect, ToolCallExpect, UnderFaults, UnusedReplies,
};
pub use crate::haystack::{
    AGENT_TYPE, HaystackAgent, HaystackDictError, ImportError, agent_from_haystack,
    agent_to_haystack, import_haystack,
};
pub use action::{Action, ResultRewrite, StateValue, ToolSelection};
pub use agent::AgentSpec;
pub use error::{ScenarioError, ScenarioErrorKind};
#[cfg(test)]
pub(crate) use event_pattern::KINDS as EVENT_KINDS;
pub use event_pattern::{EventKind, EventPattern};
pub use hook::{HookEntry, ReadyMadeKind};
pub use list_expect::{ListExpect, ListModes};
pub use load::Format;
pub(crate) use load::{not_a_file, not_regular};
pub(crate) use locate::Located;
pub use message::MessageSpec;
pub(crate) use node::KeyPath;
pub use pattern::ValuePattern;
pub use python::{MAIN_MODEL, NamedModel, PythonCall, PythonSpec};
pub use run::RunSpec;
pub use sees::Sees;
pub(crate) use source_map::SourceMap;
pub use spec::{SUPPORTED_VERSIONS, Scenario};
pub use tool::ToolScript;
pub use when::{LastMessageCondition, StepCountCondition, When};
pub(crate) use write::{
    message as write_message, named_recorded_depth, recorded_depth, reply as write_reply,
    write_compact,
};

/// What the Haystack interop (`crate::haystack`) reads and writes a
/// scenario's text with.
pub(crate) mod interop {
    pub(crate) use super::json::parse as parse_json;
    pub(crate) use super::node::{Entry, Node, NodeValue, Pos};
    pub(crate) use super::tool::default_parameters;
    pub(crate) use super::write::{needs_explicit_key, write_value};
    pub(crate) use super::yaml::parse as parse_yaml;
}

/// What [`crate::expect`] reads its keys with.
pub(crate) mod reading {
    pub(crate) use super::event_pattern::read_event_pattern;
    pub(crate) use super::list_expect::read_list;
    pub(crate) use super::message::roles;
    pub(crate) use super::pattern::{Slot, read_pattern};
    pub(crate) use super::reader::{Field, MapReader, Read};
}

/// The words the loader accepts at each place, read by the JSON Schema
/// (`crate::schema`) so that the two cannot disagree on a name.
pub(crate) mod vocabulary {
    pub(crate) use super::action::ACTIONS;
    pub(crate) use super::event_pattern::KINDS as EVENT_KINDS;
    pub(crate) use super::hook::READY_MADE;
    pub(crate) use super::list_expect::MODES;
    pub(crate) use super::message::{PART_TAGS, roles};
    pub(crate) use super::pattern::MATCHER_WORDS;
}

/// The JSON Schema of the maps whose keys the format lists in a table,
/// each key's schema given in its own file (`crate::schema` puts them
/// among its definitions).
pub(crate) mod schemas {
    pub(crate) use super::agent::{
        schema as agent, state_schema_entry_schema as state_schema_entry,
    };
    pub(crate) use super::tool::{result_schema as tool_result, schema as tool};
}

/// The deepest nesting of lists and maps a scenario file may use.
pub(crate) const MAX_DEPTH: usize = 128;

/// How many values YAML aliases may add in total (against alias bombs).
pub(crate) const ALIAS_BUDGET: usize = 10_000;

/// A YAML text (an imported skeleton) as pretty-printed JSON, as
/// [`Scenario::to_json`] writes a scenario: its comments are not kept.
pub(crate) fn yaml_as_json(text: &str, origin: &str) -> Result<String, ScenarioError> {
    let root = yaml::parse(text, origin)?;
    let mut json =
        serde_json::to_string_pretty(&root.to_json()).expect("a JSON value always serializes");
    json.push('\n');
    Ok(json)
}

/// A file may hold this many times its size in memory once read: its
/// tree and the values read from it, as `text/budget.rs` charges them
/// while they are parsed. A 50,000-tool Agent dict charges 10.8 times its
/// size; text dense in values (a list of zeros, two bytes each) 73 times,
/// and is refused (`tests/loader_memory.rs` has the peaks).
pub(crate) const MEMORY_BYTES_PER_FILE_BYTE: usize = 11;

/// Any file may hold 4 MiB in memory once read, however small: hundreds
/// of times what a corpus scenario (a few KB) holds, so that only a file
/// dense in values meets it (a list of more than about 28,000 numbers).
pub(crate) const MEMORY_BYTES_FLOOR: usize = 4 << 20;

/// How many bytes of text (strings and keys) YAML aliases may add in total
/// (8 MiB): a long value aliased many times is refused before it is copied.
pub(crate) const ALIAS_BYTES: usize = 8 << 20;
