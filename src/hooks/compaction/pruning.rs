//! `ToolResultPruningCompactor`: replaces old tool results with a placeholder.

use super::counter::TokenCounter;
use super::landmarks::{COMPACTION_META_KEY, Replacement, replace_tool_results_until_target};
use super::{Compacted, Compactor, marker};
use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, component, format_error, open, shown};
use crate::message::ChatMessage;
use serde_json::{Map, Value};

/// Haystack's default placeholder (`{tool_name}` is replaced).
pub const DEFAULT_PLACEHOLDER: &str =
    "[Tool result removed to free up context. Call `{tool_name}` again if you need it.]";

/// Haystack's `ToolResultPruningCompactor(*, min_keep_steps=1,
/// min_tokens=200, placeholder=..., skip_meta_keys=("tool_result_offloaded",))`.
///
/// Oldest first, outside the newest `min_keep_steps` tool-calling steps, each
/// tool result larger than `min_tokens` (by its own count) is replaced by the
/// placeholder, keeping its origin, error flag and meta (plus the marker
/// `{"strategy": "tool_result_pruning", "original_tokens": n}`), until the
/// conversation reaches the target. Results already compacted, results with
/// a `skip_meta_keys` key, and replacements that would not save tokens stay.
///
/// ```
/// use hookharness::hooks::compaction::ToolResultPruningCompactor;
///
/// let compactor = ToolResultPruningCompactor::new(1, 50).unwrap();
/// assert!(ToolResultPruningCompactor::new(0, 50).is_err());
/// # let _ = compactor;
/// ```
#[derive(Debug, Clone)]
pub struct ToolResultPruningCompactor {
    min_keep_steps: i64,
    min_tokens: i64,
    placeholder: String,
    skip_meta_keys: Vec<String>,
}

impl Default for ToolResultPruningCompactor {
    fn default() -> Self {
        ToolResultPruningCompactor {
            min_keep_steps: 1,
            min_tokens: 200,
            placeholder: DEFAULT_PLACEHOLDER.into(),
            skip_meta_keys: vec!["tool_result_offloaded".into()],
        }
    }
}

/// Haystack's checks of `min_keep_steps` (at least 1) and `min_tokens`.
pub(crate) fn check_keep_and_min(
    min_keep_steps: i64,
    min_tokens: i64,
) -> Result<(), ParameterError> {
    if min_keep_steps < 1 {
        return Err(ParameterError::new(format!(
            "`min_keep_steps` must be at least 1, got {min_keep_steps}. The most recent \
             tool-calling step contains results the model may still need."
        )));
    }
    if min_tokens < 0 {
        return Err(ParameterError::new(format!(
            "`min_tokens` must be at least 0, got {min_tokens}."
        )));
    }
    Ok(())
}

impl ToolResultPruningCompactor {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.hooks.compaction.tool_result_pruning.ToolResultPruningCompactor";

    /// With Haystack's checks (`min_keep_steps >= 1`, `min_tokens >= 0`).
    pub fn new(min_keep_steps: i64, min_tokens: i64) -> Result<Self, ParameterError> {
        check_keep_and_min(min_keep_steps, min_tokens)?;
        Ok(ToolResultPruningCompactor {
            min_keep_steps,
            min_tokens,
            ..Self::default()
        })
    }

    /// Sets the placeholder.
    pub fn placeholder(mut self, placeholder: impl Into<String>) -> Self {
        self.placeholder = placeholder.into();
        self
    }

    /// Sets the meta keys that protect a result.
    pub fn skip_meta_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.skip_meta_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&[
            "min_keep_steps",
            "min_tokens",
            "placeholder",
            "skip_meta_keys",
        ])?;
        let keys = match init.get("skip_meta_keys") {
            None => vec!["tool_result_offloaded".to_owned()],
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_owned).ok_or_else(|| {
                        format_error(
                            init.at("skip_meta_keys"),
                            format!(
                                "`{}` must be a list of strings, got {}",
                                init.at("skip_meta_keys"),
                                shown(item)
                            ),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format_error(
                    init.at("skip_meta_keys"),
                    format!(
                        "`{}` must be a list of strings, got {}",
                        init.at("skip_meta_keys"),
                        shown(other)
                    ),
                ));
            }
        };
        Ok(
            Self::new(init.int("min_keep_steps", 1)?, init.int("min_tokens", 200)?)
                .map_err(FromValueError::from)?
                .placeholder(init.string("placeholder", DEFAULT_PLACEHOLDER)?)
                .skip_meta_keys(keys),
        )
    }

    fn prune(&self, message: &ChatMessage, counter: &dyn TokenCounter) -> Replacement {
        let result = message.tool_call_result()?;
        let meta = message.meta();
        if meta.contains_key(COMPACTION_META_KEY)
            || self.skip_meta_keys.iter().any(|k| meta.contains_key(k))
        {
            return None;
        }
        let original = counter.count(std::slice::from_ref(message), &[]);
        if original <= self.min_tokens {
            return None;
        }
        let text = self
            .placeholder
            .replace("{tool_name}", &result.origin.tool_name);
        let mut new_meta = meta.clone();
        new_meta.insert(
            COMPACTION_META_KEY.into(),
            marker("tool_result_pruning", &[("original_tokens", original)]),
        );
        let pruned =
            ChatMessage::from_tool(text, result.origin.clone(), result.error).with_meta(new_meta);
        let saved = original - counter.count(std::slice::from_ref(&pruned), &[]);
        (saved > 0).then_some((pruned, saved))
    }
}

impl Compactor for ToolResultPruningCompactor {
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
            |message, _| self.prune(message, counter),
        ))
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("min_keep_steps".into(), Value::from(self.min_keep_steps));
        init.insert("min_tokens".into(), Value::from(self.min_tokens));
        init.insert(
            "placeholder".into(),
            Value::String(self.placeholder.clone()),
        );
        init.insert(
            "skip_meta_keys".into(),
            Value::Array(
                self.skip_meta_keys
                    .iter()
                    .cloned()
                    .map(Value::String)
                    .collect(),
            ),
        );
        component(Self::TYPE, init)
    }
}
