//! `CompactionHook` (§10.2): the approximate counter, the hook's trigger,
//! target and `context_tokens` rules, the four compactors, the serialized
//! form and the error texts, pinned to what Haystack 3.4.1 gives for the
//! same input.
//!
//! `tests/fixtures/compaction/cases.json` holds compactor inputs with
//! Haystack's results, written by `generate.py` beside it from the
//! reference environment.

use hookharness::hooks::compaction::{
    ApproximateTokenCounter, Compacted, CompactionError, CompactionHook, Compactor,
    ScriptedSummarizer, SlidingWindowCompactor, SummarizationCompactor, SummaryReply, TokenCounter,
    ToolResultOffloadCompactor, ToolResultPruningCompactor, compactor_from_value,
};
use hookharness::hooks::offload::{InMemoryToolResultStore, StoredContent};
use hookharness::hooks::{CompactionHook as Reexported, FromValueError};
use hookharness::scripted::{ModelReply, ScriptedChatGenerator, ScriptedToolCall};
use hookharness::state::{StateSchema, ValueType};
use hookharness::{
    Agent, ChatMessage, Hook, RunOptions, State, ToolCall, ToolSpec, generator_fn, tool_fn,
};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};

fn messages_from(value: &Value) -> Vec<ChatMessage> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|m| ChatMessage::from_value(m).unwrap())
        .collect()
}

fn values(messages: &[ChatMessage]) -> Value {
    Value::Array(messages.iter().map(ChatMessage::to_value).collect())
}

#[test]
fn every_compactor_gives_haystacks_result_on_the_reference_cases() {
    let cases: Value =
        serde_json::from_str(include_str!("fixtures/compaction/cases.json")).unwrap();
    let counter = ApproximateTokenCounter::default();
    assert_eq!(cases.as_array().unwrap().len(), 30);
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let messages = messages_from(&case["messages"]);
        let target = case["target"].as_i64().unwrap();
        let spec = &case["compactor"];
        let (result, summarizer): (Compacted, _) = if spec["type"] == SummarizationCompactor::TYPE {
            let compactor = SummarizationCompactor::from_value(spec, "compactor").unwrap();
            let result = compactor.compact(&messages, target, &counter);
            (result, compactor.summarizer().cloned())
        } else {
            let compactor = compactor_from_value(spec, "compactor").unwrap();
            assert_eq!(compactor.to_value()["type"], spec["type"], "{name}");
            (compactor.compact(&messages, target, &counter), None)
        };
        let result = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = result.as_deref().map_or(Value::Null, values);
        assert_eq!(got, case["expected"], "{name}");
        if let Some(summarizer) = summarizer {
            let prompts: Vec<Value> = summarizer.prompts().iter().map(|p| values(p)).collect();
            assert_eq!(Value::Array(prompts), case["prompts"], "{name}: prompts");
        }
    }
}

#[test]
fn the_offload_compactor_writes_what_haystack_writes_under_counter_suffixed_keys() {
    let cases: Value =
        serde_json::from_str(include_str!("fixtures/compaction/cases.json")).unwrap();
    let counter = ApproximateTokenCounter::default();
    for case in cases.as_array().unwrap() {
        if case["compactor"]["type"] != ToolResultOffloadCompactor::TYPE {
            continue;
        }
        let compactor =
            ToolResultOffloadCompactor::from_value(&case["compactor"], "compactor").unwrap();
        let messages = messages_from(&case["messages"]);
        compactor
            .compact(&messages, case["target"].as_i64().unwrap(), &counter)
            .unwrap();
        for (key, text) in case["stored"].as_object().unwrap() {
            assert_eq!(
                compactor.store().read(&format!("memory://{key}")).unwrap(),
                StoredContent::Text(text.as_str().unwrap().into()),
                "{key}"
            );
        }
    }
}

// --- ApproximateTokenCounter ---------------------------------------------

fn image(mime: &str) -> Value {
    json!({"image": {"base64_image": "aGk=", "mime_type": mime, "detail": null, "meta": {}, "validation": true}})
}

