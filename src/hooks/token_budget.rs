//! `TokenBudgetHook`: stops the run once the token budget is spent.

use crate::agent::usage::first_numeric;
use crate::hook::{Hook, HookError, HookPoint};
use crate::message::ChatMessage;
use crate::state::State;
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
    /// A budget of `max_total_tokens` (at least 1), with Haystack's error.
    pub fn new(max_total_tokens: i64) -> Result<Self, String> {
        if max_total_tokens < 1 {
            return Err(format!(
                "`max_total_tokens` must be a positive number of tokens, got {max_total_tokens}."
            ));
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
        let total = match state.data().get("token_usage") {
            Some(Value::Object(usage)) => Self::total(usage),
            _ => 0,
        };
        if total >= self.max_total_tokens {
            tracing::warn!(
                "Agent reached its token budget of {} ({} used); requesting a stop.",
                self.max_total_tokens,
                total
            );
            state.set("stop_run", Value::from("token_budget_exceeded"))?;
            if self.add_final_message {
                state.append_messages(vec![ChatMessage::from_assistant(
                    "The Agent stopped because the token budget was exceeded.",
                )]);
            }
        }
        Ok(())
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeLlm])
    }
}
