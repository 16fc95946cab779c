"""One request to one record: build the Agent (the scenario's, or the user's factory's), run it, record it."""

from __future__ import annotations

import asyncio
import copy
import inspect
import os
import re
from typing import Any

from haystack.components.agents import Agent
from haystack.components.agents.state.state_utils import merge_lists, replace_values
from haystack.components.agents.tool_calling import ToolNotFoundException
from haystack.dataclasses import ChatMessage
from haystack.tools import Toolset, flatten_tools_or_toolsets
from haystack.tools.errors import ToolInvocationError

from . import live, ready_made, spec, wire
from .capture import Capture
from .children import ended_children
from .declarative import DeclarativeHook
from .errors import ScenarioAbort, ScenarioRunError
from .observe import observed
from .recorder import Recorder
from .sandbox import closed_network, frozen_clock, python_path, seeded_random
from .scripted import (
    Script,
    ScriptedChatGenerator,
    Substitutions,
    ToolScript,
    cached_scripted_tool,
    generator_classes,
    placeholder_secrets,
    scripted_tool,
    scripts_for,
)
from .user_code import UserCodeError, error_text, hook_name, make_hook, resolve
from .user_code import call as call_user
from .values import build_message, fresh, jsonify, message_dict

_TYPES: dict[str, Any] = {"list": list, "str": str, "int": int, "float": float, "bool": bool, "dict": dict, "any": Any}
_HANDLERS = {"merge_lists": merge_lists, "replace_values": replace_values}
# The main generator of the last scenario, free again once it ended (`ScriptedChatGenerator.pooled`).
_MAIN_GENERATORS: list = []
_FREE_AFTER_RUN: list = []


