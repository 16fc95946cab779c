"""The Haystack hooks documentation's first example: `search`, `build_context`, `audit_tool_calls`, `require_search`.

The docs end with a module-level `agent = Agent(...)`; here `make_agent()` builds it (the same arguments), so that
importing this module runs nothing. Each scenario replaces its `OpenAIChatGenerator` by the scenario's `model` script.
"""

from datetime import datetime, timezone
from typing import Annotated

from haystack.components.agents import Agent
from haystack.components.agents.state import State, replace_values
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage
from haystack.hooks import hook
from haystack.tools import tool


@tool
def search(query: Annotated[str, "The search query"]) -> str:
    """Search the web."""
    # Placeholder: would call a real search API
    return "Fusion startups reported net-energy-gain milestones this year."


@hook
def build_context(state: State) -> None:
    # before_llm: build run-time system context once, before the first model call.
    if state.get("step_count") == 0:
        now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        system = ChatMessage.from_system(
            f"You are a research assistant. The current time is {now}.",
        )
        state.set(
            "messages",
            [system, *state.data["messages"]],
            handler_override=replace_values,
        )


@hook
def audit_tool_calls(state: State) -> None:
    # before_tool: see which tools the model is about to run.
    pending = state.data["messages"][-1].tool_calls
    print(f"about to run: {[tc.tool_name for tc in pending]}")


@hook
def require_search(state: State) -> None:
    # on_exit: keep going until the agent has actually searched.
    if state.get("tool_call_counts", {}).get("search", 0) == 0:
        state.set("messages", [ChatMessage.from_system("Search before answering.")])
        state.set("continue_run", True)


def make_agent() -> Agent:
    """The docs' Agent, as the docs build it."""
    agent = Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-5.4-nano"),
        tools=[search],
        hooks={
            "before_llm": [build_context],
            "before_tool": [audit_tool_calls],
            "on_exit": [require_search],
        },
    )
    return agent
