//! Memory of the standard tool step, for 10, 100 and 1,000 steps: the peak
//! of live heap bytes during a run and the allocations made, per step.
//!
//! `cargo run --release --example memory_per_step`

use hookharness::bench::{StepBench, StepKind};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live bytes, their peak, and allocations.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    println!(
        "{:>6} {:>14} {:>16} {:>18}",
        "steps", "peak bytes", "bytes per step", "allocations/step"
    );
    for steps in [10i64, 100, 1000] {
        let bench = StepBench::new(StepKind::Tool)
            .steps(steps)
            .noop_hook_everywhere()
            .build();
        let before_live = LIVE.load(Ordering::Relaxed);
        PEAK.store(before_live, Ordering::Relaxed);
        let before_allocations = ALLOCATIONS.load(Ordering::Relaxed);
        let output = bench.run();
        let peak = PEAK.load(Ordering::Relaxed) - before_live;
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before_allocations;
        assert_eq!(output.step_count(), Some(steps));
        println!(
            "{steps:>6} {peak:>14} {:>16} {:>18}",
            peak / steps as usize,
            allocations / steps as usize
        );
    }
}
