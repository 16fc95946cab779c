//! # hookharness
//!
//! Test and simulate hook-driven LLM agents. hookharness runs Haystack
//! 3.4.1's Agent loop in Rust, rule for rule: six hook points, a live
//! [`State`] that hooks mutate in place, the `continue_run` and `stop_run`
//! control keys, and the run metadata (`step_count`, `token_usage`,
//! `tool_call_counts`, `exit_reason`).
//!
//! ```
//! use hookharness::{Agent, ChatMessage, HookError, RunOptions, State, generator_fn, hook_fn};
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
//! let once_more = hook_fn(|state: &mut State| -> Result<(), HookError> {
//!     if state.step_count() == Some(1) {
//!         state.append_messages(vec![ChatMessage::from_user("Are you sure?")])?;
//!         state.set_continue_run(true);
//!     }
//!     Ok(())
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
//! ## Install
//!
//! ```toml
//! [dependencies]
//! hookharness = "0.1"
//! ```
//!
//! Your hooks implement [`Hook`] in your crate's `src/`, so hookharness is
//! a `[dependencies]` entry; a `[dev-dependencies]` entry is enough only
//! when the hooks live in `tests/` as well (the README's "From Rust"
//! section has the whole setup).
//!
//! The `hookharness` binary (`cargo install hookharness`) replays scenario
//! files: `hookharness run scenarios/`.
//!
//! ## Concepts
//!
//! - **The loop.** [`Agent`], built with [`Agent::builder`] and run with
//!   [`Agent::run`] or [`Agent::run_async`]; one loop body drives both paths,
//!   so they cannot drift. Errors: [`AgentError`], with Haystack's wording
//!   for construction errors.
//! - **Hooks.** [`Hook`] at a [`HookPoint`], with the live [`State`];
//!   closures via [`hook_fn`] and [`async_hook_fn`]; ready-made ones in
//!   [`hooks`] (token budget, tool-result offloading, confirmation).
//! - **State.** Typed keys with merge handlers ([`state::Handler`]);
//!   `messages` is a `Vec<ChatMessage>`; request-scoped values live in
//!   [`HookContext`].
//! - **Tools and the model.** [`Tool`] ([`tool_fn`] for closures) and
//!   [`ChatGenerator`] ([`generator_fn`]); scripted stand-ins in [`scripted`].
//! - **Observing.** [`Observer`] sees every [`Event`] of a run without
//!   changing it; `tracing` spans carry Haystack's names
//!   (`haystack.agent.run`, `haystack.agent.step`, `haystack.agent.hook`, ...).
//! - **Scenarios.** [`scenario::Scenario`] is a parsed file (immutable);
//!   [`replay::Replay`] runs it (with your `custom:` hooks) into an
//!   [`outcome::Outcome`]: status, typed error and result, expectations,
//!   and the complete trace of the run. Every output reads the outcome:
//!   the JSON, [`report`] (people, CI, the `explain` timeline) and the
//!   [`invariants`]. A reply's `sees` says what the model must be sent
//!   for it to be the right answer; [`rebase`](mod@rebase) rewrites it when
//!   a change to the conversation is intended.
//! - **Live models.** [`openai::OpenAiChatGenerator`] (feature `http`) is a
//!   `ChatGenerator` for OpenAI-compatible servers; [`record`](mod@record)
//!   turns a live run into a scenario that replays offline.
//! - **Benchmarks.** [`bench`](mod@bench) holds the standard workloads, and
//!   [`bench::overhead_per_step`] measures what your hook costs per step.
//!
//! ## Prior art
//!
//! hookharness reproduces [Haystack](https://haystack.deepset.ai)'s Agent
//! (version 3.4.1); its shape follows Rust testing crates: wiremock's
//! spec-runtime-report split, insta's snapshots, proptest's seeds,
//! turmoil's determinism by construction.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent;
pub mod bench;
#[cfg(feature = "cli")]
pub mod cli;
mod elide;
pub mod engine;
pub mod expect;
pub mod explore;
pub mod future;
pub mod generator;
mod haystack;
pub mod hook;
pub mod hooks;
pub mod invariants;
pub mod message;
pub mod mutate;
pub mod observe;
#[cfg(feature = "http")]
pub mod openai;
pub mod outcome;
mod panic;
pub mod prompt;
mod pyfmt;
pub mod rebase;
pub mod record;
#[cfg(test)]
mod reference_python;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod schema;
pub mod scripted;
pub mod state;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod stream;
pub mod tool;
mod value;
mod wording;

pub use agent::{Agent, AgentBuilder, AgentError, AgentOutput, RunOptions};
pub use future::CallFuture;
pub use generator::{ChatGenerator, ChatRequest, GeneratorError, GeneratorFuture, generator_fn};
pub use hook::{FunctionHook, Hook, HookError, HookFuture, HookPoint, async_hook_fn, hook_fn};
pub use message::{ChatMessage, ChatRole, ContentPart, ToolCall, ToolCallResult, ToolResult};
pub use observe::{Event, Observer};
pub use state::{HookContext, State};
pub use tool::{Tool, ToolError, ToolFuture, ToolInvocation, ToolSpec, tool_fn};
pub use value::json_eq;