#[test]
fn the_approximate_count_renders_roles_calls_results_and_attachments_as_haystack() {
    let call = ToolCall {
        id: Some("c1".into()),
        tool_name: "search".into(),
        arguments: json!({"q": "é fusion", "a": 1.0, "z": [true, null]})
            .as_object()
            .unwrap()
            .clone(),
        extra: None,
    };
    let mixed = ChatMessage::from_value(&json!({"role": "user", "meta": {}, "name": null, "content": [
        {"text": "look"}, image("image/png"),
        {"file": {"base64_data": "aGk=", "mime_type": "application/pdf", "filename": "r.pdf", "extra": {}, "validation": true}}
    ]}))
    .unwrap();
    let parts_result = ChatMessage::from_value(&json!({"role": "tool", "meta": {}, "name": null, "content": [
        {"tool_call_result": {"result": [{"text": "part"}, image("image/png")], "origin": {"tool_name": "search", "arguments": {}, "id": "c1", "extra": null}, "error": false}}
    ]}))
    .unwrap();
    let messages = vec![
        ChatMessage::from_system("Be brief."),
        ChatMessage::from_user("hi ✓ 😀"),
        ChatMessage::from_assistant_parts(Some(String::new()), vec![call.clone()]),
        ChatMessage::from_tool("result text", call.clone(), false),
        ChatMessage::from_tool("bad", call, true),
        ChatMessage::from_assistant_parts(None, vec![]),
        mixed,
        parts_result,
    ];
    let search: Arc<dyn hookharness::Tool> = Arc::new(tool_fn(
        ToolSpec::new("search")
            .description("Search ü")
            .parameters(json!({"type": "object", "properties": {"q": {"type": "string"}}})),
        |_| Ok(json!("")),
    ));
    // ApproximateTokenCounter().count(...) in Haystack 3.4.1: the rendering is
    // 281 characters, the tool schemas 127; 2 images and 1 file.
    let counter = ApproximateTokenCounter::default();
    assert_eq!(counter.count(&messages, &[]), 1240);
    assert_eq!(
        counter.count(&messages, std::slice::from_ref(&search)),
        1272
    );
    assert_eq!(counter.count(&[], std::slice::from_ref(&search)), 31);
    assert_eq!(counter.count(&[], &[]), 0);
    let ratio = ApproximateTokenCounter::from_value(
        &json!({"type": ApproximateTokenCounter::TYPE, "init_parameters": {"chars_per_token": 3.3}}),
        "token_counter",
    )
    .unwrap();
    assert_eq!(ratio.count(&messages, &[]), 1255);
}

#[test]
fn a_non_positive_chars_per_token_is_haystacks_value_error() {
    let err = ApproximateTokenCounter::from_value(
        &json!({"type": ApproximateTokenCounter::TYPE, "init_parameters": {"chars_per_token": 0}}),
        "token_counter",
    )
    .unwrap_err();
    assert_eq!(
        err,
        FromValueError::Invalid("`chars_per_token` must be greater than 0, got 0.".into())
    );
}

// --- CompactionHook ------------------------------------------------------

#[test]
fn the_serialized_form_is_haystacks() {
    let hook = CompactionHook::new(SlidingWindowCompactor::default(), 1000).unwrap();
    // CompactionHook(SlidingWindowCompactor(), context_window=1000).to_dict() in Haystack 3.4.1.
    let expected = json!({"type": "haystack.hooks.compaction.hooks.CompactionHook", "init_parameters": {"compactor": {"type": "haystack.hooks.compaction.sliding_window.SlidingWindowCompactor", "init_parameters": {"min_keep_steps": 1, "omission_note": "[{num_removed} earlier messages were removed from this conversation to free up context and cannot be recovered.]"}}, "context_window": 1000, "compact_at": 0.7, "compact_to": 0.4, "token_counter": {"type": "haystack.token_counters.approximate_counter.ApproximateTokenCounter", "init_parameters": {"chars_per_token": 4.0, "tokens_per_image": 85, "tokens_per_file": 1000}}}});
    assert_eq!(hook.to_value(), expected);
    assert_eq!(
        Reexported::from_value(&expected).unwrap().to_value(),
        expected
    );
    // ToolResultPruningCompactor().to_dict().
    assert_eq!(
        ToolResultPruningCompactor::default().to_value(),
        json!({"type": "haystack.hooks.compaction.tool_result_pruning.ToolResultPruningCompactor", "init_parameters": {"min_keep_steps": 1, "min_tokens": 200, "placeholder": "[Tool result removed to free up context. Call `{tool_name}` again if you need it.]", "skip_meta_keys": ["tool_result_offloaded"]}})
    );
}

