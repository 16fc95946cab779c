//! The state keys the Agent manages: every control and metadata key's name,
//! written once.

/// `messages`: the conversation (a `Vec<ChatMessage>` in [`State`](super::State)).
pub const MESSAGES: &str = "messages";
/// `step_count`: completed steps (run metadata).
pub const STEP_COUNT: &str = "step_count";
/// `token_usage`: the summed usage of the model's replies (run metadata).
pub const TOKEN_USAGE: &str = "token_usage";
/// `tool_call_counts`: tool results per tool name (run metadata).
pub const TOOL_CALL_COUNTS: &str = "tool_call_counts";
/// `exit_reason`: why the run ended (run metadata).
pub const EXIT_REASON: &str = "exit_reason";
/// `continue_run`: an `on_exit` hook's request for another step.
pub const CONTINUE_RUN: &str = "continue_run";
/// `stop_run`: a reason that stops the run at the next stop check.
pub const STOP_RUN: &str = "stop_run";
/// `tools`: the tools the next step offers the model.
pub const TOOLS: &str = "tools";
/// `hook_context`: request-scoped values for hooks.
pub const HOOK_CONTEXT: &str = "hook_context";
/// `context_tokens`: the prompt size of the last reply.
pub const CONTEXT_TOKENS: &str = "context_tokens";

/// Run metadata: reserved, and part of the run's output.
pub const RUN_METADATA_KEYS: [&str; 4] = [STEP_COUNT, TOKEN_USAGE, TOOL_CALL_COUNTS, EXIT_REASON];

/// Internal control keys: reserved, and stripped from the run's output.
pub const INTERNAL_KEYS: [&str; 5] = [CONTINUE_RUN, STOP_RUN, TOOLS, HOOK_CONTEXT, CONTEXT_TOKENS];

/// Every reserved key, sorted as Haystack's error lists them.
pub const RESERVED_KEYS: [&str; 9] = [
    CONTEXT_TOKENS,
    CONTINUE_RUN,
    EXIT_REASON,
    HOOK_CONTEXT,
    STEP_COUNT,
    STOP_RUN,
    TOKEN_USAGE,
    TOOL_CALL_COUNTS,
    TOOLS,
];

/// `true` for a key a user's `state_schema` may not define.
pub fn is_reserved(key: &str) -> bool {
    RESERVED_KEYS.contains(&key)
}

/// `true` for a key stripped from the run's output.
pub fn is_internal(key: &str) -> bool {
    INTERNAL_KEYS.contains(&key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_keys_are_the_metadata_and_internal_keys_sorted() {
        let mut all: Vec<&str> = RUN_METADATA_KEYS
            .iter()
            .chain(&INTERNAL_KEYS)
            .copied()
            .collect();
        all.sort_unstable();
        assert_eq!(all, RESERVED_KEYS);
    }
}
