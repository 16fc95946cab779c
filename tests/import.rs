//! `hookharness import` turns Agents serialized by Haystack 3.4.1
//! (`tests/fixtures/haystack/import/`, written by
//! `conformance/make_import_fixtures.py`) into scenarios that
//! `hookharness check` accepts.

mod common;

use common::hookharness;
use hookharness::scenario::{Format, HookEntry, ReadyMadeKind, Scenario, import_haystack};
use std::path::{Path, PathBuf};

const FIXTURES: &str = "tests/fixtures/haystack/import";

/// A fresh folder under the target directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    common::scratch("import", name)
}

fn imported(fixture: &str) -> Scenario {
    let path = format!("{FIXTURES}/{fixture}");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&path)).unwrap();
    let format = Format::from_path(Path::new(fixture)).unwrap();
    let skeleton = import_haystack(&text, &path, format, None).unwrap_or_else(|e| panic!("{e}"));
    Scenario::from_str(&skeleton, "skeleton.yaml", Format::Yaml)
        .unwrap_or_else(|e| panic!("{e}\n{skeleton}"))
}

#[test]
fn every_fixture_imports_to_a_scenario_that_check_accepts() {
    let dir = scratch("check");
    for fixture in [
        "agent.json",
        "agent.yaml",
        "pipeline.yaml",
        "agent_toolset.json",
        "agent_console.json",
    ] {
        let out = dir.join(format!("{fixture}.scenario.yaml"));
        let output = hookharness(&[
            "import",
            &format!("{FIXTURES}/{fixture}"),
            "--output",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{fixture}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let checked = hookharness(&["check", out.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&checked.stdout);
        let custom = imported(fixture)
            .hooks
            .values()
            .flatten()
            .any(|e| matches!(e, HookEntry::Custom(_)));
        if custom {
            let note = format!("{}: valid, but it uses `custom: ", out.display());
            assert!(stdout.starts_with(&note), "{fixture}: {stdout}");
            assert!(
                stdout.ends_with(
                    "a hook your test registers, so `hookharness run` cannot run it alone; run it \
                     from a Rust test with `Replay::new().custom_hook(\"log_step\", hook)`, or with \
                     pytest, your conftest.py's `hookharness_hooks` fixture giving it \
                     (docs/pytest.md)\n\
                     1 valid (1 only from a Rust test), 0 invalid\n"
                ),
                "{fixture}: {stdout}"
            );
        } else {
            assert_eq!(stdout, "1 valid, 0 invalid\n", "{fixture}");
        }
        assert_eq!(checked.status.code(), Some(0), "{fixture}");
    }
}

#[test]
fn the_json_the_yaml_and_the_pipeline_forms_import_to_the_same_agent() {
    let json = imported("agent.json");
    for other in ["agent.yaml", "pipeline.yaml"] {
        let other = imported(other);
        assert_eq!(other.agent, json.agent);
        assert_eq!(other.tools, json.tools);
        for (point, entries) in &json.hooks {
            assert_eq!(&other.hooks[point], entries, "{point}");
        }
    }
}

#[test]
fn the_skeleton_keeps_settings_tools_and_hooks_and_names_custom_hooks_after_them() {
    let scenario = imported("agent.json");
    assert_eq!(scenario.name, "agent");
    assert_eq!(scenario.agent.max_agent_steps, 6);
    assert_eq!(
        scenario.agent.system_prompt.as_deref(),
        Some("You answer questions about {{ product }}.")
    );
    let tools: Vec<_> = scenario
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.description.as_str()))
        .collect();
    assert_eq!(
        tools,
        [
            ("search", "Search the documentation"),
            ("lookup", "Look a key up")
        ]
    );
    assert_eq!(
        scenario.tools[0].parameters["required"],
        serde_json::json!(["query"])
    );
    assert!(scenario.tools.iter().all(|t| t.results.is_empty()));
    assert!(matches!(
        &scenario.hooks["before_llm"][..],
        [HookEntry::ReadyMade { kind: ReadyMadeKind::TokenBudget, params, .. }]
            if params["max_total_tokens"] == 2000
    ));
    assert_eq!(
        scenario.hooks["after_tool"],
        [HookEntry::Custom("log_step".into())]
    );
    assert_eq!(
        scenario.hooks["on_exit"],
        [HookEntry::Custom("require_citation".into())]
    );
    assert!(scenario.model.is_empty());
    assert_eq!(scenario.run.variables["product"], "");
}

#[test]
fn the_skeleton_text_of_a_dumped_agent_is_pinned() {
    let output = hookharness(&["import", &format!("{FIXTURES}/agent.json")]);
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8(output.stdout).unwrap());
}

