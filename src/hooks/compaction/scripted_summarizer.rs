//! [`ScriptedSummarizer`]: the summarizer of scenario files. Not part of Haystack.

use super::CompactionError;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError};
use crate::hooks::component::{FromValueError, component, format_error, open, shown};
use crate::message::ChatMessage;
use serde_json::{Map, Value};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One scripted summarizer reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SummaryReply {
    /// An assistant reply with this text (`"..."` in a scenario).
    Text(String),
    /// No reply at all (`null`): the compactor finds no usable text.
    Nothing,
    /// The generator raises (`{error: "..."}`).
    Error(String),
}

/// A chat generator that answers summary requests from a script and keeps
/// the prompts it was sent. Asked past its end, the compaction fails with
/// [`CompactionError::ScriptExhausted`], whatever `raise_on_failure` says.
/// Not part of Haystack.
///
/// ```
/// use hookharness::hooks::compaction::{ScriptedSummarizer, SummaryReply};
///
/// let summarizer = ScriptedSummarizer::new([SummaryReply::Text("- searched twice".into())]);
/// assert_eq!(summarizer.scripted(), 1);
/// ```
#[derive(Debug)]
pub struct ScriptedSummarizer {
    replies: Vec<SummaryReply>,
    calls: AtomicUsize,
    prompts: Mutex<Vec<Vec<ChatMessage>>>,
}

impl ScriptedSummarizer {
    /// The qualified class name in the serialized form.
    pub const TYPE: &'static str = "hookharness.hooks.compaction.ScriptedSummarizer";

    /// Answers with `replies` in order.
    pub fn new(replies: impl IntoIterator<Item = SummaryReply>) -> Self {
        ScriptedSummarizer {
            replies: replies.into_iter().collect(),
            calls: AtomicUsize::new(0),
            prompts: Mutex::new(Vec::new()),
        }
    }

    /// How many calls were made.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// How many replies the script holds.
    pub fn scripted(&self) -> usize {
        self.replies.len()
    }

    /// Replies not used yet.
    pub fn remaining(&self) -> usize {
        self.scripted().saturating_sub(self.calls())
    }

    /// The prompts received, in order.
    pub fn prompts(&self) -> Vec<Vec<ChatMessage>> {
        self.prompts.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Reads `{type, init_parameters: {replies: [text | null | {error: text}]}}`.
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&["replies"])?;
        let Value::Array(items) = init.required("replies")? else {
            return Err(format_error(
                init.at("replies"),
                format!("`{}` must be a list", init.at("replies")),
            ));
        };
        let mut replies = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            replies.push(match item {
                Value::String(text) => SummaryReply::Text(text.clone()),
                Value::Null => SummaryReply::Nothing,
                Value::Object(map) if map.len() == 1 && map.get("error").is_some_and(Value::is_string) => {
                    SummaryReply::Error(map["error"].as_str().unwrap_or_default().to_owned())
                }
                other => {
                    return Err(format_error(format!("{}[{i}]", init.at("replies")), format!(
                        "`{}[{i}]` must be a summary text, null (no reply) or {{error: \"...\"}}, got {}",
                        init.at("replies"), shown(other))));
                }
            });
        }
        Ok(Self::new(replies))
    }

    /// The serialized form.
    pub fn to_value(&self) -> Value {
        let replies = self
            .replies
            .iter()
            .map(|reply| match reply {
                SummaryReply::Text(text) => Value::String(text.clone()),
                SummaryReply::Nothing => Value::Null,
                SummaryReply::Error(message) => {
                    let mut map = Map::new();
                    map.insert("error".into(), Value::String(message.clone()));
                    Value::Object(map)
                }
            })
            .collect();
        let mut init = Map::new();
        init.insert("replies".into(), Value::Array(replies));
        component(Self::TYPE, init)
    }
}

impl ChatGenerator for ScriptedSummarizer {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        if let Ok(mut prompts) = self.prompts.lock() {
            prompts.push(request.messages.to_vec());
        }
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        match self.replies.get(call) {
            Some(SummaryReply::Text(text)) => Ok(vec![ChatMessage::from_assistant(text.clone())]),
            Some(SummaryReply::Nothing) => Ok(Vec::new()),
            Some(SummaryReply::Error(message)) => Err(GeneratorError::new(message.clone())),
            None => Err(GeneratorError::new(
                CompactionError::ScriptExhausted {
                    call,
                    scripted: self.replies.len(),
                }
                .to_string(),
            )),
        }
    }
}
