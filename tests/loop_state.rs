//! State: handlers, operations, run metadata (`token_usage`,
//! `context_tokens`), the run's result, `hook_context` and the system prompt.

mod support;

use hookharness::scripted::ScriptedChatGenerator;
use hookharness::state::{Handler, HookContext, StateSchema, ValueType, merge_lists};
use hookharness::{Agent, ChatMessage, ChatRole, RunOptions, State, hook_fn};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use support::*;

fn state() -> State {
    State::new(
        StateSchema::new()
            .key("notes", ValueType::List)
            .key("best", ValueType::Int)
            .key("maybe", ValueType::Optional(Box::new(ValueType::List)))
            .key_with_handler("log", ValueType::List, Handler::ReplaceValues),
    )
}

// ---- handlers --------------------------------------------------------------

#[test]
fn merge_lists_wraps_scalars_and_always_builds_a_new_list() {
    assert_eq!(merge_lists(None, json!([1])), json!([1]));
    assert_eq!(
        merge_lists(Some(json!([1])), json!([2, 3])),
        json!([1, 2, 3])
    );
    assert_eq!(merge_lists(Some(json!([1])), json!("x")), json!([1, "x"]));
    assert_eq!(merge_lists(Some(json!("a")), json!("b")), json!(["a", "b"]));
    assert_eq!(merge_lists(Some(json!([1])), Value::Null), json!([1, null]));
    assert_eq!(merge_lists(None, Value::Null), json!([null]));
    assert_eq!(merge_lists(Some(Value::Null), json!([2])), json!([2]));
}

#[test]
fn a_list_key_merges_and_any_other_key_replaces_by_default() {
    let mut s = state();
    s.set("notes", json!(["a"])).unwrap();
    s.set("notes", json!("b")).unwrap();
    s.set("notes", Value::Null).unwrap();
    assert_eq!(s.get("notes"), Some(json!(["a", "b", null])));
    s.set("best", json!(1)).unwrap();
    s.set("best", json!(2)).unwrap();
    assert_eq!(s.get("best"), Some(json!(2)));
}

#[test]
fn an_optional_list_key_is_not_a_list_type_and_replaces() {
    let mut s = state();
    s.set("maybe", json!(["a"])).unwrap();
    s.set("maybe", json!(["b"])).unwrap();
    assert_eq!(s.get("maybe"), Some(json!(["b"])));
}

#[test]
fn an_explicit_schema_handler_wins_over_the_default() {
    let mut s = state();
    s.set("log", json!(["a"])).unwrap();
    s.set("log", json!(["b"])).unwrap();
    assert_eq!(s.get("log"), Some(json!(["b"])));
}

#[test]
fn a_scalar_stored_in_a_list_key_is_wrapped_by_the_next_merge() {
    let mut s = state();
    s.data_mut().insert("notes".into(), json!("first"));
    s.set("notes", json!(["second"])).unwrap();
    assert_eq!(s.get("notes"), Some(json!(["first", "second"])));
}

#[test]
fn a_custom_handler_combines_the_current_and_new_values() {
    let max = Handler::custom("max", |current, new| {
        let current = current.and_then(|v| v.as_i64()).unwrap_or(i64::MIN);
        Ok(json!(
            current.max(new.as_i64().ok_or("expected an integer")?)
        ))
    });
    let mut s = State::new(StateSchema::new().key_with_handler("best", ValueType::Int, max));
    for value in [3, 7, 5] {
        s.set("best", json!(value)).unwrap();
    }
    assert_eq!(s.get("best"), Some(json!(7)));
    assert!(s.set("best", json!("x")).is_err());
}

#[test]
fn handler_override_replaces_the_schema_handler_for_one_set() {
    let mut s = state();
    s.set("notes", json!(["a"])).unwrap();
    s.set_with("notes", json!(["b"]), &Handler::ReplaceValues)
        .unwrap();
    assert_eq!(s.get("notes"), Some(json!(["b"])));
    s.set_with("best", json!(4), &Handler::MergeLists).unwrap();
    assert_eq!(s.get("best"), Some(json!([4])));
}

#[test]
fn setting_messages_appends_and_replacing_needs_a_handler_override() {
    let mut s = state();
    s.append_messages(vec![ChatMessage::from_user("a")])
        .unwrap();
    s.set("messages", json!([ChatMessage::from_user("b").to_value()]))
        .unwrap();
    assert_eq!(s.messages().len(), 2);
    s.set_with(
        "messages",
        json!([ChatMessage::from_user("c").to_value()]),
        &Handler::ReplaceValues,
    )
    .unwrap();
    assert_eq!(s.messages(), [ChatMessage::from_user("c")]);
}

