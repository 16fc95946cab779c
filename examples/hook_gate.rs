//! An instruction-count and behaviour gate for one hook, as a user crate
//! would keep it: the `audit_tool_calls` hook of `hook_overhead`, gated
//! against `benches/hook_gate/audit_tool_calls.json` and its trace.
//!
//! ```sh
//! cargo run --release --example hook_gate              # check (CI)
//! cargo run --release --example hook_gate -- --update  # write the baseline
//! ```
//!
//! `benches/hook_gate/check.sh` also runs it with `HOOK_GATE_VARIANT=slower`
//! (the same audit, doing more work) and `HOOK_GATE_VARIANT=different` (a
//! cheap hook that drops the pending calls) and expects both to fail.

use hookharness::bench::HookGate;
use hookharness::{HookPoint, State, hook_fn};
use std::process::ExitCode;

/// Collects the names of the pending tool calls.
fn audit(state: &mut State) {
    let pending: Vec<String> = state
        .messages()
        .last()
        .map(|m| m.tool_calls().map(|c| c.tool_name.clone()).collect())
        .unwrap_or_default();
    std::hint::black_box(pending);
}

/// The same audit, doing more work.
fn slower(state: &mut State) {
    for _ in 0..20 {
        audit(state);
    }
}

/// A cheap hook that drops the pending calls.
fn different(state: &mut State) {
    if let Some(last) = state.messages_mut().last_mut() {
        last.content_mut().clear();
    }
}

fn main() -> ExitCode {
    let body: fn(&mut State) = match std::env::var("HOOK_GATE_VARIANT").as_deref() {
        Ok("slower") => slower,
        Ok("different") => different,
        _ => audit,
    };
    let hook = hook_fn(body);
    HookGate::new(
        "audit_tool_calls",
        HookPoint::BeforeTool,
        hook.named("audit_tool_calls"),
    )
    .baseline_dir("benches/hook_gate")
    .main()
}
