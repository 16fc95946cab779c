//! `ToolResultOffloadCompactor`: writes old tool results to a store and
//! leaves a pointer, with the pointer texts of `ToolResultOffloadHook`.

use super::counter::TokenCounter;
use super::landmarks::{COMPACTION_META_KEY, Replacement, replace_tool_results_until_target};
use super::pruning::check_keep_and_min;
use super::{Compacted, Compactor, marker};
use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, component, open};
use crate::hooks::offload::blocks::{OFFLOADED_META_KEY, offloadable_blocks, offloaded_message};
use crate::hooks::offload::{ToolResultStore, store_from_value};
use crate::message::ChatMessage;
use crate::value::truthy;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Haystack's `ToolResultOffloadCompactor(store, *, min_keep_steps=1,
/// min_tokens=200, preview_chars=200)`.
///
/// Selects results as [`ToolResultPruningCompactor`](super::ToolResultPruningCompactor)
/// does, but skips errors and results already offloaded or compacted, and
/// writes each chosen result to the store under
/// `compacted_<tool>_<suffix>.txt`. The pointer is
/// `Tool result offloaded to text (N characters) at '<ref>'. Preview: ...`
/// and the meta gains the marker `{"strategy": "tool_result_offloading",
/// "original_tokens": n}` and `tool_result_offloaded: [refs]`. Always writes
/// to its own store (never `hook_context`'s).
///
/// The suffix is a per-compactor counter written as 32 hex digits
/// (`00000000000000000000000000000001`, ...), where Haystack uses
/// `uuid4().hex`: the same length, so pointers and token counts match.
///
/// ```
/// use hookharness::hooks::compaction::ToolResultOffloadCompactor;
/// use hookharness::hooks::offload::InMemoryToolResultStore;
///
/// let compactor = ToolResultOffloadCompactor::new(InMemoryToolResultStore::new(), 1, 200, 200).unwrap();
/// assert!(ToolResultOffloadCompactor::new(InMemoryToolResultStore::new(), 1, 200, -1).is_err());
/// # let _ = compactor;
/// ```
pub struct ToolResultOffloadCompactor {
    store: Arc<dyn ToolResultStore>,
    min_keep_steps: i64,
    min_tokens: i64,
    preview_chars: i64,
    next_key: AtomicU64,
}

impl std::fmt::Debug for ToolResultOffloadCompactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolResultOffloadCompactor")
            .field("store", &self.store.class_name())
            .field("min_keep_steps", &self.min_keep_steps)
            .field("min_tokens", &self.min_tokens)
            .field("preview_chars", &self.preview_chars)
            .finish()
    }
}

impl ToolResultOffloadCompactor {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.hooks.compaction.tool_result_offloading.ToolResultOffloadCompactor";

    /// With Haystack's checks.
    pub fn new(
        store: impl ToolResultStore,
        min_keep_steps: i64,
        min_tokens: i64,
        preview_chars: i64,
    ) -> Result<Self, ParameterError> {
        Self::with_shared_store(Arc::new(store), min_keep_steps, min_tokens, preview_chars)
    }

    /// With a shared store.
    pub fn with_shared_store(
        store: Arc<dyn ToolResultStore>,
        min_keep_steps: i64,
        min_tokens: i64,
        preview_chars: i64,
    ) -> Result<Self, ParameterError> {
        check_keep_and_min(min_keep_steps, min_tokens)?;
        if preview_chars < 0 {
            return Err(ParameterError::new(format!(
                "`preview_chars` must be at least 0, got {preview_chars}."
            )));
        }
        Ok(ToolResultOffloadCompactor {
            store,
            min_keep_steps,
            min_tokens,
            preview_chars,
            next_key: AtomicU64::new(1),
        })
    }

    /// The store results are written to.
    pub fn store(&self) -> &Arc<dyn ToolResultStore> {
        &self.store
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&["store", "min_keep_steps", "min_tokens", "preview_chars"])?;
        let store = store_from_value(init.required("store")?)?;
        Self::with_shared_store(
            store,
            init.int("min_keep_steps", 1)?,
            init.int("min_tokens", 200)?,
            init.int("preview_chars", 200)?,
        )
        .map_err(FromValueError::from)
    }

    fn offload(&self, message: &ChatMessage, counter: &dyn TokenCounter) -> Replacement {
        let result = message.tool_call_result()?;
        let meta = message.meta();
        if result.error
            || meta.get(OFFLOADED_META_KEY).is_some_and(truthy)
            || meta.contains_key(COMPACTION_META_KEY)
        {
            return None;
        }
        let original = counter.count(std::slice::from_ref(message), &[]);
        if original <= self.min_tokens {
            return None;
        }
        let blocks = offloadable_blocks(result, Some(self.store.as_ref()))?;
        let suffix = self.next_key.fetch_add(1, Ordering::SeqCst);
        let offloaded = offloaded_message(
            message,
            result,
            &blocks,
            Some(self.store.as_ref()),
            &format!("compacted_{}_{suffix:032x}", result.origin.tool_name),
            self.preview_chars,
            Some((
                COMPACTION_META_KEY,
                marker("tool_result_offloading", &[("original_tokens", original)]),
            )),
        )?;
        let saved = original - counter.count(std::slice::from_ref(&offloaded), &[]);
        (saved > 0).then_some((offloaded, saved))
    }
}

impl Compactor for ToolResultOffloadCompactor {
    fn compact(
        &self,
        messages: &[ChatMessage],
        target_tokens: i64,
        counter: &dyn TokenCounter,
    ) -> Compacted {
        Ok(replace_tool_results_until_target(
            messages,
            target_tokens,
            counter,
            self.min_keep_steps as usize,
            |message, _| self.offload(message, counter),
        ))
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("store".into(), self.store.to_value());
        init.insert("min_keep_steps".into(), Value::from(self.min_keep_steps));
        init.insert("min_tokens".into(), Value::from(self.min_tokens));
        init.insert("preview_chars".into(), Value::from(self.preview_chars));
        component(Self::TYPE, init)
    }
}