#[test]
fn every_compactor_round_trips_through_its_serialized_form() {
    for spec in [
        json!({"type": SlidingWindowCompactor::TYPE, "init_parameters": {"min_keep_steps": 0, "omission_note": null}}),
        json!({"type": ToolResultPruningCompactor::TYPE, "init_parameters": {"min_keep_steps": 2, "min_tokens": 0, "placeholder": "gone", "skip_meta_keys": []}}),
        json!({"type": ToolResultOffloadCompactor::TYPE, "init_parameters": {"store": {"type": InMemoryToolResultStore::TYPE, "init_parameters": {}}, "min_keep_steps": 1, "min_tokens": 5, "preview_chars": 0}}),
        json!({"type": SummarizationCompactor::TYPE, "init_parameters": {"chat_generator": {"type": ScriptedSummarizer::TYPE, "init_parameters": {"replies": ["a", null, {"error": "e"}]}}, "min_keep_steps": 0, "approximate_summary_tokens": 1, "summary_instruction": "Summarize.", "raise_on_failure": true}}),
    ] {
        assert_eq!(
            compactor_from_value(&spec, "compactor").unwrap().to_value(),
            spec
        );
    }
}

#[test]
fn constructor_errors_are_haystacks_words() {
    let invalid = |params: Value| match CompactionHook::from_params(&params).unwrap_err() {
        FromValueError::Invalid(message) => message,
        other => panic!("not a constructor error: {other}"),
    };
    let sliding = json!({"type": SlidingWindowCompactor::TYPE});
    assert_eq!(
        invalid(json!({"compactor": sliding, "context_window": 0})),
        "`context_window` must be a positive number of tokens, got 0."
    );
    assert_eq!(
        invalid(
            json!({"compactor": sliding, "context_window": 10, "compact_at": 0.4, "compact_to": 0.4})
        ),
        "`compact_at` and `compact_to` must satisfy 0 < compact_to < compact_at <= 1, got compact_at=0.4 and compact_to=0.4. A target at or above the trigger would leave the conversation over the trigger after compacting, so it would be attempted again every step."
    );
    assert!(
        invalid(json!({"compactor": sliding, "context_window": 10, "compact_at": 1.5}))
            .contains("got compact_at=1.5 and compact_to=0.4.")
    );
    assert!(
        CompactionHook::from_params(
            &json!({"compactor": sliding, "context_window": 10, "compact_at": 1, "compact_to": 0.5})
        )
        .is_ok()
    );
    let compactor = |spec: Value| invalid(json!({"compactor": spec, "context_window": 10}));
    assert_eq!(
        compactor(
            json!({"type": SlidingWindowCompactor::TYPE, "init_parameters": {"min_keep_steps": -1}})
        ),
        "`min_keep_steps` must be at least 0, got -1."
    );
    assert_eq!(
        compactor(
            json!({"type": ToolResultPruningCompactor::TYPE, "init_parameters": {"min_keep_steps": 0}})
        ),
        "`min_keep_steps` must be at least 1, got 0. The most recent tool-calling step contains results the model may still need."
    );
    assert_eq!(
        compactor(
            json!({"type": ToolResultPruningCompactor::TYPE, "init_parameters": {"min_tokens": -1}})
        ),
        "`min_tokens` must be at least 0, got -1."
    );
    assert_eq!(
        compactor(
            json!({"type": ToolResultOffloadCompactor::TYPE, "init_parameters": {"store": {"type": InMemoryToolResultStore::TYPE}, "preview_chars": -1}})
        ),
        "`preview_chars` must be at least 0, got -1."
    );
    assert_eq!(
        compactor(
            json!({"type": SummarizationCompactor::TYPE, "init_parameters": {"chat_generator": {"type": ScriptedSummarizer::TYPE, "init_parameters": {"replies": []}}, "approximate_summary_tokens": 0}})
        ),
        "`approximate_summary_tokens` must be a positive number of tokens, got 0."
    );
}

