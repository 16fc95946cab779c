//! Full runs: a text step and a tool step, with and without a no-op hook at
//! every point; and runs of 10, 100 and 1,000 tool steps (cost per step
//! must stay flat as the conversation grows).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookharness::bench::{StepBench, StepKind};
use std::hint::black_box;

fn steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("step");
    for (name, kind) in [("text", StepKind::Text), ("tool", StepKind::Tool)] {
        let bare = StepBench::new(kind).build();
        let hooked = StepBench::new(kind).noop_hook_everywhere().build();
        group.bench_function(format!("{name}/no_hooks"), |b| {
            b.iter(|| black_box(bare.run()))
        });
        group.bench_function(format!("{name}/noop_hook_everywhere"), |b| {
            b.iter(|| black_box(hooked.run()))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("steps");
    group.sample_size(20);
    for steps in [10i64, 100, 1000] {
        let bench = StepBench::new(StepKind::Tool)
            .steps(steps)
            .noop_hook_everywhere()
            .build();
        group.bench_with_input(BenchmarkId::from_parameter(steps), &bench, |b, bench| {
            b.iter(|| black_box(bench.run()))
        });
    }
    group.finish();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("steps_async");
    group.sample_size(20);
    let bench = StepBench::new(StepKind::Tool)
        .steps(1000)
        .noop_hook_everywhere()
        .build();
    group.bench_function("1000", |b| {
        b.iter(|| black_box(runtime.block_on(bench.run_async())))
    });
    group.finish();
}

criterion_group!(benches, steps);
criterion_main!(benches);
