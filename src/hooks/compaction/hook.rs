//! `CompactionHook`: decides *when* to compact and writes the result back.

use super::counter::{ApproximateTokenCounter, TokenCounter, counter_from_value};
use super::landmarks::last_assistant_index;
use super::{Compacted, Compactor, compactor_from_value};
use crate::hook::{Hook, HookError, HookFuture, HookPoint};
use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, Init, component, format_error, open, shown};
use crate::message::ChatMessage;
use crate::state::State;
use crate::state::keys;
use serde_json::{Map, Number, Value};
use std::sync::Arc;

/// Haystack's `CompactionHook(compactor, *, context_window, compact_at=0.7,
/// compact_to=0.4, token_counter=None)`, a `before_llm` hook.
///
/// Before each LLM call it estimates the context: the whole conversation
/// plus the tool schemas when `context_tokens` is 0, else `context_tokens`
/// (the provider's count up to the last assistant message) plus the messages
/// after the last assistant message. At `context_window * compact_at` or
/// more, the compactor gets `target = max(int(context_window * compact_to) -
/// overhead, 0)`, where `overhead` is the estimate minus the messages' own
/// count. A compacted conversation replaces `messages`; a non-zero
/// `context_tokens` becomes the count up to the last assistant message plus
/// the overhead.
#[derive(Clone)]
pub struct CompactionHook {
    compactor: Arc<dyn Compactor>,
    context_window: i64,
    compact_at: Number,
    compact_to: Number,
    counter: Arc<dyn TokenCounter>,
}

impl std::fmt::Debug for CompactionHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactionHook")
            .field("compactor", &self.compactor.to_value()["type"])
            .field("context_window", &self.context_window)
            .field("compact_at", &self.compact_at)
            .field("compact_to", &self.compact_to)
            .finish_non_exhaustive()
    }
}

/// The size a compactor should reach and the estimated non-message overhead.
struct Target {
    tokens: i64,
    overhead: f64,
    /// `context_tokens` as the check read it.
    context_tokens: f64,
}

impl CompactionHook {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.compaction.hooks.CompactionHook";

    /// A hook over `compactor` with the default fractions (0.7 / 0.4) and
    /// an [`ApproximateTokenCounter`]; `context_window < 1` is Haystack's error.
    pub fn new(compactor: impl Compactor, context_window: i64) -> Result<Self, ParameterError> {
        Self::build(
            Arc::new(compactor),
            context_window,
            float(0.7),
            float(0.4),
            Arc::new(ApproximateTokenCounter::default()),
        )
    }

    fn build(
        compactor: Arc<dyn Compactor>,
        context_window: i64,
        compact_at: Number,
        compact_to: Number,
        counter: Arc<dyn TokenCounter>,
    ) -> Result<Self, ParameterError> {
        if context_window < 1 {
            return Err(ParameterError::new(format!(
                "`context_window` must be a positive number of tokens, got {context_window}."
            )));
        }
        let (at, to) = (as_f64(&compact_at), as_f64(&compact_to));
        if !(0.0 < to && to < at && at <= 1.0) {
            return Err(ParameterError::new(format!(
                "`compact_at` and `compact_to` must satisfy 0 < compact_to < compact_at <= 1, got \
                 compact_at={} and compact_to={}. A target at or above the trigger would leave the \
                 conversation over the trigger after compacting, so it would be attempted again every step.",
                crate::pyfmt::number_repr(&compact_at),
                crate::pyfmt::number_repr(&compact_to)
            )));
        }
        Ok(CompactionHook {
            compactor,
            context_window,
            compact_at,
            compact_to,
            counter,
        })
    }

    /// Sets `compact_at` (checked against `compact_to`).
    pub fn compact_at(self, compact_at: f64) -> Result<Self, ParameterError> {
        Self::build(
            self.compactor,
            self.context_window,
            float(compact_at),
            self.compact_to,
            self.counter,
        )
    }

