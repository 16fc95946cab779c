#!/usr/bin/env python3
"""How a tool step's cost grows with the conversation and with the hooks.

For each conversation length H and hook count K (K no-op hooks at every
point), counts the instructions of a run of 20 and of 10 tool steps under
callgrind; the difference over 10 is the cost of one steady step, setup
(building the history, warming up the hooks) excluded. Linear cost shows as
a per-step count flat in H and growing by a constant per hook in K.

    python3 benches/gate/scaling.py
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import gate  # noqa: E402


def per_step(history: int, hooks: int) -> float:
    def count(steps: int) -> int:
        return gate.instructions(f"scaling:{history}:{hooks}:{steps}", 1)

    return (count(20) - count(10)) / 10


def main() -> int:
    subprocess.run(["cargo", "build", "--release", "--example", "bench_workload"], cwd=gate.ROOT, check=True)
    print(f"{'history':>8} {'hooks/point':>12} {'instructions/step':>18}")
    for history in (10, 1_000, 10_000):
        for hooks in (1, 10, 100):
            print(f"{history:>8} {hooks:>12} {per_step(history, hooks):>18,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