// ---- operations ------------------------------------------------------------

#[test]
fn set_on_an_unknown_key_fails_naming_the_key() {
    let error = state().set("nope", json!(1)).unwrap_err().to_string();
    assert!(
        error.starts_with("State: Key 'nope' not found in schema. Schema: "),
        "{error}"
    );
}

#[test]
fn get_returns_a_copy_and_data_mut_is_live() {
    let mut s = state();
    s.set("notes", json!(["a"])).unwrap();
    let mut copy = s.get("notes").unwrap();
    copy.as_array_mut().unwrap().push(json!("changed"));
    assert_eq!(s.get("notes"), Some(json!(["a"])));
    s.data_mut()
        .get_mut("notes")
        .unwrap()
        .as_array_mut()
        .unwrap()
        .push(json!("live"));
    assert_eq!(s.get("notes"), Some(json!(["a", "live"])));
    assert_eq!(s.data()["notes"], json!(["a", "live"]));
}

#[test]
fn has_counts_a_key_holding_null_but_not_an_unset_key() {
    let mut s = state();
    assert!(!s.has("best"));
    assert_eq!(s.get("best"), None);
    s.set("best", Value::Null).unwrap();
    assert!(s.has("best"));
}

#[test]
fn initial_run_values_are_stored_without_their_handler() {
    let agent = agent([text("done")])
        .state_schema(StateSchema::new().key("notes", ValueType::List))
        .build()
        .unwrap();
    let output = agent
        .run(
            user("go"),
            RunOptions::new().state("notes", json!("scalar")),
        )
        .unwrap();
    assert_eq!(output.get("notes"), Some(&json!("scalar")));
}

#[test]
fn run_keyword_variables_seed_the_state_keys_they_name_and_nothing_else() {
    // Haystack passes the run's keyword arguments to State for the keys of
    // its schema: `{key: kwargs[key] for key in schema if key in kwargs}`.
    let agent = agent([text("done")])
        .state_schema(StateSchema::new().key("topic", ValueType::Str))
        .build()
        .unwrap();
    let options = RunOptions::new()
        .variable("topic", json!("rust"))
        .variable("extra", json!(1));
    let output = agent.run(user("go"), options).unwrap();
    assert_eq!(output.get("topic"), Some(&json!("rust")));
    assert_eq!(output.get("extra"), None);
}

