"""Haystack's two ready-made hooks, configured as their documentation configures them.

- `ConfirmationHook` (haystack.hooks.human_in_the_loop), as in its docstring: `delete_file` always asks, every other
  tool never does. The docs ask through `RichConsoleUI`; a test has no person at the console, so
  `make_confirmation_agent` takes the UI's answers and replays them (`ReplayUI`, Haystack's `ConfirmationUI`
  protocol); with no answers it uses the docs' `RichConsoleUI`.
- `ToolResultOffloadHook` (haystack.hooks.tool_result_offloading), as in its docstring: `web_search` always
  offloads, `get_time` never, `read_file`/`list_dir` over 4000 characters, any other tool over 8000, into a
  `FileSystemToolResultStore` under `root`.
"""

from __future__ import annotations

from typing import Any

from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.hooks.human_in_the_loop import (
    AlwaysAskPolicy,
    BlockingConfirmationStrategy,
    ConfirmationHook,
    ConfirmationUIResult,
    NeverAskPolicy,
    RichConsoleUI,
    SimpleConsoleUI,
)
from haystack.hooks.tool_result_offloading import (
    AlwaysOffload,
    FileSystemToolResultStore,
    NeverOffload,
    OffloadOverChars,
    ToolResultOffloadHook,
)
from haystack.tools import tool


@tool
def delete_file(path: str) -> str:
    """Delete the file at the given path."""
    return f"Deleted {path}."


@tool
def list_files(folder: str) -> str:
    """List the files of a folder."""
    return f"{folder}: notes.txt, draft.md"


class ReplayUI:
    """A confirmation UI that gives recorded answers, one per question, in order."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = list(answers)

    def get_user_confirmation(
        self, tool_name: str, tool_description: str, tool_params: dict[str, Any]
    ) -> ConfirmationUIResult:
        return ConfirmationUIResult(**self.answers.pop(0))

    def to_dict(self) -> dict[str, Any]:
        return {"type": f"{__name__}.ReplayUI", "init_parameters": {"answers": self.answers}}


def make_confirmation_agent(answers: list[dict[str, Any]] | None = None) -> Agent:
    ui = ReplayUI(answers) if answers is not None else RichConsoleUI()
    hook = ConfirmationHook(
        confirmation_strategies={
            "delete_file": BlockingConfirmationStrategy(confirmation_policy=AlwaysAskPolicy(), confirmation_ui=ui),
            "*": BlockingConfirmationStrategy(confirmation_policy=NeverAskPolicy(), confirmation_ui=SimpleConsoleUI()),
        }
    )
    return Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-5.4-nano"),
        tools=[delete_file, list_files],
        hooks={"before_tool": [hook]},
    )


@tool
def web_search(query: str) -> str:
    """Search the web."""
    return f"results for {query}"


@tool
def get_time() -> str:
    """The current time."""
    return "12:00"


def make_offload_agent(root: str) -> Agent:
    hook = ToolResultOffloadHook(
        store=FileSystemToolResultStore(root=root),
        offload_strategies={
            "web_search": AlwaysOffload(),  # force offload
            "get_time": NeverOffload(),  # opt out
            ("read_file", "list_dir"): OffloadOverChars(4000),  # tuple key: shared policy
            "*": OffloadOverChars(8000),  # wildcard default for any unlisted tool
        },
    )
    return Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-5.4-nano"),
        tools=[web_search, get_time],
        hooks={"after_tool": [hook]},
    )
