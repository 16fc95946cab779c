//! Tool-result offloading (Haystack's `haystack.hooks.tool_result_offloading`):
//! the hook, its stores and its per-tool policies.

pub(crate) mod blocks;
mod hook;
mod policy;
mod store;

pub use blocks::OFFLOADED_META_KEY;
pub use hook::ToolResultOffloadHook;
pub use policy::{AlwaysOffload, NeverOffload, OffloadOverChars, OffloadPolicy, policy_from_value};
pub use store::{
    FileSystemToolResultStore, InMemoryToolResultStore, RESULT_STORE_CONTEXT_KEY, StoreError,
    StoredContent, ToolResultStore, set_context_store, store_from_value,
};
