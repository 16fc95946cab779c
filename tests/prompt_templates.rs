//! Prompt templates render as Haystack's `ChatPromptBuilder` renders them:
//! templates from Haystack's docs and the Jinja2 features they use, with
//! the texts Haystack 3.4.1 produced (`tests/fixtures/haystack/prompts.json`,
//! written by `conformance/make_prompt_fixtures.py`).

use hookharness::prompt::RequiredVariables;
use hookharness::{Agent, ChatMessage, RunOptions, generator_fn};
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/haystack/prompts.json"
    ));
    serde_json::from_str::<Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The text of the user message the Agent renders from `template`.
fn render(template: &str, variables: &Value) -> String {
    let model = generator_fn(|_| Ok(vec![ChatMessage::from_assistant("ok")]));
    let agent = Agent::builder()
        .chat_generator(model)
        .user_prompt(template)
        .required_variables(RequiredVariables::None)
        .build();
    let agent = match agent {
        Ok(agent) => agent,
        Err(error) => return format!("ERROR {error}"),
    };
    let mut options = RunOptions::new();
    for (name, value) in variables.as_object().unwrap() {
        options = options.variable(name.clone(), value.clone());
    }
    match agent.run(vec![], options) {
        Ok(output) => output.messages[0].text().unwrap_or_default().to_owned(),
        Err(error) => format!("ERROR {error}"),
    }
}

#[test]
fn templates_from_haystacks_docs_render_the_same_text() {
    let mut differences = Vec::new();
    for case in fixture() {
        let template = case["template"].as_str().unwrap();
        let Some(expected) = case["text"].as_str() else {
            continue;
        };
        let got = render(template, &case["variables"]);
        if got != expected {
            differences.push(format!(
                "{template:?}\n  haystack: {expected:?}\n  harness:  {got:?}"
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// Templates Haystack refuses (Python's `str` methods and `str.format`
/// given what they reject): the harness's error holds Haystack's exception,
/// type and text.
#[test]
fn templates_haystack_refuses_fail_with_haystacks_exception() {
    let mut differences = Vec::new();
    let mut count = 0;
    for case in fixture() {
        let Some(expected) = case["error"].as_str() else {
            continue;
        };
        count += 1;
        let template = case["template"].as_str().unwrap();
        let got = render(template, &case["variables"]);
        if !(got.starts_with("ERROR ") && got.contains(expected)) {
            differences.push(format!(
                "{template:?}\n  haystack: {expected:?}\n  harness:  {got:?}"
            ));
        }
    }
    assert!(count >= 30, "{count} error cases");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
