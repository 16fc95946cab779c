//! When to ask: [`ConfirmationPolicy`] and Haystack's three policies.

use super::decision::ConfirmationUIResult;
use crate::hooks::component::{FromValueError, component, format_error, open, type_of};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Decides whether the user is asked about a tool call.
pub trait ConfirmationPolicy: Send + Sync + 'static {
    /// `true` to ask.
    fn should_ask(
        &self,
        tool_name: &str,
        tool_description: &str,
        params: &Map<String, Value>,
    ) -> bool;

    /// Learns from the user's answer (default: nothing).
    fn update_after_confirmation(
        &self,
        _tool_name: &str,
        _tool_description: &str,
        _params: &Map<String, Value>,
        _result: &ConfirmationUIResult,
    ) {
    }

    /// The serialized form.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }
}

/// Always asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysAskPolicy;

impl AlwaysAskPolicy {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy";
}

impl ConfirmationPolicy for AlwaysAskPolicy {
    fn should_ask(&self, _: &str, _: &str, _: &Map<String, Value>) -> bool {
        true
    }
    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }
}

/// Never asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverAskPolicy;

impl NeverAskPolicy {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.human_in_the_loop.policies.NeverAskPolicy";
}

impl ConfirmationPolicy for NeverAskPolicy {
    fn should_ask(&self, _: &str, _: &str, _: &Map<String, Value>) -> bool {
        false
    }
    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }
}

/// Asks unless the same tool was last **confirmed** with equal parameters
/// (remembered in memory, per policy object; not serialized).
#[derive(Debug, Default)]
pub struct AskOncePolicy {
    confirmed: Mutex<HashMap<String, Map<String, Value>>>,
}

impl AskOncePolicy {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.human_in_the_loop.policies.AskOncePolicy";

    /// A policy that has asked nothing yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ConfirmationPolicy for AskOncePolicy {
    fn should_ask(&self, tool_name: &str, _: &str, params: &Map<String, Value>) -> bool {
        let confirmed = self.confirmed.lock().unwrap_or_else(|e| e.into_inner());
        !confirmed.get(tool_name).is_some_and(|last| {
            crate::value::json_eq(&Value::Object(last.clone()), &Value::Object(params.clone()))
        })
    }

    fn update_after_confirmation(
        &self,
        tool_name: &str,
        _: &str,
        params: &Map<String, Value>,
        result: &ConfirmationUIResult,
    ) {
        if result.action == "confirm" {
            let mut confirmed = self.confirmed.lock().unwrap_or_else(|e| e.into_inner());
            confirmed.insert(tool_name.to_owned(), params.clone());
        }
    }

    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }
}

/// Reads a serialized policy of a known type.
pub fn confirmation_policy_from_value(
    value: &Value,
    path: &str,
) -> Result<Arc<dyn ConfirmationPolicy>, FromValueError> {
    let policy: Arc<dyn ConfirmationPolicy> = match type_of(value, path)? {
        AlwaysAskPolicy::TYPE => Arc::new(AlwaysAskPolicy),
        NeverAskPolicy::TYPE => Arc::new(NeverAskPolicy),
        AskOncePolicy::TYPE => Arc::new(AskOncePolicy::new()),
        other => {
            return Err(format_error(
                format!("{path}.type"),
                format!(
                    "unknown confirmation policy type `{other}` at `{path}`; known: `{}`, `{}`, `{}`",
                    AlwaysAskPolicy::TYPE,
                    NeverAskPolicy::TYPE,
                    AskOncePolicy::TYPE
                ),
            ));
        }
    };
    let found = type_of(value, path)?.to_owned();
    open(value, &found, path)?.only(&[])?;
    Ok(policy)
}
