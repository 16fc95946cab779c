//! `SummarizationCompactor`: replaces old turns and steps with LLM summaries,
//! and [`ScriptedSummarizer`], the summarizer of scenario files.

use super::counter::{Render, TokenCounter, class_name, render_message};
use super::landmarks::{
    COMPACTION_META_KEY, current_agent_step_groups, historical_turn_groups, is_compaction_message,
    latest_user_index, leading_system_end, messages_at, messages_except,
};
use super::scripted_summarizer::ScriptedSummarizer;
use super::{Compacted, CompactionError, Compactor, marker};
use crate::future::BoxFuture;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError};
use crate::hooks::ParameterError;
use crate::hooks::component::{FromValueError, component, format_error, open, type_of};
use crate::message::{ChatMessage, ContentPart};
use crate::pyfmt::{float_repr, repr};
use serde_json::{Map, Value};
use std::sync::Arc;

const STRATEGY: &str = "summarization";
const OPENING: &str = "<conversation_summary>";
const CLOSING: &str = "</conversation_summary>";

/// Haystack's default summary instruction (the summarizer's system message).
pub const DEFAULT_SUMMARY_INSTRUCTION: &str = include_str!("summary_instruction.txt");

/// Haystack's `SummarizationCompactor(chat_generator, *, min_keep_steps=1,
/// approximate_summary_tokens=1024, summary_instruction=...,
/// raise_on_failure=False)`.
///
/// While the conversation is over the target it picks a stretch, by tiers:
/// the fewest oldest historical turns; else (with two or more) the oldest
/// historical summaries; else the fewest oldest current-task steps outside
/// the newest `min_keep_steps`; else (two or more) the oldest current-task
/// summaries. The summarizer gets the instruction and the stretch's
/// transcript; its last reply's text, wrapped in `<conversation_summary>`,
/// becomes a user message at the stretch's oldest position. A failure ends
/// the loop: with `raise_on_failure` it fails the hook, otherwise a warning
/// is logged and the last good result is kept.
pub struct SummarizationCompactor {
    generator: Arc<dyn ChatGenerator>,
    generator_value: Value,
    script: Option<Arc<ScriptedSummarizer>>,
    min_keep_steps: i64,
    approximate_summary_tokens: i64,
    summary_instruction: String,
    raise_on_failure: bool,
}

impl std::fmt::Debug for SummarizationCompactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SummarizationCompactor")
            .field("chat_generator", &self.generator_value["type"])
            .field("min_keep_steps", &self.min_keep_steps)
            .field(
                "approximate_summary_tokens",
                &self.approximate_summary_tokens,
            )
            .field("raise_on_failure", &self.raise_on_failure)
            .finish_non_exhaustive()
    }
}

impl SummarizationCompactor {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.compaction.summarization.SummarizationCompactor";

    /// Summarizes with `generator` (serialized under its Rust type name).
    pub fn new<G: ChatGenerator>(generator: G) -> Self {
        Self::from_parts(
            Arc::new(generator),
            component(std::any::type_name::<G>(), Map::new()),
            None,
        )
    }

    /// Summarizes with a scripted summarizer (keep a clone of the `Arc` to
    /// read the prompts it was sent).
    pub fn scripted(summarizer: Arc<ScriptedSummarizer>) -> Self {
        let value = summarizer.to_value();
        Self::from_parts(summarizer.clone(), value, Some(summarizer))
    }

    fn from_parts(
        generator: Arc<dyn ChatGenerator>,
        generator_value: Value,
        script: Option<Arc<ScriptedSummarizer>>,
    ) -> Self {
        SummarizationCompactor {
            generator,
            generator_value,
            script,
            min_keep_steps: 1,
            approximate_summary_tokens: 1024,
            summary_instruction: DEFAULT_SUMMARY_INSTRUCTION.into(),
            raise_on_failure: false,
        }
    }

    /// Sets `min_keep_steps` and `approximate_summary_tokens`, with Haystack's checks.
    pub fn sizes(
        mut self,
        min_keep_steps: i64,
        approximate_summary_tokens: i64,
    ) -> Result<Self, ParameterError> {
        if min_keep_steps < 0 {
            return Err(ParameterError::new(format!(
                "`min_keep_steps` must be at least 0, got {min_keep_steps}."
            )));
        }
        if approximate_summary_tokens < 1 {
            return Err(ParameterError::new(format!(
                "`approximate_summary_tokens` must be a positive number of tokens, got {approximate_summary_tokens}."
            )));
        }
        self.min_keep_steps = min_keep_steps;
        self.approximate_summary_tokens = approximate_summary_tokens;
        Ok(self)
    }

