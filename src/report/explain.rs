//! The timeline `hookharness explain` prints: which hook fired at which
//! step, what it changed in State, what the model received and answered,
//! why the run ended. Read from the outcome's trace alone, so a saved
//! outcome (`run --format json --trace full`) explains the same as a run.

use super::timeline::{self, Detail, Piece, Place};
use crate::message::ChatMessage;
use crate::outcome::{Outcome, StateChanges, TraceEvent, TraceKind};
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
    let Some(shown) = timeline::describe(event) else {
        return;
    };
    let headline: String = shown.headline.iter().map(piece).collect();
    let _ = match shown.place {
        Place::Step => writeln!(out, "[step {}] {headline}", timeline::step(event)),
        Place::Run => writeln!(out, "{headline}"),
        Place::UnderCall => Ok(()),
    };
    for detail in &shown.details {
        let _ = match detail {
            Detail::Changes(changes) => {
                state_changes(changes, out);
                Ok(())
            }
            Detail::Message {
                label,
                message: Some(message),
            } => writeln!(out, "    {label}: {}", describe(message)),
            Detail::Messages(messages) => {
                for message in *messages {
                    let _ = writeln!(out, "    {headline} {}", describe(message));
                }
                Ok(())
            }
            Detail::Error { label, text } => {
                writeln!(out, "    {}: {text}", label.unwrap_or(&headline))
            }
            Detail::Message { message: None, .. } | Detail::Call { .. } => Ok(()),
        };
    }
}

/// A headline piece as the text shows it.
fn piece(piece: &Piece<'_>) -> String {
    match piece {
        Piece::Words(words) | Piece::TextOnly(words) => words.clone(),
        Piece::Name(name) => format!("`{name}`"),
        Piece::Point(point) => point.to_string(),
        Piece::Json(value) => value.to_string(),
    }
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
