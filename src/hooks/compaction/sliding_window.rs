//! `SlidingWindowCompactor`: drops the oldest turns and steps, leaves a note.

use super::counter::TokenCounter;
use super::landmarks::{
    COMPACTION_META_KEY, current_agent_step_groups, historical_turn_groups, is_compaction_message,
    latest_user_index, leading_system_end, messages_at, messages_except,
};
use super::{Compacted, Compactor, marker};
use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, component, open};
use crate::message::{ChatMessage, ChatRole};
use serde_json::{Map, Value};

const STRATEGY: &str = "sliding_window";
const NUM_REMOVED: &str = "{num_removed}";

/// Haystack's default omission note.
pub const DEFAULT_OMISSION_NOTE: &str = "[{num_removed} earlier messages were removed from this conversation to free up context and cannot be recovered.]";

/// Haystack's `SlidingWindowCompactor(*, min_keep_steps=1, omission_note=...)`.
///
/// Keeps the leading system messages and the latest user message (the task
/// anchor). When the current task's steps exceed the budget, every
/// historical turn goes and the newest steps that fit stay (at least
/// `min_keep_steps`); otherwise every step stays and the newest turns that
/// fit. A user note (`{num_removed}` replaced by the number of removed
/// messages) stands where the messages were: after the system block, or
/// after the anchor when steps were dropped.
///
/// ```
/// use hookharness::hooks::compaction::SlidingWindowCompactor;
///
/// let compactor = SlidingWindowCompactor::new(2).unwrap().omission_note(None::<String>);
/// assert!(SlidingWindowCompactor::new(-1).is_err());
/// # let _ = compactor;
/// ```
#[derive(Debug, Clone)]
pub struct SlidingWindowCompactor {
    min_keep_steps: i64,
    omission_note: Option<String>,
}

impl Default for SlidingWindowCompactor {
    fn default() -> Self {
        SlidingWindowCompactor {
            min_keep_steps: 1,
            omission_note: Some(DEFAULT_OMISSION_NOTE.into()),
        }
    }
}

impl SlidingWindowCompactor {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.hooks.compaction.sliding_window.SlidingWindowCompactor";

    /// `min_keep_steps < 0` is Haystack's `ValueError`.
    pub fn new(min_keep_steps: i64) -> Result<Self, ParameterError> {
        if min_keep_steps < 0 {
            return Err(ParameterError::new(format!(
                "`min_keep_steps` must be at least 0, got {min_keep_steps}."
            )));
        }
        Ok(SlidingWindowCompactor {
            min_keep_steps,
            ..Self::default()
        })
    }

    /// The note left in place of the removed messages (`None`: no note).
    pub fn omission_note(mut self, note: Option<impl Into<String>>) -> Self {
        self.omission_note = note.map(Into::into);
        self
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&["min_keep_steps", "omission_note"])?;
        let note = init.opt_string("omission_note", Some(DEFAULT_OMISSION_NOTE))?;
        Ok(Self::new(init.int("min_keep_steps", 1)?)
            .map_err(FromValueError::from)?
            .omission_note(note))
    }

    /// Splits into the kept messages, the note's position and the removed ones.
    fn split(
        &self,
        messages: &[ChatMessage],
        target: i64,
        counter: &dyn TokenCounter,
    ) -> (Vec<ChatMessage>, usize, Vec<ChatMessage>) {
        let system_end = leading_system_end(messages);
        let task = latest_user_index(messages);
        let task_indices: Vec<usize> = task.into_iter().collect();
        // An earlier note is left out of its turn, so it is folded into the new one.
        let turns: Vec<Vec<usize>> = historical_turn_groups(messages, system_end, task)
            .into_iter()
            .map(|group| {
                group
                    .into_iter()
                    .filter(|&i| !is_note(&messages[i]))
                    .collect()
            })
            .collect();
        let steps = current_agent_step_groups(messages, system_end, task);
        let protected: Vec<usize> = (0..system_end)
            .chain(task_indices.iter().copied())
            .collect();
        let available = target - counter.count(&messages_at(messages, &protected), &[]);
        let (first_turn, first_step) =
            self.first_kept(messages, &turns, &steps, available, counter);
        let kept_turns: Vec<usize> = turns[first_turn..].concat();
        let kept_steps: Vec<usize> = steps[first_step..].concat();
        let kept: Vec<usize> = (0..system_end)
            .chain(kept_turns.iter().copied())
            .chain(task_indices.iter().copied())
            .chain(kept_steps)
            .collect();
        let note_index = if first_step == 0 {
            system_end
        } else {
            system_end + kept_turns.len() + task_indices.len()
        };
        (
            messages_at(messages, &kept),
            note_index,
            messages_except(messages, &kept),
        )
    }

    fn first_kept(
        &self,
        messages: &[ChatMessage],
        turns: &[Vec<usize>],
        steps: &[Vec<usize>],
        available: i64,
        counter: &dyn TokenCounter,
    ) -> (usize, usize) {
        let task_tokens = counter.count(&messages_at(messages, &steps.concat()), &[]);
        if task_tokens > available {
            let first = first_group_to_keep(messages, steps, available, counter);
            let floor = steps.len().saturating_sub(self.min_keep_steps as usize);
            return (turns.len(), first.min(floor));
        }
        let first = first_group_to_keep(messages, turns, available - task_tokens, counter);
        (first, 0)
    }
}

fn is_note(message: &ChatMessage) -> bool {
    is_compaction_message(message, STRATEGY, Some(ChatRole::User))
}

/// Newest first, stop at the first group that does not fit.
fn first_group_to_keep(
    messages: &[ChatMessage],
    groups: &[Vec<usize>],
    mut available: i64,
    counter: &dyn TokenCounter,
) -> usize {
    let mut first = groups.len();
    while first > 0 {
        let tokens = counter.count(&messages_at(messages, &groups[first - 1]), &[]);
        if tokens > available {
            break;
        }
        available -= tokens;
        first -= 1;
    }
    first
}

impl Compactor for SlidingWindowCompactor {
    fn compact(
        &self,
        messages: &[ChatMessage],
        target_tokens: i64,
        counter: &dyn TokenCounter,
    ) -> Compacted {
        if counter.count(messages, &[]) <= target_tokens {
            return Ok(None);
        }
        let (kept, note_index, removed) = self.split(messages, target_tokens, counter);
        if removed.is_empty() {
            return Ok(None);
        }
        let Some(note) = self.omission_note.as_deref().filter(|n| !n.is_empty()) else {
            return Ok(Some(kept));
        };
        if removed.iter().all(is_note) {
            return Ok(None);
        }
        let mut meta = Map::new();
        meta.insert(
            COMPACTION_META_KEY.into(),
            marker(
                STRATEGY,
                &[
                    ("removed_messages", removed.len() as i64),
                    ("kept_messages", kept.len() as i64),
                ],
            ),
        );
        let note = ChatMessage::from_user(note.replace(NUM_REMOVED, &removed.len().to_string()))
            .with_meta(meta);
        let mut out = kept;
        out.insert(note_index, note);
        Ok(Some(out))
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("min_keep_steps".into(), Value::from(self.min_keep_steps));
        init.insert(
            "omission_note".into(),
            self.omission_note
                .clone()
                .map_or(Value::Null, Value::String),
        );
        component(Self::TYPE, init)
    }
}