    /// Sets the instruction (the summarizer's system message).
    pub fn summary_instruction(mut self, instruction: impl Into<String>) -> Self {
        self.summary_instruction = instruction.into();
        self
    }

    /// Fails the hook on a summarizer failure instead of keeping the last good result.
    pub fn raise_on_failure(mut self, raise: bool) -> Self {
        self.raise_on_failure = raise;
        self
    }

    /// The scripted summarizer, when the compactor has one.
    pub fn summarizer(&self) -> Option<&Arc<ScriptedSummarizer>> {
        self.script.as_ref()
    }

    /// Reads the serialized form; the only generator it knows is
    /// [`ScriptedSummarizer`].
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&[
            "chat_generator",
            "min_keep_steps",
            "approximate_summary_tokens",
            "summary_instruction",
            "raise_on_failure",
        ])?;
        let at = init.at("chat_generator");
        let generator = init.required("chat_generator")?;
        let summarizer = match type_of(generator, &at)? {
            ScriptedSummarizer::TYPE => ScriptedSummarizer::from_value(generator, &at)?,
            other => {
                return Err(format_error(
                    format!("{at}.type"),
                    format!(
                        "unknown chat generator type `{other}` at `{at}`; scenarios use `{}`",
                        ScriptedSummarizer::TYPE
                    ),
                ));
            }
        };
        // Every field is read before the constructor checks values, so a file
        // error anywhere is reported before a rejected value.
        let min_keep_steps = init.int("min_keep_steps", 1)?;
        let summary_tokens = init.int("approximate_summary_tokens", 1024)?;
        let instruction = init.string("summary_instruction", DEFAULT_SUMMARY_INSTRUCTION)?;
        let raise_on_failure = init.bool("raise_on_failure", false)?;
        Ok(Self::scripted(Arc::new(summarizer))
            .sizes(min_keep_steps, summary_tokens)
            .map_err(FromValueError::from)?
            .summary_instruction(instruction)
            .raise_on_failure(raise_on_failure))
    }

    /// `_next_summary`: the indices to summarize next, `None` when nothing may go.
    fn next_summary(
        &self,
        messages: &[ChatMessage],
        target: i64,
        counter: &dyn TokenCounter,
    ) -> Option<Vec<usize>> {
        let system_end = leading_system_end(messages);
        let task = latest_user_index(messages);
        let history_end = task.unwrap_or(system_end);
        let task_start = task.map_or(system_end, |t| t + 1);
        let pick =
            |groups: &[Vec<usize>]| self.groups_to_summarize(messages, groups, target, counter);

        let turns = historical_turn_groups(messages, system_end, task);
        if !turns.is_empty() {
            return Some(pick(&turns));
        }
        let history_summaries = previous_summaries(messages, system_end, history_end);
        if history_summaries.len() > 1 {
            return Some(at_least_two(&history_summaries, pick));
        }
        let steps = current_agent_step_groups(messages, system_end, task);
        let eligible = &steps[..steps.len().saturating_sub(self.min_keep_steps as usize)];
        if !eligible.is_empty() {
            return Some(pick(eligible));
        }
        let task_summaries = previous_summaries(messages, task_start, messages.len());
        if task_summaries.len() > 1 {
            return Some(at_least_two(&task_summaries, pick));
        }
        None
    }

    /// `_groups_to_summarize`: the fewest oldest groups after whose removal
    /// the rest plus a summary fits (all of them when never).
    fn groups_to_summarize(
        &self,
        messages: &[ChatMessage],
        groups: &[Vec<usize>],
        target: i64,
        counter: &dyn TokenCounter,
    ) -> Vec<usize> {
        let mut selected = Vec::new();
        for group in groups {
            selected.extend_from_slice(group);
            let remaining = counter.count(&messages_except(messages, &selected), &[]);
            // Python's integers do not overflow: a file may give any size.
            if i128::from(remaining) + i128::from(self.approximate_summary_tokens)
                <= i128::from(target)
            {
                break;
            }
        }
        selected
    }

    fn prompt(&self, messages: &[ChatMessage], indices: &[usize]) -> Vec<ChatMessage> {
        let transcript = summary_transcript(&messages_at(messages, indices));
        vec![
            ChatMessage::from_system(self.summary_instruction.clone()),
            ChatMessage::from_user(format!(
                "<conversation_to_summarize>\n{transcript}\n</conversation_to_summarize>"
            )),
        ]
    }

    /// `_apply_summary`: the conversation with the summary swapped in, and its size.
    fn apply_summary(
        &self,
        messages: &[ChatMessage],
        indices: &[usize],
        replies: &[ChatMessage],
        before: i64,
        counter: &dyn TokenCounter,
    ) -> Result<(Vec<ChatMessage>, i64), CompactionError> {
        let text = replies
            .last()
            .and_then(ChatMessage::text)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| CompactionError::NoUsableSummary {
                output: output_repr(replies),
            })?;
        let mut meta = Map::new();
        meta.insert(
            COMPACTION_META_KEY.into(),
            marker(STRATEGY, &[("summarized_messages", indices.len() as i64)]),
        );
        let summary =
            ChatMessage::from_user(format!("{OPENING}\n{text}\n{CLOSING}")).with_meta(meta);
        let compacted = replace_indices(messages, indices, summary);
        let after = counter.count(&compacted, &[]);
        if after >= before {
            return Err(CompactionError::NotSmaller { before, after });
        }
        Ok((compacted, after))
    }

    /// The loop, once for both paths: on the sync path every call is a
    /// plain function call, so the future is ready on its first poll.
    async fn compact_with(
        &self,
        messages: &[ChatMessage],
        target: i64,
        counter: &dyn TokenCounter,
        is_async: bool,
    ) -> Compacted {
        let mut compacted = messages.to_vec();
        let mut current = counter.count(&compacted, &[]);
        let mut summarized = false;
        while current > target {
            let Some(indices) = self.next_summary(&compacted, target, counter) else {
                break;
            };
            let prompt = self.prompt(&compacted, &indices);
            if let Some(script) = &self.script
                && script.remaining() == 0
            {
                return Err(CompactionError::ScriptExhausted {
                    call: script.calls(),
                    scripted: script.scripted(),
                });
            }
            let request = ChatRequest::new(&prompt, &[]);
            let replies = if is_async {
                self.generator.run_async(request).await
            } else {
                self.generator.run(request)
            };
            let step = replies
                .map_err(|e: GeneratorError| CompactionError::Summarizer(e.message().to_owned()))
                .and_then(|replies| {
                    self.apply_summary(&compacted, &indices, &replies, current, counter)
                });
            match step {
                Ok((next, tokens)) => {
                    compacted = next;
                    current = tokens;
                    summarized = true;
                }
                Err(error) => {
                    if self.raise_on_failure {
                        return Err(error);
                    }
                    tracing::warn!(
                        "Summarizing the conversation for context compaction failed; keeping the last \
                         successful result. Error: {error}"
                    );
                    break;
                }
            }
        }
        Ok(summarized.then_some(compacted))
    }
}