class UnregisteredHook(Exception):
    """A `custom:` name (of a hook or an agent) that no test registered in this process (`live.py`)."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def run_request(request: dict, capture: Capture, relay: Any = None) -> dict:
    """The record of one request (ENGINE.md, "Protocol"); with `relay` (a record run, `relay.py`) every scripted
    model, `model` and each `models` entry, is answered live through it instead of from its replies."""
    sc = spec.read(request["scenario"])
    recorder = Recorder(detail=request.get("detail", "summary"), keep_requests=bool(request.get("keep_requests")))
    scripts = scripts_for(sc.models, sc.model)
    for script in scripts.values():
        script.relay = relay
    folder = request.get("dir") or os.getcwd()
    result, error = None, None
    substitutions = Substitutions(recorder)
    capture.start_scenario()
    seeded_random()
    try:
        with python_path(sc.python_path, folder), closed_network(), frozen_clock(sc.clock), placeholder_secrets(), \
            ended_children():
            try:
                built = _build(sc, request, recorder, scripts, substitutions)
            except BaseException as e:  # noqa: BLE001 - every failure of a scenario is its record's error
                error = _build_error(e)
            else:
                agent, names, schema_keys, tool_scripts = built
                try:
                    with observed(agent, recorder, capture, names, tool_scripts):
                        output = _run_agent(agent, sc, recorder)
                    recorder.run_finished()
                    result = _result(output, schema_keys)
                except BaseException as e:  # noqa: BLE001 - KeyboardInterrupt too: the worker runs in a process
                    # group of its own, so a terminal's Ctrl-C never reaches it; one raised here is the user code's
                    error = _run_error(e, recorder)
    finally:
        # What the scenario printed outside its hook and tool calls is in no record: the next scenario's
        # `start_scenario` drops it (`end_scenario` would read it only to drop it, a system call more a scenario).
        substitutions.restore()
        _MAIN_GENERATORS[:] = _FREE_AFTER_RUN
        _FREE_AFTER_RUN.clear()
    return {
        "trace": recorder.events,
        "result": result,
        "error": error,
        "streamed": recorder.streamed,
        "requests": recorder.requests,
        "unused": {
            "model": scripts["model"].unused,
            "models": {name: script.unused for name, script in scripts.items() if name != "model"},
        },
    }


# -- building ---------------------------------------------------------------------------------------------------------


def _state_schema(schema: dict) -> dict:
    out = {}
    for key, entry in schema.items():
        python_type = list[ChatMessage] if key == "messages" and entry["type"] == "list" else _TYPES.get(entry["type"], Any)
        out[key] = {"type": python_type}
        if entry.get("handler") is not None:
            out[key]["handler"] = _HANDLERS[entry["handler"]]
    return out


def _generators(models: dict, scripts: dict[str, Script], recorder: Recorder, where: str) -> dict:
    out = {}
    for keyword, name in models.items():
        if name not in scripts:
            raise UserCodeError(f"{where}.models.{keyword}: no model script `{name}`; add it under `models:`")
        out[keyword] = ScriptedChatGenerator(scripts[name], recorder)
    return out


def _build(sc: spec.Scenario, request: dict, recorder: Recorder, scripts: dict, substitutions: Substitutions):
    # 1. Import the user's code (their modules import the generator classes they use).
    hook_values: dict[int, Any] = {}
    for definition in _definitions(sc):
        if definition.kind == "python":
            hook_values[id(definition)] = resolve(definition.python, f"hook `{definition.python}`")
    factory = resolve(sc.factory.python, "agent.python") if sc.factory is not None else None
    replaced = set()
    for name, script in sc.models.items():
        if script.replaces is not None:
            cls = resolve(script.replaces, f"models.{name}.replaces")
            if not inspect.isclass(cls) or not callable(getattr(cls, "run", None)):
                # As `check --engine haystack` says it (construct.py); swapping methods on anything else patches
                # what is no generator (or a builtin, which refuses).
                raise UserCodeError(
                    f"models.{name}.replaces: `{script.replaces}` is {type(cls).__name__}, not a generator class; "
                    "name the chat generator class your code builds (a class with `run(messages)`)"
                )
            substitutions.substitute(cls, scripts[name])
            replaced.add(cls)
    # 2. Every other Haystack generator refuses to run: a call no script answers is the run's error.
    for qualified, cls in generator_classes().items():
        if cls not in replaced:
            substitutions.refuse(cls, qualified)
    substitutions.refuse_imported_later()
    # 3. Build the hooks, then the Agent.
    hooks = _hooks(sc, hook_values, scripts, recorder)
    tool_scripts = {}
    for tool in sc.tools:
        tool_scripts.setdefault(tool.name, ToolScript(tool))
    main = ScriptedChatGenerator.pooled(scripts["model"], recorder, _MAIN_GENERATORS)
    _FREE_AFTER_RUN.append(main)
    request_names = request.get("hook_names") or {}
    if sc.custom_agent is not None:
        built, source = registered_agent(sc.custom_agent), f"agent.custom `{sc.custom_agent}`"
    elif factory is None:
        agent = _scenario_agent(sc, main, hooks)
        names = {point: list(request_names.get(point, [])) for point in hooks}
        return agent, names, list(sc.agent["state_schema"]), tool_scripts
    else:
        kwargs = {**fresh(sc.factory.args), **_generators(sc.factory.models, scripts, recorder, "agent")}
        built = call_user(factory, kwargs, f"agent.python `{sc.factory.python}`")
        source = sc.factory.python
        if not isinstance(built, Agent):
            raise UserCodeError(
                f"agent.python: `{sc.factory.python}` returned {type(built).__name__}, not a haystack Agent; "
                "name a function that builds and returns the Agent"
            )
    own = built.hooks or {}
    merged = {point: list(own.get(point, [])) + hooks.get(point, []) for point in [*own, *(p for p in hooks if p not in own)]}
    names = {
        point: [hook_name(h) for h in own.get(point, [])] + list(request_names.get(point, [])) for point in merged
    }
    agent = built.clone(chat_generator=main, tools=_factory_tools(built, sc.tools, source), hooks=merged)
    return agent, names, list(built.state_schema or {}), tool_scripts


# Agents of scenarios whose Agent differs only in its hook objects and its generator: a scenario with the same
# agent settings, the same scripted tools and hooks of the same types at the same points gets a shallow copy of
# the first one's Agent with its own hooks and generator, instead of a new `Agent(...)` (Haystack's component
# construction parses signatures and builds sockets and prompt builders: most of the cost of building a scenario,
# and the same result each time). Any other scenario builds its Agent with `Agent(...)`, so construction errors
# are Haystack's. Bounded, most recent kept.
_AGENTS: dict[str, Agent] = {}
_AGENTS_SIZE = 256


def _scenario_agent(sc: spec.Scenario, generator: Any, hooks: dict) -> Agent:
    a = sc.agent
    tools = [cached_scripted_tool(t) for t in sc.tools]
    shape = {
        point: [[type(h).__module__, type(h).__qualname__, _allowed(h)] for h in objects]
        for point, objects in hooks.items()
    }
    key = wire.key([a, [id(t) for t in tools], shape])
    template = _AGENTS.pop(key, None)
    if template is None:
        template = new_agent(sc, generator, hooks, tools)
    _AGENTS[key] = template
    while len(_AGENTS) > _AGENTS_SIZE:
        _AGENTS.pop(next(iter(_AGENTS)))
    # What `copy.copy` makes of an Agent (its class defines no copy or pickling hooks): a new instance with the
    # template's attributes, at a fifth of the cost.
    agent = Agent.__new__(Agent)
    agent.__dict__.update(template.__dict__)
    agent.chat_generator = generator
    agent.hooks = hooks
    return agent


def new_agent(sc: spec.Scenario, generator: Any, hooks: dict, tools: list | None = None) -> Agent:
    """`Agent(...)` of the scenario's agent settings (Haystack's construction and its errors)."""
    a = sc.agent
    if tools is None:
        tools = [cached_scripted_tool(t) for t in sc.tools]
    return Agent(
            chat_generator=generator,
            tools=tools,
            system_prompt=a["system_prompt"],
            user_prompt=a["user_prompt"],
            required_variables=copy.deepcopy(a["required_variables"]),
            exit_conditions=list(a["exit_conditions"]),
            state_schema=_state_schema(a["state_schema"]),
            max_agent_steps=a["max_agent_steps"],
            raise_on_tool_invocation_failure=a["raise_on_tool_invocation_failure"],
            tool_concurrency_limit=a["tool_concurrency_limit"],
            hooks=hooks,
        )


def registered_agent(name: str) -> Agent:
    """The Agent a test registered as `name` (`live.py`)."""
    try:
        built = live.agent(name)
    except LookupError as e:
        raise UnregisteredHook(name, str(e)) from None
    if not isinstance(built, Agent):
        raise UserCodeError(
            f"agent.custom: `{name}` is registered as {type(built).__name__}, not a haystack Agent; register the "
            "Agent itself (or build it from a factory with `agent: {python: \"module:factory\"}`)"
        )
    return built


def _allowed(hook: Any) -> Any:
    allowed = getattr(hook, "allowed_hook_points", None)
    return list(allowed) if allowed is not None else None


def _definitions(sc: spec.Scenario):
    yield from sc.shared_hooks.values()
    for refs in sc.hooks.values():
        for ref in refs:
            if ref.definition is not None:
                yield ref.definition


def _make(definition: spec.HookDef, hook_values: dict, scripts: dict, recorder: Recorder) -> Any:
    if definition.kind == "declarative":
        return DeclarativeHook(definition, definition.name or "")
    if definition.kind == "custom":
        try:
            value = live.hook(definition.name)
        except LookupError as e:
            raise UnregisteredHook(definition.name, str(e)) from None
        return make_hook(value, {}, False, f"`custom: {definition.name}`")
    if definition.kind == "python":
        where = f"hook `{definition.python}`"
        kwargs = {**fresh(definition.args), **_generators(definition.models, scripts, recorder, where)}
        return make_hook(hook_values[id(definition)], kwargs, bool(definition.args or definition.models), where)
    return ready_made.build(definition)


def _hooks(sc: spec.Scenario, hook_values: dict, scripts: dict, recorder: Recorder) -> dict:
    """point -> hook objects, in file order; a `shared:` entry is one object wherever it is used."""
    shared: dict[str, Any] = {}
    out: dict[str, list] = {}
    for point, refs in sc.hooks.items():
        objects = []
        for ref in refs:
            if ref.shared is not None:
                if ref.shared not in shared:
                    shared[ref.shared] = _make(sc.shared_hooks[ref.shared], hook_values, scripts, recorder)
                objects.append(shared[ref.shared])
            else:
                objects.append(_make(ref.definition, hook_values, scripts, recorder))
        out[point] = objects
    return out


def _factory_tools(agent: Agent, specs: list, factory: str) -> Any:
    """The factory agent's tools with those the scenario scripts replaced (by name); the others stay real."""
    if not specs:
        return agent.tools
    tools = agent.tools
    flat = flatten_tools_or_toolsets(tools) if isinstance(tools, Toolset) or any(isinstance(t, Toolset) for t in tools) else list(tools)
    by_name = {t.name: t for t in flat}
    scripted = {}
    for i, tool_spec in enumerate(specs):
        if tool_spec.name not in by_name:
            known = ", ".join(f"`{n}`" for n in by_name) or "none"
            raise UserCodeError(
                f"tools[{i}]: the agent `{factory}` builds has no tool `{tool_spec.name}` to script (its tools: {known})"
            )
        scripted.setdefault(tool_spec.name, scripted_tool(tool_spec, by_name[tool_spec.name]))
    return [scripted.get(t.name, t) for t in flat]


