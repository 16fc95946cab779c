//! The scenario format: the typed values a file is read into (the Agent's
//! settings, tools, hooks, the model's replies, the run's inputs, the
//! expectations' matchers), the reader of each key beside its type, and the
//! writer that turns a `Scenario` back into text the loader reads as the same.

pub(super) mod action;
pub(super) mod agent;
pub(super) mod event_pattern;
pub(super) mod hook;
mod keys;
pub(super) mod list_expect;
pub(super) mod message;
pub(super) mod model;
pub(super) mod pattern;
pub(super) mod python;
pub(super) mod relocate;
pub(super) mod run;
pub(super) mod sees;
pub(super) mod spec;
pub(super) mod tool;
pub(super) mod when;
pub(super) mod write;

use super::{MAX_DEPTH, Scenario, ScenarioError, error, node, reader, source_map};
