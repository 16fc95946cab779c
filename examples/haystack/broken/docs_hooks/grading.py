"""The hooks documentation's class-based example, verbatim: `GradeFinalAnswer`, an on_exit hook with its own judge.

Its judge is an `OpenAIChatGenerator` the hook constructs itself; a scenario scripts it with a named model that
`replaces: "haystack.components.generators.chat:OpenAIChatGenerator"`.
"""

from typing import Any

from haystack.components.agents import Agent
from haystack.components.agents.state import State
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.core.serialization import default_from_dict, default_to_dict
from haystack.dataclasses import ChatMessage


class GradeFinalAnswer:
    """Grade the Agent's answer with an LLM and ask it to improve a weak answer before finishing."""

    def __init__(self, model: str = "gpt-5.4-nano"):
        self.model = model
        self._judge = OpenAIChatGenerator(model=self.model)

    def warm_up(self) -> None:
        # Warm up the judge's own client during the Agent's warm-up.
        self._judge.warm_up()

    def close(self) -> None:
        # Release the judge's client during the Agent's close.
        self._judge.close()

    def run(self, state: State) -> None:
        answer = state.data["messages"][-1].text or ""
        verdict = (
            self._judge.run(
                messages=[
                    ChatMessage.from_user(
                        f"Reply with only PASS or FAIL. Is this answer complete?\n\n{answer}",
                    ),
                ],
            )["replies"][0].text
            or ""
        )
        if "PASS" in verdict.upper():  # BROKEN: inverted
            state.set(
                "messages",
                [
                    ChatMessage.from_user(
                        "Your answer was incomplete. Please improve it.",
                    ),
                ],
            )
            state.set("continue_run", True)

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, model=self.model)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GradeFinalAnswer":
        return default_from_dict(cls, data)


def make_agent() -> Agent:
    """The docs' Agent, as the docs build it."""
    agent = Agent(
        chat_generator=OpenAIChatGenerator(model="gpt-5.4-nano"),
        hooks={"on_exit": [GradeFinalAnswer()]},
    )
    return agent
