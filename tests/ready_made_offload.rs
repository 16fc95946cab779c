//! `ToolResultOffloadHook` (§10.4): pointer texts, keys, stores and the
//! serialized form, pinned to what Haystack 3.4.1 produces for the same input.

use hookharness::hooks::offload::{
    AlwaysOffload, FileSystemToolResultStore, InMemoryToolResultStore, NeverOffload,
    OffloadOverChars, StoredContent, ToolResultOffloadHook, ToolResultStore, set_context_store,
};
use hookharness::hooks::{FromValueError, ToolKey};
use hookharness::scripted::{ModelReply, ScriptedChatGenerator};
use hookharness::state::{HookContext, StateSchema};
use hookharness::{Agent, ChatMessage, Hook, RunOptions, State, ToolCall, ToolSpec, tool_fn};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::Arc;

fn call(tool: &str, id: Option<&str>) -> ToolCall {
    let call = ToolCall::new(tool, Map::new());
    match id {
        Some(id) => call.with_id(id),
        None => call,
    }
}

fn part(value: Value) -> hookharness::ContentPart {
    ChatMessage::from_value(&json!({"role": "user", "content": [value], "meta": {}, "name": null}))
        .unwrap()
        .content()[0]
        .clone()
}

fn temp_root(name: &str) -> PathBuf {
    let root =
        std::env::temp_dir().join(format!("hookharness-offload-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    root
}

/// The state after `hook` ran on `messages` at `step_count` 2.
fn run_on(hook: &ToolResultOffloadHook, messages: Vec<ChatMessage>) -> State {
    let mut state = State::new(StateSchema::new());
    state.data_mut().insert("step_count".into(), json!(2));
    state.append_messages(messages).unwrap();
    hook.run(&mut state).unwrap();
    state
}

fn result_text(message: &ChatMessage) -> &str {
    message
        .tool_call_result()
        .unwrap()
        .result
        .as_text()
        .unwrap()
}

#[test]
fn the_pointers_keys_and_files_match_haystacks_for_text_and_multi_block_results() {
    let root = temp_root("blocks");
    let hook = ToolResultOffloadHook::new(FileSystemToolResultStore::new(&root))
        .strategy("*", AlwaysOffload)
        .preview_chars(5);
    let mut with_meta = Map::new();
    with_meta.insert("k".into(), json!(1));
    let blocks = hookharness::ToolResult::Parts(vec![
        hookharness::ContentPart::Text("hello world".into()),
        part(
            json!({"image": {"base64_image": "aGk=", "mime_type": "image/png", "detail": null, "meta": {}, "validation": true}}),
        ),
        part(
            json!({"file": {"base64_data": "aGVsbG8=", "mime_type": "application/pdf", "filename": "r.pdf", "extra": {}, "validation": true}}),
        ),
    ]);
    let state = run_on(
        &hook,
        vec![
            ChatMessage::from_user("go"),
            ChatMessage::from_assistant_parts(
                None,
                vec![call("search", Some("a")), call("search", None)],
            ),
            ChatMessage::from_tool("plain", call("search", Some("a")), false).with_meta(with_meta),
            ChatMessage::from_tool(blocks, call("search", None), false),
        ],
    );
    let r = root.display();
    let messages = state.messages();
    // Haystack 3.4.1, FileSystemToolResultStore(root="/tmp/hh-pin"), step_count 2, preview_chars 5.
    assert_eq!(
        result_text(&messages[2]),
        format!(
            "Tool result offloaded to text (5 characters) at '{r}/2_search_a.txt'. Preview: plain"
        )
    );
    assert_eq!(
        Value::Object(messages[2].meta().clone()),
        json!({"k": 1, "tool_result_offloaded": [format!("{r}/2_search_a.txt")]})
    );
    assert_eq!(
        result_text(&messages[3]),
        format!(
            "Tool result offloaded to 3 files:\n\
             1. text (11 characters) at '{r}/2_search_call1_0.txt'. Preview: hello...\n\
             2. image/png (2 bytes) at '{r}/2_search_call1_1.png'\n\
             3. application/pdf named 'r.pdf' (5 bytes) at '{r}/2_search_call1_2.pdf'"
        )
    );
    assert_eq!(
        std::fs::read(root.join("2_search_call1_1.png")).unwrap(),
        b"hi"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("2_search_call1_2.pdf")).unwrap(),
        "hello"
    );
}

#[test]
fn a_tool_name_that_would_escape_the_root_leaves_the_result_in_context() {
    let root = temp_root("escape");
    let hook = ToolResultOffloadHook::new(FileSystemToolResultStore::new(&root))
        .strategy("*", AlwaysOffload);
    let original = ChatMessage::from_tool(
        "../../../../escape",
        call("../../../../x", Some("z")),
        false,
    );
    let state = run_on(&hook, vec![ChatMessage::from_user("go"), original.clone()]);
    assert_eq!(state.messages()[1], original);
    assert!(!root.exists() || std::fs::read_dir(&root).unwrap().next().is_none());
}

#[test]
fn a_call_id_with_a_nul_byte_or_an_absolute_path_never_writes_outside_the_root() {
    let root = temp_root("ids");
    let hook = ToolResultOffloadHook::new(FileSystemToolResultStore::new(&root))
        .strategy("*", AlwaysOffload);
    for id in ["a\0b", "/../../../../../../tmp/evil", "x/../../../evil"] {
        let original = ChatMessage::from_tool("content", call("t", Some(id)), false);
        let state = run_on(&hook, vec![original.clone()]);
        assert_eq!(state.messages()[0], original, "{id:?}");
    }
    assert!(!std::env::temp_dir().join("evil.txt").exists());
}

#[test]
fn only_the_trailing_block_is_offloaded_and_errors_and_offloaded_results_stay() {
    let store = Arc::new(InMemoryToolResultStore::new());
    let hook = ToolResultOffloadHook::with_shared_store(store.clone()).strategy("*", AlwaysOffload);
    let mut offloaded = Map::new();
    offloaded.insert("tool_result_offloaded".into(), json!(["memory://old"]));
    let earlier = ChatMessage::from_tool("earlier", call("t", Some("e")), false);
    let state = run_on(
        &hook,
        vec![
            earlier.clone(),
            ChatMessage::from_assistant("between"),
            ChatMessage::from_tool("boom", call("t", Some("x")), true),
            ChatMessage::from_tool("done before", call("t", Some("y")), false).with_meta(offloaded),
            ChatMessage::from_tool("fresh", call("t", None), false),
        ],
    );
    assert_eq!(state.messages()[0], earlier);
    assert_eq!(store.keys(), vec!["2_t_call2.txt"]);
    assert_eq!(
        result_text(&state.messages()[4]),
        "Tool result offloaded to text (5 characters) at 'memory://2_t_call2.txt'. Preview: fresh"
    );
}

#[test]
fn policies_are_looked_up_by_name_then_tuple_then_wildcard() {
    let store = Arc::new(InMemoryToolResultStore::new());
    let hook = ToolResultOffloadHook::with_shared_store(store.clone())
        .strategy("*", AlwaysOffload)
        .strategy(["a", "b"], OffloadOverChars::new(3))
        .strategy("b", NeverOffload);
    run_on(
        &hook,
        vec![
            ChatMessage::from_tool("four", call("a", Some("1")), false),
            ChatMessage::from_tool("four", call("b", Some("2")), false),
            ChatMessage::from_tool("x", call("c", Some("3")), false),
        ],
    );
    assert_eq!(store.keys(), vec!["2_a_1.txt", "2_c_3.txt"]);
}

#[test]
fn a_store_in_hook_context_overrides_the_hooks_store_for_that_run() {
    let own = Arc::new(InMemoryToolResultStore::new());
    let per_run = Arc::new(InMemoryToolResultStore::new());
    let hook =
        ToolResultOffloadHook::with_shared_store(own.clone()).strategy("search", AlwaysOffload);
    let search = tool_fn(ToolSpec::new("search"), |_args: &Map<String, Value>| {
        Ok(json!("results"))
    });
    let agent = Agent::builder()
        .chat_generator(ScriptedChatGenerator::new([
            ModelReply::tool_call("search", json!({})),
            ModelReply::text("done"),
        ]))
        .tool(search)
        .hook("after_tool", hook)
        .build()
        .unwrap();
    let mut context = HookContext::new();
    set_context_store(&mut context, per_run.clone());
    let options = RunOptions::new().hook_context(context);
    let output = agent
        .run(vec![ChatMessage::from_user("go")], options)
        .unwrap();
    assert!(own.keys().is_empty());
    assert_eq!(per_run.keys(), vec!["0_search_call_0_0.txt"]);
    assert_eq!(
        per_run.read("memory://0_search_call_0_0.txt").unwrap(),
        StoredContent::Text("results".into())
    );
    assert_eq!(
        result_text(&output.messages[2]),
        "Tool result offloaded to text (7 characters) at 'memory://0_search_call_0_0.txt'. Preview: results"
    );
}

#[test]
fn the_serialized_form_is_haystacks_with_tuple_keys_as_json_array_strings() {
    let hook = ToolResultOffloadHook::new(FileSystemToolResultStore::new("/tmp/xx"))
        .strategy("a", AlwaysOffload)
        .strategy(
            ToolKey::Names(vec!["b".into(), "é".into()]),
            OffloadOverChars::new(3),
        )
        .strategy("*", NeverOffload)
        .preview_chars(5);
    // ToolResultOffloadHook(...).to_dict() in Haystack 3.4.1, same arguments.
    let haystack = json!({"type": "haystack.hooks.tool_result_offloading.hooks.ToolResultOffloadHook", "init_parameters": {"store": {"type": "haystack.hooks.tool_result_offloading.stores.FileSystemToolResultStore", "init_parameters": {"root": "/tmp/xx"}}, "offload_strategies": {"a": {"type": "haystack.hooks.tool_result_offloading.policies.AlwaysOffload", "init_parameters": {}}, "[\"b\", \"\\u00e9\"]": {"type": "haystack.hooks.tool_result_offloading.policies.OffloadOverChars", "init_parameters": {"threshold": 3}}, "*": {"type": "haystack.hooks.tool_result_offloading.policies.NeverOffload", "init_parameters": {}}}, "preview_chars": 5}});
    assert_eq!(hook.to_value(), haystack);
    assert_eq!(
        serde_json::to_string(&hook.to_value()).unwrap(),
        serde_json::to_string(&haystack).unwrap()
    );
    let again = ToolResultOffloadHook::from_value(&haystack).unwrap();
    assert_eq!(again.to_value(), haystack);
}

#[test]
fn reading_a_serialized_hook_names_what_is_wrong() {
    let err = ToolResultOffloadHook::from_value(&json!({
        "type": "haystack.hooks.tool_result_offloading.ToolResultOffloadHook", "init_parameters": {}
    }))
    .unwrap_err();
    assert_eq!(
        err,
        FromValueError::Format {
            path: "tool_result_offload.type".into(),
            message: "`tool_result_offload.type` is `haystack.hooks.tool_result_offloading.ToolResultOffloadHook`, \
             expected `haystack.hooks.tool_result_offloading.hooks.ToolResultOffloadHook`"
                .into(),
            at_value: false,
        }
    );
    let err = ToolResultOffloadHook::from_params(&json!({
        "store": {"type": "hookharness.hooks.offload.InMemoryToolResultStore"},
        "offload_strategies": {"*": {"type": "haystack.hooks.tool_result_offloading.policies.Sometimes"}}
    }))
    .unwrap_err();
    assert!(err.to_string().starts_with(
        "unknown offload policy type `haystack.hooks.tool_result_offloading.policies.Sometimes` at \
         `tool_result_offload.offload_strategies.*`"
    ));
}

#[test]
fn the_hook_is_allowed_only_after_tool() {
    let hook = ToolResultOffloadHook::new(InMemoryToolResultStore::new());
    assert_eq!(
        hook.allowed_hook_points(),
        Some(&[hookharness::HookPoint::AfterTool][..])
    );
}
