//! Context compaction (Haystack's `haystack.hooks.compaction`): a
//! `before_llm` hook that shrinks the conversation once it fills too much of
//! the model's context window.
//!
//! ```text
//!  CompactionHook ── when: estimate >= context_window * compact_at
//!        │            target = int(context_window * compact_to) - overhead
//!        ▼
//!  Compactor::compact(messages, target, counter) ── how:
//!        SlidingWindowCompactor      drop old turns / steps, leave a note
//!        ToolResultPruningCompactor  replace old tool results with a placeholder
//!        ToolResultOffloadCompactor  write old tool results to a store, leave a pointer
//!        SummarizationCompactor      replace old turns / steps with an LLM summary
//! ```
//!
//! Every compactor returns `None` unless the conversation gets smaller, never
//! splits a tool call from its results, and marks the messages it writes
//! with `meta["context_compaction"] = {"strategy": ...}`.
//!
//! ```
//! use hookharness::hooks::compaction::{CompactionHook, SlidingWindowCompactor};
//!
//! let hook = CompactionHook::new(SlidingWindowCompactor::default(), 400_000)
//!     .unwrap()
//!     .compact_at(0.7)
//!     .unwrap();
//! let again = CompactionHook::from_value(&hook.to_value()).unwrap();
//! assert_eq!(again.to_value(), hook.to_value());
//! ```

mod counter;
mod hook;
mod landmarks;
mod offload;
mod pruning;
mod scripted_summarizer;
mod sliding_window;
mod summarization;

pub use counter::{ApproximateTokenCounter, TokenCounter, counter_from_value};
pub use hook::CompactionHook;
pub use landmarks::COMPACTION_META_KEY;
pub use offload::ToolResultOffloadCompactor;
pub use pruning::ToolResultPruningCompactor;
pub use scripted_summarizer::{ScriptedSummarizer, SummaryReply};
pub use sliding_window::SlidingWindowCompactor;
pub use summarization::SummarizationCompactor;

use crate::future::BoxFuture;
use crate::hooks::component::{FromValueError, component, format_error, type_of};
use crate::message::ChatMessage;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A compaction that failed; the hook fails with it, and so does the run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompactionError {
    /// The summarizer raised and `raise_on_failure` is set: its message as is.
    #[error("{0}")]
    Summarizer(String),
    /// The summarizer gave no non-blank text (Haystack's `RuntimeError`).
    #[error(
        "The Chat Generator returned no usable text to use as a conversation summary. Generator output: {output}."
    )]
    NoUsableSummary {
        /// Python's repr of the generator's output.
        output: String,
    },
    /// The summary did not shrink the conversation (Haystack's `RuntimeError`).
    #[error(
        "The generated summary did not reduce the conversation size ({before} tokens before and {after} tokens after)."
    )]
    NotSmaller {
        /// Tokens before the summary.
        before: i64,
        /// Tokens after it.
        after: i64,
    },
    /// A scripted summarizer was asked once more than scripted; never
    /// swallowed by `raise_on_failure: false`.
    #[error(
        "the scripted summarizer has no reply left for summary call {call}: it scripts {scripted} repl{}",
        if *scripted == 1 { "y" } else { "ies" }
    )]
    ScriptExhausted {
        /// The 0-based index of the summary call.
        call: usize,
        /// How many replies the script holds.
        scripted: usize,
    },
    /// Anything else a custom compactor reports.
    #[error("{0}")]
    Other(String),
}

impl From<CompactionError> for crate::hook::HookError {
    fn from(error: CompactionError) -> Self {
        crate::hook::HookError::new(error.to_string())
    }
}

/// What a compaction gives: a shorter conversation, or `None` to leave it.
pub type Compacted = Result<Option<Vec<ChatMessage>>, CompactionError>;

/// Rewrites a conversation into a shorter one (Haystack's `Compactor`
/// protocol). Must return `None` unless the result is smaller, must not
/// keep a tool call without all its results (or a result without its call).
///
/// ```
/// use hookharness::hooks::compaction::{Compacted, Compactor, TokenCounter};
/// use hookharness::ChatMessage;
///
/// /// Keeps only the last message.
/// struct LastOnly;
/// impl Compactor for LastOnly {
///     fn compact(&self, messages: &[ChatMessage], _target: i64, _counter: &dyn TokenCounter) -> Compacted {
///         Ok((messages.len() > 1).then(|| messages[messages.len() - 1..].to_vec()))
///     }
/// }
/// ```
pub trait Compactor: Send + Sync + 'static {
    /// A shorter replacement for `messages`, or `None`.
    fn compact(
        &self,
        messages: &[ChatMessage],
        target_tokens: i64,
        counter: &dyn TokenCounter,
    ) -> Compacted;

    /// On the async path (defaults to [`compact`](Compactor::compact)).
    fn compact_async<'a>(
        &'a self,
        messages: &'a [ChatMessage],
        target_tokens: i64,
        counter: &'a dyn TokenCounter,
    ) -> BoxFuture<'a, Compacted> {
        Box::pin(std::future::ready(self.compact(
            messages,
            target_tokens,
            counter,
        )))
    }

    /// The serialized form `{type, init_parameters}`; its `type` is the
    /// `haystack.agent.hook.compaction.strategy` value.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }

    /// Prepares the compactor (called by the hook's `warm_up`).
    fn warm_up(&self) -> Result<(), CompactionError> {
        Ok(())
    }

    /// Releases the compactor's resources (called by the hook's `close`).
    fn close(&self) -> Result<(), CompactionError> {
        Ok(())
    }
}

/// Reads a serialized compactor of a known type.
pub fn compactor_from_value(
    value: &Value,
    path: &str,
) -> Result<Arc<dyn Compactor>, FromValueError> {
    Ok(match type_of(value, path)? {
        SlidingWindowCompactor::TYPE => Arc::new(SlidingWindowCompactor::from_value(value, path)?),
        ToolResultPruningCompactor::TYPE => {
            Arc::new(ToolResultPruningCompactor::from_value(value, path)?)
        }
        ToolResultOffloadCompactor::TYPE => {
            Arc::new(ToolResultOffloadCompactor::from_value(value, path)?)
        }
        SummarizationCompactor::TYPE => Arc::new(SummarizationCompactor::from_value(value, path)?),
        other => {
            return Err(format_error(
                format!("{path}.type"),
                format!(
                    "unknown compactor type `{other}` at `{path}`; known: `{}`, `{}`, `{}`, `{}`",
                    SlidingWindowCompactor::TYPE,
                    ToolResultPruningCompactor::TYPE,
                    ToolResultOffloadCompactor::TYPE,
                    SummarizationCompactor::TYPE
                ),
            ));
        }
    })
}

/// A compaction marker `{"strategy": strategy, key: value, ...}`.
pub(crate) fn marker(strategy: &str, fields: &[(&str, i64)]) -> Value {
    let mut map = Map::new();
    map.insert("strategy".into(), Value::String(strategy.into()));
    for (key, value) in fields {
        map.insert((*key).into(), Value::from(*value));
    }
    Value::Object(map)
}