fn at_least_two(summaries: &[usize], pick: impl Fn(&[Vec<usize>]) -> Vec<usize>) -> Vec<usize> {
    let groups: Vec<Vec<usize>> = summaries.iter().map(|&i| vec![i]).collect();
    let selected = pick(&groups);
    summaries[..selected.len().max(2)].to_vec()
}

fn previous_summaries(messages: &[ChatMessage], start: usize, end: usize) -> Vec<usize> {
    (start..end.max(start))
        .filter(|&i| is_compaction_message(&messages[i], STRATEGY, None))
        .collect()
}

/// `_replace_indices`: the summary at the oldest selected position.
fn replace_indices(
    messages: &[ChatMessage],
    indices: &[usize],
    summary: ChatMessage,
) -> Vec<ChatMessage> {
    let selected: std::collections::BTreeSet<usize> = indices.iter().copied().collect();
    let insertion = indices.iter().copied().min().unwrap_or(0);
    let mut out = Vec::with_capacity(messages.len());
    let mut summary = Some(summary);
    for (index, message) in messages.iter().enumerate() {
        if index == insertion
            && let Some(summary) = summary.take()
        {
            out.push(summary);
        }
        if !selected.contains(&index) {
            out.push(message.clone());
        }
    }
    out
}

/// `_summary_transcript`: earlier summaries as `[conversation_summary]`,
/// other messages with tool call ids and descriptive attachment stand-ins.
pub(crate) fn summary_transcript(messages: &[ChatMessage]) -> String {
    const RENDER: Render = Render {
        placeholder: attachment_placeholder,
        include_tool_call_ids: true,
    };
    let mut out = String::new();
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if is_compaction_message(message, STRATEGY, None) {
            let mut text = message.text().unwrap_or("");
            if text.starts_with(OPENING)
                && text.ends_with(CLOSING)
                && text.len() >= OPENING.len() + CLOSING.len()
            {
                text = text[OPENING.len()..text.len() - CLOSING.len()].trim();
            }
            out.push_str("[conversation_summary]\n");
            out.push_str(text);
            continue;
        }
        render_message(&mut out, message, &RENDER);
    }
    out
}

