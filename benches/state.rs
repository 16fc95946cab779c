//! State operations: set through a handler, get (a copy), merge_lists.

use criterion::{Criterion, criterion_group, criterion_main};
use hookharness::ChatMessage;
use hookharness::state::{Handler, State, StateSchema, ValueType};
use serde_json::json;
use std::hint::black_box;

fn state(c: &mut Criterion) {
    let schema = StateSchema::new()
        .key("count", ValueType::Int)
        .key("notes", ValueType::List);
    let mut group = c.benchmark_group("state");
    group.bench_function("set_replace", |b| {
        let mut state = State::new(schema.clone());
        b.iter(|| state.set("count", black_box(json!(1))).unwrap())
    });
    group.bench_function("get", |b| {
        let mut state = State::new(schema.clone());
        state.set("notes", json!(["a", "b", "c"])).unwrap();
        b.iter(|| black_box(state.get("notes")))
    });
    group.bench_function("merge_lists_10_items", |b| {
        let mut state = State::new(schema.clone());
        state
            .set(
                "notes",
                json!(["a", "b", "c", "d", "e", "f", "g", "h", "i"]),
            )
            .unwrap();
        b.iter(|| {
            state
                .set_with("notes", json!(["j"]), &Handler::MergeLists)
                .unwrap();
            state.data_mut()["notes"].as_array_mut().unwrap().pop();
        })
    });
    group.bench_function("append_message", |b| {
        let mut state = State::new(schema.clone());
        let message = ChatMessage::from_user("hi");
        b.iter(|| {
            state.append_messages(vec![message.clone()]).unwrap();
            state.messages_mut().pop();
        })
    });
    group.finish();
}

criterion_group!(benches, state);
criterion_main!(benches);
