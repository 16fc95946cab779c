//! Ready-made hooks, behaving as Haystack 3.4.1's.
//!
//! Each hook reads and writes Haystack's serialized form
//! (`{type, init_parameters}`, `type` the qualified class name) with
//! `to_value` / `from_value`; a scenario's ready-made entry holds the
//! `init_parameters`.

pub mod compaction;
mod component;
pub mod confirmation;
pub mod offload;
mod token_budget;
mod tool_keys;

pub use compaction::CompactionHook;
pub use component::{FromValueError, ParameterError};
pub use confirmation::ConfirmationHook;
pub use offload::ToolResultOffloadHook;
pub use token_budget::TokenBudgetHook;
pub use tool_keys::ToolKey;
