//! # hookharness
//!
//! Test and simulate hook-driven LLM agents. hookharness runs Haystack
//! 3.4.1's Agent loop in Rust, rule for rule: six hook points, a live
//! [`State`] that hooks mutate in place, the `continue_run` and `stop_run`
//! control keys, and the run metadata (`step_count`, `token_usage`,
//! `tool_call_counts`, `exit_reason`).
//!
//! ```
//! use hookharness::{Agent, ChatMessage, RunOptions, State, generator_fn, hook_fn};
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::sync::Arc;
//!
//! // A model that answers "first" then "second".
//! let calls = Arc::new(AtomicUsize::new(0));
//! let counter = calls.clone();
//! let model = generator_fn(move |_request| {
//!     let n = counter.fetch_add(1, Ordering::SeqCst);
//!     let text = if n == 0 { "first" } else { "second" };
//!     Ok(vec![ChatMessage::from_assistant(text)])
//! });
//!
//! // An on_exit hook that asks for one more answer.
//! let once_more = hook_fn(|state: &mut State| {
//!     if state.step_count() == Some(1) {
//!         state.append_messages(vec![ChatMessage::from_user("Are you sure?")]);
//!         state.set_continue_run(true);
//!     }
//! });
//!
//! let agent = Agent::builder()
//!     .chat_generator(model)
//!     .hook("on_exit", once_more)
//!     .build()?;
//! let output = agent.run(vec![ChatMessage::from_user("Hi")], RunOptions::new())?;
//!
//! assert_eq!(output.exit_reason(), Some("text"));
//! assert_eq!(output.step_count(), Some(2));
//! assert_eq!(output.last_message.unwrap().text(), Some("second"));
//! # Ok::<(), hookharness::AgentError>(())
//! ```
//!
//! ## Concepts
//!
//! - [`Agent`]: the loop, built with [`Agent::builder`] and run with
//!   [`Agent::run`] or [`Agent::run_async`] (one loop body drives both).
//! - [`Hook`]: your code at a [`HookPoint`]; closures via [`hook_fn`].
//! - [`State`]: typed keys with merge handlers; `messages` is a
//!   `Vec<ChatMessage>`.
//! - [`Tool`] and [`ChatGenerator`]: the tools and the model.
//! - [`Observer`]: a side channel that sees every event of a run.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent;
mod block_on;
#[cfg(feature = "cli")]
pub mod cli;
pub mod generator;
pub mod hook;
pub mod hooks;
pub mod invariants;
pub mod message;
pub mod observe;
mod pyfmt;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod scripted;
pub mod state;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod tool;
mod value;

pub use agent::{Agent, AgentBuilder, AgentError, AgentOutput, RunOptions};
pub use generator::{ChatGenerator, ChatRequest, GeneratorError, generator_fn};
pub use hook::{FunctionHook, Hook, HookError, HookPoint, async_hook_fn, hook_fn};
pub use message::{ChatMessage, ChatRole, ContentPart, ToolCall, ToolCallResult, ToolResult};
pub use observe::{Event, Observer};
pub use state::{HookContext, State};
pub use tool::{Tool, ToolError, ToolInvocation, ToolSpec, tool_fn};
pub use value::json_eq;
