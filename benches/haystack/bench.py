#!/usr/bin/env python3
"""The standard workloads of benches/ on Haystack 3.4.1's own Agent.

Same shapes as src/bench.rs: a mock generator that answers with a fixed
reply, one tool returning a fixed string, no-op hooks. Prints nanoseconds
per unit (hook invocation, tool step, run), the best of several repeats.

    python3 -m venv .venv-ref && .venv-ref/bin/pip install -r conformance/requirements.txt
    .venv-ref/bin/python benches/haystack/bench.py
"""

import asyncio
import logging
import timeit
import warnings

from haystack import component
from haystack.components.agents import Agent
from haystack.components.agents.state import State
from haystack.dataclasses import ChatMessage, ToolCall
from haystack.hooks import hook
from haystack.tools import Tool

logging.disable(logging.CRITICAL)
warnings.filterwarnings("ignore")


@component
class Repeat:
    """Answers every call with a copy of one reply."""

    def __init__(self, tool_call: bool):
        self.tool_call = tool_call

    def _reply(self) -> ChatMessage:
        if self.tool_call:
            return ChatMessage.from_assistant(tool_calls=[ToolCall("search", {"query": "fusion"}, id="call_0")])
        return ChatMessage.from_assistant("done")

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage], tools=None):
        return {"replies": [self._reply()]}

    @component.output_types(replies=list[ChatMessage])
    async def run_async(self, messages: list[ChatMessage], tools=None):
        return {"replies": [self._reply()]}


def search(query: str) -> str:
    return "found"


SEARCH = Tool(name="search", description="", parameters={"type": "object", "properties": {}}, function=search)
POINTS = ["before_run", "before_llm", "before_tool", "after_tool", "on_exit", "after_run"]


def noop(state: State) -> None:
    return None


def agent(tool_call: bool, steps: int, hooks: dict) -> Agent:
    return Agent(chat_generator=Repeat(tool_call), tools=[SEARCH], max_agent_steps=steps, hooks=hooks)


def best_ns(fn, number: int, repeat: int = 7) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def main() -> None:
    messages = [ChatMessage.from_user("go")]

    plain = agent(False, 1, {})
    hooked = agent(False, 1, {"before_llm": [hook(noop) for _ in range(100)]})
    run_plain = best_ns(lambda: plain.run(messages=messages), 200)
    run_hooked = best_ns(lambda: hooked.run(messages=messages), 50)
    print(f"one_step_text_run                {run_plain:12.0f} ns per run")
    print(f"noop_hook_invocation             {(run_hooked - run_plain) / 100:12.0f} ns per hook")

    everywhere = {point: [hook(noop)] for point in POINTS}
    tool_steps = agent(True, 10, everywhere)
    sync_step = best_ns(lambda: tool_steps.run(messages=messages), 20) / 10
    print(f"tool_step_hook_everywhere_sync   {sync_step:12.0f} ns per step")

    loop = asyncio.new_event_loop()
    async_step = best_ns(lambda: loop.run_until_complete(tool_steps.run_async(messages=messages)), 20) / 10
    print(f"tool_step_hook_everywhere_async  {async_step:12.0f} ns per step")

    for steps in (10, 100, 1000):
        long = agent(True, steps, everywhere)
        per_step = best_ns(lambda: long.run(messages=messages), 1, repeat=3) / steps
        print(f"tool_steps_{steps:<5}                {per_step:12.0f} ns per step")


if __name__ == "__main__":
    main()
