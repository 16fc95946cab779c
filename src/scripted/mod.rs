//! Scripted stand-ins for the model and the tools, and the script types a
//! scenario file holds.
//!
//! [`ModelReply`] and [`ScriptedResult`] are what a scenario's `model` and
//! `tools[].results` entries read into, what the stand-ins replay and what
//! recording writes back: one type per concept, from file to run.
//! [`ScriptedChatGenerator`] replays replies in order and never cycles;
//! [`ScriptedTool`] returns scripted results per call. Both fail loudly when
//! the run asks for more than the script holds.

mod arguments;
mod generator;
mod reply;
mod tool;
pub(crate) mod wording;

pub use arguments::ToolArguments;
pub use generator::ScriptedChatGenerator;
pub use reply::{FinishReason, ModelReply, ScriptedToolCall};
pub use tool::{ScriptedResult, ScriptedTool};
pub use wording::Unscripted;
