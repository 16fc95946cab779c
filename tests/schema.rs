//! The JSON Schema against the loader and the docs: the committed copy is
//! what `hookharness schema` prints, each map of the schema lists the keys
//! the loader reads at that place, and each key of the docs' tables carries
//! the docs' words. (python/tests/test_schema.py validates the corpus and
//! the invalid files with an independent validator.)

use std::collections::BTreeSet;

use hookharness::scenario::{Format, Scenario, ScenarioErrorKind};
use serde_json::{Value, json};

const COPY: &str = "schema/scenario.schema.json";

fn schema() -> Value {
    hookharness::schema::scenario_schema()
}

#[test]
fn the_committed_copy_is_what_the_command_prints() {
    let copy = std::fs::read_to_string(COPY).unwrap();
    assert!(
        copy == hookharness::schema::text(),
        "{COPY} differs from the schema: write it anew with `cargo run -- schema > {COPY}`"
    );
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .arg("schema")
        .output()
        .unwrap();
    assert!(printed.status.success());
    assert_eq!(String::from_utf8(printed.stdout).unwrap(), copy);
}

/// The keys the loader reads where `scenario` holds the unknown key `zz`.
fn loader_keys(scenario: &Value) -> Option<BTreeSet<String>> {
    let text = serde_json::to_string(scenario).unwrap();
    let error = Scenario::from_str(&text, "place.json", Format::Json).unwrap_err();
    match error.kind() {
        ScenarioErrorKind::UnknownKey { key, valid, .. } if key == "zz" => {
            Some(valid.iter().cloned().collect())
        }
        _ => None,
    }
}

/// The properties of the schema object at `pointer`, or the union of its
/// `oneOf` alternatives' properties.
fn schema_keys(pointer: &str) -> BTreeSet<String> {
    let schema = schema();
    let mut at = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"));
    while let Some(target) = at.get("$ref").and_then(Value::as_str) {
        at = schema.pointer(target.trim_start_matches('#')).unwrap();
    }
    let objects: Vec<&Value> = match at.get("oneOf").and_then(Value::as_array) {
        Some(alternatives) => alternatives.iter().collect(),
        None => vec![at],
    };
    objects
        .iter()
        .filter_map(|object| object.get("properties").and_then(Value::as_object))
        .flat_map(|properties| properties.keys().cloned())
        .collect()
}

