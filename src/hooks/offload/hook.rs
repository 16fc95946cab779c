//! `ToolResultOffloadHook`: writes large tool results to a store and leaves a
//! pointer in the conversation.

use super::blocks::{OFFLOADED_META_KEY, offloadable_blocks, offloaded_message};
use super::policy::{OffloadPolicy, policy_from_value};
use super::store::{ContextStore, ToolResultStore, context_store, store_from_value};
use crate::hook::{Hook, HookError, HookPoint};
use crate::hooks::component::{FromValueError, Init, component, open};
use crate::hooks::tool_keys::{ToolKey, lookup};
use crate::message::ChatMessage;
use crate::state::State;
use crate::state::keys;
use crate::value::truthy;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Haystack's `ToolResultOffloadHook` (an `after_tool` hook).
///
/// For each result of the step just run (the trailing block of tool-result
/// messages), the policy of its tool decides; an offloaded result is written
/// to the store under `<step_count>_<tool>_<call id>.txt` (`step_count`
/// before the step's increment) and replaced by a pointer:
/// `Tool result offloaded to text (N characters) at '<ref>'. Preview: ...`.
/// Errors, empty results and results already offloaded stay. A per-run store
/// in `hook_context` ([`set_context_store`](super::set_context_store))
/// overrides the hook's own.
///
/// ```
/// use hookharness::hooks::offload::{AlwaysOffload, InMemoryToolResultStore, NeverOffload, ToolResultOffloadHook};
///
/// let hook = ToolResultOffloadHook::new(InMemoryToolResultStore::new())
///     .strategy("search", AlwaysOffload)
///     .strategy(["clock", "ping"], NeverOffload)
///     .preview_chars(40);
/// let again = ToolResultOffloadHook::from_value(&hook.to_value()).unwrap();
/// assert_eq!(again.to_value(), hook.to_value());
/// ```
#[derive(Clone)]
pub struct ToolResultOffloadHook {
    store: Arc<dyn ToolResultStore>,
    strategies: Vec<(ToolKey, Arc<dyn OffloadPolicy>)>,
    preview_chars: i64,
}

impl std::fmt::Debug for ToolResultOffloadHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolResultOffloadHook")
            .field("store", &self.store.class_name())
            .field(
                "strategies",
                &self.strategies.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("preview_chars", &self.preview_chars)
            .finish()
    }
}

impl ToolResultOffloadHook {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.hooks.tool_result_offloading.hooks.ToolResultOffloadHook";

    /// A hook writing to `store`, with no strategies yet (nothing offloads)
    /// and `preview_chars` 200.
    pub fn new(store: impl ToolResultStore) -> Self {
        Self::with_shared_store(Arc::new(store))
    }

    /// A hook writing to a shared store.
    pub fn with_shared_store(store: Arc<dyn ToolResultStore>) -> Self {
        ToolResultOffloadHook {
            store,
            strategies: Vec::new(),
            preview_chars: 200,
        }
    }

    /// Adds (or replaces) the policy of a tool name, a tuple of names, or `"*"`.
    pub fn strategy(mut self, key: impl Into<ToolKey>, policy: impl OffloadPolicy) -> Self {
        self.insert(key.into(), Arc::new(policy));
        self
    }

