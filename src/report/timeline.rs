//! Each trace event described once, for both timelines: the text
//! [`explain`](super::explain) prints and the page
//! [`explain_html`](super::explain_html) writes. The wording of every event
//! kind lives here; the two renderings differ only where they mean to (the
//! page marks names up and shows a tool call's arguments and result; the
//! text adds a few words the page leaves out).

use crate::hook::HookPoint;
use crate::message::ChatMessage;
use crate::outcome::{StateChanges, TraceEvent, TraceKind};
use serde_json::Value;

/// One event as the timelines show it.
pub(crate) struct Shown<'a> {
    /// The page's class for it: `run`, `hook`, `llm`, `tool` or `exit`.
    pub class: &'static str,
    /// A hook or tool that failed, or the model's failure.
    pub failed: bool,
    /// Where the text puts it.
    pub place: Place,
    /// The headline.
    pub headline: Vec<Piece<'a>>,
    /// What follows it.
    pub details: Vec<Detail<'a>>,
}

/// Where the text timeline puts an event.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// At its step: `[step N] headline`.
    Step,
    /// At the start or the end of the run, without a step.
    Run,
    /// Under the model call it answers, one indented line per detail, the
    /// headline leading each.
    UnderCall,
}

/// A piece of a headline.
pub(crate) enum Piece<'a> {
    /// Words, the same in both.
    Words(String),
    /// A hook's or tool's name: in backticks in the text, code on the page.
    Name(&'a str),
    /// A hook point: bold on the page.
    Point(HookPoint),
    /// A value, as JSON.
    Json(&'a Value),
    /// Words only the text shows.
    TextOnly(String),
}

/// What follows a headline.
pub(crate) enum Detail<'a> {
    /// What a hook changed in State, a line each (`changes::lines`).
    Changes(&'a StateChanges),
    /// A labelled message; the text leaves it out when absent, the page
    /// shows the label alone.
    Message {
        label: &'static str,
        message: Option<&'a ChatMessage>,
    },
    /// Messages, one after the other (the model's replies): each follows
    /// the headline in the text.
    Messages(&'a [ChatMessage]),
    /// An error's text, after its label (the headline's, without one).
    Error {
        label: Option<&'static str>,
        text: &'a str,
    },
    /// A tool call's arguments and result, found by its id: only the page
    /// shows them.
    Call { id: Option<&'a str> },
}

/// `event` as the timelines show it; `None` for the kinds they leave out
/// (a hook starting, the step's tools counted).
pub(crate) fn describe(event: &TraceEvent) -> Option<Shown<'_>> {
    let shown = |class, place, headline| Shown {
        class,
        failed: false,
        place,
        headline,
        details: Vec::new(),
    };
    Some(match &event.kind {
        TraceKind::RunStarted { messages } => shown(
            "run",
            Place::Run,
            vec![Piece::Words(format!(
                "run starts with {messages} message(s)"
            ))],
        ),
        TraceKind::HookFinished {
            point,
            hook,
            error,
            changes,
            ..
        } => {
            let mut details: Vec<Detail<'_>> = changes.iter().map(Detail::Changes).collect();
            details.extend(error.as_deref().map(|text| Detail::Error {
                label: Some("failed"),
                text,
            }));
            Shown {
                failed: error.is_some(),
                details,
                ..shown(
                    "hook",
                    Place::Step,
                    vec![
                        Piece::Point(*point),
                        Piece::Words(": hook ".into()),
                        Piece::Name(hook),
                        Piece::Words(" ran".into()),
                    ],
                )
            }
        }
        TraceKind::LlmStarted {
            messages_in, last, ..
        } => Shown {
            details: vec![Detail::Message {
                label: "last",
                message: last.as_ref(),
            }],
            ..shown(
                "llm",
                Place::Step,
                vec![Piece::Words(format!(
                    "model receives {messages_in} message(s)"
                ))],
            )
        },
        TraceKind::LlmFinished { replies, .. } => Shown {
            details: vec![Detail::Messages(replies)],
            ..shown(
                "llm",
                Place::UnderCall,
                vec![Piece::Words("model answers".into())],
            )
        },
        TraceKind::LlmFailed { error, .. } => Shown {
            failed: true,
            details: vec![Detail::Error {
                label: None,
                text: error,
            }],
            ..shown(
                "llm",
                Place::UnderCall,
                vec![Piece::Words("model fails".into())],
            )
        },
        TraceKind::ToolFinished {
            tool, id, error, ..
        } => {
            let flag = if *error { " (error)" } else { "" };
            Shown {
                failed: *error,
                details: vec![Detail::Call { id: id.as_deref() }],
                ..shown(
                    "tool",
                    Place::Step,
                    vec![
                        Piece::Words("tool ".into()),
                        Piece::Name(tool),
                        Piece::TextOnly(format!(" ran{flag}")),
                    ],
                )
            }
        }
        TraceKind::Exit {
            reason, continues, ..
        } => {
            let decision = if *continues {
                "on_exit set continue_run: the run goes on"
            } else {
                "the run ends"
            };
            shown(
                "exit",
                Place::Step,
                vec![
                    Piece::Words("exit attempt (".into()),
                    Piece::Json(reason),
                    Piece::Words(format!("): {decision}")),
                ],
            )
        }
        TraceKind::Stopped { reason, .. } => shown(
            "exit",
            Place::Step,
            vec![
                Piece::Words("stop_run is ".into()),
                Piece::Json(reason),
                Piece::Words(" after before_llm: the run stops before the model call".into()),
            ],
        ),
        TraceKind::MaxStepsReached => shown(
            "exit",
            Place::Step,
            vec![
                Piece::Words("max_agent_steps reached: on_exit is skipped".into()),
                Piece::TextOnly(", exit_reason is max_agent_steps".into()),
            ],
        ),
        TraceKind::RunFinished { exit_reason, .. } => shown(
            "exit",
            Place::Run,
            vec![
                Piece::Words("run ends: exit_reason ".into()),
                Piece::Json(exit_reason),
                Piece::TextOnly(format!(", step_count {}", step(event))),
            ],
        ),
        TraceKind::HookStarted { .. } | TraceKind::ToolsFinished { .. } => return None,
    })
}

/// The event's step as the timelines show it: `-` when absent.
pub(crate) fn step(event: &TraceEvent) -> String {
    event.step().map_or_else(|| "-".into(), Value::to_string)
}
