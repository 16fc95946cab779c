//! Long scenarios for the loading benches: one map of `n` keys (a tool
//! call's arguments) or one list of `n` items (model replies), so that the
//! cost per key or per item can be compared from 100 to 10,000.
//!
//! Shared by `benches/replay.rs` (criterion) and
//! `examples/bench_workload.rs` (instruction counts).

use std::fmt::Write;

/// A scenario whose one tool call has `n` arguments, one per line.
pub fn with_keys(n: usize) -> String {
    let mut text = String::from(
        "tools:\n  - name: search\nmodel:\n  - tool_calls:\n      - tool: search\n        arguments:\n",
    );
    for i in 0..n {
        writeln!(text, "          key_{i}: value {i}").expect("writing to a String");
    }
    text
}

/// A scenario of `n` model replies, one per line.
pub fn with_items(n: usize) -> String {
    let mut text = String::from("model:\n");
    for i in 0..n {
        writeln!(text, "  - text: \"reply number {i}\"").expect("writing to a String");
    }
    text
}
