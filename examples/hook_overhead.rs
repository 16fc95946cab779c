//! What does my hook cost per step? Plug it into the standard tool step.
//!
//! `cargo run --release --example hook_overhead`

use hookharness::bench::overhead_per_step;
use hookharness::{HookPoint, State, hook_fn};

fn main() {
    // A before_tool hook that audits the pending calls, like the
    // documentation's `audit_tool_calls`.
    let audit = hook_fn(|state: &mut State| {
        let pending: Vec<String> = state
            .messages()
            .last()
            .map(|m| m.tool_calls().map(|c| c.tool_name.clone()).collect())
            .unwrap_or_default();
        std::hint::black_box(pending);
    });
    let report = overhead_per_step(HookPoint::BeforeTool, audit, 2_000);
    println!("audit_tool_calls at before_tool: {report}");
}