#[test]
fn an_unknown_compactor_or_counter_is_a_file_error_naming_the_path() {
    let err =
        CompactionHook::from_params(&json!({"compactor": {"type": "x.Y"}, "context_window": 10}))
            .unwrap_err();
    assert!(matches!(err, FromValueError::Format { .. }));
    assert!(
        err.to_string()
            .starts_with("unknown compactor type `x.Y` at `compaction.compactor`")
    );
    let err = CompactionHook::from_params(&json!({
        "compactor": {"type": SlidingWindowCompactor::TYPE}, "context_window": 10,
        "token_counter": {"type": "haystack.token_counters.openai_counter.OpenAITokenCounter"}
    }))
    .unwrap_err();
    assert!(err.to_string().contains("unknown token counter type"));
}

/// Records each call's target and returns a fixed result.
struct Recording {
    targets: Arc<Mutex<Vec<(usize, i64)>>>,
    out: Option<Vec<ChatMessage>>,
}

impl Compactor for Recording {
    fn compact(&self, messages: &[ChatMessage], target: i64, _: &dyn TokenCounter) -> Compacted {
        self.targets.lock().unwrap().push((messages.len(), target));
        Ok(self.out.clone())
    }
}

fn fusion_call() -> ToolCall {
    ToolCall::new(
        "search",
        json!({"query": "fusion"}).as_object().unwrap().clone(),
    )
    .with_id("c1")
}

/// The conversation of the hook experiments: 135 tokens (168 with the tool schema).
fn fusion() -> Vec<ChatMessage> {
    vec![
        ChatMessage::from_system("Be brief."),
        ChatMessage::from_user("What is new in fusion energy research this year?"),
        ChatMessage::from_assistant_parts(None, vec![fusion_call()]),
        ChatMessage::from_tool("x".repeat(400), fusion_call(), false),
    ]
}

/// `(compactor calls, context_tokens after, message count after)` for the
/// hook (window 200, 0.7 / 0.4) on `fusion()` without tools.
fn run_hook(context_tokens: i64, out: Option<Vec<ChatMessage>>) -> (Vec<(usize, i64)>, i64, usize) {
    run_hook_in(200, context_tokens, out)
}

fn run_hook_in(
    window: i64,
    context_tokens: i64,
    out: Option<Vec<ChatMessage>>,
) -> (Vec<(usize, i64)>, i64, usize) {
    let targets = Arc::new(Mutex::new(Vec::new()));
    let hook = CompactionHook::new(
        Recording {
            targets: targets.clone(),
            out,
        },
        window,
    )
    .unwrap();
    let mut state = State::new(StateSchema::new().key("context_tokens", ValueType::Int));
    state.append_messages(fusion()).unwrap();
    state
        .data_mut()
        .insert("context_tokens".into(), json!(context_tokens));
    hook.run(&mut state).unwrap();
    let calls = targets.lock().unwrap().clone();
    let tokens = state.data()["context_tokens"].as_i64().unwrap();
    (calls, tokens, state.messages().len())
}

#[test]
fn without_provider_counts_the_whole_conversation_is_counted_and_context_tokens_stays_zero() {
    // 135 tokens < 0.7 * 200: no trigger (no tools in this state).
    assert_eq!(run_hook(0, None), (vec![], 0, 4));
    // Window 190: 135 >= 133 triggers; no overhead, target int(190 * 0.4) = 76.
    // The compacted conversation replaces the old one; context_tokens stays 0.
    assert_eq!(
        run_hook_in(190, 0, Some(vec![fusion()[1].clone()])),
        (vec![(4, 76)], 0, 1)
    );
}

#[test]
fn with_provider_counts_only_the_messages_after_the_last_assistant_message_are_added() {
    // estimate 60 + 103 = 163 >= 140; overhead 163 - 135 = 28; target 80 - 28 = 52.
    assert_eq!(run_hook(60, None), (vec![(4, 52)], 60, 4));
    // The compacted conversation up to its last assistant message (22) + overhead.
    let kept = vec![
        fusion()[0].clone(),
        fusion()[1].clone(),
        ChatMessage::from_assistant("done"),
    ];
    assert_eq!(run_hook(60, Some(kept)), (vec![(4, 52)], 50, 3));
    // No assistant message left: all of it (13) + overhead.
    assert_eq!(
        run_hook(60, Some(vec![fusion()[1].clone()])),
        (vec![(4, 52)], 41, 1)
    );
    // A negative budget clamps the target to 0; overhead 303 - 135 = 168.
    assert_eq!(
        run_hook(200, Some(fusion()[..3].to_vec())),
        (vec![(4, 0)], 199, 3)
    );
}

