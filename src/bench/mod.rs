//! Standard workloads of the hook dispatch path, for benchmarks.
//!
//! The project's criterion benches, its instruction-count gate and your own
//! benches all run these workloads, so numbers stay comparable. To see what
//! your hook costs per step, plug it into the standard tool step:
//!
//! ```
//! use hookharness::bench::{StepBench, overhead_per_step};
//! use hookharness::{hook_fn, HookPoint, State};
//!
//! let audit = hook_fn(|state: &mut State| {
//!     let _pending = state.messages().last().map(|m| m.tool_calls().count());
//! });
//! let report = overhead_per_step(HookPoint::BeforeTool, audit, 200);
//! println!("{report}");
//! assert!(report.with_hook_ns > 0.0);
//! ```
//!
//! For a CI gate on your hook that counts instructions instead of
//! nanoseconds, and catches a change of behaviour too, see [`HookGate`].

mod gate;

pub use gate::{GateError, GateReport, HookGate};

use crate::agent::{Agent, AgentBuilder, AgentOutput, RunOptions};
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError};
use crate::hook::{Hook, HookPoint, hook_fn};
use crate::message::{ChatMessage, ToolCall};
use crate::state::State;
use crate::tool::{ToolSpec, tool_fn};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

/// A generator that answers every call with a clone of one message.
struct Repeat(ChatMessage);

impl ChatGenerator for Repeat {
    fn run(&self, _request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        Ok(vec![self.0.clone()])
    }
}

/// The kind of step a workload runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// One LLM call answering text: the run's only step.
    Text,
    /// One LLM call asking for one tool call, then the tool: every step.
    Tool,
}

/// An agent and its inputs, ready to run the same workload again and again.
pub struct StepBench {
    kind: StepKind,
    steps: i64,
    hooks: Vec<(HookPoint, Arc<dyn Hook>)>,
    history: usize,
}

impl StepBench {
    /// A run of one step of this kind.
    pub fn new(kind: StepKind) -> Self {
        StepBench {
            kind,
            steps: 1,
            hooks: Vec::new(),
            history: 0,
        }
    }

    /// Starts every run from `messages` earlier messages (user and
    /// assistant text, alternating) before the user's `go`.
    pub fn history(mut self, messages: usize) -> Self {
        self.history = messages;
        self
    }

    /// Runs `steps` tool steps (the run ends on `max_agent_steps`).
    pub fn steps(mut self, steps: i64) -> Self {
        self.steps = steps;
        self
    }

    /// Adds a hook.
    pub fn hook(mut self, point: HookPoint, hook: impl Hook) -> Self {
        self.hooks.push((point, Arc::new(hook)));
        self
    }

    /// Adds `count` no-op hooks at `point`.
    pub fn noop_hooks(mut self, point: HookPoint, count: usize) -> Self {
        for _ in 0..count {
            self.hooks.push((point, Arc::new(noop())));
        }
        self
    }

    /// Registers one no-op hook object `count` times at `point`: each run
    /// calls it `count` times and warms it up once, so the slope over
    /// `count` is one call of the hook alone.
    pub fn noop_hook_calls(mut self, point: HookPoint, count: usize) -> Self {
        let hook: Arc<dyn Hook> = Arc::new(noop());
        for _ in 0..count {
            self.hooks.push((point, Arc::clone(&hook)));
        }
        self
    }

    /// Adds one no-op hook at every point.
    pub fn noop_hook_everywhere(mut self) -> Self {
        for point in HookPoint::ALL {
            self.hooks.push((point, Arc::new(noop())));
        }
        self
    }

    /// Builds the agent.
    pub fn build(self) -> PreparedBench {
        let reply = match self.kind {
            StepKind::Text => ChatMessage::from_assistant("done"),
            StepKind::Tool => {
                let mut arguments = Map::new();
                arguments.insert("query".into(), Value::from("fusion"));
                ChatMessage::from_assistant_parts(
                    None,
                    vec![ToolCall::new("search", arguments).with_id("call_0")],
                )
            }
        };
        let mut builder: AgentBuilder = Agent::builder()
            .chat_generator(Repeat(reply))
            .tool(tool_fn(ToolSpec::new("search"), |_| {
                Ok(Value::from("found"))
            }))
            .max_agent_steps(self.steps);
        for (point, hook) in self.hooks {
            builder = builder.hook_arc(point, hook);
        }
        let history = (0..self.history)
            .map(|i| match i % 2 {
                0 => ChatMessage::from_user(format!("question {i}")),
                _ => ChatMessage::from_assistant(format!("answer {i}")),
            })
            .collect();
        PreparedBench {
            agent: builder.build().expect("the standard workload builds"),
            history,
        }
    }
}

/// A built workload.
pub struct PreparedBench {
    agent: Agent,
    history: Vec<ChatMessage>,
}

impl PreparedBench {
    /// Runs the workload once on the sync path.
    pub fn run(&self) -> AgentOutput {
        self.agent
            .run(self.messages(), RunOptions::new())
            .expect("the standard workload runs")
    }

    /// Runs the workload once on the async path.
    pub async fn run_async(&self) -> AgentOutput {
        self.agent
            .run_async(self.messages(), RunOptions::new())
            .await
            .expect("the standard workload runs")
    }

    /// The history, then the user's `go`.
    fn messages(&self) -> Vec<ChatMessage> {
        if self.history.is_empty() {
            return vec![ChatMessage::from_user("go")];
        }
        let mut messages = Vec::with_capacity(self.history.len() + 1);
        messages.extend(self.history.iter().cloned());
        messages.push(ChatMessage::from_user("go"));
        messages
    }
}

/// A hook that does nothing.
pub fn noop() -> impl Hook {
    hook_fn(|_: &mut State| ()).named("noop")
}

/// What a hook adds to the standard tool step.
#[derive(Debug, Clone, Copy)]
pub struct OverheadReport {
    /// Nanoseconds per step without the hook (the best of several samples).
    pub baseline_ns: f64,
    /// Nanoseconds per step with the hook.
    pub with_hook_ns: f64,
}

impl OverheadReport {
    /// What the hook adds per step, in nanoseconds.
    pub fn overhead_ns(&self) -> f64 {
        self.with_hook_ns - self.baseline_ns
    }
}

impl fmt::Display for OverheadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "standard tool step: {:.0} ns without the hook, {:.0} ns with it ({:+.0} ns per step)",
            self.baseline_ns,
            self.with_hook_ns,
            self.overhead_ns()
        )
    }
}

/// Measures the standard tool step with and without `hook` at `point`, in
/// runs of 10 steps, `samples` times each, keeping the fastest sample (the
/// least disturbed by the rest of the machine). Wall-clock numbers: use them
/// to compare, not as a CI gate.
pub fn overhead_per_step(point: HookPoint, hook: impl Hook, samples: usize) -> OverheadReport {
    const STEPS: i64 = 10;
    let baseline = StepBench::new(StepKind::Tool).steps(STEPS).build();
    let with_hook = StepBench::new(StepKind::Tool)
        .steps(STEPS)
        .hook(point, hook)
        .build();
    let best = |bench: &PreparedBench| {
        (0..samples.max(1))
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(bench.run());
                start.elapsed().as_nanos() as f64 / STEPS as f64
            })
            .fold(f64::INFINITY, f64::min)
    };
    OverheadReport {
        baseline_ns: best(&baseline),
        with_hook_ns: best(&with_hook),
    }
}
