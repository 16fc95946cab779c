"""The worker's cost per scenario over a bare `agent.run` of the same agent.

    python python/tests/bench_engine.py [SCENARIO] [--runs N]

Four timings over N runs of one scenario (default: the docs' three-hook example, 3 LLM calls, 1 tool call,
6 hook calls), each the median of 5 rounds, per run:

- `bare run`: `agent.run` of an Agent built once (the scenario's hooks, scripted tools and model, the scripts rewound
  before each run; scripted tool results need the observers, which the two bare timings therefore include);
- `bare build+run`: the same Agent built with `Agent(...)` and run each time, as a user's own test does it (the worker
  builds a fresh Agent per scenario);
- `worker in-process`: `run_request` (build, sandbox, observers, full trace, record), no protocol;
- `worker round trip`: one request and its response through a worker process over the protocol.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine_driver import ROOT, Worker, request


def per_run(fn, runs: int, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(runs):
            fn()
        times.append((time.perf_counter() - start) / runs)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios/docs_examples/all_three_hooks.yaml"))
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--detail", choices=["summary", "full"], default="summary")
    args = parser.parse_args(argv)

    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.getLogger("haystack").setLevel(logging.CRITICAL)
    from haystack.components.agents import Agent
    from hookharness.engine import observe, spec
    from hookharness.engine import run as engine_run
    from hookharness.engine.capture import Capture
    from hookharness.engine.recorder import Recorder
    from hookharness.engine.scripted import (
        ScriptedChatGenerator,
        ToolScript,
        scripted_tool,
        scripts_for,
    )

    req = request(Path(args.scenario), detail=args.detail)
    sc = spec.read(req["scenario"])

    def build():
        """The scenario's Agent as a user's own test builds it: `Agent(...)`, new objects throughout."""
        recorder = Recorder()
        scripts = scripts_for(sc.models, sc.model)
        a = sc.agent
        agent = Agent(
            chat_generator=ScriptedChatGenerator(scripts["model"], recorder),
            tools=[scripted_tool(t) for t in sc.tools],
            system_prompt=a["system_prompt"],
            user_prompt=a["user_prompt"],
            required_variables=a["required_variables"],
            exit_conditions=list(a["exit_conditions"]),
            state_schema=engine_run._state_schema(a["state_schema"]),
            max_agent_steps=a["max_agent_steps"],
            raise_on_tool_invocation_failure=a["raise_on_tool_invocation_failure"],
            tool_concurrency_limit=a["tool_concurrency_limit"],
            hooks=engine_run._hooks(sc, {}, scripts, recorder),
        )
        return agent, scripts, {t.name: ToolScript(t) for t in sc.tools}

    agent, scripts, tool_scripts = build()

    def bare_run():
        """`agent.run` of the Agent built once; the model and tool scripts rewound."""
        scripts["model"].used = 0
        for script in tool_scripts.values():
            script.consumed = 0
        with observe.observed(agent, Recorder(), Capture(), {}, tool_scripts):  # only to hand out tool results
            engine_run._run_agent(agent, sc, Recorder())

    def bare_build_run():
        built, _, tools = build()
        with observe.observed(built, Recorder(), Capture(), {}, tools):
            engine_run._run_agent(built, sc, Recorder())

    capture = Capture()  # not installed: the in-process timing leaves this process's fds alone

    def in_process():
        record = engine_run.run_request(req, capture)
        assert record["error"] is None, record["error"]

    worker = Worker()

    def round_trip():
        record = worker.run(req)
        assert record["error"] is None, record["error"]

    for fn in (bare_run, bare_build_run, in_process, round_trip):
        fn()  # warm
    timings = {
        "bare run": per_run(bare_run, args.runs),
        "bare build+run": per_run(bare_build_run, args.runs),
        "worker in-process": per_run(in_process, args.runs),
        "worker round trip": per_run(round_trip, args.runs),
    }
    worker.close()
    base = timings["bare run"]
    print(f"{Path(args.scenario).name}, {args.runs} runs x 5 rounds (median per run)")
    for name, seconds in timings.items():
        print(f"  {name:<18} {seconds * 1e6:9.0f} µs  ({seconds / base - 1:+.0%} over bare run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
