//! Loading scenario files: the format's examples, defaults, key order, JSON
//! and YAML equivalence, every invalid file's exact message, and no panics.

use std::path::{Path, PathBuf};

use hookharness::ChatRole;
use hookharness::scenario::{
    Action, Expectation, Format, HookEntry, LastMessageExpect, ListExpect, MessageSpec,
    ReadyMadeKind, ResultRewrite, Scenario, ScenarioErrorKind, StateValue, StepCountCondition,
    ToolSelection, UnusedReplies, ValuePattern,
};
use hookharness::scripted::{FinishReason, ModelReply, ScriptedResult};
use hookharness::state::{Handler, ValueType};
use proptest::prelude::*;
use serde_json::json;

fn yaml(text: &str) -> Scenario {
    match Scenario::from_str(text, "scenarios/example.yaml", Format::Yaml) {
        Ok(scenario) => scenario,
        Err(e) => panic!("{e}"),
    }
}

fn object(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The examples of the format's `tools`, `model`, `hooks` and `run` sections.
const SPEC_EXAMPLE: &str = r#"
tools:
  - name: search
    description: Search the web          # optional
    parameters: {type: object, properties: {query: {type: string}}}   # JSON Schema, optional
    results:                             # one entry per call, in call order
      - "Fusion startups reported net-energy-gain milestones."
      - {error: "upstream timeout"}      # the tool raises; becomes an error tool message
      - {json: {hits: 3}}                # a structured result, serialized as Haystack does
model:
  - tool_calls:
      - {tool: search, arguments: {query: fusion}, id: call_1}   # id optional: default "call_<llm call index>_<i>"
    usage: {prompt_tokens: 12, completion_tokens: 3}            # optional: becomes meta.usage
  - text: "Here is what I found."
    finish_reason: stop                                         # optional: stop|length|content_filter|tool_calls
  - {error: "rate limited"}                                     # the generator raises
hooks:
  before_llm:
    - name: build_context          # a declarative hook: `when` then `do`
      when: {step_count: 0}
      do:
        - prepend_messages: [{role: system, text: "You are a research assistant."}]
  on_exit:
    - name: require_search
      when: {tool_call_counts: {search: 0}}
      do:
        - append_messages: [{role: system, text: "Search before answering."}]
        - continue_run: true
  after_run:
    - shared: audit                # the same hook object registered at several points
shared_hooks:
  audit: {name: audit}
run:
  messages: [{role: user, text: "What are the latest developments in fusion energy?"}]
  hook_context: {user_id: u1}
  state: {notes: []}        # initial values for state_schema keys (Haystack's **kwargs)
  async: false              # true: run the async path
agent:
  state_schema:
    notes: {type: list}
"#;

#[test]
fn the_format_examples_load_into_the_expected_tools() {
    let scenario = yaml(SPEC_EXAMPLE);
    let [search] = scenario.tools.as_slice() else {
        panic!("one tool expected: {:?}", scenario.tools);
    };
    assert_eq!(search.name, "search");
    assert_eq!(search.description, "Search the web");
    assert_eq!(
        search.parameters,
        object(json!({"type": "object", "properties": {"query": {"type": "string"}}}))
    );
    assert_eq!(
        search.results,
        vec![
            ScriptedResult::Text("Fusion startups reported net-energy-gain milestones.".into()),
            ScriptedResult::Error("upstream timeout".into()),
            ScriptedResult::Json(json!({"hits": 3})),
        ]
    );
    assert!(!search.repeat_last);
}

#[test]
fn the_format_examples_load_into_the_expected_model_replies() {
    let scenario = yaml(SPEC_EXAMPLE);
    let [first, second, third] = scenario.model.as_slice() else {
        panic!("three replies expected: {:?}", scenario.model);
    };
    let ModelReply::Reply {
        text: None,
        tool_calls,
        usage: Some(usage),
        finish_reason: None,
        ..
    } = first
    else {
        panic!("unexpected first reply: {first:?}");
    };
    assert_eq!(tool_calls.len(), 1);
    assert_eq!(tool_calls[0].tool, "search");
    assert_eq!(
        tool_calls[0].arguments.to_map(),
        object(json!({"query": "fusion"}))
    );
    assert_eq!(tool_calls[0].id.as_deref(), Some("call_1"));
    assert_eq!(
        usage,
        &object(json!({"prompt_tokens": 12, "completion_tokens": 3}))
    );
    assert_eq!(
        second,
        &ModelReply::Reply {
            text: Some("Here is what I found.".into()),
            tool_calls: vec![],
            usage: None,
            finish_reason: Some(FinishReason::Stop),
            chunks: None,
        }
    );
    assert_eq!(third, &ModelReply::Error("rate limited".into()));
}

#[test]
fn the_format_examples_load_into_the_expected_hooks() {
    let scenario = yaml(SPEC_EXAMPLE);
    let points: Vec<&str> = scenario.hooks.keys().map(String::as_str).collect();
    assert_eq!(points, ["before_llm", "on_exit", "after_run"]);

    let HookEntry::Declarative {
        name,
        when,
        actions,
        allowed_hook_points,
    } = &scenario.hooks["before_llm"][0]
    else {
        panic!("declarative hook expected");
    };
    assert_eq!(name.as_deref(), Some("build_context"));
    assert_eq!(when.step_count, Some(StepCountCondition::Eq(0)));
    assert_eq!(allowed_hook_points, &None);
    let [Action::PrependMessages(messages)] = actions.as_slice() else {
        panic!("one prepend expected: {actions:?}");
    };
    assert_eq!(
        messages,
        &[MessageSpec::Simple {
            role: ChatRole::System,
            text: Some("You are a research assistant.".into()),
            tool_calls: vec![],
            meta: serde_json::Map::new(),
            name: None,
        }]
    );

    let HookEntry::Declarative { when, actions, .. } = &scenario.hooks["on_exit"][0] else {
        panic!("declarative hook expected");
    };
    assert_eq!(when.tool_call_counts.get("search"), Some(&0));
    assert!(matches!(actions[0], Action::AppendMessages(_)));
    assert_eq!(actions[1], Action::ContinueRun(true));

    assert_eq!(
        scenario.hooks["after_run"],
        [HookEntry::Shared("audit".into())]
    );
    assert!(matches!(
        &scenario.shared_hooks["audit"],
        HookEntry::Declarative { name: Some(n), actions, .. } if n == "audit" && actions.is_empty()
    ));
}

#[test]
fn the_format_examples_load_into_the_expected_run_inputs() {
    let scenario = yaml(SPEC_EXAMPLE);
    assert_eq!(scenario.run.messages.len(), 1);
    assert_eq!(scenario.run.hook_context, object(json!({"user_id": "u1"})));
    assert_eq!(scenario.run.state, object(json!({"notes": []})));
    assert!(!scenario.run.is_async);
    assert_eq!(scenario.agent.state_schema["notes"].ty, ValueType::List);
    assert_eq!(scenario.agent.state_schema["notes"].handler, None);
}

#[test]
fn an_omitted_key_takes_the_documented_default() {
    let scenario = yaml("model: []\n");
    assert_eq!(scenario.version, 1);
    assert_eq!(scenario.name, "example");
    assert_eq!(scenario.description, None);
    assert_eq!(scenario.file, None);
    assert_eq!(scenario.agent.max_agent_steps, 100);
    assert_eq!(scenario.agent.exit_conditions, ["text"]);
    assert_eq!(scenario.agent.system_prompt, None);
    assert!(scenario.agent.state_schema.is_empty());
    assert!(!scenario.agent.raise_on_tool_invocation_failure);
    assert_eq!(scenario.agent.tool_concurrency_limit, 4);
    assert!(scenario.tools.is_empty() && scenario.hooks.is_empty());
    assert!(scenario.shared_hooks.is_empty() && scenario.model.is_empty());
    assert!(scenario.run.messages.is_empty() && !scenario.run.is_async);
    assert_eq!(scenario.expect.unused_replies, UnusedReplies::Fail);
    assert_eq!(scenario.expect.error(), None);
}

#[test]
fn a_tool_without_description_or_parameters_gets_the_defaults() {
    let scenario = yaml("tools: [{name: t}]\nmodel: []\n");
    let tool = &scenario.tools[0];
    assert_eq!(tool.description, "");
    assert_eq!(
        tool.parameters,
        object(json!({"type": "object", "properties": {}}))
    );
    assert!(tool.results.is_empty());
}

#[test]
fn an_empty_or_null_model_entry_is_a_reply_without_content() {
    let scenario = yaml("model:\n  - {}\n  -\n  - text: ''\n");
    let empty = ModelReply::Reply {
        text: None,
        tool_calls: vec![],
        usage: None,
        finish_reason: None,
        chunks: None,
    };
    assert_eq!(scenario.model[0], empty);
    assert_eq!(scenario.model[1], empty);
    assert!(matches!(&scenario.model[2], ModelReply::Reply { text: Some(t), .. } if t.is_empty()));
}

#[test]
fn key_order_from_the_file_is_kept_in_tool_arguments() {
    let scenario = yaml(
        "model:\n  - tool_calls:\n      - tool: t\n        arguments: {zeta: 1, alpha: {y: 1, b: 2}, mid: 3}\n",
    );
    let ModelReply::Reply { tool_calls, .. } = &scenario.model[0] else {
        panic!("reply expected");
    };
    let arguments = tool_calls[0].arguments.to_map();
    let keys: Vec<&str> = arguments.keys().map(String::as_str).collect();
    assert_eq!(keys, ["zeta", "alpha", "mid"]);
    assert_eq!(
        serde_json::to_string(&arguments).unwrap(),
        r#"{"zeta":1,"alpha":{"y":1,"b":2},"mid":3}"#
    );
}

#[test]
fn key_order_from_the_file_is_kept_in_json_results_and_state_schema() {
    let scenario = yaml(
        "agent:\n  state_schema: {z: {type: str}, a: {type: int, handler: replace_values}}\ntools:\n  - name: t\n    results: [{json: {b: 1, a: 2}}]\nmodel: []\n",
    );
    let keys: Vec<&str> = scenario
        .agent
        .state_schema
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["z", "a"]);
    assert_eq!(
        scenario.agent.state_schema["a"].handler,
        Some(Handler::ReplaceValues)
    );
    let ScriptedResult::Json(value) = &scenario.tools[0].results[0] else {
        panic!("json result expected");
    };
    assert_eq!(value.to_string(), r#"{"b":1,"a":2}"#);
}

#[test]
fn json_and_yaml_forms_of_the_same_scenario_load_equal() {
    let from_yaml = yaml(SPEC_EXAMPLE);
    let value: serde_json::Value = {
        // The YAML example written as JSON, key for key.
        json!({
            "tools": [{
                "name": "search",
                "description": "Search the web",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
                "results": [
                    "Fusion startups reported net-energy-gain milestones.",
                    {"error": "upstream timeout"},
                    {"json": {"hits": 3}}
                ]
            }],
            "model": [
                {"tool_calls": [{"tool": "search", "arguments": {"query": "fusion"}, "id": "call_1"}],
                 "usage": {"prompt_tokens": 12, "completion_tokens": 3}},
                {"text": "Here is what I found.", "finish_reason": "stop"},
                {"error": "rate limited"}
            ],
            "hooks": {
                "before_llm": [{"name": "build_context", "when": {"step_count": 0},
                    "do": [{"prepend_messages": [{"role": "system", "text": "You are a research assistant."}]}]}],
                "on_exit": [{"name": "require_search", "when": {"tool_call_counts": {"search": 0}},
                    "do": [{"append_messages": [{"role": "system", "text": "Search before answering."}]},
                           {"continue_run": true}]}],
                "after_run": [{"shared": "audit"}]
            },
            "shared_hooks": {"audit": {"name": "audit"}},
            "run": {
                "messages": [{"role": "user", "text": "What are the latest developments in fusion energy?"}],
                "hook_context": {"user_id": "u1"},
                "state": {"notes": []},
                "async": false
            },
            "agent": {"state_schema": {"notes": {"type": "list"}}}
        })
    };
    let text = serde_json::to_string_pretty(&value).unwrap();
    let from_json = Scenario::from_str(&text, "scenarios/example.json", Format::Json).unwrap();
    assert_eq!(from_json, from_yaml);
}

#[test]
fn every_hook_kind_condition_and_action_loads() {
    let scenario = yaml(
        r#"
agent: {state_schema: {messages: {type: list}, notes: {type: any}}}
hooks:
  before_llm:
    - {name: budget, token_budget: {max_total_tokens: 500}}
    - compaction: {compactor: {type: haystack.X, init_parameters: {keep: 2}}}
    - custom: my_hook
    - when:
        step_count: {gte: 1, lt: 3}
        exit_reason: text
        last_message: {role: assistant, has_tool_calls: false, text_contains: done}
        state: {notes: [1]}
        hook_context: {user: u1}
        times: 2
      do:
        - replace_messages: [{role: user, content: [{text: hi}], meta: {}, name: null}]
        - set: {notes: [1], messages: [{role: user, text: hi}]}
        - replace: {notes: 2}
        - stop_run: null
        - continue_run: false
        - drop_tool_calls: all
        - drop_tool_calls: [search]
        - set_tool_arguments: {tool: search, arguments: {q: x}}
        - rewrite_tool_results: {truncate: 5}
        - rewrite_tool_results: {replace: gone}
        - fail: boom
      allowed_hook_points: [before_llm]
model: []
expect:
  last_message: {role: assistant, text: null, tool_calls: [search, {tool: t, arguments: {a: 1}, id: c1}]}
  unused_replies: allow
"#,
    );
    let entries = &scenario.hooks["before_llm"];
    assert_eq!(
        entries[0],
        HookEntry::ReadyMade {
            name: Some("budget".into()),
            kind: ReadyMadeKind::TokenBudget,
            params: json!({"max_total_tokens": 500}),
        }
    );
    assert!(matches!(
        &entries[1],
        HookEntry::ReadyMade { name: None, kind: ReadyMadeKind::Compaction, params }
            if params["compactor"]["init_parameters"]["keep"] == 2
    ));
    assert_eq!(entries[2], HookEntry::Custom("my_hook".into()));
    let HookEntry::Declarative {
        name: None,
        when,
        actions,
        allowed_hook_points: Some(points),
    } = &entries[3]
    else {
        panic!("declarative hook expected: {:?}", entries[3]);
    };
    assert_eq!(points, &["before_llm"]);
    assert_eq!(
        when.step_count,
        Some(StepCountCondition::Range {
            gte: Some(1),
            lt: Some(3)
        })
    );
    assert_eq!(when.times, Some(2));
    assert_eq!(
        when.last_message.as_ref().and_then(|m| m.role),
        Some(ChatRole::Assistant)
    );
    assert!(
        matches!(&actions[0], Action::ReplaceMessages(m) if matches!(m[0], MessageSpec::Haystack(_)))
    );
    let Action::Set(values) = &actions[1] else {
        panic!("set expected");
    };
    assert_eq!(values["notes"], StateValue::Value(json!([1])));
    assert!(matches!(&values["messages"], StateValue::Messages(m) if m.len() == 1));
    assert_eq!(actions[3], Action::StopRun(None));
    assert_eq!(actions[4], Action::ContinueRun(false));
    assert_eq!(actions[5], Action::DropToolCalls(ToolSelection::All));
    assert_eq!(
        actions[6],
        Action::DropToolCalls(ToolSelection::Named(vec!["search".into()]))
    );
    assert_eq!(
        actions[8],
        Action::RewriteToolResults(ResultRewrite::Truncate(5))
    );
    assert_eq!(actions[10], Action::Fail("boom".into()));

    let expected = &scenario.expect;
    assert_eq!(expected.unused_replies, UnusedReplies::Allow);
    let Some(Expectation::LastMessage(last)) = expected.get("last_message") else {
        panic!("last_message expected");
    };
    let LastMessageExpect {
        text, tool_calls, ..
    } = &**last;
    assert_eq!(text, &Some(ValuePattern::Equals(serde_json::Value::Null)));
    let Some(ListExpect::Exact(calls)) = tool_calls else {
        panic!("an exact tool_calls list expected");
    };
    assert_eq!(calls[0].tool, "search");
    assert_eq!((&calls[0].arguments, &calls[0].id), (&None, &None));
    assert_eq!(calls[1].arguments, Some(object(json!({"a": 1}))));
    assert_eq!(calls[1].id, Some(Some("c1".to_string())));
}

#[test]
fn expect_last_message_text_distinguishes_absent_from_null() {
    let absent = yaml("model: []\nexpect: {last_message: {role: user}}\n");
    let null = yaml("model: []\nexpect: {last_message: {text: null}}\n");
    let given = yaml("model: []\nexpect: {last_message: {text: hi}}\n");
    let text = |s: &Scenario| match s.expect.get("last_message") {
        Some(Expectation::LastMessage(last)) => last.text.clone(),
        other => panic!("last_message expected, got {other:?}"),
    };
    assert_eq!(text(&absent), None);
    assert_eq!(text(&null), Some(ValuePattern::Equals(json!(null))));
    assert_eq!(text(&given), Some(ValuePattern::Equals(json!("hi"))));
}

#[test]
fn json_strings_with_surrogate_pair_escapes_load() {
    let text = r#"{"model": [{"text": "\ud83d\ude00 ok"}]}"#;
    let scenario = Scenario::from_str(text, "x.json", Format::Json).unwrap();
    assert!(matches!(&scenario.model[0], ModelReply::Reply { text: Some(t), .. } if t == "😀 ok"));
}

#[test]
fn yaml_aliases_within_the_budget_expand_to_copies() {
    let scenario =
        yaml("run:\n  hook_context: {a: &greeting {text: hi}, b: *greeting}\nmodel: []\n");
    assert_eq!(scenario.run.hook_context["b"], json!({"text": "hi"}));
}

#[test]
fn loading_from_a_path_records_the_file_and_names_the_scenario_after_it() {
    let dir = std::env::temp_dir().join(format!("hookharness-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("on_exit_require_search.yml");
    std::fs::write(&path, "model: []\n").unwrap();
    let scenario = Scenario::from_path(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(scenario.file.as_deref(), Some(path.as_path()));
    assert_eq!(scenario.name, "on_exit_require_search");
}

#[test]
fn a_missing_file_is_an_io_error_naming_the_file() {
    let error = Scenario::from_path(Path::new("tests/invalid_scenarios/absent.yaml")).unwrap_err();
    assert!(matches!(
        error.kind(),
        ScenarioErrorKind::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        }
    ));
    insta::assert_snapshot!(error.to_string(), @"tests/invalid_scenarios/absent.yaml: cannot read the scenario file: no such file or directory (os error 2)");
}

#[test]
fn errors_expose_their_file_path_and_position() {
    let error =
        Scenario::from_path(Path::new("tests/invalid_scenarios/unknown_action.yaml")).unwrap_err();
    assert_eq!(error.file(), "tests/invalid_scenarios/unknown_action.yaml");
    assert_eq!(error.path(), "hooks.on_exit[0].do[1].append_message");
    assert_eq!((error.line(), error.column()), (Some(7), Some(11)));
}

// ---------------------------------------------------------------------------
// Invalid files: each one's message is pinned by a snapshot.

const INVALID_DIR: &str = "tests/invalid_scenarios";

fn invalid_message(file: &str) -> String {
    let path = PathBuf::from(INVALID_DIR).join(file);
    match Scenario::from_path(&path) {
        Ok(scenario) => panic!("{file} loaded: {scenario:?}"),
        Err(error) => error.to_string(),
    }
}

macro_rules! invalid_files {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                let message = invalid_message($file);
                insta::with_settings!({
                    snapshot_path => "invalid_scenarios/snapshots",
                    prepend_module_to_snapshot => false,
                    omit_expression => true,
                }, {
                    insta::assert_snapshot!($file, message);
                });
            }
        )*

        const INVALID_FILES: &[&str] = &[$($file),*];
    };
}

