//! Loading and replaying a corpus scenario, and serializing its outcome.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};
use std::hint::black_box;

#[path = "support/long_scenario.rs"]
mod long_scenario;

/// A frozen copy of the corpus's `docs_examples/all_three_hooks.yaml` (the
/// input of the instruction gate's `load_scenario` too), so that the corpus
/// file's later expectations do not change what is measured.
const FILE: &str = "benches/data/all_three_hooks.yaml";

fn replay(c: &mut Criterion) {
    let text = std::fs::read_to_string(FILE).unwrap();
    let scenario = Scenario::from_str(&text, FILE, Format::Yaml).unwrap();
    let outcome = Replay::new().run(&scenario);
    assert!(outcome.passed());
    let mut group = c.benchmark_group("replay");
    group.bench_function("load", |b| {
        b.iter(|| black_box(Scenario::from_str(&text, FILE, Format::Yaml).unwrap()))
    });
    group.bench_function("run", |b| {
        b.iter(|| black_box(Replay::new().run(&scenario)))
    });
    group.bench_function("outcome_to_json", |b| {
        b.iter(|| black_box(outcome.to_json_line()))
    });
    group.finish();
}

/// Loading cost per map key and per list item, from 100 to 10,000 of them:
/// flat when loading is linear in the file.
fn load_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_scaling");
    for n in [100, 1_000, 10_000] {
        let shapes = [
            ("keys", long_scenario::with_keys(n)),
            ("items", long_scenario::with_items(n)),
        ];
        for (shape, text) in shapes {
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(shape, n), &text, |b, text| {
                b.iter(|| black_box(Scenario::from_str(text, "long.yaml", Format::Yaml).unwrap()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, replay, load_scaling);
criterion_main!(benches);
