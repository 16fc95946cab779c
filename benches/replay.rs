//! Loading and replaying a corpus scenario, and serializing its outcome.

use criterion::{Criterion, criterion_group, criterion_main};
use hookharness::replay::Replay;
use hookharness::scenario::{Format, Scenario};
use std::hint::black_box;

const FILE: &str = "scenarios/docs_examples/all_three_hooks.yaml";

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

criterion_group!(benches, replay);
criterion_main!(benches);