    /// Sets `compact_to` (checked against `compact_at`).
    pub fn compact_to(self, compact_to: f64) -> Result<Self, ParameterError> {
        Self::build(
            self.compactor,
            self.context_window,
            self.compact_at,
            float(compact_to),
            self.counter,
        )
    }

    /// Sets the token counter.
    pub fn token_counter(mut self, counter: impl TokenCounter) -> Self {
        self.counter = Arc::new(counter);
        self
    }

    /// The serialized form (Haystack's `to_dict`).
    pub fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("compactor".into(), self.compactor.to_value());
        init.insert("context_window".into(), Value::from(self.context_window));
        init.insert("compact_at".into(), Value::Number(self.compact_at.clone()));
        init.insert("compact_to".into(), Value::Number(self.compact_to.clone()));
        init.insert("token_counter".into(), self.counter.to_value());
        component(Self::TYPE, init)
    }

    /// Reads the serialized form (Haystack's `from_dict`).
    pub fn from_value(value: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&open(value, Self::TYPE, "compaction")?)
    }

    /// Reads the constructor parameters (a scenario's `compaction:` entry).
    pub fn from_params(params: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&Init::direct(params, "compaction")?)
    }

    fn from_init(init: &Init<'_>) -> Result<Self, FromValueError> {
        init.only(&[
            "compactor",
            "context_window",
            "compact_at",
            "compact_to",
            "token_counter",
        ])?;
        let compactor = init
            .required("compactor")
            .and_then(|value| compactor_from_value(value, &init.at("compactor")));
        let counter = counter_from_value(init.get("token_counter"), &init.at("token_counter"));
        let context_window = init.required_int("context_window");
        let number = |key: &str, default: f64| match init.get(key) {
            None => Ok(float(default)),
            Some(Value::Number(n)) => Ok(n.clone()),
            Some(other) => Err(format_error(
                init.at(key),
                format!("`{}` must be a number, got {}", init.at(key), shown(other)),
            )),
        };
        let compact_at = number("compact_at", 0.7);
        let compact_to = number("compact_to", 0.4);
        // A file error anywhere in the entry wins over a value a constructor
        // rejects, as it does for a loader that reads the whole file first.
        let errors = [
            compactor.as_ref().err(),
            counter.as_ref().err(),
            context_window.as_ref().err(),
            compact_at.as_ref().err(),
            compact_to.as_ref().err(),
        ];
        if let Some(error) = errors
            .iter()
            .flatten()
            .find(|e| matches!(e, FromValueError::Format { .. }))
        {
            return Err((*error).clone());
        }
        Self::build(
            compactor?,
            context_window?,
            compact_at?,
            compact_to?,
            counter?,
        )
        .map_err(FromValueError::from)
    }

    /// `_target_tokens`: `None` when the conversation is under the trigger.
    fn target(&self, state: &State) -> Result<Option<Target>, HookError> {
        let messages = state.messages();
        let last_assistant = last_assistant_index(messages);
        let context_tokens = context_tokens(state, last_assistant.is_some(), &self.compact_at)?;
        let tools = state.tools();
        let estimated = if context_tokens == 0.0 {
            self.counter.count(messages, tools) as f64
        } else {
            match last_assistant {
                None => context_tokens,
                Some(i) => context_tokens + self.counter.count(&messages[i + 1..], &[]) as f64,
            }
        };
        let triggered = estimated >= self.context_window as f64 * as_f64(&self.compact_at);
        let strategy = self.compactor.to_value()["type"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        tracing::debug!(
            haystack.agent.hook.compaction.strategy = %strategy,
            haystack.agent.hook.compaction.estimated_context_tokens = estimated,
            haystack.agent.hook.compaction.triggered = triggered,
            "compaction check"
        );
        if !triggered {
            return Ok(None);
        }
        let message_tokens = self.counter.count(messages, &[]);
        let overhead = estimated - message_tokens as f64;
        if overhead < 0.0 {
            tracing::warn!(
                "The TokenCounter estimated more tokens for the messages ({message_tokens}) than the \
                 estimated total context size ({estimated}). It may be overestimating; consider \
                 configuring a more accurate TokenCounter."
            );
        }
        let budget = (self.context_window as f64 * as_f64(&self.compact_to)).trunc();
        // Compared with whole token counts, a fractional target acts as its floor.
        let tokens = (budget - overhead).max(0.0).floor() as i64;
        tracing::debug!(
            haystack.agent.hook.compaction.target_tokens = tokens,
            "compaction target"
        );
        Ok(Some(Target {
            tokens,
            overhead,
            context_tokens,
        }))
    }

    /// `_apply`: writes the compacted conversation back.
    fn apply(
        &self,
        state: &mut State,
        compacted: Option<Vec<ChatMessage>>,
        target: &Target,
    ) -> Result<(), HookError> {
        tracing::debug!(
            haystack.agent.hook.compaction.compacted = compacted.is_some(),
            "compaction result"
        );
        let Some(compacted) = compacted else {
            return Ok(());
        };
        let before = state.messages().len();
        let after = compacted.len();
        let recount = (target.context_tokens != 0.0).then(|| {
            let accounted = match last_assistant_index(&compacted) {
                None => &compacted[..],
                Some(i) => &compacted[..=i],
            };
            self.counter.count(accounted, &[]) as f64 + target.overhead
        });
        state.replace_messages(compacted);
        if let Some(tokens) = recount {
            // A whole number stays an integer, as Python's int arithmetic keeps it.
            let value = if tokens.fract() == 0.0 && tokens.abs() < 9e15 {
                Value::from(tokens as i64)
            } else {
                Value::Number(float(tokens))
            };
            state.set(keys::CONTEXT_TOKENS, value)?;
        }
        tracing::debug!(
            "Compacted the Agent's conversation at step {} from {before} to {after} messages, targeting {} tokens.",
            state.step_count().unwrap_or(0),
            target.tokens
        );
        Ok(())
    }
}

