//! The state keys the Agent manages.

/// Run metadata: reserved, and part of the run's output.
pub const RUN_METADATA_KEYS: [&str; 4] = [
    "step_count",
    "token_usage",
    "tool_call_counts",
    "exit_reason",
];

/// Internal control keys: reserved, and stripped from the run's output.
pub const INTERNAL_KEYS: [&str; 5] = [
    "continue_run",
    "stop_run",
    "tools",
    "hook_context",
    "context_tokens",
];

/// Every reserved key, sorted as Haystack's error lists them.
pub const RESERVED_KEYS: [&str; 9] = [
    "context_tokens",
    "continue_run",
    "exit_reason",
    "hook_context",
    "step_count",
    "stop_run",
    "token_usage",
    "tool_call_counts",
    "tools",
];

/// `true` for a key a user's `state_schema` may not define.
pub fn is_reserved(key: &str) -> bool {
    RESERVED_KEYS.contains(&key)
}

/// `true` for a key stripped from the run's output.
pub fn is_internal(key: &str) -> bool {
    INTERNAL_KEYS.contains(&key)
}
