//! One file per `expect` key: its value's reading, writing, JSON Schema
//! and check, side by side (the table in `super` lists them).

pub(super) mod error;
pub(super) mod exit_reason;
pub(super) mod hooks;
pub(crate) mod last_message;
pub(super) mod llm_calls;
pub(super) mod message_count;
pub(super) mod printed;
pub(super) mod state;
pub(super) mod step_count;
pub(super) mod streamed;
pub(super) mod token_usage;
pub(super) mod tool_call_counts;
pub(super) mod tools_run;
pub(super) mod trace;

/// The schema of a list expectation (`super::list`'s match modes).
pub(super) use crate::schema::list_expectation as list_schema;
