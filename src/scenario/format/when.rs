//! `when`: the conditions of a declarative hook; all must hold.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::message::roles;
use super::node::NodeValue;
use super::reader::{Field, Read};
use crate::message::ChatRole;

/// A declarative hook's `when`: it holds when every given condition holds;
/// the default (no condition) always holds.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct When {
    /// `step_count`: compares `state.data["step_count"]`.
    pub step_count: Option<StepCountCondition>,
    /// `exit_reason`: equals `state.data["exit_reason"]` (a string, or
    /// null for "no exit yet").
    pub exit_reason: Option<Value>,
    /// `tool_call_counts`: each listed tool's count equals (missing tools count 0).
    pub tool_call_counts: IndexMap<String, i64>,
    /// `last_message`: the last message matches every listed field.
    pub last_message: Option<LastMessageCondition>,
    /// `state`: each `state.data[key]` equals the value (JSON equality).
    pub state: Map<String, Value>,
    /// `hook_context`: each `state.data["hook_context"][key]` equals the value.
    pub hook_context: Map<String, Value>,
    /// `times: N`: the hook has fired fewer than N times in this run.
    pub times: Option<i64>,
}

/// `step_count: N`, or `{gte: N}` and/or `{lt: N}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StepCountCondition {
    /// `step_count: N`: equals N.
    Eq(i64),
    /// `{gte, lt}`: at least `gte` (when given) and below `lt` (when given);
    /// at least one of them is given.
    Range {
        /// `gte`: greater than or equal.
        gte: Option<i64>,
        /// `lt`: less than.
        lt: Option<i64>,
    },
}

/// `last_message: {role, has_tool_calls, text_contains}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LastMessageCondition {
    /// `role`.
    pub role: Option<ChatRole>,
    /// `has_tool_calls`.
    pub has_tool_calls: Option<bool>,
    /// `text_contains`: false on a message without text.
    pub text_contains: Option<String>,
}

pub(crate) fn read_when(field: &Field<'_>) -> Read<When> {
    let mut map = field.map()?;
    let mut when = When::default();
    if let Some(f) = map.get("step_count") {
        when.step_count = Some(read_step_count(&f)?);
    }
    if let Some(f) = map.get("exit_reason") {
        when.exit_reason = Some(if f.is_null() {
            Value::Null
        } else {
            Value::String(f.string()?)
        });
    }
    if let Some(f) = map.get("tool_call_counts") {
        for (tool, count) in f.entries()? {
            when.tool_call_counts.insert(tool.to_owned(), count.i64()?);
        }
    }
    if let Some(f) = map.get("last_message") {
        when.last_message = Some(read_last_message(&f)?);
    }
    if let Some(f) = map.get("state") {
        when.state = f.json_map()?;
    }
    if let Some(f) = map.get("hook_context") {
        when.hook_context = f.json_map()?;
    }
    if let Some(f) = map.get("times") {
        when.times = Some(f.i64()?);
    }
    map.finish()?;
    Ok(when)
}

fn read_step_count(field: &Field<'_>) -> Read<StepCountCondition> {
    if !matches!(field.node.value, NodeValue::Map(_)) {
        return field
            .i64()
            .map(StepCountCondition::Eq)
            .map_err(|_| field.wrong_type("an integer or `{gte: N, lt: N}`"));
    }
    let mut map = field.map()?;
    let gte = map.get("gte").map(|f| f.i64()).transpose()?;
    let lt = map.get("lt").map(|f| f.i64()).transpose()?;
    map.finish()?;
    if gte.is_none() && lt.is_none() {
        return Err(field.error(ScenarioErrorKind::NeedsOneOf {
            keys: vec!["gte".to_owned(), "lt".to_owned()],
            exactly: false,
        }));
    }
    Ok(StepCountCondition::Range { gte, lt })
}

fn read_last_message(field: &Field<'_>) -> Read<LastMessageCondition> {
    let mut map = field.map()?;
    let condition = LastMessageCondition {
        role: map.get("role").map(|f| f.variant(&roles())).transpose()?,
        has_tool_calls: map.get("has_tool_calls").map(|f| f.bool()).transpose()?,
        text_contains: map.get("text_contains").map(|f| f.string()).transpose()?,
    };
    map.finish()?;
    Ok(condition)
}
