//! Watching a run without changing it.
//!
//! The loop reports every event to an [`Observer`] as it happens. Recording
//! is a side channel: an observer sees the live [`State`] but cannot change
//! it, so observing a run never changes how it goes (an `on_exit` hook added
//! only to record exits would make the loop reset `continue_run` where a run
//! without `on_exit` hooks does not).

use crate::hook::{Hook, HookPoint};
use crate::message::{ChatMessage, ToolCall};
use crate::state::State;
use serde_json::Value;

/// One thing that happened in a run.
#[non_exhaustive]
pub enum Event<'a> {
    /// State is initialised; `before_run` hooks come next.
    RunStarted {
        /// The live state.
        state: &'a State,
    },
    /// A hook is about to run.
    HookStarted {
        /// Where.
        point: HookPoint,
        /// Its position among the hooks of that point.
        index: usize,
        /// The hook.
        hook: &'a dyn Hook,
        /// The live state before it runs.
        state: &'a State,
    },
    /// A hook returned (`error` is set when it failed or panicked).
    HookFinished {
        /// Where.
        point: HookPoint,
        /// Its position among the hooks of that point.
        index: usize,
        /// The hook.
        hook: &'a dyn Hook,
        /// The live state after it ran.
        state: &'a State,
        /// The failure, if any.
        error: Option<&'a str>,
    },
    /// The chat generator is about to be called with these messages.
    LlmStarted {
        /// The live state.
        state: &'a State,
        /// What the model receives.
        messages: &'a [ChatMessage],
    },
    /// The chat generator answered.
    LlmFinished {
        /// The live state (replies not yet appended).
        state: &'a State,
        /// The replies.
        replies: &'a [ChatMessage],
    },
    /// The chat generator failed.
    LlmFailed {
        /// The live state.
        state: &'a State,
        /// The failure.
        error: &'a str,
    },
    /// A tool call ran (reported in call order, after its batch).
    ToolFinished {
        /// The live state.
        state: &'a State,
        /// `step_count` while the step's tools ran: the value before the
        /// step's increment, also when a tool wrote `step_count` through
        /// `outputs_to_state` (`None` when State holds none).
        step: Option<&'a Value>,
        /// The call.
        call: &'a ToolCall,
        /// `true` when the tool failed.
        error: bool,
    },
    /// The step's tool messages were counted and appended; the
    /// `after_tool` hooks come next. Not sent when the tools failed the run.
    ToolsFinished {
        /// The live state.
        state: &'a State,
    },
    /// An exit attempt: after the `on_exit` hooks, with the loop's decision.
    Exit {
        /// The live state.
        state: &'a State,
        /// The exit reason, read after the `on_exit` hooks.
        reason: &'a Value,
        /// `true` when an `on_exit` hook kept the run going.
        continues: bool,
    },
    /// `stop_run` was found at the stop check; the loop ends.
    Stopped {
        /// The live state.
        state: &'a State,
        /// The `stop_run` value.
        reason: &'a Value,
    },
    /// The loop ran `max_agent_steps` steps.
    MaxStepsReached {
        /// The live state.
        state: &'a State,
    },
    /// The run finished without failing; `after_run` hooks have run.
    RunFinished {
        /// The live state.
        state: &'a State,
    },
}

/// Receives the events of a run.
pub trait Observer: Send {
    /// Called for each event, in order.
    fn on_event(&mut self, event: &Event<'_>);
}

impl<F: FnMut(&Event<'_>) + Send> Observer for F {
    fn on_event(&mut self, event: &Event<'_>) {
        self(event)
    }
}