invalid_files! {
    an_unknown_agent_key_suggests_the_close_one => "unknown_key_in_agent.yaml",
    a_python_target_needs_a_colon => "python_target_without_colon.yaml",
    an_unknown_model_script_suggests_the_defined_one => "python_models_unknown_script.yaml",
    agent_python_takes_no_settings_of_its_own => "agent_python_with_settings.yaml",
    agent_custom_takes_no_settings_of_its_own => "agent_custom_with_settings.yaml",
    a_clock_that_is_not_iso_8601_is_refused => "clock_not_iso.yaml",
    a_named_script_cannot_be_called_model => "models_named_model.yaml",
    an_unknown_top_level_key_lists_the_valid_keys => "unknown_top_level_key.yaml",
    a_misspelled_required_key_is_reported_as_a_typo => "misspelled_model.yaml",
    a_missing_model_is_reported => "missing_model.yaml",
    a_string_for_an_integer_is_a_wrong_type => "wrong_type_max_agent_steps.yaml",
    an_unsupported_version_names_the_supported_ones => "unsupported_version.yaml",
    an_error_reply_with_other_keys_is_rejected => "model_error_with_other_keys.yaml",
    an_invalid_finish_reason_lists_the_four => "invalid_finish_reason.yaml",
    a_hook_entry_of_no_kind_lists_the_kinds => "hook_entry_of_no_kind.yaml",
    a_misspelled_ready_made_hook_suggests_its_tag => "misspelled_ready_made_hook.yaml",
    a_hook_entry_mixing_kinds_is_rejected => "conflicting_hook_kinds.yaml",
    an_unknown_action_suggests_the_close_one => "unknown_action.yaml",
    an_action_with_two_keys_is_rejected => "action_with_two_keys.yaml",
    a_run_state_key_outside_the_schema_is_rejected => "run_state_key_not_in_schema.yaml",
    a_non_string_map_key_is_rejected => "non_string_key.yaml",
    an_alias_bomb_stops_at_the_budget => "alias_bomb.yaml",
    a_nan_is_not_a_json_value => "nan_value.yaml",
    a_yaml_syntax_error_gives_its_position => "yaml_syntax_error.yaml",
    a_json_syntax_error_gives_its_position => "json_syntax_error.json",
    a_duplicate_yaml_key_names_both_positions => "duplicate_key.yaml",
    a_duplicate_json_key_names_both_positions => "duplicate_key.json",
    a_json_wrong_type_gives_its_position => "wrong_type.json",
    an_unsupported_extension_names_the_supported_ones => "unsupported_extension.toml",
    a_file_that_is_not_utf8_is_rejected => "invalid_utf8.yaml",
    a_second_yaml_document_is_rejected => "multiple_documents.yaml",
    an_empty_file_is_rejected => "empty.yaml",
    a_top_level_list_is_a_wrong_type => "top_level_list.yaml",
    an_unknown_shared_hook_suggests_the_defined_one => "unknown_shared_hook.yaml",
    a_shared_hook_defined_as_shared_is_rejected => "nested_shared_hook.yaml",
    rewrite_tool_results_takes_exactly_one_mode => "rewrite_tool_results_with_both_modes.yaml",
    a_step_count_map_needs_a_bound => "step_count_map_without_bounds.yaml",
    an_unknown_role_lists_the_roles => "unknown_role.yaml",
    a_number_tool_result_says_how_to_write_results => "tool_result_number.yaml",
    an_unknown_state_type_lists_the_types => "unknown_state_type.yaml",
    an_unknown_haystack_content_part_is_rejected => "haystack_message_unknown_part.yaml",
    a_non_core_yaml_tag_is_rejected => "unsupported_tag.yaml",
    a_negative_truncate_is_rejected => "negative_truncate.yaml",
    drop_tool_calls_takes_all_or_a_list => "drop_tool_calls_bad_value.yaml",
    an_invalid_unused_replies_suggests_the_close_value => "expect_unused_replies_typo.yaml",
    a_haystack_field_name_suggests_the_format_s_name => "tool_call_without_tool.yaml",
    an_unknown_outputs_to_state_handler_suggests_the_close_one => "unknown_output_handler.yaml",
    an_outputs_to_string_handler_is_not_part_of_the_format => "outputs_to_string_handler.yaml",
    each_outputs_to_string_output_needs_a_source => "outputs_to_string_output_without_source.yaml",
    a_run_variable_also_given_as_state_is_rejected => "run_variable_also_in_state.yaml",
    a_run_variable_naming_a_run_parameter_is_rejected => "run_variable_is_run_parameter.yaml",
    required_variables_takes_star_a_list_or_null => "required_variables_string.yaml",
    a_reply_takes_text_or_chunks_not_both => "chunks_and_text.yaml",
    a_json_number_beyond_a_double_is_rejected => "infinite_number.json",
    nesting_beyond_the_limit_is_rejected => "too_deep.json",
    a_yaml_merge_key_is_an_ordinary_key_so_unknown_in_a_hook => "merge_key.yaml",
    a_document_with_no_value_is_an_empty_file => "empty_document.yaml",
    an_unknown_list_mode_suggests_the_close_one => "expect_unknown_list_mode.yaml",
    a_map_of_list_modes_needs_a_mode => "expect_list_modes_empty.yaml",
    a_misspelled_matcher_beside_a_matcher_suggests_it => "expect_matcher_mixed_keys.yaml",
    a_number_matcher_on_a_list_state_key_is_rejected => "expect_matcher_on_wrong_type.yaml",
    matchers_that_do_not_combine_are_rejected => "expect_matchers_combined.yaml",
    an_unknown_event_kind_suggests_the_close_one => "expect_trace_unknown_kind.yaml",
    a_field_of_another_event_kind_names_this_kind_s_field => "expect_trace_field_of_another_kind.yaml",
    a_number_for_last_message_text_is_a_wrong_type => "expect_last_message_text_number.yaml",
    a_role_in_sees_suggests_the_close_one => "sees_unknown_role.yaml",
    a_misspelled_sees_is_suggested => "sees_misspelled.yaml",
    an_over_indented_key_gets_the_parser_text_and_an_indentation_hint => "over_indented_key.yaml",
}

