//! Scripted stand-ins for the model and the tools.
//!
//! [`ScriptedChatGenerator`] replays replies in order and never cycles;
//! [`ScriptedTool`] returns scripted results per call. Both fail loudly when
//! the run asks for more than the script holds.

mod generator;
mod tool;

pub use generator::{ReplyScript, ScriptedChatGenerator};
pub use tool::{ScriptedTool, ToolOutcome};
