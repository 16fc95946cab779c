"""The worker held on one core against the same worker left free, each against a bare `agent.run`, over the corpus.

    python python/tests/bench_engine_placement.py [PATH...] [--seconds S] [--tojson BIN]

Two workers run side by side, one as the engine starts it (held on one core while scenarios run, `placement.py`)
and one started with `HOOKHARNESS_ONE_CORE=0`, and the bare runs of `bench_engine_corpus.py` in this process. For
`--seconds` (default 240) they take rounds: in each round every kind makes one pass over the corpus (the workers with
the next request sent ahead, as `hookharness run` drives them), in an order that rotates from round to round. Each
round's pass of a worker is divided by the same round's bare pass, a few seconds apart, so that another process's
load, which comes and goes, falls on both sides of each ratio alike; the median of those ratios is the measure
(docs/engines.md, "Cost"), printed with the fastest pass of each kind.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_engine_corpus import corpus_cases, run_bare
from engine_driver import Worker
from hookharness.engine.placement import ENV


def _worker(held: bool) -> Worker:
    saved = os.environ.get(ENV)
    if not held:
        os.environ[ENV] = "0"
    try:
        return Worker()
    finally:
        if saved is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["scenarios"])
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--tojson", default=os.environ.get("HOOKHARNESS_TOJSON"))
    args = parser.parse_args(argv)

    cases, build = corpus_cases(args.paths, args.tojson)
    requests = [request for _, request in cases]
    workers = {"held": _worker(True), "free": _worker(False)}
    for worker in workers.values():  # the warm-up: imports and caches
        worker.run_ahead(requests)
    for sc, _ in cases:
        run_bare(sc, build)
    passes: dict[str, list[float]] = {"bare": [], **{kind: [] for kind in workers}}
    kinds = list(passes)
    start, rounds = time.monotonic(), 0
    while time.monotonic() - start < args.seconds:
        for kind in kinds[rounds % 3 :] + kinds[: rounds % 3]:
            if kind == "bare":
                passes[kind].append(sum(run_bare(sc, build)[1] for sc, _ in cases))
            else:
                began = time.perf_counter()
                workers[kind].run_ahead(requests)
                passes[kind].append(time.perf_counter() - began)
        rounds += 1
    for worker in workers.values():
        worker.close()
    count = len(cases)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{count} scenarios, {rounds} rounds; load average {load:.2f}")
    labels = {"bare": "bare agent.run", "held": "worker, held", "free": f"worker, {ENV}=0"}
    for kind, times in passes.items():
        line = f"  {labels[kind]:<31} fastest pass {min(times) / count * 1e6:5.0f} µs a scenario"
        if kind != "bare":
            ratios = [t / b for t, b in zip(times, passes["bare"])]
            line += f"; over the same round's bare pass: median {statistics.median(ratios) - 1:+.1%}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