#[test]
fn every_invalid_scenario_file_has_a_test() {
    let mut on_disk: Vec<String> = std::fs::read_dir(INVALID_DIR)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut tested: Vec<String> = INVALID_FILES.iter().map(|f| (*f).to_owned()).collect();
    tested.sort();
    assert_eq!(on_disk, tested);
}

// ---------------------------------------------------------------------------
// No input makes the loader panic.

/// Keys of the format, so that generated maps reach the decoders.
const VOCABULARY: &[&str] = &[
    "sees",
    "in_order",
    "contains",
    "gte",
    "absent",
    "trace",
    "kind",
    "version",
    "name",
    "agent",
    "tools",
    "hooks",
    "model",
    "run",
    "expect",
    "shared_hooks",
    "max_agent_steps",
    "exit_conditions",
    "state_schema",
    "type",
    "handler",
    "results",
    "error",
    "json",
    "text",
    "tool_calls",
    "tool",
    "arguments",
    "id",
    "finish_reason",
    "before_llm",
    "on_exit",
    "when",
    "do",
    "step_count",
    "gte",
    "lt",
    "last_message",
    "role",
    "content",
    "append_messages",
    "set",
    "messages",
    "state",
    "shared",
    "custom",
    "token_budget",
    "drop_tool_calls",
    "rewrite_tool_results",
    "truncate",
    "last_message",
    "unused_replies",
];

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        prop::sample::select(VOCABULARY).prop_map(|s| json!(s)),
        ".{0,8}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::vec((prop::sample::select(VOCABULARY), inner), 0..5).prop_map(
                |entries| {
                    serde_json::Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                }
            ),
        ]
    })
}

