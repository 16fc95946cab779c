//! Hook dispatch: 0, 1, 10 and 100 no-op hooks at `before_llm` on a
//! one-step text run, sync and async. The slope is the cost of one hook
//! with its per-run warm-up; `calls_sync` / `calls_async` register one hook
//! object 100 or 10,000 times (warmed up once), so their slope is one call
//! alone; at 10,000 the calls outweigh the run around them, so the slope
//! stands out of a loaded machine's noise.

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
    for count in [100usize, 10_000] {
        let calls = StepBench::new(StepKind::Text)
            .noop_hook_calls(HookPoint::BeforeLlm, count)
            .build();
        group.bench_with_input(BenchmarkId::new("calls_sync", count), &calls, |b, bench| {
            b.iter(|| black_box(bench.run()))
        });
        group.bench_with_input(
            BenchmarkId::new("calls_async", count),
            &calls,
            |b, bench| b.iter(|| black_box(runtime.block_on(bench.run_async()))),
        );
    }
    // Spans are built only once a subscriber exists; this one exists but
    // wants nothing, which shows what the span path costs when tracing is
    // set up but the agent's spans are filtered out.
    let bench = StepBench::new(StepKind::Text)
        .noop_hooks(HookPoint::BeforeLlm, 100)
        .build();
    let _guard = tracing::subscriber::set_default(tracing::subscriber::NoSubscriber::default());
    group.bench_with_input(
        BenchmarkId::new("sync_with_uninterested_subscriber", 100),
        &bench,
        |b, bench| b.iter(|| black_box(bench.run())),
    );
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