#[test]
fn in_a_run_the_first_estimate_includes_the_tool_schemas() {
    let targets = Arc::new(Mutex::new(Vec::new()));
    let hook = CompactionHook::new(
        Recording {
            targets: targets.clone(),
            out: None,
        },
        200,
    )
    .unwrap();
    let search = tool_fn(
        ToolSpec::new("search")
            .description("Search the web")
            .parameters(json!({"type": "object", "properties": {"query": {"type": "string"}}})),
        |_| Ok(json!("x".repeat(400))),
    );
    let agent = Agent::builder()
        .chat_generator(ScriptedChatGenerator::new([
            ModelReply::Reply {
                text: None,
                tool_calls: vec![
                    ScriptedToolCall::new(
                        "search",
                        json!({"query": "fusion"}).as_object().unwrap().clone(),
                    )
                    .with_id("c1"),
                ],
                usage: None,
                finish_reason: None,
                chunks: None,
            },
            ModelReply::text("done"),
        ]))
        .tool(search)
        .system_prompt("Be brief.")
        .hook("before_llm", hook)
        .build()
        .unwrap();
    agent
        .run(
            vec![ChatMessage::from_user(
                "What is new in fusion energy research this year?",
            )],
            RunOptions::new(),
        )
        .unwrap();
    // Step 1: 135 + 33 for the schema = 168 >= 140; target 80 - 33 = 47, as in Haystack.
    assert_eq!(*targets.lock().unwrap(), vec![(4, 47)]);
}

#[test]
fn the_hook_may_only_be_registered_before_llm() {
    let hook = CompactionHook::new(SlidingWindowCompactor::default(), 100).unwrap();
    let err = Agent::builder()
        .chat_generator(generator_fn(|_| Ok(vec![ChatMessage::from_assistant("x")])))
        .hook("after_tool", hook)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("before_llm"), "{err}");
}

#[test]
fn warm_up_and_close_reach_the_counter_and_then_the_compactor() {
    struct Lifecycle(Arc<Mutex<Vec<&'static str>>>);
    impl TokenCounter for Lifecycle {
        fn count(&self, _: &[ChatMessage], _: &[Arc<dyn hookharness::Tool>]) -> i64 {
            0
        }
        fn warm_up(&self) {
            self.0.lock().unwrap().push("counter.warm_up");
        }
        fn close(&self) {
            self.0.lock().unwrap().push("counter.close");
        }
    }
    impl Compactor for Lifecycle {
        fn compact(&self, _: &[ChatMessage], _: i64, _: &dyn TokenCounter) -> Compacted {
            Ok(None)
        }
        fn warm_up(&self) -> Result<(), CompactionError> {
            self.0.lock().unwrap().push("compactor.warm_up");
            Ok(())
        }
        fn close(&self) -> Result<(), CompactionError> {
            self.0.lock().unwrap().push("compactor.close");
            Ok(())
        }
    }
    let log = Arc::new(Mutex::new(Vec::new()));
    let hook = CompactionHook::new(Lifecycle(log.clone()), 100)
        .unwrap()
        .token_counter(Lifecycle(log.clone()));
    hook.warm_up().unwrap();
    hook.close().unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "counter.warm_up",
            "compactor.warm_up",
            "counter.close",
            "compactor.close"
        ]
    );
}

// --- SummarizationCompactor ----------------------------------------------

fn long_history() -> Vec<ChatMessage> {
    vec![
        ChatMessage::from_system("s"),
        ChatMessage::from_user(format!("old {}", "x".repeat(400))),
        ChatMessage::from_assistant("a"),
        ChatMessage::from_user("now"),
    ]
}

