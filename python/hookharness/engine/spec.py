"""The scenario as the worker receives it: the canonical JSON of the Rust writer (`Scenario::to_value()`), without
what only the Rust side reads (`description`, `expect`: src/engine/haystack/request.rs).

The Rust loader has already validated the file, so nothing here checks a key's type or reports a file error: this
module only turns the JSON into plain objects and fills in the format's defaults, which the writer leaves out
(docs/scenario-format.md). There is one reading of the format, the Rust one; a shape this module does not expect is a
bug between the two sides, reported as the scenario's error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_PARAMETERS: dict = {"type": "object", "properties": {}}


@dataclass
class Reply:
    """One scripted reply of a model script (`model` or a named `models` entry)."""

    error: str | None = None
    text: str | None = None
    tool_calls: list = field(default_factory=list)  # {"tool", "arguments", "id"}
    usage: dict | None = None
    finish_reason: str | None = None
    chunks: list | None = None  # streamed before the reply when the run streams


@dataclass
class ModelScript:
    """A named scripted model (`models.NAME`): its replies and the generator class it stands in for."""

    name: str
    replies: list[Reply]
    replaces: str | None = None


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict
    results: list  # ("text", str) | ("error", str) | ("json", value) | ("echo", None)
    repeat_last: bool
    inputs_from_state: dict | None = None
    outputs_to_state: dict | None = None  # state key -> {"source"?, "handler"?: name}
    outputs_to_string: dict | None = None
    given: frozenset = frozenset()  # the keys the file wrote (with an agent factory, the rest come from the real tool)


@dataclass
class HookDef:
    """A hook's definition: `declarative`, a ready-made tag, or `python`."""

    kind: str
    name: str | None
    when: dict = field(default_factory=dict)
    do: list = field(default_factory=list)  # (action, argument)
    allowed_hook_points: list | None = None
    params: Any = None  # ready-made constructor parameters, as written
    python: str | None = None  # "module:attribute"
    args: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)  # keyword argument -> script name


@dataclass
class HookRef:
    """One entry of a hook point's list: a definition of its own, or a `shared:` reference."""

    point: str
    index: int
    definition: HookDef | None = None
    shared: str | None = None


@dataclass
class Factory:
    """`agent: {python, args, models}`: the user's function that builds the Agent."""

    python: str
    args: dict
    models: dict  # keyword argument -> script name


@dataclass
class Scenario:
    name: str
    agent: dict
    factory: Factory | None
    custom_agent: str | None  # `agent: {custom: NAME}`: an Agent the test registers (`live.py`)
    tools: list[ToolSpec]
    hooks: dict  # point -> list[HookRef], in file order
    shared_hooks: dict  # name -> HookDef
    model: list[Reply]
    models: dict[str, ModelScript]
    run: dict
    clock: str | None
    python_path: list[str]


def read(value: dict) -> Scenario:
    """The scenario of a request (`Scenario::to_value()`), with every default filled in."""
    agent_value = dict(value.get("agent") or {})
    factory = None
    custom_agent = agent_value.pop("custom", None)
    if "python" in agent_value:
        factory = Factory(
            python=agent_value["python"],
            args=dict(agent_value.get("args") or {}),
            models=dict(agent_value.get("models") or {}),
        )
        agent_value = {}
    shared = {key: _hook(entry) for key, entry in (value.get("shared_hooks") or {}).items()}
    hooks: dict[str, list[HookRef]] = {}
    for point, entries in (value.get("hooks") or {}).items():
        refs = []
        for i, entry in enumerate(entries):
            if "shared" in entry:
                refs.append(HookRef(point=point, index=i, shared=entry["shared"]))
            else:
                refs.append(HookRef(point=point, index=i, definition=_hook(entry)))
        hooks[point] = refs
    models = {
        name: ModelScript(name=name, replies=[reply_from(r) for r in entry.get("replies") or []], replaces=entry.get("replaces"))
        for name, entry in (value.get("models") or {}).items()
    }
    return Scenario(
        name=value.get("name") or "",
        agent=_agent(agent_value),
        factory=factory,
        custom_agent=custom_agent,
        tools=[_tool(t) for t in value.get("tools") or []],
        hooks=hooks,
        shared_hooks=shared,
        model=[reply_from(r) for r in value.get("model") or []],
        models=models,
        run=_run(value.get("run") or {}),
        clock=value.get("clock"),
        python_path=list(value.get("python_path") or ["."]),
    )