#[test]
fn hooks_see_the_tools_of_the_step_and_a_write_to_tools_changes_nothing() {
    let log = Log::new();
    let seen = log.clone();
    let agent = agent([call("a", json!({})), text("done")])
        .tool(ok_tool("a"))
        .tool(ok_tool("b"))
        .hook(
            "before_llm",
            hook_fn(move |state: &mut State| {
                let names: Vec<_> = state
                    .tools()
                    .iter()
                    .map(|t| t.spec().name.clone())
                    .collect();
                seen.push(names.join(","));
                state.set("tools", json!([])).unwrap();
                assert_eq!(state.get("tools"), Some(json!([])));
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(log.entries(), ["a,b", "a,b"]);
    assert_eq!(output.tool_call_counts(), Some(&json!({"a": 1, "b": 0})));
}

// ---- token_usage -----------------------------------------------------------

fn usage_agent(usages: Vec<Value>) -> Agent {
    let last = usages.len() - 1;
    let replies = usages.into_iter().enumerate().map(|(i, usage)| {
        let reply = if i == last {
            text("done")
        } else {
            call("a", json!({}))
        };
        if usage.is_null() {
            reply
        } else {
            reply.with_usage(usage)
        }
    });
    agent(replies).tool(ok_tool("a")).build().unwrap()
}

#[test]
fn token_usage_is_a_recursive_sum_of_every_reply_usage() {
    let output = run(&usage_agent(vec![
        json!({"prompt_tokens": 5, "completion_tokens": 1, "details": {"cached": 1, "deep": {"x": 1}}}),
        json!({"prompt_tokens": 7, "details": {"cached": 2, "deep": {"x": 2, "y": 1}}}),
        json!({"completion_tokens": 3, "extra": 4}),
    ]))
    .unwrap();
    assert_eq!(
        output.token_usage(),
        Some(&json!({
            "prompt_tokens": 12,
            "completion_tokens": 4,
            "details": {"cached": 3, "deep": {"x": 3, "y": 1}},
            "extra": 4
        }))
    );
}

#[test]
fn token_usage_adds_floats_and_booleans_and_lets_other_values_replace() {
    let output = run(&usage_agent(vec![
        json!({"p": 5, "b": true, "f": 1.5, "s": "x", "n": {"d": 1}, "gone": 5}),
        json!({"p": null, "b": true, "f": 2, "s": "y", "n": {"d": 2, "e": 3}, "gone": "text"}),
    ]))
    .unwrap();
    assert_eq!(
        output.token_usage(),
        Some(
            &json!({"p": null, "b": 2, "f": 3.5, "s": "y", "n": {"d": 3, "e": 3}, "gone": "text"})
        )
    );
}

#[test]
fn token_usage_keeps_pythons_key_order() {
    // Existing keys keep their place and new keys follow, as in a Python dict.
    let output = run(&usage_agent(vec![
        json!({"a": 1, "b": 1, "c": 1}),
        json!({"c": 1, "d": 1, "a": 1}),
    ]))
    .unwrap();
    assert_eq!(
        output.token_usage().unwrap().to_string(),
        r#"{"a":2,"b":1,"c":2,"d":1}"#
    );
}

#[test]
fn an_empty_usage_dict_leaves_token_usage_empty() {
    let output = run(&usage_agent(vec![json!({}), json!({})])).unwrap();
    assert_eq!(output.token_usage(), Some(&json!({})));
    let output = run(&usage_agent(vec![Value::Null, Value::Null])).unwrap();
    assert_eq!(output.token_usage(), Some(&json!({})));
}

#[test]
fn token_usage_folds_every_reply_of_one_llm_result() {
    let usage = |n: i64| {
        let mut meta = serde_json::Map::new();
        meta.insert("usage".into(), json!({"prompt_tokens": n}));
        meta
    };
    let agent = Agent::builder()
        .chat_generator(batches(vec![vec![
            ChatMessage::from_assistant("first").with_meta(usage(3)),
            ChatMessage::from_assistant("second").with_meta(usage(4)),
        ]]))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.token_usage(), Some(&json!({"prompt_tokens": 7})));
}

// ---- context_tokens --------------------------------------------------------

fn context_tokens_seen(usages: Vec<Value>) -> Vec<String> {
    let log = Log::new();
    let (before, after) = (log.clone(), log.clone());
    let last = usages.len() - 1;
    let replies = usages.into_iter().enumerate().map(|(i, usage)| {
        let reply = if i == last {
            text("done")
        } else {
            call("a", json!({}))
        };
        if usage.is_null() {
            reply
        } else {
            reply.with_usage(usage)
        }
    });
    let agent = agent(replies)
        .tool(ok_tool("a"))
        .hook(
            "before_llm",
            hook_fn(move |state: &mut State| {
                before.push(state.data()["context_tokens"].to_string())
            }),
        )
        .hook(
            "after_run",
            hook_fn(move |state: &mut State| {
                after.push(state.data()["context_tokens"].to_string())
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.get("context_tokens"), None);
    log.entries()
}

#[test]
fn context_tokens_start_at_zero_and_take_input_plus_output_of_the_last_call() {
    assert_eq!(
        context_tokens_seen(vec![
            json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 300}),
            json!({"prompt_tokens": 20, "completion_tokens": 1}),
        ]),
        ["0", "15", "21"]
    );
}

#[test]
fn context_tokens_prefer_prompt_and_completion_tokens_skip_booleans_and_truncate_floats() {
    assert_eq!(
        context_tokens_seen(vec![
            json!({"prompt_tokens": 10, "input_tokens": 100, "output_tokens": 3}),
            json!({"prompt_tokens": true, "input_tokens": 7, "completion_tokens": 2.9, "output_tokens": 50}),
        ]),
        ["0", "13", "9"]
    );
}

#[test]
fn context_tokens_keep_their_value_when_a_call_reports_zero_or_no_usage() {
    assert_eq!(
        context_tokens_seen(vec![
            json!({"input_tokens": 4, "output_tokens": 4}),
            json!({"total_tokens": 50}),
            Value::Null,
        ]),
        ["0", "8", "8", "8"]
    );
}

#[test]
fn context_tokens_look_only_at_the_last_reply_of_a_batch() {
    let log = Log::new();
    let seen = log.clone();
    let mut meta = serde_json::Map::new();
    meta.insert(
        "usage".into(),
        json!({"prompt_tokens": 10, "completion_tokens": 5}),
    );
    let agent = Agent::builder()
        .chat_generator(batches(vec![vec![
            ChatMessage::from_assistant("first").with_meta(meta),
            ChatMessage::from_assistant("second"),
        ]]))
        .hook(
            "after_run",
            hook_fn(move |state: &mut State| seen.push(state.data()["context_tokens"].to_string())),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(log.entries(), ["0"]);
    assert_eq!(
        output.token_usage(),
        Some(&json!({"prompt_tokens": 10, "completion_tokens": 5}))
    );
}

// ---- the result ------------------------------------------------------------

#[test]
fn the_result_strips_internal_keys_and_keeps_user_keys_in_state_order() {
    let agent = agent([text("done")])
        .state_schema(
            StateSchema::new()
                .key("notes", ValueType::List)
                .key("best", ValueType::Int)
                .key("never_set", ValueType::Str),
        )
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                state.set("best", json!(3)).unwrap();
                state.set_stop_run("ignored");
                state.hook_context_mut().insert("k", json!(1));
            }),
        )
        .build()
        .unwrap();
    let output = agent
        .run(user("go"), RunOptions::new().state("notes", json!(["n"])))
        .unwrap();
    let keys: Vec<_> = output.data.keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "notes",
            "step_count",
            "token_usage",
            "tool_call_counts",
            "exit_reason",
            "best"
        ]
    );
    assert_eq!(output.last_message, output.messages.last().cloned());
    assert_eq!(output.last_message.unwrap().text(), Some("done"));
}

