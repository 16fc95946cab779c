//! Declarative hooks: a `when` condition, then `do` actions.

use crate::hook::{Hook, HookError, HookPoint};
use crate::message::{ChatMessage, ContentPart, ToolResult};
use crate::scenario::{
    Action, LastMessageCondition, MessageSpec, ResultRewrite, StateValue, StepCountCondition,
    ToolSelection, When,
};
use crate::state::keys;
use crate::state::{Handler, State};
use crate::value::json_eq;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::atomic::{AtomicI64, Ordering};

/// A hook written in a scenario file.
pub struct DeclarativeHook {
    name: String,
    when: When,
    actions: Vec<Action>,
    allowed: Option<Vec<HookPoint>>,
    fired: AtomicI64,
}

impl DeclarativeHook {
    pub(crate) fn new(
        name: String,
        when: When,
        actions: Vec<Action>,
        allowed: Option<Vec<HookPoint>>,
    ) -> Self {
        DeclarativeHook {
            name,
            when,
            actions,
            allowed,
            fired: AtomicI64::new(0),
        }
    }

    fn holds(&self, state: &State) -> bool {
        let when = &self.when;
        if let Some(condition) = &when.step_count {
            let Some(step) = state.data().get(keys::STEP_COUNT).and_then(Value::as_f64) else {
                return false;
            };
            let ok = match condition {
                StepCountCondition::Eq(n) => step == *n as f64,
                StepCountCondition::Range { gte, lt } => {
                    gte.is_none_or(|g| step >= g as f64) && lt.is_none_or(|l| step < l as f64)
                }
            };
            if !ok {
                return false;
            }
        }
        if let Some(reason) = &when.exit_reason {
            if !json_eq(
                state.data().get(keys::EXIT_REASON).unwrap_or(&Value::Null),
                reason,
            ) {
                return false;
            }
        }
        if !when.tool_call_counts.is_empty() {
            // A tool missing from the map counts as 0; a map a hook replaced
            // by another value holds no counts.
            let counts = state.data().get("tool_call_counts");
            let zero = Value::from(0);
            for (tool, count) in &when.tool_call_counts {
                let actual = match counts {
                    Some(Value::Object(counts)) => counts.get(tool).unwrap_or(&zero),
                    _ => &zero,
                };
                if !json_eq(actual, &Value::from(*count)) {
                    return false;
                }
            }
        }
        if let Some(condition) = &when.last_message {
            if !last_message_matches(state.messages().last(), condition) {
                return false;
            }
        }
        for (key, expected) in &when.state {
            match state.get(key) {
                Some(actual) if json_eq(&actual, expected) => {}
                _ => return false,
            }
        }
        for (key, expected) in &when.hook_context {
            match state.hook_context().and_then(|c| c.get(key)) {
                Some(actual) if json_eq(actual, expected) => {}
                _ => return false,
            }
        }
        if let Some(times) = when.times {
            if self.fired.load(Ordering::SeqCst) >= times {
                return false;
            }
        }
        true
    }

