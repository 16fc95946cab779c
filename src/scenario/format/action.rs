//! `do`: the actions of a declarative hook, applied in order to the live State.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::message::{MessageSpec, read_messages};
use super::node::NodeValue;
use super::reader::{Field, Read};
use crate::wording::suggest;

/// One `do` action.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Action {
    /// `append_messages`: `state.set("messages", [m...])`.
    AppendMessages(Vec<MessageSpec>),
    /// `prepend_messages`: the messages go before the current ones.
    PrependMessages(Vec<MessageSpec>),
    /// `replace_messages`: the messages replace the current ones.
    ReplaceMessages(Vec<MessageSpec>),
    /// `set: {key: value}`: `state.set(key, value)` with the schema's handler.
    Set(IndexMap<String, StateValue>),
    /// `replace: {key: value}`: `state.set` with `replace_values`.
    Replace(IndexMap<String, StateValue>),
    /// `continue_run: B` (`false` is accepted).
    ContinueRun(bool),
    /// `stop_run: REASON` (`null` is accepted).
    StopRun(Option<String>),
    /// `drop_tool_calls`: remove tool calls from the last message.
    DropToolCalls(ToolSelection),
    /// `set_tool_arguments`: replace the arguments of the last message's calls to `tool`.
    SetToolArguments {
        /// `tool`.
        tool: String,
        /// `arguments`, in file order.
        arguments: Map<String, Value>,
    },
    /// `rewrite_tool_results`: rewrite the trailing tool-result messages' text.
    RewriteToolResults(ResultRewrite),
    /// `fail: MESSAGE`: the hook raises with exactly this message.
    Fail(String),
}

impl Action {
    /// The action's key, as written in a `do` list.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Action::AppendMessages(_) => "append_messages",
            Action::PrependMessages(_) => "prepend_messages",
            Action::ReplaceMessages(_) => "replace_messages",
            Action::Set(_) => "set",
            Action::Replace(_) => "replace",
            Action::ContinueRun(_) => "continue_run",
            Action::StopRun(_) => "stop_run",
            Action::DropToolCalls(_) => "drop_tool_calls",
            Action::SetToolArguments { .. } => "set_tool_arguments",
            Action::RewriteToolResults(_) => "rewrite_tool_results",
            Action::Fail(_) => "fail",
        }
    }
}

/// A value given to `set` or `replace`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StateValue {
    /// The value of the `messages` key: message specs.
    Messages(Vec<MessageSpec>),
    /// Any other key's value.
    Value(Value),
}

/// Which tool calls `drop_tool_calls` removes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolSelection {
    /// `all`.
    All,
    /// `[tool...]`: the calls to these tools.
    Named(Vec<String>),
}

/// How `rewrite_tool_results` rewrites each result text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultRewrite {
    /// `{truncate: N}`: keep the first N characters (Unicode code points).
    Truncate(usize),
    /// `{replace: S}`: the text becomes S.
    Replace(String),
}

/// Every action name, for messages.
pub(crate) const ACTIONS: &[&str] = &[
    "append_messages",
    "prepend_messages",
    "replace_messages",
    "set",
    "replace",
    "continue_run",
    "stop_run",
    "drop_tool_calls",
    "set_tool_arguments",
    "rewrite_tool_results",
    "fail",
];

pub(crate) fn read_actions(field: &Field<'_>) -> Read<Vec<Action>> {
    field.seq()?.iter().map(read_action).collect()
}

fn read_action(field: &Field<'_>) -> Read<Action> {
    let entries = field
        .entries()
        .map_err(|_| field.wrong_type("an action (a map with one key, like `fail: MESSAGE`)"))?;
    let [(name, value)] = entries.as_slice() else {
        let keys = entries.iter().map(|(k, _)| (*k).to_owned()).collect();
        return Err(field.error(ScenarioErrorKind::ActionShape { keys }));
    };
    let action = match *name {
        "append_messages" => Action::AppendMessages(read_messages(value)?),
        "prepend_messages" => Action::PrependMessages(read_messages(value)?),
        "replace_messages" => Action::ReplaceMessages(read_messages(value)?),
        "set" => Action::Set(read_state_values(value)?),
        "replace" => Action::Replace(read_state_values(value)?),
        "continue_run" => Action::ContinueRun(value.bool()?),
        "stop_run" => Action::StopRun(value.opt_string()?),
        "drop_tool_calls" => Action::DropToolCalls(read_selection(value)?),
        "set_tool_arguments" => {
            let mut map = value.map()?;
            let tool = map.required("tool")?.string()?;
            let arguments = map.required("arguments")?.json_map()?;
            map.finish()?;
            Action::SetToolArguments { tool, arguments }
        }
        "rewrite_tool_results" => Action::RewriteToolResults(read_rewrite(value)?),
        "fail" => Action::Fail(value.string()?),
        other => {
            let kind = ScenarioErrorKind::UnknownAction {
                action: other.to_owned(),
                suggestion: suggest::closest(other, ACTIONS),
            };
            return Err(field.key_error(other, kind));
        }
    };
    Ok(action)
}

fn read_state_values(field: &Field<'_>) -> Read<IndexMap<String, StateValue>> {
    field
        .entries()?
        .into_iter()
        .map(|(key, value)| {
            let value = if key == "messages" {
                StateValue::Messages(read_messages(&value)?)
            } else {
                StateValue::Value(value.json())
            };
            Ok((key.to_owned(), value))
        })
        .collect()
}

fn read_selection(field: &Field<'_>) -> Read<ToolSelection> {
    if field.as_str() == Some("all") {
        Ok(ToolSelection::All)
    } else if matches!(field.node.value, NodeValue::Seq(_)) {
        field.strings().map(ToolSelection::Named)
    } else {
        Err(field.wrong_type("`all` or a list of tool names"))
    }
}

fn read_rewrite(field: &Field<'_>) -> Read<ResultRewrite> {
    let mut map = field.map()?;
    let truncate = map.get("truncate");
    let replace = map.get("replace");
    map.finish()?;
    match (truncate, replace) {
        (Some(f), None) => {
            let n = f.i64()?;
            usize::try_from(n)
                .map(ResultRewrite::Truncate)
                .map_err(|_| {
                    f.error(ScenarioErrorKind::WrongType {
                        expected: "a non-negative integer",
                        found: "a negative integer",
                    })
                })
        }
        (None, Some(f)) => Ok(ResultRewrite::Replace(f.string()?)),
        _ => Err(field.error(ScenarioErrorKind::NeedsOneOf {
            keys: vec!["truncate".to_owned(), "replace".to_owned()],
            exactly: true,
        })),
    }
}