#[test]
fn a_run_without_messages_has_no_last_message() {
    let agent = agent([]).max_agent_steps(0).build().unwrap();
    let output = agent.run(Vec::new(), RunOptions::new()).unwrap();
    assert!(output.messages.is_empty());
    assert_eq!(output.last_message, None);
    assert_eq!(output.step_count(), Some(0));
}

#[test]
fn tool_call_counts_start_at_zero_for_every_tool() {
    let log = Log::new();
    let seen = log.clone();
    let agent = agent([text("done")])
        .tool(ok_tool("b"))
        .tool(ok_tool("a"))
        .hook(
            "before_run",
            hook_fn(move |state: &mut State| {
                seen.push(state.data()["tool_call_counts"].to_string());
                seen.push(state.data()["exit_reason"].to_string());
                seen.push(format!("stop_run present: {}", state.has("stop_run")));
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(
        log.entries(),
        [r#"{"b":0,"a":0}"#, "null", "stop_run present: false"]
    );
    assert_eq!(output.tool_call_counts(), Some(&json!({"b": 0, "a": 0})));
}

// ---- hook_context ----------------------------------------------------------

#[test]
fn hook_context_holds_shared_objects_hooks_can_use_and_comes_back_in_the_output() {
    let audit: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let mut context = HookContext::new();
    context.insert("user_id", json!("u1"));
    context.insert_arc("audit", audit.clone());
    let agent = agent([call("a", json!({})), text("done")])
        .tool(ok_tool("a"))
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| {
                let context = state.hook_context().unwrap();
                let user = context.get("user_id").unwrap().as_str().unwrap().to_owned();
                let audit = context.get_shared::<Mutex<Vec<String>>>("audit").unwrap();
                audit
                    .lock()
                    .unwrap()
                    .push(format!("{user} at {}", step(state)));
            }),
        )
        .hook(
            "after_run",
            hook_fn(|state: &mut State| state.hook_context_mut().insert("done", json!(true))),
        )
        .build()
        .unwrap();
    let output = agent
        .run(user("go"), RunOptions::new().hook_context(context))
        .unwrap();
    assert_eq!(*audit.lock().unwrap(), ["u1 at 0", "u1 at 1"]);
    let returned = output
        .hook_context
        .get_shared::<Mutex<Vec<String>>>("audit")
        .unwrap();
    assert!(std::ptr::eq(returned, &*audit));
    assert_eq!(output.hook_context.get("done"), Some(&json!(true)));
    assert_eq!(output.get("hook_context"), None);
}

#[test]
fn hook_context_is_present_and_empty_when_none_is_given() {
    let log = Log::new();
    let seen = log.clone();
    let agent = agent([text("done")])
        .hook(
            "before_run",
            hook_fn(move |state: &mut State| {
                seen.push(format!("{:?}", state.get("hook_context")));
            }),
        )
        .build()
        .unwrap();
    run(&agent).unwrap();
    assert_eq!(log.entries(), ["Some(Object {})"]);
}

// ---- the system prompt -----------------------------------------------------

#[test]
fn a_system_prompt_is_prepended_to_the_messages() {
    let roles = Arc::new(Mutex::new(Vec::new()));
    let seen = roles.clone();
    let model = ScriptedChatGenerator::reply_with(move |messages, _tools| {
        seen.lock().unwrap().extend(
            messages
                .iter()
                .map(|m| (m.role(), m.text().unwrap_or("").to_owned())),
        );
        Ok(vec![ChatMessage::from_assistant("done")])
    });
    let agent = Agent::builder()
        .chat_generator(model)
        .system_prompt("Be brief.")
        .build()
        .unwrap();
    let output = agent
        .run(
            vec![ChatMessage::from_user("a"), ChatMessage::from_user("b")],
            RunOptions::new(),
        )
        .unwrap();
    assert_eq!(
        *roles.lock().unwrap(),
        [
            (ChatRole::System, "Be brief.".to_owned()),
            (ChatRole::User, "a".to_owned()),
            (ChatRole::User, "b".to_owned()),
        ]
    );
    assert_eq!(output.messages[0], ChatMessage::from_system("Be brief."));
}

#[test]
fn a_failing_custom_messages_handler_fails_the_run_instead_of_dropping_messages() {
    let refuse = Handler::custom("refuse", |_, _| Err("this history is read-only".into()));
    let agent = agent([text("hi")])
        .state_schema(StateSchema::new().key_with_handler(
            "messages",
            ValueType::ChatMessages,
            refuse,
        ))
        .build()
        .unwrap();
    let error = run(&agent).unwrap_err().to_string();
    assert_eq!(
        error,
        "State: cannot set 'messages': this history is read-only"
    );
}

// ---- State's own keys --------------------------------------------------------

#[test]
fn token_usage_adds_floats_to_floats_and_to_integers() {
    let output = run(&usage_agent(vec![
        json!({"ff": 1.5, "if": 2, "fi": 0.25}),
        json!({"ff": 2.25, "if": 0.5, "fi": 4}),
    ]))
    .unwrap();
    assert_eq!(
        output.token_usage(),
        Some(&json!({"ff": 3.75, "if": 2.5, "fi": 4.25}))
    );
}

#[test]
fn token_usage_past_128_bits_is_the_nearest_float_of_pythons_sum() {
    // Python sums exactly; the harness falls back to a float past 128 bits
    // (docs/deviations.md, `usage-sum-beyond-128-bits`), which must still be
    // the sum: 2 * (2^127 - 1) is 2^128 as the nearest float.
    let max: Value = serde_json::from_str("170141183460469231731687303715884105727").unwrap();
    let output = run(&usage_agent(vec![json!({"p": max}), json!({"p": max})])).unwrap();
    let sum = output.token_usage().unwrap()["p"].as_f64();
    assert_eq!(sum, Some(2f64.powi(128)));
}

fn own_keys_schema() -> StateSchema {
    StateSchema::new()
        .key("tools", ValueType::List)
        .key("hook_context", ValueType::Dict)
        .key("notes", ValueType::List)
}

#[test]
fn state_has_messages_once_there_are_any() {
    let mut state = State::new(own_keys_schema());
    assert!(!state.has("messages"));
    state
        .append_messages(vec![ChatMessage::from_user("hi")])
        .unwrap();
    assert!(state.has("messages"));
}

#[test]
fn state_has_tools_once_written_and_hook_context_once_set() {
    let mut state = State::new(own_keys_schema());
    assert!(!state.has("tools") && !state.has("hook_context") && !state.has("notes"));
    state.set("tools", json!([{"name": "search"}])).unwrap();
    assert!(state.has("tools"));
    assert_eq!(state.get("tools"), Some(json!([{"name": "search"}])));
    state.set("hook_context", json!({"user": "ada"})).unwrap();
    assert!(state.has("hook_context"));
    assert!(!state.has("notes"));
}

#[test]
fn a_hook_context_set_through_state_is_what_hook_context_and_get_return() {
    let mut state = State::new(own_keys_schema());
    assert!(state.hook_context().is_none());
    state.set("hook_context", json!({"user": "ada"})).unwrap();
    let context = state.hook_context().expect("a map was set");
    assert_eq!(Value::Object(context.to_json()), json!({"user": "ada"}));
    assert_eq!(state.get("hook_context"), Some(json!({"user": "ada"})));
    // Not a map: kept as it is, and still a value the key holds.
    state.set("hook_context", json!(null)).unwrap();
    assert!(state.has("hook_context"));
    assert!(state.hook_context().is_none());
    assert_eq!(state.get("hook_context"), Some(json!(null)));
}

#[test]
fn state_schema_is_the_schema_it_was_made_with() {
    let state = State::new(own_keys_schema());
    let keys: Vec<&str> = state.schema().keys().collect();
    assert!(
        ["tools", "hook_context", "notes"]
            .iter()
            .all(|k| keys.contains(k)),
        "{keys:?}"
    );
    assert!(state.schema().contains("notes"));
}
