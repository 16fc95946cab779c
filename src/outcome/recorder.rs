//! Recording a run's events into the outcome's trace.

use super::trace::{
    CallRef, KeyChange, MessageChanges, PendingTools, Rewrite, StateChanges, TraceEvent, TraceKind,
};
use crate::hook::HookPoint;
use crate::message::ChatMessage;
use crate::observe::{Event, Observer};
use crate::state::{State, keys};
use serde_json::{Map, Value};

/// How much the recorder keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detail {
    /// Every event, without State diffs (what `hookharness run` records).
    #[default]
    Summary,
    /// Every event, and what each hook changed in State (a copy of State
    /// before every hook; what `hookharness explain` records).
    Full,
}

/// An [`Observer`] that records every event of a run as a [`TraceEvent`].
///
/// Recording never changes the run: the recorder only reads State.
///
/// ```
/// use hookharness::outcome::{TraceKind, TraceRecorder};
/// use hookharness::{Agent, ChatMessage, RunOptions, generator_fn};
///
/// let agent = Agent::builder()
///     .chat_generator(generator_fn(|_| Ok(vec![ChatMessage::from_assistant("hi")])))
///     .build()?;
/// let mut recorder = TraceRecorder::default();
/// agent.run_observed(vec![ChatMessage::from_user("Hi")], RunOptions::new(), &mut recorder)?;
/// let events = recorder.into_events();
/// assert!(matches!(events[0].kind, TraceKind::RunStarted { messages: 1 }));
/// assert!(matches!(events.last().map(|e| &e.kind), Some(TraceKind::RunFinished { .. })));
/// # Ok::<(), hookharness::AgentError>(())
/// ```
#[derive(Debug, Default)]
pub struct TraceRecorder {
    events: Vec<TraceEvent>,
    detail: Detail,
    /// State before the running hook (with [`Detail::Full`]).
    before: Option<(Vec<ChatMessage>, Map<String, Value>)>,
}

impl TraceRecorder {
    /// A recorder that keeps `detail`.
    pub fn new(detail: Detail) -> Self {
        TraceRecorder {
            detail,
            ..TraceRecorder::default()
        }
    }

    /// The events so far.
    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }

    /// The recorded events.
    pub fn into_events(self) -> Vec<TraceEvent> {
        self.events
    }
}

fn step(state: &State) -> Option<Value> {
    state.data().get(keys::STEP_COUNT).cloned()
}

fn data(state: &State, key: &str) -> Value {
    state.data().get(key).cloned().unwrap_or(Value::Null)
}

impl Observer for TraceRecorder {
    fn on_event(&mut self, event: &Event<'_>) {
        let (step, kind) = match event {
            Event::RunStarted { state } => (
                None,
                TraceKind::RunStarted {
                    messages: state.messages().len(),
                },
            ),
            Event::HookStarted {
                point,
                index,
                hook,
                state,
            } => {
                if self.detail == Detail::Full {
                    self.before = Some((state.messages().to_vec(), state.data().clone()));
                }
                (
                    step(state),
                    TraceKind::HookStarted {
                        point: *point,
                        index: *index,
                        hook: hook.name().into_owned(),
                    },
                )
            }
            Event::HookFinished {
                point,
                index,
                hook,
                state,
                error,
            } => (
                step(state),
                TraceKind::HookFinished {
                    point: *point,
                    index: *index,
                    hook: hook.name().into_owned(),
                    error: error.map(str::to_owned),
                    tools: (*point == HookPoint::BeforeTool).then(|| PendingTools {
                        pending: state
                            .messages()
                            .last()
                            .map(|m| m.tool_calls().map(CallRef::from).collect())
                            .unwrap_or_default(),
                        tool_call_counts: data(state, keys::TOOL_CALL_COUNTS),
                    }),
                    changes: self.before.take().map(|(messages, data)| {
                        let changes = MessageChanges::between(&messages, state.messages());
                        let rewrite =
                            matches!(changes, MessageChanges::Rewritten { .. }).then(|| {
                                Box::new(Rewrite {
                                    before: messages,
                                    after: state.messages().to_vec(),
                                })
                            });
                        StateChanges {
                            messages: changes,
                            data: KeyChange::between(&data, state.data()),
                            rewrite,
                        }
                    }),
                    output: None,
                },
            ),
            Event::LlmStarted { state, messages } => (
                step(state),
                TraceKind::LlmStarted {
                    messages_in: messages.len(),
                    last: messages.last().cloned(),
                    model: None,
                },
            ),
            Event::LlmFinished { state, replies } => (
                step(state),
                TraceKind::LlmFinished {
                    replies: replies.to_vec(),
                    model: None,
                },
            ),
            Event::LlmFailed { state, error } => (
                step(state),
                TraceKind::LlmFailed {
                    error: (*error).to_owned(),
                    model: None,
                },
            ),
            Event::ToolFinished {
                step, call, error, ..
            } => (
                step.cloned(),
                TraceKind::ToolFinished {
                    tool: call.tool_name.clone(),
                    id: call.id.clone(),
                    error: *error,
                    arguments: call.arguments.clone(),
                    output: None,
                },
            ),
            Event::ToolsFinished { state } => (
                step(state),
                TraceKind::ToolsFinished {
                    tool_call_counts: data(state, keys::TOOL_CALL_COUNTS),
                },
            ),
            Event::Exit {
                state,
                reason,
                continues,
            } => (
                step(state),
                TraceKind::Exit {
                    reason: (*reason).clone(),
                    continues: *continues,
                },
            ),
            Event::Stopped { state, reason } => (
                step(state),
                TraceKind::Stopped {
                    reason: (*reason).clone(),
                },
            ),
            Event::MaxStepsReached { state } => (step(state), TraceKind::MaxStepsReached),
            Event::RunFinished { state } => (
                step(state),
                TraceKind::RunFinished {
                    exit_reason: data(state, keys::EXIT_REASON),
                    continue_run: data(state, keys::CONTINUE_RUN),
                },
            ),
        };
        self.events.push(TraceEvent { step, kind });
    }
}
