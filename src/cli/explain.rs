//! `hookharness explain`: a step-by-step timeline of one run.

use crate::observe::{Event, Observer};
use crate::replay::Outcome;
use crate::state::State;
use crate::state::keys;
use serde_json::{Map, Value};
use std::fmt::Write;

/// Records a readable timeline: which hook fired at which step, what it
/// changed in State, what the model received and answered, why the run ended.
#[derive(Default)]
pub(crate) struct Timeline {
    pub(crate) text: String,
    before: Option<Snapshot>,
}

struct Snapshot {
    messages: Vec<crate::ChatMessage>,
    data: Map<String, Value>,
}

fn snapshot(state: &State) -> Snapshot {
    Snapshot {
        messages: state.messages().to_vec(),
        data: state.data().clone(),
    }
}

/// How a hook changed the conversation: appended messages are listed; any
/// other change is shown as the new conversation's size and its last message.
fn message_changes(before: &[crate::ChatMessage], after: &[crate::ChatMessage], out: &mut String) {
    if before == after {
        return;
    }
    if after.len() > before.len() && after.starts_with(before) {
        for message in &after[before.len()..] {
            let _ = writeln!(out, "    + message {}", describe(message));
        }
        return;
    }
    let _ = writeln!(
        out,
        "    messages rewritten: {} -> {}",
        before.len(),
        after.len()
    );
    for (i, (old, new)) in before.iter().zip(after).enumerate() {
        if old != new {
            let _ = writeln!(out, "    ~ message {i} is now {}", describe(new));
            break;
        }
    }
}

fn step(state: &State) -> String {
    state
        .data()
        .get(keys::STEP_COUNT)
        .map_or_else(|| "-".into(), Value::to_string)
}

fn short(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() > 70 {
        format!("{}…", one_line.chars().take(70).collect::<String>())
    } else {
        one_line
    }
}

fn describe(message: &crate::ChatMessage) -> String {
    let mut parts = Vec::new();
    if let Some(text) = message.text() {
        parts.push(format!("\"{}\"", short(text)));
    }
    for call in message.tool_calls() {
        parts.push(format!(
            "call {}({})",
            call.tool_name,
            Value::Object(call.arguments.clone())
        ));
    }
    for result in message.tool_call_results() {
        let text = result.result.as_text().unwrap_or("<parts>");
        let flag = if result.error { " (error)" } else { "" };
        parts.push(format!(
            "result of {}{flag}: \"{}\"",
            result.origin.tool_name,
            short(text)
        ));
    }
    if parts.is_empty() {
        parts.push("<no content>".into());
    }
    format!("{}: {}", message.role(), parts.join(", "))
}

impl Observer for Timeline {
    fn on_event(&mut self, event: &Event<'_>) {
        let out = &mut self.text;
        match event {
            Event::RunStarted { state } => {
                let _ = writeln!(out, "run starts with {} message(s)", state.messages().len());
            }
            Event::HookStarted { state, .. } => self.before = Some(snapshot(state)),
            Event::HookFinished {
                point,
                hook,
                state,
                error,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "[step {}] {point}: hook `{}` ran",
                    step(state),
                    hook.name()
                );
                if let Some(before) = self.before.take() {
                    message_changes(&before.messages, state.messages(), out);
                    for (key, value) in state.data() {
                        if before.data.get(key) != Some(value) {
                            let old = before
                                .data
                                .get(key)
                                .map_or("<absent>".into(), Value::to_string);
                            let _ = writeln!(out, "    {key}: {old} -> {value}");
                        }
                    }
                }
                if let Some(error) = error {
                    let _ = writeln!(out, "    failed: {error}");
                }
            }
            Event::LlmStarted { state, messages } => {
                let _ = writeln!(
                    out,
                    "[step {}] model receives {} message(s)",
                    step(state),
                    messages.len()
                );
                if let Some(last) = messages.last() {
                    let _ = writeln!(out, "    last: {}", describe(last));
                }
            }
            Event::LlmFinished { replies, .. } => {
                for reply in *replies {
                    let _ = writeln!(out, "    model answers {}", describe(reply));
                }
            }
            Event::LlmFailed { error, .. } => {
                let _ = writeln!(out, "    model fails: {error}");
            }
            Event::ToolFinished { state, call, error } => {
                let flag = if *error { " (error)" } else { "" };
                let _ = writeln!(
                    out,
                    "[step {}] tool `{}` ran{flag}",
                    step(state),
                    call.tool_name
                );
            }
            Event::Exit {
                state,
                reason,
                continues,
            } => {
                let decision = if *continues {
                    "on_exit set continue_run: the run goes on"
                } else {
                    "the run ends"
                };
                let _ = writeln!(
                    out,
                    "[step {}] exit attempt ({reason}): {decision}",
                    step(state)
                );
            }
            Event::Stopped { state, reason } => {
                let _ = writeln!(
                    out,
                    "[step {}] stop_run is {reason} after before_llm: the run stops before the model call",
                    step(state)
                );
            }
            Event::MaxStepsReached { state } => {
                let _ = writeln!(
                    out,
                    "[step {}] max_agent_steps reached: on_exit is skipped, exit_reason is max_agent_steps",
                    step(state)
                );
            }
            Event::RunFinished { state } => {
                let reason = state
                    .data()
                    .get(keys::EXIT_REASON)
                    .cloned()
                    .unwrap_or(Value::Null);
                let _ = writeln!(
                    out,
                    "run ends: exit_reason {reason}, step_count {}",
                    step(state)
                );
            }
        }
    }
}

/// The closing lines: status, failures, error.
pub(crate) fn verdict(outcome: &Outcome) -> String {
    crate::report::human_outcome(outcome)
}
