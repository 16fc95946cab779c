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

#[path = "../benches/support/long_scenario.rs"]
mod long_scenario;

const WORKLOADS: [&str; 11] = [
    "text_step",
    "text_step_100_hooks",
    "text_step_1000_calls",
    "tool_step",
    "tool_step_hook_everywhere",
    "tool_steps_100",
    "text_step_async",
    "text_step_100_hooks_async",
    "text_step_1000_calls_async",
    "tool_steps_100_async",
    "load_scenario",
];

/// The scenario `load_scenario` loads and validates (from text, so that
/// reading the file does not count): a frozen copy of the corpus's
/// `docs_examples/all_three_hooks.yaml`, so that strengthening the corpus
/// file's expectations does not move the gate's baseline.
const SCENARIO: &str = include_str!("../benches/data/all_three_hooks.yaml");

/// `load_keys:N` and `load_items:N`: the text of a scenario with a map of
/// `N` keys or a list of `N` items, for the loading scale (see
/// `benches/support/long_scenario.rs`).
fn long_scenario(name: &str) -> Option<String> {
    let (shape, n) = name.split_once(':')?;
    let n = n.parse().ok()?;
    match shape {
        "load_keys" => Some(long_scenario::with_keys(n)),
        "load_items" => Some(long_scenario::with_items(n)),
        _ => None,
    }
}

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
        "text_step_1000_calls" => {
            StepBench::new(StepKind::Text).noop_hook_calls(HookPoint::BeforeLlm, 1000)
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
    let text = match name.as_str() {
        "load_scenario" => Some(SCENARIO.to_owned()),
        _ => long_scenario(&name),
    };
    if let Some(text) = text {
        for _ in 0..iterations {
            let loaded = Scenario::from_str(black_box(&text), "bench.yaml", Format::Yaml);
            black_box(loaded.expect("the scenario loads"));
        }
        return;
    }
    let Some(bench) = workload(&name) else {
        eprintln!(
            "unknown workload `{name}`; use one of {}, scaling:HISTORY:HOOKS:STEPS, load_keys:N or load_items:N",
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
