//! Runs one standard workload N times; the instruction-count gate
//! (`benches/gate/gate.py`) runs this under callgrind.
//!
//! `cargo run --release --example bench_workload -- WORKLOAD ITERATIONS`
//!
//! A workload whose name ends in `_async` runs on the async path, all its
//! iterations inside one `block_on`, so the count is the loop's own.

use hookharness::HookPoint;
use hookharness::bench::{PreparedBench, StepBench, StepKind};
use hookharness::scenario::{Format, Scenario};
use std::hint::black_box;

const WORKLOADS: [&str; 9] = [
    "text_step",
    "text_step_100_hooks",
    "tool_step",
    "tool_step_hook_everywhere",
    "tool_steps_100",
    "text_step_async",
    "text_step_100_hooks_async",
    "tool_steps_100_async",
    "load_scenario",
];

/// The scenario `load_scenario` loads and validates (from text, so that
/// reading the file does not count).
const SCENARIO: &str = include_str!("../scenarios/docs_examples/all_three_hooks.yaml");

/// `scaling:H:K:S`: a tool run of `S` steps from a conversation of `H`
/// messages, with `K` no-op hooks at every point (`benches/gate/scaling.py`).
fn scaling(name: &str) -> Option<PreparedBench> {
    let mut parts = name.strip_prefix("scaling:")?.split(':');
    let mut next = || parts.next()?.parse::<usize>().ok();
    let (history, hooks, steps) = (next()?, next()?, next()?);
    let mut bench = StepBench::new(StepKind::Tool)
        .history(history)
        .steps(i64::try_from(steps).ok()?);
    for point in HookPoint::ALL {
        bench = bench.noop_hooks(point, hooks);
    }
    Some(bench.build())
}

fn workload(name: &str) -> Option<PreparedBench> {
    if name.starts_with("scaling:") {
        return scaling(name);
    }
    let bench = match name.strip_suffix("_async").unwrap_or(name) {
        "text_step" => StepBench::new(StepKind::Text),
        "text_step_100_hooks" => {
            StepBench::new(StepKind::Text).noop_hooks(HookPoint::BeforeLlm, 100)
        }
        "tool_step" => StepBench::new(StepKind::Tool),
        "tool_step_hook_everywhere" => StepBench::new(StepKind::Tool).noop_hook_everywhere(),
        "tool_steps_100" => StepBench::new(StepKind::Tool)
            .steps(100)
            .noop_hook_everywhere(),
        _ => return None,
    };
    WORKLOADS.contains(&name).then(|| bench.build())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    if name == "load_scenario" {
        for _ in 0..iterations {
            let loaded =
                Scenario::from_str(black_box(SCENARIO), "all_three_hooks.yaml", Format::Yaml);
            black_box(loaded.expect("the corpus scenario loads"));
        }
        return;
    }
    let Some(bench) = workload(&name) else {
        eprintln!(
            "unknown workload `{name}`; use one of {}, or scaling:HISTORY:HOOKS:STEPS",
            WORKLOADS.join(", ")
        );
        std::process::exit(2);
    };
    if name.ends_with("_async") {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime builds");
        runtime.block_on(async {
            for _ in 0..iterations {
                black_box(bench.run_async().await);
            }
        });
    } else {
        for _ in 0..iterations {
            black_box(bench.run());
        }
    }
}
