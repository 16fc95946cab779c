//! An outcome read for checking: its result, its wire trace (the events
//! violations point at), the trace cut into blocks of hook events, and the
//! tool rounds the complete trace records.

use super::{Invariant, Violation};
use crate::hook::HookPoint;
use crate::outcome::{CallRef, Outcome, PendingTools, RunResult, TraceEvent, TraceKind};
use crate::state::keys;
use serde_json::Value;

/// The reasons a model exit gives.
pub(crate) const MODEL_REASONS: [&str; 3] = ["text", "length", "content_filter"];

/// Consecutive hook events at one point: one time the point was reached.
#[derive(Debug)]
pub(crate) struct Block<'a> {
    pub point: HookPoint,
    /// Index of the first event.
    pub start: usize,
    pub names: Vec<&'a str>,
}

impl Block<'_> {
    /// Index of the last event.
    pub fn end(&self) -> usize {
        self.start + self.names.len() - 1
    }
}

/// One pass through the `before_tool` hooks and the tools of a step, read
/// from the complete trace.
#[derive(Debug)]
pub(crate) struct ToolRound<'a> {
    /// The wire-trace index of the round's first `before_tool` hook event.
    pub at: usize,
    /// The calls pending after the last `before_tool` hook, and
    /// `tool_call_counts` then (`None` when the trace does not record them).
    pub pending: Option<&'a PendingTools>,
    /// The calls that ran.
    pub ran: Vec<CallRef>,
    /// `tool_call_counts` once the step's tools were counted.
    pub counts_after: Option<&'a Value>,
    /// The reason of a tool exit that followed, if one did.
    pub tool_exit: Option<&'a Value>,
}

pub(crate) struct View<'a> {
    pub outcome: &'a Outcome,
    /// For each event of the complete trace, the index of the wire event
    /// that shows it (itself, or the last wire event before it).
    wire_at: Vec<Option<usize>>,
    /// The events the outcome JSON's trace shows, in order; violations
    /// index into it.
    pub trace: &'a [&'a TraceEvent],
    pub result: Option<&'a RunResult>,
    pub blocks: Vec<Block<'a>>,
    /// Index of the first event of the trailing `after_run` block (or the
    /// trace's length): the events before it are the run before `after_run`.
    pub end: usize,
}

impl<'a> View<'a> {
    /// A violation of `invariant` at wire event `at` of this trace.
    pub fn violation(&self, invariant: Invariant, at: Option<usize>, message: String) -> Violation {
        Violation::new(invariant, self.trace, at, message)
    }

    pub fn new(outcome: &'a Outcome, trace: &'a [&'a TraceEvent]) -> Self {
        let mut blocks: Vec<Block<'a>> = Vec::new();
        for (index, event) in trace.iter().enumerate() {
            let TraceKind::HookStarted { point, hook, .. } = &event.kind else {
                continue;
            };
            match blocks.last_mut() {
                Some(block) if block.point == *point && block.end() + 1 == index => {
                    block.names.push(hook);
                }
                _ => blocks.push(Block {
                    point: *point,
                    start: index,
                    names: vec![hook],
                }),
            }
        }
        let end = match blocks.last() {
            Some(block) if block.point == HookPoint::AfterRun && block.end() + 1 == trace.len() => {
                block.start
            }
            _ => trace.len(),
        };
        let mut wire_at = Vec::with_capacity(outcome.trace.len());
        let mut seen: usize = 0;
        for event in &outcome.trace {
            if event.on_wire() {
                seen += 1;
            }
            wire_at.push(seen.checked_sub(1));
        }
        View {
            outcome,
            wire_at,
            trace,
            result: outcome.result.as_ref(),
            blocks,
            end,
        }
    }

    /// The wire-trace index that shows event `complete` of the complete
    /// trace.
    pub fn wire_index(&self, complete: usize) -> Option<usize> {
        self.wire_at.get(complete).copied().flatten()
    }

    /// `true` when the run returned a result.
    pub fn succeeded(&self) -> bool {
        self.result.is_some()
    }

    /// `true` when the run failed after construction (it has a trace).
    pub fn failed_while_running(&self) -> bool {
        self.result.is_none() && !self.trace.is_empty()
    }

    /// `true` when the run failed in a hook at `point` (read from the
    /// typed error, never from its wording).
    pub fn failed_at(&self, point: HookPoint) -> bool {
        self.result.is_none()
            && self.outcome.error.as_ref().and_then(|e| e.hook_point()) == Some(point)
    }

    /// The error's text, for messages.
    pub fn error_text(&self) -> &'a str {
        self.outcome
            .error
            .as_ref()
            .map_or("", |e| e.message.as_str())
    }

