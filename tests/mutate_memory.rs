//! `mutate` holds one mutant at a time: the mutants of a scenario share
//! one copy of it, and each changed scenario is built when it is run.
//!
//! This binary holds one test: it counts the bytes allocated by the whole
//! process, which other tests running beside it would disturb.

use hookharness::mutate;
use hookharness::scenario::{Format, Scenario};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = IN_USE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            IN_USE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `n` hooks and `n` replies with tool calls carrying `pad` bytes each, and
/// `n - 1` tool results: every operator has `n` places to change.
fn many_places(n: usize, pad: usize) -> String {
    let mut text =
        String::from("name: big\nagent: {max_agent_steps: 1000}\nhooks:\n  before_llm:\n");
    for i in 0..n {
        text.push_str(&format!("    - name: h{i}\n      when: {{times: 1}}\n"));
    }
    text.push_str("model:\n");
    for i in 0..n - 1 {
        text.push_str(&format!(
            "  - tool_calls: [{{tool: t, arguments: {{a: {i}, p: \"{}\"}}}}]\n",
            "x".repeat(pad)
        ));
    }
    text.push_str("  - text: done\ntools:\n  - name: t\n    results: [");
    let results: Vec<String> = (0..n - 1).map(|i| format!("r{i}")).collect();
    text.push_str(&results.join(", "));
    text.push_str("]\nrun:\n  messages: [{role: user, text: go}]\n");
    text
}

#[test]
fn the_mutants_of_a_scenario_hold_one_copy_of_it() {
    let text = many_places(60, 1500);
    let before = IN_USE.load(Relaxed);
    let scenario = Scenario::from_str(&text, "big.yaml", Format::Yaml).unwrap();
    let loaded = IN_USE.load(Relaxed) - before;
    let mutants = mutate::mutants(&scenario);
    let held = IN_USE.load(Relaxed) - before - loaded;
    assert!(mutants.len() > 600, "{} mutants", mutants.len());
    // Each mutant once held its whole scenario (955 copies); measured now:
    // 2.6 times the scenario (places, descriptions, changed values).
    assert!(
        held < 4 * loaded,
        "{} mutants of a scenario of {loaded} bytes in memory hold {held} bytes",
        mutants.len()
    );
    // Built on demand, each is the scenario with its one change.
    let first = mutants[0].scenario();
    assert_eq!(first.hooks["before_llm"].len(), 59);
    assert_eq!(mutants[0].file(), scenario.file.as_deref());
}