fn load_both(text: &str) {
    let _ = Scenario::from_str(text, "fuzz.yaml", Format::Yaml);
    let _ = Scenario::from_str(text, "fuzz.json", Format::Json);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        load_both(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn yaml_ish_text_never_panics(text in r#"[a-z_:{}\[\],\- \n"'&*!|>#.0-9~?%@`\t]{0,200}"#) {
        load_both(&text);
    }

    #[test]
    fn scenario_shaped_values_never_panic(value in json_value()) {
        load_both(&serde_json::to_string(&value).unwrap());
        load_both(&serde_json::to_string_pretty(&value).unwrap());
    }
}

#[test]
fn a_megabyte_long_bad_value_or_key_is_cut_in_the_message() {
    let long = "x".repeat(3_000_000);
    for (text, format) in [
        (
            format!("model: [{{text: hi}}]\nrun: {{messages: [{{role: {long}, text: hi}}]}}\n"),
            Format::Yaml,
        ),
        (
            format!(r#"{{"model": [{{"text": "hi"}}], "{long}": 1}}"#),
            Format::Json,
        ),
    ] {
        let error = Scenario::from_str(&text, "long", format)
            .unwrap_err()
            .to_string();
        assert!(
            error.len() < 1_000,
            "{} bytes: {}",
            error.len(),
            &error[..200]
        );
        assert!(error.contains("... (2999920 more characters)"), "{error}");
    }
}

// ---------------------------------------------------------------------------
// YAML 1.2, core schema: the values the format's text lists.

#[test]
fn yaml_values_follow_the_core_schema_of_yaml_1_2() {
    let scenario = yaml(
        "agent:\n  state_schema: {v: {type: any}}\nmodel: []\nrun:\n  state:\n    v:\n      \
         words: [yes, no, on, off, y, n]\n      booleans: [true, True, FALSE]\n      \
         nulls: [~, null, Null]\n      octal_looking: 010\n      octal: 0o17\n      hex: 0x1F\n      \
         underscored: 1_000\n      date: 2024-01-01\n      exponent: 1e3\n      \
         <<: an ordinary key\n",
    );
    let expected = serde_json::json!({
        "words": ["yes", "no", "on", "off", "y", "n"],
        "booleans": [true, true, false],
        "nulls": [null, null, null],
        "octal_looking": 10,
        "octal": 15,
        "hex": 31,
        "underscored": "1_000",
        "date": "2024-01-01",
        "exponent": 1000.0,
        "<<": "an ordinary key",
    });
    let got = &scenario.run.state["v"];
    assert_eq!(got, &expected);
    assert!(got["exponent"].is_f64(), "1e3 is a float");
}

#[test]
fn non_core_tags_and_infinities_are_file_errors() {
    for text in [
        "!!timestamp 2024-01-01",
        "!foo bar",
        ".inf",
        "-.inf",
        ".nan",
    ] {
        let file = format!(
            "agent:\n  state_schema: {{v: {{type: any}}}}\nmodel: []\nrun:\n  state:\n    v: {text}\n"
        );
        let error = Scenario::from_str(&file, "core.yaml", Format::Yaml).unwrap_err();
        let expected_kind = if text.starts_with('!') {
            matches!(error.kind(), ScenarioErrorKind::UnsupportedTag { .. })
        } else {
            matches!(error.kind(), ScenarioErrorKind::NonFiniteNumber { .. })
        };
        assert!(expected_kind, "{text}: {error}");
        assert_eq!((error.line(), error.column()), (Some(6), Some(8)), "{text}");
    }
}

#[test]
fn flow_lists_nested_past_the_scanner_s_limit_get_the_nesting_message() {
    let depth = 300;
    let text = format!("model: {}{}\n", "[".repeat(depth), "]".repeat(depth));
    let error = Scenario::from_str(&text, "deep.yaml", Format::Yaml)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("lists and maps are nested more than 128 levels deep; flatten them"),
        "{error}"
    );
}

#[test]
fn a_nul_character_is_named_at_its_place() {
    let text = "name: ok\nmodel:\n  - text: \"hi\u{0}\"\n";
    let error = Scenario::from_str(text, "nul.yaml", Format::Yaml)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(
            "nul.yaml:3:14: invalid yaml: the file holds a NUL character (U+0000), which yaml does not allow"
        ),
        "{error}"
    );
}

