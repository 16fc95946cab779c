//! `TokenBudgetHook`: stops the run once the token budget is spent.

use crate::agent::usage::first_numeric;
use crate::hook::{Hook, HookError, HookPoint};
use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, Init, component, open};
use crate::message::ChatMessage;
use crate::state::State;
use crate::state::keys;
use serde_json::{Map, Value};

/// Haystack's `TokenBudgetHook` (a `before_llm` hook): when the run's
/// `token_usage` total reaches `max_total_tokens`, it sets `stop_run` to
/// `"token_budget_exceeded"`, so the run stops before the next LLM call.
///
/// The total is `total_tokens`, or input plus output tokens when that is
/// 0 or missing.
///
/// ```
/// use hookharness::hooks::TokenBudgetHook;
///
/// let budget = TokenBudgetHook::new(1000).unwrap().with_final_message(true);
/// assert!(TokenBudgetHook::new(0).is_err());
/// # let _ = budget;
/// ```
#[derive(Debug, Clone)]
pub struct TokenBudgetHook {
    max_total_tokens: i64,
    add_final_message: bool,
}

impl TokenBudgetHook {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.budget.hooks.TokenBudgetHook";

    /// A budget of `max_total_tokens` (at least 1), with Haystack's error.
    pub fn new(max_total_tokens: i64) -> Result<Self, ParameterError> {
        if max_total_tokens < 1 {
            return Err(ParameterError::new(format!(
                "`max_total_tokens` must be a positive number of tokens, got {max_total_tokens}."
            )));
        }
        Ok(TokenBudgetHook {
            max_total_tokens,
            add_final_message: false,
        })
    }

    /// Appends "The Agent stopped because the token budget was exceeded."
    /// as an assistant message when the budget stops the run.
    pub fn with_final_message(mut self, add: bool) -> Self {
        self.add_final_message = add;
        self
    }

    /// The serialized form (Haystack's `to_dict`).
    pub fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert(
            "max_total_tokens".into(),
            Value::from(self.max_total_tokens),
        );
        init.insert(
            "add_final_message".into(),
            Value::Bool(self.add_final_message),
        );
        component(Self::TYPE, init)
    }

    /// Reads the serialized form (Haystack's `from_dict`).
    pub fn from_value(value: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&open(value, Self::TYPE, "token_budget")?)
    }

    /// Reads the constructor parameters (a scenario's `token_budget:` entry).
    pub fn from_params(params: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&Init::direct(params, "token_budget")?)
    }

    fn from_init(init: &Init<'_>) -> Result<Self, FromValueError> {
        init.only(&["max_total_tokens", "add_final_message"])?;
        let max = init.required_int("max_total_tokens")?;
        let add = init.bool("add_final_message", false)?;
        Ok(Self::new(max)
            .map_err(FromValueError::from)?
            .with_final_message(add))
    }

    /// The run's total tokens, as the hook counts them.
    pub fn total(usage: &Map<String, Value>) -> i64 {
        let total = first_numeric(usage, &["total_tokens"]);
        if total != 0 {
            return total;
        }
        first_numeric(usage, &["prompt_tokens", "input_tokens"])
            + first_numeric(usage, &["completion_tokens", "output_tokens"])
    }
}

impl Hook for TokenBudgetHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        // Haystack reads `state.data.get("token_usage") or {}` and then
        // `.get(...)` on it: a value a hook left there that is no map fails
        // unless it is falsy.
        let total = match state.data().get(keys::TOKEN_USAGE) {
            Some(Value::Object(usage)) => Self::total(usage),
            Some(other) if crate::value::truthy(other) => {
                return Err(HookError::new(format!(
                    "'{}' object has no attribute 'get'",
                    crate::value::type_name(other)
                )));
            }
            _ => 0,
        };
        if total >= self.max_total_tokens {
            tracing::warn!(
                "Agent reached its token budget of {} ({} used); requesting a stop.",
                self.max_total_tokens,
                total
            );
            state.set(keys::STOP_RUN, Value::from("token_budget_exceeded"))?;
            if self.add_final_message {
                state.append_messages(vec![ChatMessage::from_assistant(
                    "The Agent stopped because the token budget was exceeded.",
                )])?;
            }
        }
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeLlm])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_serialized_form_is_haystacks() {
        let hook = TokenBudgetHook::new(3).unwrap();
        let value = hook.to_value();
        // TokenBudgetHook(max_total_tokens=3).to_dict() in Haystack 3.4.1.
        assert_eq!(
            value,
            json!({"type": "haystack.hooks.budget.hooks.TokenBudgetHook",
                   "init_parameters": {"max_total_tokens": 3, "add_final_message": false}})
        );
        assert_eq!(
            TokenBudgetHook::from_value(&value).unwrap().to_value(),
            value
        );
    }

    #[test]
    fn reading_checks_the_budget_as_the_constructor_does() {
        let err = TokenBudgetHook::from_params(&json!({"max_total_tokens": 0})).unwrap_err();
        assert_eq!(
            err,
            FromValueError::Invalid(
                "`max_total_tokens` must be a positive number of tokens, got 0.".into()
            )
        );
    }
}
