//! An Agent serialized by Haystack 3.4.1 (`tests/fixtures/haystack/agent.json`,
//! written by `conformance/make_agent_fixture.py`) loads as a scenario's
//! agent, tools and hooks, runs, and is written back in the same form.

use hookharness::prompt::RequiredVariables;
use hookharness::replay::Replay;
use hookharness::scenario::{
    Format, HookEntry, ReadyMadeKind, Scenario, agent_from_haystack, agent_to_haystack,
};
use hookharness::scripted::ScriptedResult;
use hookharness::state::{Handler, ValueType};
use serde_json::{Value, json};

fn fixture() -> Value {
    serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/haystack/agent.json"
    )))
    .unwrap()
}

/// The fixture's agent in a scenario that scripts a model and the tool's results.
fn scenario() -> Scenario {
    let loaded = agent_from_haystack(&fixture()).unwrap();
    let mut scenario = Scenario::from_str(
        "model:\n  - tool_calls: [{tool: search, arguments: {query: fusion}}]\n  - text: done\n\
         run:\n  variables: {topic: fusion}\n",
        "from_haystack.yaml",
        Format::Yaml,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    scenario.agent = loaded.agent;
    scenario.tools = loaded.tools;
    scenario.hooks = loaded.hooks;
    scenario.tools[0].results = vec![ScriptedResult::EchoArguments];
    scenario.run.state.insert("repository".into(), json!("hh"));
    scenario
}

#[test]
fn a_dumped_agent_loads_with_everything_a_scenario_can_express() {
    let loaded = agent_from_haystack(&fixture()).unwrap();
    let agent = &loaded.agent;
    assert_eq!(
        agent.system_prompt.as_deref(),
        Some("You help with {{ topic }}.")
    );
    assert_eq!(
        agent.required_variables,
        RequiredVariables::Listed(vec!["topic".into()])
    );
    assert_eq!(agent.exit_conditions, ["text", "search"]);
    assert_eq!(agent.max_agent_steps, 7);
    assert_eq!(agent.tool_concurrency_limit, 2);
    assert!(agent.raise_on_tool_invocation_failure);
    assert_eq!(agent.state_schema["count"].ty, ValueType::Int);
    assert_eq!(
        agent.state_schema["count"].handler,
        Some(Handler::ReplaceValues)
    );
    let tool = &loaded.tools[0];
    assert_eq!(tool.name, "search");
    assert_eq!(tool.inputs_from_state["repository"], "repo");
    assert_eq!(
        tool.outputs_to_state["documents"].handler,
        Some(Handler::MergeLists)
    );
    assert!(tool.results.is_empty());
    assert!(matches!(
        loaded.hooks["before_llm"][0],
        HookEntry::ReadyMade {
            kind: ReadyMadeKind::TokenBudget,
            ..
        }
    ));
}

#[test]
fn the_loaded_agent_runs_with_its_prompts_mappings_and_hooks() {
    let outcome = Replay::new().run(&scenario());
    assert_eq!(outcome.error, None);
    let result = outcome.result.unwrap().to_value();
    // The user prompt was rendered; inputs_from_state injected the repository;
    // outputs_to_string and outputs_to_state read the echoed arguments.
    assert_eq!(
        result["messages"][1]["content"][0]["text"],
        json!("Tell me about fusion.")
    );
    assert_eq!(
        result["exit_reason"],
        json!("search"),
        "`search` is an exit condition"
    );
    assert_eq!(
        result["state"]["last"],
        json!({"query": "fusion", "repo": "hh"})
    );
}

#[test]
fn writing_the_agent_back_gives_haystacks_dict_but_the_model_and_functions() {
    let mut expected = fixture();
    let mut written = agent_to_haystack(&scenario());
    for dict in [&mut expected, &mut written] {
        let params = dict["init_parameters"].as_object_mut().unwrap();
        params.remove("chat_generator");
        params["tools"][0]["data"]["function"] = Value::Null;
    }
    assert_eq!(written, expected);
}