/// `clock` values the worker's `datetime.fromisoformat` (Python 3.11) reads
/// load; values it refuses (a month 13, a leap second, an hour 24, an offset
/// of a day, junk after the minutes) are file errors at the key, not a
/// failure of the worker.
#[test]
fn a_clock_loads_only_when_python_can_set_it() {
    let load = |clock: &str| {
        let text = format!(
            "clock: \"{clock}\"\nmodel: [{{text: hi}}]\nrun: {{messages: [{{role: user, text: q}}]}}\n"
        );
        Scenario::from_str(&text, "clock.yaml", Format::Yaml).map(|_| ())
    };
    for good in [
        "2026-03-01",
        "2024-02-29",
        "0001-01-01",
        "9999-12-31T23:59:59",
        "2026-03-01T09:00",
        "2026-03-01 09:00:00",
        "2026-03-01T09:00:00.5",
        "2026-03-01T09:00:00,123456789",
        "2026-03-01T09:00:00Z",
        "2026-03-01T09:00:00+00:00",
        "2026-03-01T09:00-23:59",
        "2026-03-01T09:00:00+0100",
        "2026-03-01T09:00:00+01",
        "2026-03-01T09:00:00+01:00:30",
    ] {
        assert!(load(good).is_ok(), "{good} loads: {:?}", load(good));
    }
    for bad in [
        "2026-13-01",
        "2026-00-10",
        "2026-02-29",
        "2026-04-31",
        "0000-01-01",
        "2026-03-01T24:00:00",
        "2026-03-01T09:60",
        "2026-03-01T23:59:60Z",
        "2026-03-01T09:00:00.",
        "2026-03-01T09:00:00.1234567890",
        "2026-03-01T09:00garbage",
        "2026-03-01T09:00:00z",
        "2026-03-01T09:00:00+24:00",
        "2026-03-01T09:00:00+01:60",
        "2026-03-01T09:00:00+1",
        "2026-03-01x09:00",
        "2026-03-01T9:00",
        "2026-3-01",
        "March 1st, 9am",
        "",
    ] {
        let error = load(bad).expect_err(bad).to_string();
        assert!(
            error.starts_with("clock.yaml:1:8: `clock` is `"),
            "{bad}: {error}"
        );
    }
}

/// A NUL in a `python_path` entry is a file error at the entry; it used to
/// reach the worker, which failed in `sys.path` with a traceback of its own.
#[test]
fn a_python_path_entry_with_a_nul_is_refused_at_the_entry() {
    let text = "python_path: [\".\", \"..\\0x\"]\nmodel: [{text: hi}]\nrun: {messages: [{role: user, text: q}]}\n";
    let error = Scenario::from_str(text, "nul.yaml", Format::Yaml)
        .expect_err("a NUL in a path")
        .to_string();
    assert_eq!(
        error,
        "nul.yaml:1:20: the `python_path` entry `..\\0x` holds a NUL character, which no folder's path can; write the folder relative to this file"
    );
}