    fn apply(&self, action: &Action, state: &mut State) -> Result<(), HookError> {
        match action {
            Action::AppendMessages(specs) => {
                let new = messages(specs)?;
                let handler = messages_handler(state);
                state.set_messages_with(new, &handler)?;
            }
            Action::PrependMessages(specs) => {
                let mut new = messages(specs)?;
                new.extend(state.messages().iter().cloned());
                state.replace_messages(new);
            }
            Action::ReplaceMessages(specs) => {
                state.replace_messages(messages(specs)?);
            }
            Action::Set(values) => {
                for (key, value) in values {
                    set_value(state, key, value, None)?;
                }
            }
            Action::Replace(values) => {
                for (key, value) in values {
                    set_value(state, key, value, Some(&Handler::ReplaceValues))?;
                }
            }
            Action::ContinueRun(flag) => state.set(keys::CONTINUE_RUN, Value::Bool(*flag))?,
            Action::StopRun(reason) => state.set(
                keys::STOP_RUN,
                reason.clone().map_or(Value::Null, Value::String),
            )?,
            Action::DropToolCalls(selection) => {
                if let Some(last) = state.messages_mut().last_mut() {
                    let drops = |name: &str| match selection {
                        ToolSelection::All => true,
                        ToolSelection::Named(names) => names.iter().any(|n| n == name),
                    };
                    if last.tool_calls().any(|c| drops(&c.tool_name)) {
                        let content = last
                            .content()
                            .iter()
                            .filter(|part| !matches!(part, ContentPart::ToolCall(c) if drops(&c.tool_name)))
                            .cloned()
                            .collect();
                        let mut rebuilt =
                            ChatMessage::new(last.role(), content).with_meta(last.meta().clone());
                        if let Some(name) = last.name() {
                            rebuilt = rebuilt.with_name(name);
                        }
                        *last = rebuilt;
                    }
                }
            }
            Action::SetToolArguments { tool, arguments } => {
                if let Some(last) = state.messages_mut().last_mut() {
                    for call in last.tool_calls_mut() {
                        if call.tool_name == *tool {
                            call.arguments = arguments.clone();
                        }
                    }
                }
            }
            Action::RewriteToolResults(rewrite) => {
                let messages = state.messages_mut();
                let start = messages
                    .iter()
                    .rposition(|m| m.tool_call_result().is_none())
                    .map_or(0, |i| i + 1);
                for message in &mut messages[start..] {
                    for part in message.content_mut() {
                        if let ContentPart::ToolCallResult(result) = part {
                            if let ToolResult::Text(text) = &mut result.result {
                                *text = match rewrite {
                                    ResultRewrite::Truncate(n) => text.chars().take(*n).collect(),
                                    ResultRewrite::Replace(new) => new.clone(),
                                };
                            }
                        }
                    }
                }
            }
            Action::Fail(message) => return Err(HookError::new(message.clone())),
        }
        Ok(())
    }
}

fn messages_handler(state: &State) -> Handler {
    state
        .schema()
        .get(keys::MESSAGES)
        .map_or(Handler::MergeLists, |e| e.effective_handler())
}

fn set_value(
    state: &mut State,
    key: &str,
    value: &StateValue,
    handler: Option<&Handler>,
) -> Result<(), HookError> {
    match value {
        StateValue::Messages(specs) if key == keys::MESSAGES => {
            let new = messages(specs)?;
            let handler = handler.cloned().unwrap_or_else(|| messages_handler(state));
            state.set_messages_with(new, &handler)?;
        }
        StateValue::Messages(specs) => {
            let new = messages(specs)?;
            let value = Value::Array(new.iter().map(ChatMessage::to_value).collect());
            set_json(state, key, value, handler)?;
        }
        StateValue::Value(value) => set_json(state, key, value.clone(), handler)?,
    }
    Ok(())
}

/// An action's messages; one Haystack's `ChatMessage.from_dict` rejects
/// fails the hook with its message.
fn messages(specs: &[MessageSpec]) -> Result<Vec<ChatMessage>, HookError> {
    MessageSpec::to_messages(specs).map_err(|e| HookError::new(e.to_string()))
}

fn set_json(
    state: &mut State,
    key: &str,
    value: Value,
    handler: Option<&Handler>,
) -> Result<(), HookError> {
    match handler {
        Some(handler) => state.set_with(key, value, handler)?,
        None => state.set(key, value)?,
    }
    Ok(())
}

fn last_message_matches(message: Option<&ChatMessage>, condition: &LastMessageCondition) -> bool {
    let Some(message) = message else {
        return false;
    };
    if let Some(role) = condition.role {
        if message.role() != role {
            return false;
        }
    }
    if let Some(has) = condition.has_tool_calls {
        if message.has_tool_calls() != has {
            return false;
        }
    }
    if let Some(needle) = &condition.text_contains {
        if !message.text().is_some_and(|t| t.contains(needle.as_str())) {
            return false;
        }
    }
    true
}

impl Hook for DeclarativeHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        if !self.holds(state) {
            return Ok(());
        }
        self.fired.fetch_add(1, Ordering::SeqCst);
        for action in &self.actions {
            self.apply(action, state)?;
        }
        Ok(())
    }

    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        self.allowed.as_deref()
    }
}
