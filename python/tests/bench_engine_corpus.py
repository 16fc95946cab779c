"""The worker's cost over the whole corpus against a bare `agent.run` of each scenario's agent.

    python python/tests/bench_engine_corpus.py [PATH...] [--runs N] [--tojson BIN]

For every scenario (default: `scenarios/`) that builds, five kinds of run: a bare `agent.run` of the same agent with
the same scripted replies (the Agent built as a user's own test builds it, outside the timer: `Agent(...)`, the
scenario's hooks, a scripted chat generator, plain `Tool`s returning the scripted results in order); the same with the
construction timed; the request handled in process (`run_request`: build, sandbox, observation, record); and the
request through one worker process for the whole corpus (the same plus the protocol), one request at a time; and
through that worker with the next request sent before the last record is read, as `hookharness run` drives it.
Prints, per scenario, the median and the fastest of the N runs of each kind added up over the corpus, the fastest
round's total of each kind over the corpus (the only measure of the last kind: its pass over the corpus, first
request sent to last record read), the ratios (and, for the last kind, the median of each run's own ratio), the CPU
time a scenario takes in a bare `agent.run` and through a worker with the next request sent ahead (`worker_cpu`), and
the load average
(docs/engines.md, "Cost")."""

from __future__ import annotations

import argparse
import asyncio
import copy
import inspect
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine_corpus import canonical
from engine_driver import ROOT, Worker, hook_names


class ScriptError(Exception):
    """A scripted tool result `{error: TEXT}`."""


def mock_tool(spec):
    from haystack.tools import Tool
    from hookharness.engine.scripted import HANDLERS

    results, state = spec.results, {"n": 0}

    def function(**kwargs):
        index = min(state["n"], len(results) - 1) if results else 0
        state["n"] += 1
        if not results:
            raise ScriptError("no result")
        kind, value = results[index]
        if kind == "error":
            raise ScriptError(value)
        if kind == "json":
            return copy.deepcopy(value)
        return copy.deepcopy(kwargs) if kind == "echo" else value

    function.__signature__ = inspect.Signature()
    outputs = spec.outputs_to_state
    if outputs is not None:
        outputs = {k: {**v, **({"handler": HANDLERS[v["handler"]]} if "handler" in v else {})} for k, v in outputs.items()}
    return Tool(
        name=spec.name,
        description=spec.description,
        parameters=copy.deepcopy(spec.parameters),
        function=function,
        inputs_from_state=spec.inputs_from_state,
        outputs_to_state=outputs,
        outputs_to_string=spec.outputs_to_string,
    )


def run_bare(sc, build, cpu: list | None = None) -> tuple[float, float]:
    """One bare run: (seconds building the Agent, seconds in `agent.run`); with `cpu`, the CPU seconds of the
    `agent.run` (this process's, every thread) are added to `cpu[0]`."""
    from hookharness.engine import run as engine_run

    start = time.perf_counter()
    agent, recorder = build(sc)
    built = time.perf_counter() - start
    kwargs = engine_run._run_kwargs(sc, recorder)
    cpu_start = time.process_time()
    start = time.perf_counter()
    try:
        if sc.run["async"]:
            asyncio.run(agent.run_async(**kwargs))
        else:
            agent.run(**kwargs)
    except BaseException:  # noqa: BLE001, S110 - scenarios that expect an error fail here too
        pass
    ran = time.perf_counter() - start
    if cpu is not None:
        cpu[0] += time.process_time() - cpu_start
    return built, ran


def worker_cpu(worker_class, requests: list[dict], passes: int) -> float:
    """Seconds of CPU (user and system, every thread) one worker spends on `passes` passes over `requests`, the next
    request sent ahead: what a worker that ran them used less what one that ran only the warm-up used, each read from
    the kernel's account of it when it exited (`os.wait4`), so that the time another process took the core is not
    counted, as it is in a pass's wall time."""

    def used(extra: int) -> float:
        worker = worker_class()
        worker.run_ahead(requests)  # the warm-up both make
        for _ in range(extra):
            worker.run_ahead(requests)
        worker.send({"id": 0, "shutdown": True})
        _, _, usage = os.wait4(worker.process.pid, 0)
        for stream in (worker.process.stdin, worker.process.stdout, worker.process.stderr):
            stream.close()
        worker.process.returncode = 0  # reaped here: `Popen` must not wait for it again
        return usage.ru_utime + usage.ru_stime

    return used(passes) - used(0)