#[test]
fn a_pipeline_component_is_chosen_by_name_and_an_unknown_one_is_a_located_error() {
    let path = format!("{FIXTURES}/pipeline.yaml");
    let chosen = hookharness(&["import", &path, "--component", "assistant"]);
    assert_eq!(chosen.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&chosen.stdout).contains("name: \"assistant\"\n"));
    let unknown = hookharness(&["import", &path, "--component", "writer"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        format!(
            "{path}:2:3: the pipeline has no Agent component `writer`; its Agents: `assistant`\n"
        )
    );
}

#[test]
fn a_scenario_file_is_not_an_agent_and_import_says_what_to_give_it() {
    let output = hookharness(&["import", "scenarios/before_llm/stop_at_second_step.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("scenarios/before_llm/stop_at_second_step.yaml:1:1: neither an Agent"),
        "{stderr}"
    );
    assert!(stderr.contains("Pipeline.dumps()"), "{stderr}");
}

#[test]
fn an_existing_output_is_kept_unless_forced() {
    let dir = scratch("force");
    let out = dir.join("agent.yaml");
    std::fs::write(&out, "keep me").unwrap();
    let fixture = format!("{FIXTURES}/agent.json");
    let refused = hookharness(&["import", &fixture, "-o", out.to_str().unwrap()]);
    // 4, as `record` refuses an existing output.
    assert_eq!(refused.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pass --force"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    let forced = hookharness(&["import", &fixture, "-o", out.to_str().unwrap(), "--force"]);
    assert_eq!(forced.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("# A scenario skeleton")
    );
}

/// The output is checked before the input is read or converted (a large
/// dict once took seconds and hundreds of MB to be refused): an input
/// that is not even JSON is refused for its output first.
#[test]
fn the_output_is_checked_before_the_input_is_read() {
    let dir = scratch("output_first");
    let input = dir.join("broken.json");
    std::fs::write(&input, "{ not json").unwrap();
    let out = dir.join("agent.yaml");
    std::fs::write(&out, "keep me").unwrap();
    let refused = hookharness(&[
        "import",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("exists; pass --force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    // With --force, the input is read and its error reported (2), and the
    // output is kept.
    let forced = hookharness(&[
        "import",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(forced.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
}

#[test]
fn import_never_overwrites_its_own_input_even_through_a_link_or_forced() {
    let dir = scratch("own_input");
    let input = dir.join("agent.json");
    std::fs::copy(format!("{FIXTURES}/agent.json"), &input).unwrap();
    let original = std::fs::read_to_string(&input).unwrap();
    let mut outputs = vec![input.clone()];
    #[cfg(unix)]
    {
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        outputs.push(link);
    }
    for output in outputs {
        let run = hookharness(&[
            "import",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
            "--force",
        ]);
        assert_eq!(run.status.code(), Some(4), "{}", output.display());
        assert!(String::from_utf8_lossy(&run.stderr).contains("is the input file"));
        assert_eq!(std::fs::read_to_string(&input).unwrap(), original);
    }
}

#[test]
fn a_json_output_gets_json_that_check_reads_as_the_yaml_output() {
    let dir = scratch("json_output");
    let fixture = format!("{FIXTURES}/agent.json");
    let json = dir.join("skeleton.json");
    let yaml = dir.join("skeleton.yaml");
    for out in [&json, &yaml] {
        let run = hookharness(&["import", &fixture, "-o", out.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0));
    }
    let text = std::fs::read_to_string(&json).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).expect("the .json output is JSON");
    let from_yaml = hookharness::scenario::Scenario::from_path(&yaml).unwrap();
    let from_json = hookharness::scenario::Scenario::from_path(&json).unwrap();
    assert_eq!(from_json.to_value(), from_yaml.to_value());
    assert!(value.get("model").is_some(), "{text}");
}

#[test]
fn a_toolset_gives_its_tools_in_order_and_a_component_tool_is_scripted_by_name() {
    let scenario = imported("agent_toolset.json");
    let names: Vec<&str> = scenario.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search", "greet"]);
    let greet = &scenario.tools[1];
    assert_eq!(greet.description, "Greets a person by name");
    // Haystack derives a component's parameters when it builds the tool;
    // the file holds none, so the scenario has the default schema.
    assert_eq!(
        serde_json::Value::Object(greet.parameters.clone()),
        serde_json::json!({"type": "object", "properties": {}})
    );
}

#[test]
fn an_mcp_tool_is_a_located_error_that_says_to_script_its_tools_by_hand() {
    let dir = scratch("mcp");
    let file = dir.join("mcp_agent.json");
    std::fs::write(
        &file,
        r#"{
  "type": "haystack.components.agents.agent.Agent",
  "init_parameters": {
    "tools": [
      {"type": "haystack_integrations.tools.mcp.mcp_tool.MCPTool", "data": {"name": "time"}}
    ]
  }
}
"#,
    )
    .unwrap();
    let output = hookharness(&["import", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "{}:5:16: `init_parameters.tools[0].type`: cannot script \
             `haystack_integrations.tools.mcp.mcp_tool.MCPTool`: an MCP tool or toolset takes its \
             tools' descriptions and parameters from its server at run time",
            file.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("write the tools it gives under the scenario's `tools:`"),
        "{stderr}"
    );
}

#[test]
fn a_console_ui_and_a_file_store_are_replaced_by_their_scenario_stand_ins_with_a_comment() {
    let path = format!("{FIXTURES}/agent_console.json");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&path)).unwrap();
    let skeleton = import_haystack(&text, &path, Format::Json, None).unwrap();
    assert!(
        skeleton.contains(
            "# The importer replaced what a scenario run cannot use:\n\
             #   `hooks.before_tool[0].confirmation.confirmation_strategies.search.init_parameters.confirmation_ui`: \
             Haystack's `SimpleConsoleUI` asks a person at the console"
        ),
        "{skeleton}"
    );
    assert!(
        skeleton.contains(
            "#   `hooks.after_tool[0].tool_result_offload.store`: Haystack's `FileSystemToolResultStore` \
             (root `/tmp/agent-results`) puts absolute paths in the conversation"
        ),
        "{skeleton}"
    );
    assert!(skeleton.contains("hookharness.hooks.confirmation.ScriptedConfirmationUI"));
    assert!(skeleton.contains("hookharness.hooks.offload.InMemoryToolResultStore"));
    assert!(!skeleton.contains("SimpleConsoleUI\""), "{skeleton}");
}

/// The fixture `agent.json` as a JSON value, to change one field of.
fn agent_dict() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("{FIXTURES}/agent.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_hook_without_init_parameters_imports_as_haystack_reads_it() {
    // Haystack's `default_from_dict` reads a missing `init_parameters` as
    // none; the importer once panicked on it (exit 101).
    let dir = scratch("no_init_parameters");
    let mut dict = agent_dict();
    let hook = &mut dict["init_parameters"]["hooks"]["on_exit"][0];
    hook.as_object_mut().unwrap().remove("init_parameters");
    let input = dir.join("agent.json");
    std::fs::write(&input, dict.to_string()).unwrap();
    let output = hookharness(&["import", input.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let skeleton = String::from_utf8_lossy(&output.stdout);
    assert!(
        skeleton.contains("#   `require_citation`: my_app.agent.RequireCitation\n"),
        "{skeleton}"
    );
}

#[test]
fn a_line_break_in_the_model_name_stays_inside_the_comment() {
    let dir = scratch("model_name_breaks");
    for (i, breaker) in ["\n", "\r", "\r\n", "\u{85}", "\u{2028}", "\u{2029}"]
        .into_iter()
        .enumerate()
    {
        let mut dict = agent_dict();
        dict["init_parameters"]["chat_generator"]["init_parameters"]["model"] =
            format!("gpt{breaker}max_agent_steps: 1{breaker}#\u{1b}]0;t\u{7}\u{202e}").into();
        let input = dir.join(format!("agent{i}.json"));
        std::fs::write(&input, dict.to_string()).unwrap();
        let out = dir.join(format!("skeleton{i}.yaml"));
        let output = hookharness(&[
            "import",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{breaker:?}");
        let skeleton = std::fs::read_to_string(&out).unwrap();
        assert!(
            skeleton.contains(
                "max_agent_steps: 1\\u{", // the break, escaped, on the comment's line
            ),
            "{breaker:?}: {skeleton}"
        );
        assert!(
            !skeleton
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{breaker:?}: {skeleton:?}"
        );
        let scenario = Scenario::from_path(&out).unwrap_or_else(|e| panic!("{breaker:?}: {e}"));
        assert_eq!(scenario.agent.max_agent_steps, 6, "{breaker:?}");
        let checked = hookharness(&["check", out.to_str().unwrap()]);
        assert_eq!(checked.status.code(), Some(0), "{breaker:?}");
    }
}

/// A key longer than YAML's 1024-character implicit keys (a state key, a
/// required variable) is written after YAML's `? `: the skeleton loads,
/// and so does the scenario written from it.
#[test]
fn keys_past_yamls_implicit_key_length_are_written_as_explicit_keys() {
    let long = "k".repeat(1100);
    let dumped = serde_json::json!({
        "type": "haystack.components.agents.agent.Agent",
        "init_parameters": {
            "chat_generator": {
                "type": "haystack.components.generators.chat.openai.OpenAIChatGenerator",
                "init_parameters": {"model": "m"}
            },
            "state_schema": {long.clone(): {"type": "list"}},
            "user_prompt": format!("{{{{ {long} }}}}"),
            "required_variables": [long.clone()]
        }
    });
    let skeleton = import_haystack(&dumped.to_string(), "long.json", Format::Json, None).unwrap();
    let scenario = Scenario::from_str(&skeleton, "skeleton.yaml", Format::Yaml)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(scenario.agent.state_schema.contains_key(&long));
    let written = scenario.to_yaml();
    let again =
        Scenario::from_str(&written, "again.yaml", Format::Yaml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, scenario);
}
