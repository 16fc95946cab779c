"""Generate tests/fixtures/haystack/agent.json: a Haystack 3.4.1 `Agent.to_dict()` with everything a scenario
can express (prompts, required variables, exit conditions, state schema with handlers, limits, a tool with
state and string mappings, ready-made hooks). `tests/haystack_dict.rs` reads it back and writes it again.

Usage: /work/.venv-ref/bin/python conformance/make_agent_fixture.py [OUT_FILE]
"""

import json
import os
import sys
from pathlib import Path

from haystack.components.agents import Agent
from haystack.components.agents.state.state_utils import merge_lists, replace_values
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.hooks.budget.hooks import TokenBudgetHook
from haystack.tools import Tool


def search(query: str, repo: str = "") -> dict:
    """The tool's function; serialized by its import path only."""
    return {"summary": query, "docs": [repo]}


def build() -> Agent:
    tool = Tool(
        name="search",
        description="Search the repository",
        parameters={"type": "object", "properties": {"query": {"type": "string"}, "repo": {"type": "string"}}},
        function=search,
        inputs_from_state={"repository": "repo"},
        outputs_to_state={"documents": {"source": "docs", "handler": merge_lists}, "last": {}},
        outputs_to_string={"source": "summary"},
    )
    return Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-4o-mini"),
        tools=[tool],
        system_prompt="You help with {{ topic }}.",
        user_prompt='{% message role="user" %}Tell me about {{ topic }}.{% endmessage %}',
        required_variables=["topic"],
        exit_conditions=["text", "search"],
        state_schema={
            "documents": {"type": list},
            "repository": {"type": str},
            "last": {"type": dict},
            "count": {"type": int, "handler": replace_values},
        },
        max_agent_steps=7,
        raise_on_tool_invocation_failure=True,
        tool_concurrency_limit=2,
        hooks={"before_llm": [TokenBudgetHook(max_total_tokens=500)]},
    )


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "unused")  # the generator is built, never called
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "tests/fixtures/haystack/agent.json"
    out.write_text(json.dumps(build().to_dict(), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
