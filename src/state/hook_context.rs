//! Request-scoped values that hooks read without copying.

use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// One `hook_context` entry: a JSON value, or a shared object (a database
/// client, a channel) that is passed by reference and never copied.
#[derive(Clone)]
pub enum ContextValue {
    /// A JSON value.
    Json(Value),
    /// A shared object of any type.
    Shared(Arc<dyn Any + Send + Sync>),
}

impl fmt::Debug for ContextValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextValue::Json(value) => write!(f, "Json({value})"),
            ContextValue::Shared(_) => f.write_str("Shared(..)"),
        }
    }
}

/// The `hook_context` of a run: what Haystack's `Agent.run(hook_context=...)`
/// passes to hooks through `state.data["hook_context"]`.
///
/// Haystack shares the caller's dict by identity; here the context moves into
/// the run and comes back in [`AgentOutput::hook_context`](crate::AgentOutput),
/// while shared entries are `Arc`s, so both sides see the same objects.
///
/// ```
/// use hookharness::state::HookContext;
/// use serde_json::json;
/// use std::sync::Mutex;
///
/// let mut ctx = HookContext::new();
/// ctx.insert("user_id", json!("u1"));
/// ctx.insert_shared("audit_log", Mutex::new(Vec::<String>::new()));
///
/// assert_eq!(ctx.get("user_id"), Some(&json!("u1")));
/// let log = ctx.get_shared::<Mutex<Vec<String>>>("audit_log").unwrap();
/// log.lock().unwrap().push("seen".into());
/// ```
#[derive(Clone, Default, Debug)]
pub struct HookContext {
    entries: IndexMap<String, ContextValue>,
}

impl HookContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts a JSON entry.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        self.entries.insert(key.into(), ContextValue::Json(value));
    }

    /// Inserts a shared object.
    pub fn insert_shared<T: Any + Send + Sync>(&mut self, key: impl Into<String>, value: T) {
        self.entries
            .insert(key.into(), ContextValue::Shared(Arc::new(value)));
    }

    /// Inserts an already shared object (keeps the caller's `Arc`).
    pub fn insert_arc(&mut self, key: impl Into<String>, value: Arc<dyn Any + Send + Sync>) {
        self.entries.insert(key.into(), ContextValue::Shared(value));
    }

    /// A JSON entry.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self.entries.get(key) {
            Some(ContextValue::Json(value)) => Some(value),
            _ => None,
        }
    }

    /// A shared object of type `T`.
    pub fn get_shared<T: Any + Send + Sync>(&self, key: &str) -> Option<&T> {
        match self.entries.get(key) {
            Some(ContextValue::Shared(value)) => value.downcast_ref::<T>(),
            _ => None,
        }
    }

    /// Any entry.
    pub fn entry(&self, key: &str) -> Option<&ContextValue> {
        self.entries.get(key)
    }

    /// Removes an entry.
    pub fn remove(&mut self, key: &str) -> Option<ContextValue> {
        self.entries.shift_remove(key)
    }

    /// `true` when the key is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The JSON entries as a map (shared objects are left out).
    pub fn to_json(&self) -> Map<String, Value> {
        self.entries
            .iter()
            .filter_map(|(k, v)| match v {
                ContextValue::Json(value) => Some((k.clone(), value.clone())),
                ContextValue::Shared(_) => None,
            })
            .collect()
    }
}

impl From<Map<String, Value>> for HookContext {
    fn from(map: Map<String, Value>) -> Self {
        HookContext {
            entries: map
                .into_iter()
                .map(|(k, v)| (k, ContextValue::Json(v)))
                .collect(),
        }
    }
}
