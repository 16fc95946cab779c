//! Messages written by Haystack 3.4.1's `ChatMessage.to_dict()` load here
//! and serialize back to the same JSON, key order included.
//!
//! The fixture is generated from real Haystack by
//! `conformance/make_fixtures.py`.

use hookharness::{ChatMessage, ChatRole, ContentPart, ToolResult};
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/haystack/messages.json"
    ));
    serde_json::from_str::<Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn load(value: &Value) -> ChatMessage {
    ChatMessage::from_value(value).unwrap_or_else(|e| panic!("{e}: {value}"))
}

#[test]
fn every_fixture_message_loads_and_serializes_back_to_an_equal_value() {
    for value in fixture() {
        let message = load(&value);
        assert_eq!(message.to_value(), value);
        // Same bytes: the key order of Haystack's dicts survives.
        assert_eq!(
            serde_json::to_string(&message.to_value()).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
    }
}

#[test]
fn serde_reads_and_writes_the_same_form() {
    for value in fixture() {
        let message: ChatMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&message).unwrap(), value);
        assert_eq!(message, load(&value));
    }
}

#[test]
fn the_fixture_covers_every_role_and_content_kind() {
    let messages: Vec<_> = fixture().iter().map(load).collect();
    for role in [
        ChatRole::User,
        ChatRole::System,
        ChatRole::Assistant,
        ChatRole::Tool,
    ] {
        assert!(messages.iter().any(|m| m.role() == role), "{role}");
    }
    let parts: Vec<&ContentPart> = messages.iter().flat_map(|m| m.content()).collect();
    let kinds = |kind: &str| {
        parts
            .iter()
            .any(|p| matches!(p, ContentPart::Other { kind: k, .. } if k == kind))
    };
    assert!(kinds("image") && kinds("file") && kinds("reasoning"));
    assert!(messages.iter().any(|m| m.content().is_empty()));
    assert!(messages.iter().any(|m| m.name().is_some()));
    assert!(messages.iter().any(|m| m.meta().get("usage").is_some()));
}

#[test]
fn loaded_messages_read_like_haystacks_accessors() {
    let messages: Vec<_> = fixture().iter().map(load).collect();
    // from_assistant("") keeps an empty text part; from_assistant() has none.
    let assistants: Vec<_> = messages
        .iter()
        .filter(|m| m.is_from(ChatRole::Assistant) && !m.has_tool_calls())
        .collect();
    assert!(assistants.iter().any(|m| m.text() == Some("")));
    assert!(
        assistants
            .iter()
            .any(|m| m.text().is_none() && m.content().is_empty())
    );
    // Tool calls with and without id and extra.
    let calls: Vec<_> = messages.iter().flat_map(|m| m.tool_calls()).collect();
    assert!(calls.iter().any(|c| c.id.is_none()));
    assert!(calls.iter().any(|c| c.extra.is_some()));
    // Tool results: strings with error true and false, and content parts.
    let results: Vec<_> = messages
        .iter()
        .flat_map(|m| m.tool_call_results())
        .collect();
    assert!(results.iter().any(|r| r.error));
    assert!(
        results
            .iter()
            .any(|r| !r.error && matches!(r.result, ToolResult::Text(_)))
    );
    assert!(
        results
            .iter()
            .any(|r| matches!(r.result, ToolResult::Parts(_)))
    );
    // Non-ASCII text survives unchanged.
    assert!(
        messages
            .iter()
            .any(|m| m.text().is_some_and(|t| t.contains("日本語")))
    );
}

#[test]
fn an_unknown_role_is_rejected_with_haystacks_wording() {
    let value = serde_json::json!({"role": "robot", "meta": {}, "name": null, "content": []});
    assert_eq!(
        ChatMessage::from_value(&value).unwrap_err().to_string(),
        "Unknown chat role 'robot'. Supported roles are: ['user', 'system', 'assistant', 'tool']"
    );
}