#[test]
fn each_map_of_the_schema_lists_the_keys_the_loader_reads_there() {
    let hook = |entry: Value| json!({"hooks": {"before_run": [entry]}, "model": []});
    let places: Vec<(&str, Value, &[&str])> = vec![
        ("", json!({"model": [], "zz": 1}), &[]),
        (
            "/definitions/agent",
            json!({"agent": {"zz": 1}, "model": []}),
            &[],
        ),
        (
            "/definitions/state_schema_entry",
            json!({"agent": {"state_schema": {"k": {"type": "any", "zz": 1}}}, "model": []}),
            &[],
        ),
        (
            "/definitions/tool",
            json!({"tools": [{"name": "t", "zz": 1}], "model": []}),
            &[],
        ),
        (
            "/definitions/tool/properties/outputs_to_state/additionalProperties",
            json!({"tools": [{"name": "t", "outputs_to_state": {"k": {"zz": 1}}}], "model": []}),
            &[],
        ),
        (
            "/definitions/tool_result",
            json!({"tools": [{"name": "t", "results": [{"zz": 1}]}], "model": []}),
            &[],
        ),
        // `sees` is taken off a reply before the reply is read.
        (
            "/definitions/model_reply",
            json!({"model": [{"zz": 1}]}),
            &["sees"],
        ),
        (
            "/definitions/tool_call",
            json!({"model": [{"tool_calls": [{"tool": "t", "zz": 1}]}]}),
            &[],
        ),
        (
            "/definitions/message/oneOf/0",
            json!({"run": {"messages": [{"role": "user", "zz": 1}]}, "model": []}),
            &[],
        ),
        (
            "/definitions/message/oneOf/1",
            json!({"run": {"messages": [{"role": "user", "content": [], "zz": 1}]}, "model": []}),
            &[],
        ),
        (
            "/definitions/run",
            json!({"run": {"zz": 1}, "model": []}),
            &[],
        ),
        (
            "/definitions/expect",
            json!({"expect": {"zz": 1}, "model": []}),
            &[],
        ),
        (
            "/definitions/always",
            json!({"expect": {"always": {"zz": 1}}, "model": []}),
            &[],
        ),
        (
            "/definitions/last_message_expect",
            json!({"expect": {"last_message": {"zz": 1}}, "model": []}),
            &[],
        ),
        (
            "/definitions/tool_call_expect",
            json!({"expect": {"last_message": {"tool_calls": [{"tool": "t", "zz": 1}]}}, "model": []}),
            &[],
        ),
        (
            "/definitions/expect/properties/hooks/oneOf/1",
            json!({"expect": {"hooks": {"zz": []}}, "model": []}),
            &[],
        ),
        (
            "/definitions/sees",
            json!({"model": [{"text": "x", "sees": {"zz": 1}}]}),
            &[],
        ),
        (
            "/definitions/when",
            hook(json!({"name": "h", "when": {"zz": 1}})),
            &[],
        ),
        (
            "/definitions/when/properties/step_count/oneOf/1",
            hook(json!({"name": "h", "when": {"step_count": {"zz": 1}}})),
            &[],
        ),
        (
            "/definitions/when/properties/last_message",
            hook(json!({"name": "h", "when": {"last_message": {"zz": 1}}})),
            &[],
        ),
        (
            "/definitions/hook_entry/oneOf/0",
            hook(json!({"name": "h", "zz": 1})),
            &[],
        ),
        (
            "/definitions/hook_entry/oneOf/1",
            hook(json!({"token_budget": {"max_total_tokens": 5}, "zz": 1})),
            &[],
        ),
        (
            "/definitions/hook_entry/oneOf/5",
            hook(json!({"shared": "s", "zz": 1})),
            &[],
        ),
        (
            "/definitions/hook_entry/oneOf/6",
            hook(json!({"custom": "c", "zz": 1})),
            &[],
        ),
        (
            "/definitions/action/properties/set_tool_arguments",
            hook(
                json!({"name": "h", "do": [{"set_tool_arguments": {"tool": "t", "arguments": {}, "zz": 1}}]}),
            ),
            &[],
        ),
        (
            "/definitions/action/properties/rewrite_tool_results",
            hook(json!({"name": "h", "do": [{"rewrite_tool_results": {"truncate": 1, "zz": 1}}]})),
            &[],
        ),
    ];
    for (index, kind) in ["hook", "llm", "tool", "exit", "stop", "max_steps"]
        .iter()
        .enumerate()
    {
        let pointer = format!("/definitions/event_pattern/oneOf/{index}");
        let scenario = json!({"expect": {"trace": [{"kind": kind, "zz": 1}]}, "model": []});
        let loader = loader_keys(&scenario).unwrap();
        let mut expected = schema_keys(&pointer);
        expected.remove("kind");
        let loader: BTreeSet<String> = loader.into_iter().filter(|k| k != "kind").collect();
        assert_eq!(
            expected, loader,
            "trace events of kind `{kind}` ({pointer})"
        );
    }
    for (pointer, scenario, read_elsewhere) in places {
        let loader = loader_keys(&scenario)
            .unwrap_or_else(|| panic!("the loader does not reject `zz` at {pointer}"));
        let schema = schema_keys(pointer);
        let missing: Vec<&String> = loader.difference(&schema).collect();
        assert!(
            missing.is_empty(),
            "{pointer}: the schema lacks {missing:?}"
        );
        let extra: Vec<&String> = schema
            .difference(&loader)
            .filter(|k| !read_elsewhere.contains(&k.as_str()))
            .collect();
        assert!(
            extra.is_empty(),
            "{pointer}: the loader does not read {extra:?}"
        );
    }
}

#[test]
fn the_hook_entry_alternatives_are_in_the_order_the_places_name() {
    let entries = &schema()["definitions"]["hook_entry"]["oneOf"];
    let tags: Vec<String> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            entry["required"][0]
                .as_str()
                .unwrap_or("(declarative)")
                .to_owned()
        })
        .collect();
    assert_eq!(
        tags,
        [
            "(declarative)",
            "token_budget",
            "tool_result_offload",
            "compaction",
            "confirmation",
            "shared",
            "custom",
            "python"
        ]
    );
}

/// The rows of the markdown table under `heading` in `doc`: each key the
/// first column names in backticks, with the last column.
fn table(doc: &str, heading: &str) -> Vec<(String, String)> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .flat_map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            let meaning = cells.last().unwrap().to_string();
            cells[0]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|key| key.split(':').next().unwrap().trim())
                .filter(|key| key.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
                .map(|key| (key.to_owned(), meaning.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn description(pointer: &str) -> String {
    let schema = schema();
    let mut at = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"));
    while let Some(target) = at.get("$ref").and_then(Value::as_str) {
        at = schema.pointer(target.trim_start_matches('#')).unwrap();
    }
    at["description"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn each_key_of_the_docs_tables_carries_the_docs_words() {
    let doc = std::fs::read_to_string("docs/scenario-format.md").unwrap();
    let tables = [
        ("## Top level", "/properties"),
        ("`when` holds when", "/definitions/when/properties"),
        (
            "`do` actions, applied in order",
            "/definitions/action/properties",
        ),
        ("## `expect`", "/definitions/expect/properties"),
        ("## `agent`", "/definitions/agent/properties"),
    ];
    let mut checked = 0;
    for (heading, at) in tables {
        for (key, meaning) in table(&doc, heading) {
            let words = meaning
                .trim_end_matches(", below")
                .trim_start_matches("same")
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim_start_matches("holds when ");
            let found = description(&format!("{at}/{key}"));
            assert!(
                found.contains(words),
                "{heading} `{key}`: the schema's description {found:?} does not hold the docs' words {words:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} rows read");
}