    fn insert(&mut self, key: ToolKey, policy: Arc<dyn OffloadPolicy>) {
        match self.strategies.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = policy,
            None => self.strategies.push((key, policy)),
        }
    }

    /// How many leading characters of an offloaded text the pointer shows.
    pub fn preview_chars(mut self, preview_chars: i64) -> Self {
        self.preview_chars = preview_chars;
        self
    }

    /// The constructor store.
    pub fn store(&self) -> &Arc<dyn ToolResultStore> {
        &self.store
    }

    /// The serialized form (Haystack's `to_dict`).
    pub fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("store".into(), self.store.to_value());
        let strategies: Map<String, Value> = self
            .strategies
            .iter()
            .map(|(key, policy)| (key.to_key_string(), policy.to_value()))
            .collect();
        init.insert("offload_strategies".into(), Value::Object(strategies));
        init.insert("preview_chars".into(), Value::from(self.preview_chars));
        component(Self::TYPE, init)
    }

    /// Reads the serialized form (Haystack's `from_dict`).
    pub fn from_value(value: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&open(value, Self::TYPE, "tool_result_offload")?)
    }

    /// Reads the constructor parameters (a scenario's `tool_result_offload:` entry).
    pub fn from_params(params: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&Init::direct(params, "tool_result_offload")?)
    }

    fn from_init(init: &Init<'_>) -> Result<Self, FromValueError> {
        init.only(&["store", "offload_strategies", "preview_chars"])?;
        let store = store_from_value(init.required("store")?)?;
        let mut hook =
            Self::with_shared_store(store).preview_chars(init.int("preview_chars", 200)?);
        init.required("offload_strategies")?;
        for (raw, policy) in init.map("offload_strategies")?.into_iter().flatten() {
            let path = format!("{}.{raw}", init.at("offload_strategies"));
            hook.insert(ToolKey::parse(raw)?, policy_from_value(policy, &path)?);
        }
        Ok(hook)
    }

    fn maybe_offload(
        &self,
        message: &ChatMessage,
        store: Option<&dyn ToolResultStore>,
        state: &State,
        index: usize,
    ) -> Option<ChatMessage> {
        let result = message.tool_call_result()?;
        if result.error || message.meta().get(OFFLOADED_META_KEY).is_some_and(truthy) {
            return None;
        }
        let tool_name = &result.origin.tool_name;
        let policy = lookup(&self.strategies, tool_name)?;
        let blocks = offloadable_blocks(result, store)?;
        let payload: String = blocks.iter().map(|b| b.payload()).collect();
        if !policy.should_offload(tool_name, &payload, state) {
            return None;
        }
        let step = match state.data().get(keys::STEP_COUNT) {
            None => "0".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => crate::pyfmt::repr(other),
        };
        let call = match &result.origin.id {
            Some(id) if !id.is_empty() => id.clone(),
            _ => format!("call{index}"),
        };
        offloaded_message(
            message,
            result,
            &blocks,
            store,
            &format!("{step}_{tool_name}_{call}"),
            self.preview_chars,
            None,
        )
    }
}

impl Hook for ToolResultOffloadHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let messages = state.messages();
        let start = fresh_tool_results_start(messages);
        if start == messages.len() {
            return Ok(());
        }
        // Haystack reads `(state.data.get("hook_context") or {}).get(...)`:
        // a value a hook set in place of the map fails there unless falsy.
        if let Some(other) = state.hook_context_other().filter(|v| truthy(v)) {
            return Err(HookError::new(format!(
                "'{}' object has no attribute 'get'",
                crate::value::type_name(other)
            )));
        }
        let context = context_store(state.hook_context());
        let store: Option<&dyn ToolResultStore> = match &context {
            ContextStore::Absent => Some(self.store.as_ref()),
            ContextStore::Store(store) => Some(store.as_ref()),
            ContextStore::NotAStore => None,
        };
        let mut rewritten: Vec<ChatMessage> = messages[..start].to_vec();
        let mut changed = false;
        for (index, message) in messages[start..].iter().enumerate() {
            match self.maybe_offload(message, store, state, index) {
                Some(new) => {
                    rewritten.push(new);
                    changed = true;
                }
                None => rewritten.push(message.clone()),
            }
        }
        if changed {
            state.replace_messages(rewritten);
        }
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::AfterTool])
    }
}

/// The index where the trailing block of tool-result messages starts.
pub(crate) fn fresh_tool_results_start(messages: &[ChatMessage]) -> usize {
    let mut index = messages.len();
    while index > 0 && messages[index - 1].tool_call_result().is_some() {
        index -= 1;
    }
    index
}
