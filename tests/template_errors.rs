//! Template errors are Jinja2's: every case of
//! `tests/fixtures/haystack/template_errors.json` (valid templates, and
//! broken ones generated from them by cutting, deleting, replacing and
//! inserting, written with the text and line Haystack 3.4.1 gives by
//! `conformance/make_template_error_fixtures.py`) builds an Agent whose
//! error, or success, is Haystack's, except where minijinja, which renders
//! the templates, does not parse a construct Jinja2 accepts (docs/deviations.md,
//! `template-syntax-gaps`).

use hookharness::prompt::PromptError;
use hookharness::{Agent, AgentError, ChatMessage, generator_fn};
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/haystack/template_errors.json"
    ));
    serde_json::from_str::<Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The error text and line building an Agent with `template` gives.
fn build(template: &str) -> (Option<String>, Option<usize>) {
    let model = generator_fn(|_| Ok(vec![ChatMessage::from_assistant("ok")]));
    match Agent::builder()
        .chat_generator(model)
        .user_prompt(template)
        .build()
    {
        Ok(_) => (None, None),
        Err(AgentError::Prompt(PromptError::Syntax { message, line })) => (Some(message), line),
        Err(error) => (Some(error.to_string()), None),
    }
}

/// A template Jinja2 accepts and minijinja does not parse, for one of the
/// constructs docs/deviations.md lists under `template-syntax-gaps`: a
/// tuple without parentheses where minijinja wants one expression,
/// message tag arguments without a space between them. (A unary `+`, the
/// `print` tag and an empty subscript `x[]` are rewritten, and parse.)
fn minijinja_gap(template: &str, error: &str) -> bool {
    error.starts_with("syntax error: ")
        && (error.contains("unexpected `,`") || error.contains("expected `,`"))
        && template.contains(',')
}

#[test]
fn every_generated_template_gets_jinja2s_error_text_and_line_or_none() {
    let cases = fixture();
    assert!(cases.len() > 2000, "{} cases", cases.len());
    let mut differences = Vec::new();
    for case in &cases {
        let template = case["template"].as_str().unwrap();
        let expected = case["error"].as_str().map(str::to_owned);
        let (error, line) = build(template);
        let line_differs = expected.is_some()
            && case["line"].as_u64().map(|l| l as usize) != line
            && line.is_some();
        let gap =
            expected.is_none() && error.as_deref().is_some_and(|e| minijinja_gap(template, e));
        if (error != expected && !gap) || line_differs {
            differences.push(format!(
                "{template:?}\n  haystack: {expected:?} (line {})\n  harness:  {error:?} (line {line:?})",
                case["line"]
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} cases differ:\n{}",
        differences.len(),
        cases.len(),
        differences.join("\n")
    );
}
