//! A chat message in one line, as the `explain` timelines show it: its
//! role, then its text, tool calls and tool results (an error result
//! flagged).

use crate::message::ChatMessage;
use serde_json::Value;

/// `ROLE: TEXT, call TOOL(ARGS), result of TOOL (error): TEXT`; `text`
/// writes each text (quoted, shortened or not, as the report wants).
pub(super) fn describe(message: &ChatMessage, text: impl Fn(&str) -> String) -> String {
    let mut parts = Vec::new();
    if let Some(content) = message.text() {
        parts.push(text(content));
    }
    for call in message.tool_calls() {
        parts.push(format!(
            "call {}({})",
            call.tool_name,
            Value::Object(call.arguments.clone())
        ));
    }
    for result in message.tool_call_results() {
        let flag = if result.error { " (error)" } else { "" };
        parts.push(format!(
            "result of {}{flag}: {}",
            result.origin.tool_name,
            text(result.result.as_text().unwrap_or("<parts>"))
        ));
    }
    if parts.is_empty() {
        parts.push("<no content>".into());
    }
    format!("{}: {}", message.role(), parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::Map;

    fn quoted(text: &str) -> String {
        format!("{text:?}")
    }

    #[test]
    fn calls_and_results_follow_the_text_and_an_error_result_is_flagged() {
        let call = ToolCall::new("search", Map::from_iter([("q".into(), Value::from("x"))]));
        let asked = ChatMessage::from_assistant_parts(Some("looking".into()), vec![call.clone()]);
        assert_eq!(
            describe(&asked, quoted),
            "assistant: \"looking\", call search({\"q\":\"x\"})"
        );
        let failed = ChatMessage::from_tool("boom", call, true);
        assert_eq!(
            describe(&failed, quoted),
            "tool: result of search (error): \"boom\""
        );
    }

    #[test]
    fn a_message_without_content_says_so() {
        let empty = ChatMessage::from_assistant_parts(None, Vec::new());
        assert_eq!(describe(&empty, quoted), "assistant: <no content>");
    }
}