fn float(value: f64) -> Number {
    Number::from_f64(value).unwrap_or_else(|| Number::from(0))
}

fn as_f64(number: &Number) -> f64 {
    number.as_f64().unwrap_or(f64::NAN)
}

/// `state.data.get("context_tokens", 0)` as Python uses it: any number
/// (booleans as 0 and 1); anything else makes Haystack's arithmetic raise,
/// with the `TypeError` text reproduced here.
fn context_tokens(
    state: &State,
    has_assistant: bool,
    compact_at: &Number,
) -> Result<f64, HookError> {
    let value = match state.data().get(keys::CONTEXT_TOKENS) {
        None => return Ok(0.0),
        Some(value) => value,
    };
    match value {
        Value::Number(n) => Ok(n.as_f64().unwrap_or(0.0)),
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        other => {
            let kind = match other {
                Value::String(_) => "str",
                Value::Array(_) => "list",
                Value::Object(_) => "dict",
                _ => "NoneType",
            };
            Err(HookError::new(if !has_assistant {
                let right = if compact_at.is_f64() { "float" } else { "int" };
                format!("'>=' not supported between instances of '{kind}' and '{right}'")
            } else if matches!(kind, "str" | "list") {
                format!("can only concatenate {kind} (not \"int\") to {kind}")
            } else {
                format!("unsupported operand type(s) for +: '{kind}' and 'int'")
            }))
        }
    }
}

impl Hook for CompactionHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let Some(target) = self.target(state)? else {
            return Ok(());
        };
        let compacted =
            self.compactor
                .compact(state.messages(), target.tokens, self.counter.as_ref())?;
        self.apply(state, compacted, &target)
    }

    fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
        HookFuture::new(async move {
            let Some(target) = self.target(state)? else {
                return Ok(());
            };
            let compacted: Compacted = self
                .compactor
                .compact_async(state.messages(), target.tokens, self.counter.as_ref())
                .await;
            self.apply(state, compacted?, &target)
        })
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeLlm])
    }

    fn warm_up(&self) -> Result<(), HookError> {
        self.counter.warm_up();
        Ok(self.compactor.warm_up()?)
    }

    fn close(&self) -> Result<(), HookError> {
        self.counter.close();
        Ok(self.compactor.close()?)
    }
}
