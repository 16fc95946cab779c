"""Two before_llm hooks with a planted order bug: `tailor_style` reads the `profile` that `load_profile` writes.

Registered `load_profile` first (as the scenario does), the style is right; registered the other way round,
`tailor_style` runs before there is a profile and picks the wrong style. Nothing in one order says the other is
wrong: `hookharness explore` runs both and `expect.always` catches it.
"""

from haystack.components.agents.state import State
from haystack.dataclasses import ChatMessage
from haystack.hooks import hook


@hook
def load_profile(state: State) -> None:
    if state.get("profile") is None:
        state.set("profile", "expert")


@hook
def tailor_style(state: State) -> None:
    if state.get("style") is None:
        style = "terse" if state.get("profile") == "expert" else "step by step"
        state.set("style", style)
        state.set("messages", [ChatMessage.from_system(f"Answer {style}.")])