    /// A run-metadata field of the result.
    pub fn field(&self, key: &str) -> Option<&'a Value> {
        self.result.and_then(|r| r.field(key))
    }

    pub fn exit_reason(&self) -> Option<&'a str> {
        self.field(keys::EXIT_REASON).and_then(Value::as_str)
    }

    /// How many chat-generator calls the trace shows.
    pub fn llm_calls(&self) -> usize {
        self.trace
            .iter()
            .filter(|e| matches!(e.kind, TraceKind::LlmStarted { .. }))
            .count()
    }

    /// The last event before the trailing `after_run` block.
    pub fn last_before_after_run(&self) -> Option<(usize, &'a TraceEvent)> {
        self.end.checked_sub(1).map(|i| (i, self.trace[i]))
    }

    /// The exit event the run ended at: the last event before `after_run`
    /// is an exit that did not continue.
    pub fn ending_exit(&self) -> Option<(usize, &'a str)> {
        let (i, event) = self.last_before_after_run()?;
        match &event.kind {
            TraceKind::Exit {
                reason,
                continues: false,
            } => Some((i, reason.as_str().unwrap_or_default())),
            _ => None,
        }
    }

    /// Executed calls per tool, in first-seen order.
    pub fn tool_events(&self) -> Vec<(&'a str, usize)> {
        let mut counts: Vec<(&'a str, usize)> = Vec::new();
        for event in self.trace {
            if let TraceKind::ToolFinished { tool, .. } = &event.kind {
                match counts.iter_mut().find(|(name, _)| name == tool) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((tool, 1)),
                }
            }
        }
        counts
    }

    /// The index of the last `tool` event of `tool`.
    pub fn last_tool_event(&self, tool: &str) -> Option<usize> {
        self.trace
            .iter()
            .rposition(|e| matches!(&e.kind, TraceKind::ToolFinished { tool: t, .. } if t == tool))
    }

    /// `true` when the run ended by `max_agent_steps`.
    pub fn ended_at_max_steps(&self) -> bool {
        self.succeeded() && self.exit_reason() == Some("max_agent_steps")
    }

    /// The step of the first `llm` event, if any (`None` as well when that
    /// event has none).
    pub fn first_llm_step(&self) -> Option<&'a Value> {
        self.trace
            .iter()
            .find(|e| matches!(e.kind, TraceKind::LlmStarted { .. }))
            .and_then(|e| e.step())
    }

    /// `continue_run` when the run finished (after `after_run`); `None`
    /// when it did not finish, `Some(Null)` when the key was absent.
    pub fn continue_run_at_finish(&self) -> Option<&'a Value> {
        self.outcome.trace.iter().rev().find_map(|e| match &e.kind {
            TraceKind::RunFinished { continue_run, .. } => Some(continue_run),
            _ => None,
        })
    }

    /// Every round through the `before_tool` hooks, from the complete
    /// trace: a round opens at the first `before_tool` hook of a step and
    /// stays open through the step's other hooks, until the exit that
    /// follows it (recorded as the round's tool exit), the next model call,
    /// a stop or the end of the run.
    pub fn tool_rounds(&self) -> Vec<ToolRound<'a>> {
        let mut rounds: Vec<ToolRound<'a>> = Vec::new();
        let mut open = false;
        let mut wire_index = 0;
        for event in &self.outcome.trace {
            match &event.kind {
                TraceKind::HookStarted {
                    point: HookPoint::BeforeTool,
                    index: 0,
                    ..
                } => {
                    open = true;
                    rounds.push(ToolRound {
                        at: wire_index,
                        pending: None,
                        ran: Vec::new(),
                        counts_after: None,
                        tool_exit: None,
                    });
                }
                TraceKind::HookFinished {
                    tools: Some(tools), ..
                } => {
                    if let (true, Some(round)) = (open, rounds.last_mut()) {
                        round.pending = Some(tools);
                    }
                }
                TraceKind::ToolFinished {
                    tool,
                    id,
                    arguments,
                    ..
                } => {
                    if let (true, Some(round)) = (open, rounds.last_mut()) {
                        round.ran.push(CallRef {
                            tool: tool.clone(),
                            id: id.clone(),
                            arguments: arguments.clone(),
                        });
                    }
                }
                TraceKind::ToolsFinished {
                    tool_call_counts, ..
                } => {
                    if let (true, Some(round)) = (open, rounds.last_mut()) {
                        round.counts_after = Some(tool_call_counts);
                    }
                }
                TraceKind::Exit { reason, .. } => {
                    if let (true, Some(round)) = (open, rounds.last_mut()) {
                        round.tool_exit = Some(reason);
                    }
                    open = false;
                }
                TraceKind::LlmStarted { model: None, .. }
                | TraceKind::Stopped { .. }
                | TraceKind::MaxStepsReached
                | TraceKind::RunFinished { .. } => open = false,
                _ => {}
            }
            if event.on_wire() {
                wire_index += 1;
            }
        }
        rounds
    }
}

pub(crate) fn event_point(event: &TraceEvent) -> Option<HookPoint> {
    match &event.kind {
        TraceKind::HookStarted { point, .. } => Some(*point),
        _ => None,
    }
}