# -- running ----------------------------------------------------------------------------------------------------------


def _run_agent(agent: Agent, sc: spec.Scenario, recorder: Recorder) -> dict:
    kwargs = _run_kwargs(sc, recorder)
    if sc.run["async"]:
        return asyncio.run(agent.run_async(**kwargs))
    return agent.run(**kwargs)


def _run_kwargs(sc: spec.Scenario, recorder: Recorder) -> dict:
    """The keyword arguments of `Agent.run` for the scenario's `run` (fresh copies of every value)."""
    run = sc.run
    state, variables = run["state"], run["variables"]  # dicts (`spec.read`): an empty one adds nothing to copy
    kwargs: dict[str, Any] = {
        "messages": [build_message(m) for m in run["messages"]],
        "hook_context": _hook_context(run["hook_context"]),
        **(fresh(state) if state else {}),
        **(fresh(variables) if variables else {}),
    }
    if run["tools"] is not None:
        kwargs["tools"] = list(run["tools"])
    if run["generation_kwargs"] is not None:
        kwargs["generation_kwargs"] = fresh(run["generation_kwargs"])
    if run["stream"]:
        kwargs["streaming_callback"] = _recording_callback(recorder.streamed, is_async=run["async"])
    return kwargs


def _hook_context(given: Any) -> Any:
    """A fresh copy of the file's `run.hook_context`, with the test's live objects (`live.py`) over it by identity (a
    client is itself, never a copy)."""
    if not live.HOOK_CONTEXT:
        return None if given is None else fresh(given)
    return {**fresh(given or {}), **live.HOOK_CONTEXT}


