//! Haystack interop: a scenario's Agent in Haystack's serialized form
//! (`Agent.to_dict()`, both ways), and a Haystack-serialized Agent imported
//! as a scenario skeleton (`hookharness import`). Its public items are
//! re-exported from [`crate::scenario`], where they have always been.

mod agent_dict;
mod import;
mod substitute;

pub use agent_dict::{
    AGENT_TYPE, HaystackAgent, HaystackDictError, agent_from_haystack, agent_to_haystack,
};
pub use import::{ImportError, import_haystack};
