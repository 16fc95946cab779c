//! Hook dispatch: 0, 1, 10 and 100 no-op hooks at `before_llm` on a
//! one-step text run, sync and async. The slope is the cost of one hook.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookharness::HookPoint;
use hookharness::bench::{StepBench, StepKind};
use std::hint::black_box;

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("dispatch");
    for hooks in [0usize, 1, 10, 100] {
        let bench = StepBench::new(StepKind::Text)
            .noop_hooks(HookPoint::BeforeLlm, hooks)
            .build();
        group.bench_with_input(BenchmarkId::new("sync", hooks), &bench, |b, bench| {
            b.iter(|| black_box(bench.run()))
        });
        group.bench_with_input(BenchmarkId::new("async", hooks), &bench, |b, bench| {
            b.iter(|| black_box(runtime.block_on(bench.run_async())))
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
