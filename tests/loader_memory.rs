//! The loader's memory is a small multiple of the file: the parse tree of
//! the `model` list is dropped reply by reply as the scenario is read, so
//! the tree and the replies are never both whole in memory.
//!
//! This binary holds one test: it counts the bytes allocated by the whole
//! process, which other tests running beside it would disturb.

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

/// About `bytes` of YAML: tool calls and texts, as a long recording holds.
fn long_recording(bytes: usize) -> String {
    let mut text = String::from(
        "name: long\ntools:\n  - name: search\n    results: [\"r\"]\n    repeat_last: true\nmodel:\n",
    );
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "  - tool_calls: [{{tool: search, arguments: {{query: \"fusion news number {i}\", page: {}}}}}]\n",
            i % 7
        ));
        text.push_str(&format!(
            "  - text: \"The answer number {i} is that fusion is going well, with a few more words.\"\n"
        ));
        i += 1;
    }
    text.push_str("run:\n  messages: [{role: user, text: hi}]\n");
    text
}

#[test]
fn loading_a_10_mb_recording_takes_under_ten_times_its_size() {
    let text = long_recording(10_000_000);
    let before = IN_USE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let scenario = Scenario::from_str(&text, "long.yaml", Format::Yaml).unwrap();
    let peak = PEAK.load(Relaxed) - before;
    assert!(scenario.model.len() > 100_000);
    // Measured: 6.8× (18× when the tree and the replies were whole together).
    assert!(
        peak < 10 * text.len(),
        "loading {} bytes took {peak} bytes at the peak",
        text.len()
    );
}
