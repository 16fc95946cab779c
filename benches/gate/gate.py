#!/usr/bin/env python3
"""Instruction-count gate for the hook dispatch path.

Wall-clock time on a shared CI machine is noise; instructions counted by
callgrind are not. For each standard workload (see src/bench.rs and
examples/bench_workload.rs) this runs the workload binary under callgrind
with 0 and with N iterations and takes the difference per iteration, so
process start-up does not count. Each count is compared with the committed
baseline (benches/gate/baseline.json); the gate fails when a count grows by
more than the tolerance.

    python3 benches/gate/gate.py            # check against the baseline
    python3 benches/gate/gate.py --update   # write the current counts as the new baseline
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASELINE = Path(__file__).with_name("baseline.json")
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
BINARY = (ROOT / TARGET if not TARGET.is_absolute() else TARGET) / "release" / "examples" / "bench_workload"
# workload -> iterations under callgrind
WORKLOADS = {
    "text_step": 200,
    "tool_step": 200,
    "tool_step_hook_everywhere": 200,
    "text_step_100_hooks": 50,
    "text_step_1000_calls": 20,
    "tool_steps_100": 10,
    "text_step_async": 200,
    "text_step_100_hooks_async": 50,
    "text_step_1000_calls_async": 20,
    "tool_steps_100_async": 10,
    "load_scenario": 100,
}
# The figures the targets in docs/performance.md speak of, per path: one
# call of a no-op hook (one hook object registered 1000 times, warmed up
# once per run), a no-op hook with its per-run warm-up (100 distinct hooks), and
# one steady tool step.
DERIVED = {
    "no-op hook call, sync": lambda c: (c["text_step_1000_calls"] - c["text_step"]) / 1000,
    "no-op hook call, async": lambda c: (c["text_step_1000_calls_async"] - c["text_step_async"]) / 1000,
    "no-op hook + warm-up, sync": lambda c: (c["text_step_100_hooks"] - c["text_step"]) / 100,
    "no-op hook + warm-up, async": lambda c: (c["text_step_100_hooks_async"] - c["text_step_async"]) / 100,
    "tool step, sync": lambda c: c["tool_steps_100"] / 100,
    "tool step, async": lambda c: c["tool_steps_100_async"] / 100,
}
COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(workload: str, iterations: int) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(BINARY), workload, str(iterations)],
        capture_output=True,
        text=True,
        check=True,
    )
    match = COLLECTED.search(done.stderr)
    if not match:
        sys.exit(f"callgrind printed no instruction count for {workload}:\n{done.stderr}")
    return int(match.group(1))


def measure() -> dict:
    counts = {}
    for workload, iterations in WORKLOADS.items():
        start = instructions(workload, 0)
        total = instructions(workload, iterations)
        counts[workload] = round((total - start) / iterations)
    return counts


def print_derived(counts: dict) -> None:
    for name, figure in DERIVED.items():
        print(f"{name:28} {figure(counts):>10,.0f} instructions")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write the measured counts as the baseline")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is required: apt-get install valgrind")
    subprocess.run(["cargo", "build", "--release", "--example", "bench_workload"], cwd=ROOT, check=True)
    counts = measure()
    if args.update:
        baseline = {"tolerance_percent": 10, "instructions_per_iteration": counts}
        BASELINE.write_text(json.dumps(baseline, indent=2) + "\n")
        print(f"baseline written to {BASELINE.relative_to(ROOT)}")
        for workload, count in counts.items():
            print(f"{workload:28} {count:>10,} instructions")
        print_derived(counts)
        return 0
    baseline = json.loads(BASELINE.read_text())
    tolerance = baseline["tolerance_percent"]
    failed = False
    for workload, count in counts.items():
        base = baseline["instructions_per_iteration"].get(workload)
        if base is None:
            print(f"{workload:28} {count:>10,} instructions (no baseline: run with --update)")
            failed = True
            continue
        change = 100.0 * (count - base) / base
        verdict = "ok"
        if change > tolerance:
            verdict = f"REGRESSION (more than +{tolerance}%)"
            failed = True
        elif change < -tolerance:
            verdict = "faster: update the baseline with --update"
        print(f"{workload:28} {count:>10,} instructions  baseline {base:>10,}  {change:+6.1f}%  {verdict}")
    print_derived(counts)
    print("gate failed" if failed else "gate passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