def _agent(raw: dict) -> dict:
    return {
        "max_agent_steps": raw.get("max_agent_steps", 100),
        "exit_conditions": list(raw.get("exit_conditions", ["text"])),
        "system_prompt": raw.get("system_prompt"),
        "user_prompt": raw.get("user_prompt"),
        # Absent: "*" (every variable required); null: none required; a list: those.
        "required_variables": raw.get("required_variables", "*"),
        "state_schema": dict(raw.get("state_schema") or {}),
        "raise_on_tool_invocation_failure": raw.get("raise_on_tool_invocation_failure", False),
        "tool_concurrency_limit": raw.get("tool_concurrency_limit", 4),
    }


def _result(raw: Any) -> tuple:
    if isinstance(raw, str):
        return ("text", raw)
    if "error" in raw:
        return ("error", raw["error"])
    if "echo_arguments" in raw:
        return ("echo", None)
    return ("json", raw["json"])


def _tool(raw: dict) -> ToolSpec:
    return ToolSpec(
        name=raw["name"],
        description=raw.get("description") or "",
        parameters=raw.get("parameters") if raw.get("parameters") is not None else dict(DEFAULT_PARAMETERS),
        results=[_result(r) for r in raw.get("results") or []],
        repeat_last=raw.get("repeat_last", False),
        inputs_from_state=raw.get("inputs_from_state"),
        outputs_to_state=raw.get("outputs_to_state"),
        outputs_to_string=raw.get("outputs_to_string"),
        given=frozenset(raw),
    )


def reply_from(raw: Any) -> Reply:
    """A model entry (`model[i]`, `models.NAME.replies[i]`) as the scenario format writes it."""
    if raw is None:
        return Reply()
    if "error" in raw:
        return Reply(error=raw["error"])
    reply = Reply(text=raw.get("text"))
    if raw.get("chunks") is not None:
        reply.chunks = list(raw["chunks"])
        reply.text = "".join(reply.chunks)
    reply.tool_calls = [
        {"tool": c["tool"], "arguments": dict(c.get("arguments") or {}), "id": c.get("id")}
        for c in raw.get("tool_calls") or []
    ]
    reply.usage = raw.get("usage")
    reply.finish_reason = raw.get("finish_reason")
    return reply


_READY_MADE = ("token_budget", "tool_result_offload", "compaction", "confirmation")
_ACTION_KEYS = (
    "append_messages",
    "prepend_messages",
    "replace_messages",
    "set",
    "replace",
    "continue_run",
    "stop_run",
    "drop_tool_calls",
    "set_tool_arguments",
    "rewrite_tool_results",
    "fail",
)


def _hook(raw: dict) -> HookDef:
    name = raw.get("name")
    if "python" in raw:
        return HookDef(
            kind="python",
            name=name,
            python=raw["python"],
            args=dict(raw.get("args") or {}),
            models=dict(raw.get("models") or {}),
        )
    if "custom" in raw:
        return HookDef(kind="custom", name=raw["custom"])
    for tag in _READY_MADE:
        if tag in raw:
            return HookDef(kind=tag, name=name, params=raw[tag])
    actions = []
    for item in raw.get("do") or []:
        # The writer gives one action per map; a map of several keeps the file's order.
        for action, argument in item.items():
            if action in _ACTION_KEYS:
                actions.append((action, argument))
    return HookDef(
        kind="declarative",
        name=name,
        when=dict(raw.get("when") or {}),
        do=actions,
        allowed_hook_points=raw.get("allowed_hook_points"),
    )


def _run(raw: dict) -> dict:
    return {
        "messages": list(raw.get("messages") or []),
        "hook_context": raw.get("hook_context"),
        "state": dict(raw.get("state") or {}),
        "variables": dict(raw.get("variables") or {}),
        "tools": raw.get("tools"),
        "stream": raw.get("stream", False),
        "generation_kwargs": raw.get("generation_kwargs"),
        "async": raw.get("async", False),
    }
