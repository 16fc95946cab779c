//! An outcome read for checking: its result fields, its trace, and the
//! trace cut into blocks of hook events.

use crate::replay::{Outcome, TraceEvent};
use crate::state::keys;
use serde_json::{Map, Value};

/// The reasons a model exit gives.
pub(crate) const MODEL_REASONS: [&str; 3] = ["text", "length", "content_filter"];

/// Consecutive hook events at one point: one time the point was reached.
#[derive(Debug)]
pub(crate) struct Block<'a> {
    pub point: &'a str,
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

pub(crate) struct View<'a> {
    pub outcome: &'a Outcome,
    pub trace: &'a [TraceEvent],
    pub result: Option<&'a Map<String, Value>>,
    pub blocks: Vec<Block<'a>>,
    /// Index of the first event of the trailing `after_run` block (or the
    /// trace's length): the events before it are the run before `after_run`.
    pub end: usize,
}

impl<'a> View<'a> {
    pub fn new(outcome: &'a Outcome) -> Self {
        let trace = outcome.trace.as_slice();
        let mut blocks: Vec<Block<'a>> = Vec::new();
        for (index, event) in trace.iter().enumerate() {
            let TraceEvent::Hook { point, hook, .. } = event else {
                continue;
            };
            match blocks.last_mut() {
                Some(block) if block.point == point && block.end() + 1 == index => {
                    block.names.push(hook);
                }
                _ => blocks.push(Block {
                    point,
                    start: index,
                    names: vec![hook],
                }),
            }
        }
        let end = match blocks.last() {
            Some(block) if block.point == "after_run" && block.end() + 1 == trace.len() => {
                block.start
            }
            _ => trace.len(),
        };
        View {
            outcome,
            trace,
            result: outcome.result.as_ref().and_then(Value::as_object),
            blocks,
            end,
        }
    }

    /// `true` when the run returned a result.
    pub fn succeeded(&self) -> bool {
        self.result.is_some()
    }

    /// `true` when the run failed after construction (it has a trace).
    pub fn failed_while_running(&self) -> bool {
        self.result.is_none() && !self.trace.is_empty()
    }

    /// `true` when the run failed in a hook at `point`.
    pub fn failed_at(&self, point: &str) -> bool {
        self.result.is_none()
            && self
                .outcome
                .error
                .as_deref()
                .is_some_and(|e| e.contains(&format!(" failed at {point} (step ")))
    }

    pub fn field(&self, key: &str) -> Option<&'a Value> {
        self.result.and_then(|r| r.get(key))
    }

    pub fn exit_reason(&self) -> Option<&'a str> {
        self.field(keys::EXIT_REASON).and_then(Value::as_str)
    }

    /// How many chat-generator calls the trace shows.
    pub fn llm_calls(&self) -> usize {
        self.trace
            .iter()
            .filter(|e| matches!(e, TraceEvent::Llm { .. }))
            .count()
    }

    /// The last event before the trailing `after_run` block.
    pub fn last_before_after_run(&self) -> Option<(usize, &'a TraceEvent)> {
        self.end.checked_sub(1).map(|i| (i, &self.trace[i]))
    }

    /// The exit event the run ended at: the last event before `after_run`
    /// is an exit that did not continue.
    pub fn ending_exit(&self) -> Option<(usize, &'a str)> {
        match self.last_before_after_run() {
            Some((
                i,
                TraceEvent::Exit {
                    reason,
                    continues: false,
                    ..
                },
            )) => Some((i, reason.as_str().unwrap_or_default())),
            _ => None,
        }
    }

    /// Executed calls per tool, in first-seen order.
    pub fn tool_events(&self) -> Vec<(&'a str, usize)> {
        let mut counts: Vec<(&'a str, usize)> = Vec::new();
        for event in self.trace {
            if let TraceEvent::Tool { tool, .. } = event {
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
            .rposition(|e| matches!(e, TraceEvent::Tool { tool: t, .. } if t == tool))
    }

    /// `true` when the run ended by `max_agent_steps`.
    pub fn ended_at_max_steps(&self) -> bool {
        self.succeeded() && self.exit_reason() == Some("max_agent_steps")
    }

    /// The step of the first `llm` event, if any.
    pub fn first_llm_step(&self) -> Option<&'a Value> {
        self.trace.iter().find_map(|e| match e {
            TraceEvent::Llm { step, .. } => Some(step),
            _ => None,
        })
    }
}

pub(crate) fn event_point(event: &TraceEvent) -> Option<&str> {
    match event {
        TraceEvent::Hook { point, .. } => Some(point),
        _ => None,
    }
}