#[test]
fn a_scripted_summarizer_that_runs_out_fails_whatever_raise_on_failure_says() {
    let summarizer = Arc::new(ScriptedSummarizer::new([]));
    let compactor = SummarizationCompactor::scripted(summarizer);
    let err = compactor
        .compact(&long_history(), 10, &ApproximateTokenCounter::default())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the scripted summarizer has no reply left for summary call 0: it scripts 0 replies"
    );
}

#[test]
fn with_raise_on_failure_a_failed_summary_fails_the_hook_with_haystacks_words() {
    let counter = ApproximateTokenCounter::default();
    let run = |reply: SummaryReply| {
        SummarizationCompactor::scripted(Arc::new(ScriptedSummarizer::new([reply])))
            .raise_on_failure(true)
            .compact(&long_history(), 10, &counter)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        run(SummaryReply::Error("rate limited".into())),
        "rate limited"
    );
    assert_eq!(
        run(SummaryReply::Nothing),
        "The Chat Generator returned no usable text to use as a conversation summary. Generator output: {'replies': []}."
    );
    assert_eq!(
        run(SummaryReply::Text("  ".into())),
        "The Chat Generator returned no usable text to use as a conversation summary. Generator output: {'replies': [ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[TextContent(text='  ')], _name=None, _meta={})]}."
    );
    assert_eq!(
        run(SummaryReply::Text("y".repeat(2000))),
        "The generated summary did not reduce the conversation size (111 tokens before and 519 tokens after)."
    );
}

#[test]
fn the_async_path_summarizes_as_the_sync_path_does() {
    let counter = ApproximateTokenCounter::default();
    let make = || {
        SummarizationCompactor::scripted(Arc::new(ScriptedSummarizer::new([SummaryReply::Text(
            "- old question".into(),
        )])))
    };
    let sync = make().compact(&long_history(), 10, &counter).unwrap();
    let compactor = make();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let asynchronous = runtime
        .block_on(compactor.compact_async(&long_history(), 10, &counter))
        .unwrap();
    assert_eq!(sync, asynchronous);
    let summary = &sync.unwrap()[1];
    assert_eq!(
        summary.text(),
        Some("<conversation_summary>\n- old question\n</conversation_summary>")
    );
    assert_eq!(
        summary.meta()["context_compaction"],
        json!({"strategy": "summarization", "summarized_messages": 2})
    );
}

#[test]
fn a_compaction_note_is_a_user_message_with_the_marker_of_its_strategy() {
    let mut messages = vec![ChatMessage::from_system("s")];
    for i in 0..3 {
        messages.push(ChatMessage::from_user(format!("q{i} {}", "x".repeat(100))));
        messages.push(ChatMessage::from_assistant(format!("a{i}")));
    }
    messages.push(ChatMessage::from_user("task"));
    let out = SlidingWindowCompactor::default()
        .compact(&messages, 50, &ApproximateTokenCounter::default())
        .unwrap()
        .unwrap();
    let note = &out[1];
    assert_eq!(note.role(), hookharness::ChatRole::User);
    assert_eq!(
        note.text(),
        Some(
            "[4 earlier messages were removed from this conversation to free up context and cannot be recovered.]"
        )
    );
    let mut marker = Map::new();
    marker.insert(
        "context_compaction".into(),
        json!({"strategy": "sliding_window", "removed_messages": 4, "kept_messages": 4}),
    );
    assert_eq!(note.meta(), &marker);
}

/// `approximate_summary_tokens` past what the conversation could ever hold
/// (a file may give any integer; Python's do not overflow): the summarizer
/// selects every group, and the run goes on as Haystack's does (the
/// estimate added to the remaining count overflowed 64 bits before).
#[test]
fn a_summary_estimate_at_the_largest_integer_selects_every_group() {
    let text = include_str!("../scenarios/ready_made/compaction_summarization.yaml").replace(
        "approximate_summary_tokens: 30",
        "approximate_summary_tokens: 9223372036854775807",
    );
    assert!(text.contains("9223372036854775807"));
    let scenario = hookharness::scenario::Scenario::from_str(
        &text,
        "huge_estimate.yaml",
        hookharness::scenario::Format::Yaml,
    )
    .unwrap();
    let outcome = hookharness::replay::Replay::new().run(&scenario);
    assert!(outcome.passed(), "{outcome:?}");
}