/// `_attachment_placeholder`: `<image: mime, k=v>` / `<file: name, mime, k=v>`.
fn attachment_placeholder(kind: &str, value: &Value) -> String {
    let or = |key: &str, default: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or(default)
            .to_owned()
    };
    let (tag, mut details, extra) = match kind {
        "image" => ("image", vec![or("mime_type", "unknown type")], "meta"),
        "file" => (
            "file",
            vec![or("filename", "unnamed"), or("mime_type", "unknown type")],
            "extra",
        ),
        other => return format!("<{}>", class_name(other)),
    };
    if let Some(Value::Object(map)) = value.get(extra) {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for key in keys {
            let shown = match &map[key] {
                Value::String(s) => s.clone(),
                Value::Bool(b) => if *b { "True" } else { "False" }.into(),
                Value::Number(n) => n
                    .as_i64()
                    .map(|i| i.to_string())
                    .or_else(|| n.as_u64().map(|u| u.to_string()))
                    .unwrap_or_else(|| float_repr(n.as_f64().unwrap_or(0.0))),
                _ => continue,
            };
            details.push(format!("{key}={shown}"));
        }
    }
    format!("<{tag}: {}>", details.join(", "))
}

/// Python's repr of `{"replies": [...]}` for text-only replies.
fn output_repr(replies: &[ChatMessage]) -> String {
    let items: Vec<String> = replies
        .iter()
        .map(|m| {
            let content: Vec<String> = m
                .content()
                .iter()
                .map(|part| match part {
                    ContentPart::Text(text) => {
                        format!("TextContent(text={})", repr(&Value::String(text.clone())))
                    }
                    ContentPart::ToolCall(call) => format!(
                        "ToolCall(tool_name={}, ...)",
                        repr(&Value::String(call.tool_name.clone()))
                    ),
                    ContentPart::ToolCallResult(_) => "ToolCallResult(...)".into(),
                    ContentPart::Other { kind, .. } => format!("{}(...)", class_name(kind)),
                })
                .collect();
            let role = m.role().as_str();
            format!(
                "ChatMessage(_role=<ChatRole.{}: '{role}'>, _content=[{}], _name={}, _meta={})",
                role.to_uppercase(),
                content.join(", "),
                m.name()
                    .map_or("None".into(), |n| repr(&Value::String(n.into()))),
                repr(&Value::Object(m.meta().clone()))
            )
        })
        .collect();
    format!("{{'replies': [{}]}}", items.join(", "))
}

impl Compactor for SummarizationCompactor {
    fn compact(
        &self,
        messages: &[ChatMessage],
        target_tokens: i64,
        counter: &dyn TokenCounter,
    ) -> Compacted {
        crate::future::block_on(self.compact_with(messages, target_tokens, counter, false))
    }

    fn compact_async<'a>(
        &'a self,
        messages: &'a [ChatMessage],
        target_tokens: i64,
        counter: &'a dyn TokenCounter,
    ) -> BoxFuture<'a, Compacted> {
        Box::pin(self.compact_with(messages, target_tokens, counter, true))
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("chat_generator".into(), self.generator_value.clone());
        init.insert("min_keep_steps".into(), Value::from(self.min_keep_steps));
        init.insert(
            "approximate_summary_tokens".into(),
            Value::from(self.approximate_summary_tokens),
        );
        init.insert(
            "summary_instruction".into(),
            Value::String(self.summary_instruction.clone()),
        );
        init.insert(
            "raise_on_failure".into(),
            Value::Bool(self.raise_on_failure),
        );
        component(Self::TYPE, init)
    }

    fn warm_up(&self) -> Result<(), CompactionError> {
        self.generator
            .warm_up()
            .map_err(|e| CompactionError::Other(e.message().to_owned()))
    }

    fn close(&self) -> Result<(), CompactionError> {
        self.generator
            .close()
            .map_err(|e| CompactionError::Other(e.message().to_owned()))
    }
}
