//! Model scripts: replies with text, tool calls, finish reasons, usages.

use crate::scripted::{FinishReason, ModelReply, ScriptedToolCall};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// The texts replies and messages are drawn from (`""` is an empty reply text).
pub(crate) const WORDS: &[&str] = &["done", "Here is what I found.", "", "partial", "ok"];

/// A tool name no generated tool has: calling it gives Haystack's
/// "not found" error result.
///
/// ```
/// use hookharness::strategies::{TOOL_NAMES, UNKNOWN_TOOL};
/// assert!(!TOOL_NAMES.contains(&UNKNOWN_TOOL));
/// ```
pub const UNKNOWN_TOOL: &str = "ghost";

/// A `usage` map as providers report it: token counts, sometimes a nested
/// `details` map, a model name, a boolean, a null or a float.
///
/// ```
/// use hookharness::strategies::usage;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// for _ in 0..16 {
///     let map = usage().new_tree(&mut runner).unwrap().current();
///     assert!(map.len() <= 4);
/// }
/// ```
pub fn usage() -> BoxedStrategy<Map<String, Value>> {
    let count = prop_oneof![
        6 => (0i64..50).prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::from),
        1 => (0i64..8).prop_map(|n| Value::from(n as f64 + 0.5)),
        1 => Just(Value::Null),
        1 => Just(Value::from("m1")),
    ];
    let details = prop::collection::vec(
        (
            prop::sample::select(&["cached_tokens", "reasoning_tokens"][..]),
            (0i64..20).prop_map(Value::from),
        ),
        0..3,
    )
    .prop_map(|entries| {
        Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    });
    let entry = prop_oneof![
        4 => (
            prop::sample::select(&["prompt_tokens", "completion_tokens", "total_tokens", "model"][..]),
            count,
        )
            .prop_map(|(k, v)| (k.to_owned(), v)),
        1 => details.prop_map(|v| ("details".to_owned(), v)),
    ];
    prop::collection::vec(entry, 0..5)
        .prop_map(|entries| entries.into_iter().collect())
        .boxed()
}

/// A scripted tool call to one of `tools` (or to an unknown tool), with
/// the default id.
fn tool_call(tools: Vec<String>) -> BoxedStrategy<ScriptedToolCall> {
    let mut names = tools;
    names.push(UNKNOWN_TOOL.to_owned());
    let arguments = prop_oneof![
        Just(Map::new()),
        prop::sample::select(WORDS).prop_map(|w| {
            let mut map = Map::new();
            map.insert("query".into(), w.into());
            map
        }),
    ];
    (prop::sample::select(names), arguments)
        .prop_map(|(tool, arguments)| ScriptedToolCall {
            tool,
            arguments: arguments.into(),
            id: None,
        })
        .boxed()
}

/// One reply of a model script: text and/or calls to `tools` (sometimes an
/// unknown tool), an optional usage and finish reason; an empty reply now
/// and then; a generator error when `errors` is set.
///
/// ```
/// use hookharness::scripted::ModelReply;
/// use hookharness::strategies::model_reply;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// let strategy = model_reply(vec!["search".into()], false);
/// for _ in 0..32 {
///     let reply = strategy.new_tree(&mut runner).unwrap().current();
///     assert!(!matches!(reply, ModelReply::Error(_)));
/// }
/// ```
pub fn model_reply(tools: Vec<String>, errors: bool) -> BoxedStrategy<ModelReply> {
    let finish = prop_oneof![
        6 => Just(None),
        1 => Just(Some(FinishReason::Stop)),
        1 => Just(Some(FinishReason::Length)),
        1 => Just(Some(FinishReason::ContentFilter)),
        1 => Just(Some(FinishReason::ToolCalls)),
    ];
    let text = prop_oneof![
        1 => Just(None),
        3 => prop::sample::select(WORDS).prop_map(|w| Some(w.to_owned())),
    ];
    let calls = prop_oneof![
        1 => Just(Vec::new()),
        1 => prop::collection::vec(tool_call(tools), 1..3),
    ];
    let usage = prop_oneof![1 => Just(None), 2 => usage().prop_map(Some)];
    let reply =
        (text, calls, usage, finish).prop_map(|(text, tool_calls, usage, finish_reason)| {
            ModelReply::Reply {
                text,
                tool_calls,
                usage,
                finish_reason,
                chunks: None,
            }
        });
    if !errors {
        return reply.boxed();
    }
    prop_oneof![
        20 => reply,
        1 => Just(ModelReply::Error("rate limited".to_owned())),
    ]
    .boxed()
}

/// A model script of `len` replies (see [`model_reply`]).
///
/// ```
/// use hookharness::strategies::model_script;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// let script = model_script(vec![], 3, false).new_tree(&mut runner).unwrap().current();
/// assert_eq!(script.len(), 3);
/// ```
pub fn model_script(
    tools: Vec<String>,
    len: usize,
    errors: bool,
) -> BoxedStrategy<Vec<ModelReply>> {
    prop::collection::vec(model_reply(tools, errors), len).boxed()
}