def corpus_cases(paths: list[str], tojson: str | None):
    """The scenarios under `paths` that build, each as (its `spec.Scenario`, its request as the Rust side writes it),
    and the function that builds a scenario's Agent as a user's own test would (`build(sc) -> (agent, recorder)`)."""
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.getLogger("haystack").setLevel(logging.CRITICAL)
    from haystack.components.agents import Agent
    from hookharness.engine import run as engine_run
    from hookharness.engine import spec
    from hookharness.engine.recorder import Recorder
    from hookharness.engine.scripted import ScriptedChatGenerator, scripts_for

    files = []
    for given in paths:
        files.extend(sorted(str(p.relative_to(ROOT)) for p in (ROOT / given).rglob("*.y*ml")))
    scenarios = canonical(tojson, files)

    def build(sc):
        recorder = Recorder()
        scripts = scripts_for(sc.models, sc.model)
        a = sc.agent
        return Agent(
            chat_generator=ScriptedChatGenerator(scripts["model"], recorder),
            tools=[mock_tool(t) for t in sc.tools],
            system_prompt=a["system_prompt"],
            user_prompt=a["user_prompt"],
            required_variables=a["required_variables"],
            exit_conditions=list(a["exit_conditions"]),
            state_schema=engine_run._state_schema(a["state_schema"]),
            max_agent_steps=a["max_agent_steps"],
            raise_on_tool_invocation_failure=a["raise_on_tool_invocation_failure"],
            tool_concurrency_limit=a["tool_concurrency_limit"],
            hooks=engine_run._hooks(sc, {}, scripts, recorder),
        ), recorder

    cases = []
    for file, value in scenarios.items():
        sc = spec.read(value)
        try:
            build(sc)
        except Exception:  # noqa: BLE001, S112 - a construction error: nothing to compare a run with
            continue
        # As the Rust side writes it (src/engine/haystack/request.rs): without what only that side reads.
        sent = {key: v for key, v in value.items() if key not in ("description", "expect")}
        request = {"scenario": sent, "file": file, "dir": str((ROOT / file).parent),
                   "hook_names": hook_names(value), "detail": "summary", "keep_requests": False}
        cases.append((sc, request))
    return cases, build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["scenarios"])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--tojson", default=os.environ.get("HOOKHARNESS_TOJSON"))
    args = parser.parse_args(argv)

    cases, build = corpus_cases(args.paths, args.tojson)
    from hookharness.engine import run as engine_run
    from hookharness.engine.capture import Capture

    capture = Capture()  # not installed: in-process runs leave this process's fds alone
    counted = len(cases)
    worker = Worker()
    for sc, request in cases:  # one warm-up pass of each kind: imports and caches
        run_bare(sc, build)
        engine_run.run_request(request, capture)
        worker.run(request)
    worker.run_ahead([request for _, request in cases])
    # Rounds: each round runs the corpus once per kind, kind after kind, in an order that rotates from round to
    # round, so that another process's load falls on every kind alike while each kind runs as it does in use (one
    # scenario after another: the worker's caches stay warm between its requests). Per scenario the median of its
    # runs and the fastest are kept; the totals add them up over the corpus. Each round's total per kind is kept too:
    # with the next request sent ahead, a scenario's own time is not what it costs (a record read late makes the next
    # one look instant), so that kind is timed as the whole pass over the corpus, first request sent to last record
    # read, and compared with the other kinds' round totals.
    kinds = ("bare", "built", "in-process", "worker")
    times = {kind: [[] for _ in cases] for kind in kinds}
    rounds: dict[str, list[float]] = {kind: [] for kind in (*kinds, "ahead")}
    requests = [request for _, request in cases]
    for run in range(args.runs):
        for which in [(run + k) % 4 for k in range(4)]:
            if which == 3:
                start = time.perf_counter()
                worker.run_ahead(requests)
                rounds["ahead"].append(time.perf_counter() - start)
                continue
            for i, (sc, request) in enumerate(cases):
                if which == 0:
                    built, ran = run_bare(sc, build)
                    times["bare"][i].append(ran)
                    times["built"][i].append(built + ran)
                elif which == 1:
                    start = time.perf_counter()
                    engine_run.run_request(request, capture)
                    times["in-process"][i].append(time.perf_counter() - start)
                else:
                    start = time.perf_counter()
                    worker.run(request)
                    times["worker"][i].append(time.perf_counter() - start)
            for kind in ("bare", "built") if which == 0 else ("in-process",) if which == 1 else ("worker",):
                rounds[kind].append(sum(t[-1] for t in times[kind]))
    worker.close()
    # CPU: the bare runs' own CPU per pass, and a worker's per pass (three pairs of workers, each pair a few seconds
    # apart from a bare measure), the medians compared.
    bare_cpu, worker_cpus = [], []
    for _ in range(3):
        spent = [0.0]
        for sc, _request in cases:
            run_bare(sc, build, spent)
        bare_cpu.append(spent[0])
        worker_cpus.append(worker_cpu(Worker, requests, args.runs) / args.runs)
    median = {kind: sum(statistics.median(t) for t in times[kind]) for kind in kinds}
    fastest = {kind: sum(min(t) for t in times[kind]) for kind in kinds}
    best_round = {kind: min(r) for kind, r in rounds.items()}
    labels = {
        "bare": "bare agent.run",
        "built": "bare build + run",
        "in-process": "in-process request",
        "worker": "worker request",
        "ahead": "worker, next sent",
    }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{counted} scenarios x {args.runs} runs, one worker; load average {load:.2f}")
    print("  per scenario (µs)     median  fastest  fastest round")
    for kind in (*kinds, "ahead"):
        per = f"{median[kind] / counted * 1e6:7.0f}  {fastest[kind] / counted * 1e6:7.0f}" if kind in kinds else " " * 16
        print(f"  {labels[kind]:<20} {per}  {best_round[kind] / counted * 1e6:7.0f}")
    for kind in ("in-process", "worker"):
        for base in ("bare", "built"):
            print(
                f"  {labels[kind]} over {labels[base]}: {median[kind] / median[base] - 1:+.0%} "
                f"(fastest {fastest[kind] / fastest[base] - 1:+.0%}, fastest round "
                f"{best_round[kind] / best_round[base] - 1:+.0%})"
            )
    for base in ("bare", "built"):
        print(f"  {labels['ahead']} over {labels[base]}: fastest round {best_round['ahead'] / best_round[base] - 1:+.0%}")
    cpu_bare, cpu_worker = statistics.median(bare_cpu), statistics.median(worker_cpus)
    print(
        f"  CPU per scenario: bare agent.run {cpu_bare / counted * 1e6:.0f} µs, the worker with the next request sent "
        f"ahead {cpu_worker / counted * 1e6:.0f} µs: {cpu_worker / cpu_bare - 1:+.0%} (medians of three; the worker's "
        f"each {', '.join(f'{w / cpu_bare - 1:+.0%}' for w in worker_cpus)})"
    )
    # Each run's own ratio (its pass with the next request sent ahead over its bare pass, the two a few seconds
    # apart): their median moves less with another process's load than the ratio of two fastest rounds taken from
    # different runs.
    ratios = sorted(a / b for a, b in zip(rounds["ahead"], rounds["bare"]))
    print(
        f"  {labels['ahead']} over {labels['bare']}, run by run: median {statistics.median(ratios) - 1:+.0%} "
        f"(from {ratios[0] - 1:+.0%} to {ratios[-1] - 1:+.0%})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