def _chunk_summary(chunk) -> Any:
    """A text chunk as its text, a tool result as {tool_result: TEXT}, an empty ending chunk as {finish_reason: R}."""
    if chunk.tool_call_result is not None:
        result = chunk.tool_call_result.result
        return {"tool_result": result if isinstance(result, str) else None}
    if chunk.finish_reason is not None and chunk.content == "":
        return {"finish_reason": chunk.finish_reason}
    return chunk.content


def _recording_callback(sink: list, *, is_async: bool):
    if is_async:

        async def record_async(chunk) -> None:
            sink.append(_chunk_summary(chunk))

        return record_async

    def record(chunk) -> None:
        sink.append(_chunk_summary(chunk))

    return record


def _result(output: dict, schema_keys: list) -> dict:
    """`RunResult` in its serde form."""
    last = output.get("last_message")
    messages = output.get("messages", [])
    if not isinstance(messages, (list, tuple)):  # code wrote `state.data["messages"] = ...` directly
        raise ScenarioAbort(
            f"State `messages` is {type(messages).__name__}, not a list of ChatMessage (code that writes "
            '`state.data["messages"]` directly put it there); keep it a list (`state.set("messages", [...])`)'
        )
    return {
        "messages": [message_dict(m) for m in messages],
        "last_message": message_dict(last) if last is not None else None,
        "exit_reason": jsonify(output.get("exit_reason")),
        "step_count": jsonify(output.get("step_count")),
        "token_usage": jsonify(output.get("token_usage")),
        "tool_call_counts": jsonify(output.get("tool_call_counts")),
        "state": {key: jsonify(output[key]) for key in schema_keys if key != "messages" and key in output},
    }


# -- errors -----------------------------------------------------------------------------------------------------------


def _build_error(e: BaseException) -> dict:
    if isinstance(e, UnregisteredHook):
        return {"kind": "unregistered_hook", "name": e.name, "message": str(e)}
    text = error_text(e)
    if isinstance(e, (UserCodeError, ScenarioAbort, ScenarioRunError)):
        return {"kind": "run", "message": text}
    if text.startswith("state_schema keys ") and "are reserved" in text:
        return {"kind": "reserved_state_keys", "message": text}
    missing = _missing_from_haystack(e, text)
    if missing is not None:
        from importlib.metadata import version

        text = (
            f"haystack-ai {version('haystack-ai')} has no `{missing}`, which this scenario uses: it needs a "
            f"haystack-ai that has it ({text})"
        )
    return {"kind": "construction", "message": text}


_NOT_IMPORTED = re.compile(r"Class '(haystack\.[\w.]+)' not correctly imported")
_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '(haystack[\w.]*)'")


def _missing_from_haystack(e: BaseException, text: str) -> str | None:
    """The Haystack module or class a scenario's construction needed and this haystack-ai lacks, else `None`."""
    if isinstance(e, ModuleNotFoundError) and (e.name or "").startswith("haystack."):
        return e.name
    found = _NOT_IMPORTED.search(text)
    if found:
        return found.group(1)
    found = _CANNOT_IMPORT.search(text)
    if found:
        return f"{found.group(2)}.{found.group(1)}"
    return None


def _run_error(e: BaseException, recorder: Recorder) -> dict:
    text = error_text(e)
    failure = recorder.failure
    if failure is not None and failure.exception is e:
        if failure.kind == "hook":
            return {"kind": "hook", **failure.context, "panicked": False, "message": text}
        return {"kind": failure.kind, **failure.context, "message": text}
    if isinstance(e, (ScenarioRunError, ScenarioAbort)):
        return {"kind": e.kind, **e.context, "message": text}
    if isinstance(e, (ToolInvocationError, ToolNotFoundException)) or (
        isinstance(e, RuntimeError) and "failed to merge outputs into state" in str(e)
    ):
        return {"kind": "tool", "message": text}
    return {"kind": "run", "message": text}
