//! The timeline `hookharness explain` prints: which hook fired at which
//! step, what it changed in State, what the model received and answered,
//! why the run ended. Read from the outcome's trace alone, so a saved
//! outcome (`run --format json --trace full`) explains the same as a run.

use crate::message::ChatMessage;
use crate::outcome::{Outcome, StateChanges, TraceEvent, TraceKind};
use serde_json::Value;
use std::fmt::Write;

/// The timeline of a run. State changes show when the outcome was recorded
/// with [`Detail::Full`](crate::outcome::Detail::Full).
///
/// ```
/// use hookharness::outcome::Detail;
/// use hookharness::replay::Replay;
/// use hookharness::report::explain;
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str(
///     "hooks: {before_llm: [{name: nudge, do: [{append_messages: [{role: user, text: go on}]}]}]}\n\
///      model: [{text: hi}]",
///     "nudge.yaml",
///     Format::Yaml,
/// )?;
/// let outcome = Replay::new().detail(Detail::Full).run(&scenario);
/// assert_eq!(
///     explain(&outcome),
///     "run starts with 0 message(s)\n\
///      [step 0] before_llm: hook `nudge` ran\n\
///      \x20   + message user: \"go on\"\n\
///      [step 0] model receives 1 message(s)\n\
///      \x20   last: user: \"go on\"\n\
///      \x20   model answers assistant: \"hi\"\n\
///      [step 1] exit attempt (\"text\"): the run ends\n\
///      run ends: exit_reason \"text\", step_count 1\n"
/// );
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
pub fn explain(outcome: &Outcome) -> String {
    let mut out = String::new();
    for event in &outcome.trace {
        line(event, &mut out);
    }
    out
}

/// How many events of the trace the human and JUnit reports show after a
/// failed or failing run.
pub(crate) const TAIL_EVENTS: usize = 5;

/// The timeline of the last `events` events that show in it, the end of
/// the run: where a run error happened, or how the run a failed
/// expectation judges ended. An LLM call's answer is not shown without the
/// call. `None` when nothing ran.
pub(crate) fn tail(outcome: &Outcome, events: usize) -> Option<String> {
    let shown: Vec<(&TraceEvent, String)> = outcome
        .trace
        .iter()
        .filter_map(|event| {
            let mut text = String::new();
            line(event, &mut text);
            (!text.is_empty()).then_some((event, text))
        })
        .collect();
    let mut start = shown.len().saturating_sub(events);
    if start > 0
        && matches!(
            shown[start].0.kind,
            TraceKind::LlmFinished { .. } | TraceKind::LlmFailed { .. }
        )
    {
        start -= 1;
    }
    let tail: String = shown[start..]
        .iter()
        .map(|(_, text)| text.as_str())
        .collect();
    (!tail.is_empty()).then_some(tail)
}

fn line(event: &TraceEvent, out: &mut String) {
    let step = event.step().map_or_else(|| "-".into(), Value::to_string);
    let _ = match &event.kind {
        TraceKind::RunStarted { messages } => {
            writeln!(out, "run starts with {messages} message(s)")
        }
        TraceKind::HookFinished {
            point,
            hook,
            error,
            changes,
            ..
        } => {
            let _ = writeln!(out, "[step {step}] {point}: hook `{hook}` ran");
            if let Some(changes) = changes {
                state_changes(changes, out);
            }
            match error {
                Some(error) => writeln!(out, "    failed: {error}"),
                None => Ok(()),
            }
        }
        TraceKind::LlmStarted {
            messages_in, last, ..
        } => {
            let _ = writeln!(out, "[step {step}] model receives {messages_in} message(s)");
            match last {
                Some(last) => writeln!(out, "    last: {}", describe(last)),
                None => Ok(()),
            }
        }
        TraceKind::LlmFinished { replies, .. } => {
            for reply in replies {
                let _ = writeln!(out, "    model answers {}", describe(reply));
            }
            Ok(())
        }
        TraceKind::LlmFailed { error, .. } => writeln!(out, "    model fails: {error}"),
        TraceKind::ToolFinished { tool, error, .. } => {
            let flag = if *error { " (error)" } else { "" };
            writeln!(out, "[step {step}] tool `{tool}` ran{flag}")
        }
        TraceKind::Exit {
            reason, continues, ..
        } => {
            let decision = if *continues {
                "on_exit set continue_run: the run goes on"
            } else {
                "the run ends"
            };
            writeln!(out, "[step {step}] exit attempt ({reason}): {decision}")
        }
        TraceKind::Stopped { reason, .. } => writeln!(
            out,
            "[step {step}] stop_run is {reason} after before_llm: the run stops before the model call"
        ),
        TraceKind::MaxStepsReached => writeln!(
            out,
            "[step {step}] max_agent_steps reached: on_exit is skipped, exit_reason is max_agent_steps"
        ),
        TraceKind::RunFinished { exit_reason, .. } => writeln!(
            out,
            "run ends: exit_reason {exit_reason}, step_count {step}"
        ),
        TraceKind::HookStarted { .. } | TraceKind::ToolsFinished { .. } => Ok(()),
    };
}

/// Every message a hook added, removed or changed, then every data key
/// with a new value (`changes::lines`).
fn state_changes(changes: &StateChanges, out: &mut String) {
    for line in super::changes::lines(changes, describe) {
        let _ = writeln!(out, "    {line}");
    }
}

fn short(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() > 70 {
        format!("{}…", one_line.chars().take(70).collect::<String>())
    } else {
        one_line
    }
}

fn describe(message: &ChatMessage) -> String {
    super::message::describe(message, |text| format!("\"{}\"", short(text)))
}
