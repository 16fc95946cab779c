"""A research agent built the way real projects build theirs: a factory wiring several models, hooks and tools.

- a planner model: `BriefHook` (before_run) asks its own generator for a research brief and puts it first in the
  conversation;
- an `AgentTool` sub-agent, `researcher`, with its own model and its own tool (`fetch_page`);
- tools the main model calls concurrently in one step (`researcher` and `word_count`);
- a custom state handler: `collect_sources` merges the sources each tool reports into `sources`, without duplicates.

Every generator comes in as an argument, so a test hands each one a scripted model: a hookharness scenario names the
factory under `agent.python` (`haystack_project.agents:make_research_agent`) and the scripts under `agent.models`.
"""

from __future__ import annotations

from typing import Annotated, Any

from haystack.components.agents import Agent
from haystack.components.agents.state import State, replace_values
from haystack.dataclasses import ChatMessage
from haystack.tools import AgentTool, tool

PAGES = {
    "https://example.org/iter": "ITER assembled its first vacuum-vessel sector in 2026.",
    "https://example.org/nif": "NIF repeated ignition with a 5.2 MJ yield.",
}


def collect_sources(current: list[str] | None, new: Any) -> list[str]:
    """State handler for `sources`: keeps the order of first appearance, drops repeats."""
    merged = list(current or [])
    for source in new if isinstance(new, list) else [new]:
        if source not in merged:
            merged.append(source)
    return merged


@tool
def fetch_page(url: Annotated[str, "The page to read"]) -> str:
    """Read a web page (here: a fixed local copy, no network)."""
    return PAGES.get(url, f"no page at {url}")


@tool(outputs_to_state={"sources": {"source": "sources", "handler": collect_sources}})
def word_count(text: Annotated[str, "The text to count"]) -> dict:
    """Count the words of a text."""
    return {"words": len(text.split()), "sources": ["word_count"]}


class BriefHook:
    """before_run: ask the planner model for a research brief and put it first, as a system message."""

    def __init__(self, generator: Any, topic: str) -> None:
        self.generator = generator
        self.topic = topic

    def run(self, state: State) -> None:
        question = state.data["messages"][-1].text or ""
        reply = self.generator.run(
            messages=[ChatMessage.from_user(f"Write a three-line research brief on {self.topic} for: {question}")]
        )["replies"][0]
        brief = ChatMessage.from_system(f"Research brief:\n{reply.text}")
        state.set("messages", [brief, *state.data["messages"]], handler_override=replace_values)
        print(f"brief written ({len(reply.text or '')} chars)")


def make_researcher(generator: Any) -> AgentTool:
    researcher = Agent(
        chat_generator=generator,
        system_prompt="You are a research specialist. Read the pages you need and report your findings.",
        tools=[fetch_page],
    )
    return AgentTool(
        agent=researcher,
        name="researcher",
        description="Research a question and report the findings",
        outputs_to_state={"sources": {"source": "messages", "handler": _page_sources}},
    )


def _page_sources(current: list[str] | None, messages: list[ChatMessage]) -> list[str]:
    """What the researcher read: the `url` of each of its `fetch_page` calls."""
    urls = [call.arguments.get("url") for m in messages for call in m.tool_calls if call.tool_name == "fetch_page"]
    return collect_sources(current, [u for u in urls if u])


def make_research_agent(
    planner_generator: Any,
    researcher_generator: Any,
    chat_generator: Any = None,
    topic: str = "fusion energy",
    max_agent_steps: int = 6,
) -> Agent:
    """The research agent; `chat_generator` defaults to the planner's (a test replaces it anyway)."""
    return Agent(
        chat_generator=chat_generator or planner_generator,
        system_prompt="You answer research questions. Delegate reading to the researcher, then answer briefly.",
        tools=[make_researcher(researcher_generator), word_count],
        state_schema={"sources": {"type": list[str], "handler": collect_sources}},
        max_agent_steps=max_agent_steps,
        tool_concurrency_limit=2,
        hooks={"before_run": [BriefHook(planner_generator, topic)]},
    )
