//! Per-tool offload decisions: [`OffloadPolicy`] and Haystack's three policies.

use crate::hooks::component::{FromValueError, component, format_error, open, type_of};
use crate::state::State;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Decides, per tool result, whether it goes to the store.
///
/// `result` is the text the result occupies in the conversation (for image
/// and file parts, their base64 payloads, all parts joined). Closures
/// `Fn(&str, &str, &State) -> bool` are policies too.
///
/// ```
/// use hookharness::hooks::offload::{OffloadOverChars, OffloadPolicy};
/// use hookharness::State;
/// use hookharness::state::StateSchema;
///
/// let state = State::new(StateSchema::new());
/// assert!(OffloadOverChars::new(3).should_offload("search", "four", &state));
/// assert!(!OffloadOverChars::new(4).should_offload("search", "four", &state));
/// let only_search = |tool: &str, _: &str, _: &State| tool == "search";
/// assert!(only_search.should_offload("search", "", &state));
/// ```
pub trait OffloadPolicy: Send + Sync + 'static {
    /// `true` to offload the result.
    fn should_offload(&self, tool_name: &str, result: &str, state: &State) -> bool;

    /// The serialized form `{type, init_parameters}`.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }
}

impl<F> OffloadPolicy for F
where
    F: Fn(&str, &str, &State) -> bool + Send + Sync + 'static,
{
    fn should_offload(&self, tool_name: &str, result: &str, state: &State) -> bool {
        self(tool_name, result, state)
    }
}

/// Offloads every result.
#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysOffload;

impl AlwaysOffload {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.tool_result_offloading.policies.AlwaysOffload";
}

impl OffloadPolicy for AlwaysOffload {
    fn should_offload(&self, _: &str, _: &str, _: &State) -> bool {
        true
    }
    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }
}

/// Never offloads (opts a tool out of a `"*"` default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverOffload;

impl NeverOffload {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.tool_result_offloading.policies.NeverOffload";
}

impl OffloadPolicy for NeverOffload {
    fn should_offload(&self, _: &str, _: &str, _: &State) -> bool {
        false
    }
    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }
}

/// Offloads a result longer than `threshold` characters (strictly; Unicode
/// code points, as Python's `len`).
#[derive(Debug, Clone, Copy)]
pub struct OffloadOverChars {
    threshold: i64,
}

impl OffloadOverChars {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.hooks.tool_result_offloading.policies.OffloadOverChars";

    /// Offload above `threshold` characters (Haystack does not validate it).
    pub fn new(threshold: i64) -> Self {
        OffloadOverChars { threshold }
    }
}

impl OffloadPolicy for OffloadOverChars {
    fn should_offload(&self, _: &str, result: &str, _: &State) -> bool {
        result.chars().count() as i64 > self.threshold
    }
    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("threshold".into(), Value::from(self.threshold));
        component(Self::TYPE, init)
    }
}

/// Reads a serialized policy of a known type.
pub fn policy_from_value(
    value: &Value,
    path: &str,
) -> Result<Arc<dyn OffloadPolicy>, FromValueError> {
    match type_of(value, path)? {
        AlwaysOffload::TYPE => {
            open(value, AlwaysOffload::TYPE, path)?.only(&[])?;
            Ok(Arc::new(AlwaysOffload))
        }
        NeverOffload::TYPE => {
            open(value, NeverOffload::TYPE, path)?.only(&[])?;
            Ok(Arc::new(NeverOffload))
        }
        OffloadOverChars::TYPE => {
            let init = open(value, OffloadOverChars::TYPE, path)?;
            init.only(&["threshold"])?;
            Ok(Arc::new(OffloadOverChars::new(
                init.required_int("threshold")?,
            )))
        }
        other => Err(format_error(
            format!("{path}.type"),
            format!(
                "unknown offload policy type `{other}` at `{path}`; known: `{}`, `{}`, `{}`",
                AlwaysOffload::TYPE,
                NeverOffload::TYPE,
                OffloadOverChars::TYPE
            ),
        )),
    }
}
