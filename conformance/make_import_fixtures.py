"""Generate tests/fixtures/haystack/import/: Haystack 3.4.1 serializations of one Agent, as `hookharness import`
reads them: `Agent.to_dict()` as JSON (agent.json) and as YAML (agent.yaml), and a pipeline holding the Agent
as `Pipeline.dumps()` writes it (pipeline.yaml). The Agent has two tools, a ready-made hook with parameters, a
hook class of the application's own and a function hook. A second Agent (agent_toolset.json) takes its tools as a
`Toolset` holding a `Tool` and a `ComponentTool`. A third (agent_console.json) asks at the console before a tool
runs (`SimpleConsoleUI`) and offloads results to files (`FileSystemToolResultStore`), which the importer replaces
with their scenario stand-ins. `tests/import.rs` imports each and checks the result.

Usage: /work/.venv-ref/bin/python conformance/make_import_fixtures.py [OUT_DIR]
"""

import json
import os
import sys
from pathlib import Path

import yaml

from haystack import Pipeline
from haystack.components.agents import Agent
from haystack.components.agents.state.state import State
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.core.serialization import default_from_dict, default_to_dict
from haystack.hooks.budget.hooks import TokenBudgetHook
from haystack.hooks.from_function import FunctionHook
from haystack.hooks.human_in_the_loop import (
    AlwaysAskPolicy,
    BlockingConfirmationStrategy,
    ConfirmationHook,
    SimpleConsoleUI,
)
from haystack.hooks.tool_result_offloading import FileSystemToolResultStore, ToolResultOffloadHook
from haystack.hooks.tool_result_offloading.policies import AlwaysOffload
from haystack.components.builders import PromptBuilder
from haystack.tools import ComponentTool, Tool, Toolset

# The application's own code, serialized by import path: it is named as if it lived in a module `my_app`.
APP = "my_app.agent"


def search(query: str, limit: int = 5) -> dict:
    """Search the documentation."""
    return {"hits": [query][:limit]}


def lookup(key: str) -> str:
    """Look a key up."""
    return key


class RequireCitation:
    """An `on_exit` hook of the application: sends an answer without a source back once."""

    def __init__(self, marker: str = "[source:") -> None:
        self.marker = marker

    def run(self, state: State) -> None:
        """Unused: the fixture only serializes the hook."""

    def to_dict(self) -> dict:
        return default_to_dict(self, marker=self.marker)

    @classmethod
    def from_dict(cls, data: dict) -> "RequireCitation":
        return default_from_dict(cls, data)


def log_step(state: State) -> None:
    """A function hook of the application."""


for item in (search, lookup, RequireCitation, log_step):
    item.__module__ = APP


def build() -> Agent:
    tools = [
        Tool(
            name="search",
            description="Search the documentation",
            parameters={
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
            function=search,
            outputs_to_state={"documents": {"source": "hits"}},
        ),
        Tool(
            name="lookup",
            description="Look a key up",
            parameters={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
            function=lookup,
        ),
    ]
    return Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-4o-mini"),
        tools=tools,
        system_prompt="You answer questions about {{ product }}.",
        required_variables=["product"],
        exit_conditions=["text"],
        state_schema={"documents": {"type": list}},
        max_agent_steps=6,
        hooks={
            "before_llm": [TokenBudgetHook(max_total_tokens=2000)],
            "after_tool": [FunctionHook(function=log_step)],
            "on_exit": [RequireCitation()],
        },
    )


def build_toolset() -> Agent:
    """An Agent whose tools are one `Toolset`: a `Tool` and a component as a tool."""
    search_tool = build().tools[0]
    greet = ComponentTool(
        component=PromptBuilder(template="Hello {{ name }}", required_variables=["name"]),
        name="greet",
        description="Greets a person by name",
    )
    return Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-4o-mini"),
        tools=Toolset([search_tool, greet]),
        state_schema={"documents": {"type": list}},
    )


def build_console() -> Agent:
    """An Agent that asks a person at the console before `search` runs and offloads its results to files."""
    confirm = BlockingConfirmationStrategy(confirmation_policy=AlwaysAskPolicy(), confirmation_ui=SimpleConsoleUI())
    return Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-4o-mini"),
        tools=[build().tools[0]],
        state_schema={"documents": {"type": list}},
        hooks={
            "before_tool": [ConfirmationHook(confirmation_strategies={"search": confirm})],
            "after_tool": [
                ToolResultOffloadHook(
                    store=FileSystemToolResultStore(root="/tmp/agent-results"),
                    offload_strategies={"search": AlwaysOffload()},
                )
            ],
        },
    )


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "unused")  # the generator is built, never called
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "tests/fixtures/haystack/import"
    out.mkdir(parents=True, exist_ok=True)
    agent = build()
    dumped = agent.to_dict()
    (out / "agent.json").write_text(json.dumps(dumped, indent=2) + "\n", encoding="utf-8")
    (out / "agent.yaml").write_text(yaml.safe_dump(dumped, sort_keys=False), encoding="utf-8")
    pipeline = Pipeline()
    pipeline.add_component("assistant", agent)
    (out / "pipeline.yaml").write_text(pipeline.dumps(), encoding="utf-8")
    toolset = build_toolset().to_dict()
    (out / "agent_toolset.json").write_text(json.dumps(toolset, indent=2) + "\n", encoding="utf-8")
    console = build_console().to_dict()
    (out / "agent_console.json").write_text(json.dumps(console, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
