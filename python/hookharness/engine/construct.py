"""`check --engine haystack`: everything a scenario's run builds, built without running the loop.

Each `python:` object is imported, each hook made (a class or factory called with its `args` and scripted
`models`), each hook registered alone at its point on a Haystack `Agent` (Haystack's own check of hook points and
`allowed_hook_points`), the agent factory called and the Agent built, all under the run's sandbox (closed network,
scripted generators, frozen clock). Every problem is reported at the key of the file it comes from (`place`, a list of
keys and indexes), with the text a run would give (`message`) and what to change (`hint`); one failing entry does not
stop the others from being checked.
"""

from __future__ import annotations

import copy
import inspect
import os
import re
from typing import Any

from haystack.components.agents import Agent

from . import run as running
from . import spec
from .capture import Capture
from .children import ended_children
from .recorder import Recorder
from .sandbox import closed_network, frozen_clock, python_path
from .scripted import (
    ScriptedChatGenerator,
    Substitutions,
    generator_classes,
    placeholder_secrets,
    scripts_for,
)
from .user_code import UserCodeError, error_text, resolve
from .user_code import call as call_user

_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")
_MISSING = re.compile(r"missing \d+ required (?:keyword-only |positional )?arguments?: (.+)")
_TOOL_PLACE = re.compile(r"^tools\[(\d+)\]: ")


class _Check:
    def __init__(self) -> None:
        self.problems: list[dict] = []
        self.imported: list[str] = []
        self.hooks = 0
        self.factory: str | None = None
        self.agent = False
        self.replaced: list[str] = []

    def problem(self, place: list, message: str, hint: str = "", at_value: bool = False) -> None:
        self.problems.append({"place": place, "message": message, "hint": hint, "at_value": at_value})


def construct_request(request: dict, capture: Capture) -> dict:
    """The answer to one `construct` request: `{problems, checked}`."""
    sc = spec.read(request["scenario"])
    recorder = Recorder(detail="summary", keep_requests=False)
    scripts = scripts_for(sc.models, sc.model)
    folder = request.get("dir") or os.getcwd()
    substitutions = Substitutions(recorder)
    check = _Check()
    capture.start_scenario()
    try:
        with python_path(sc.python_path, folder) as paths, closed_network(), placeholder_secrets(), ended_children():
            for i, path in enumerate(paths):
                if not os.path.isdir(path):
                    check.problem(
                        ["python_path", i],
                        f"`python_path` folder {path} does not exist",
                        "name a folder relative to the scenario file",
                        at_value=True,
                    )
            try:
                with frozen_clock(sc.clock):
                    _construct(sc, request, recorder, scripts, substitutions, check, paths)
            except BaseException as e:  # noqa: BLE001 - any failure of the user's code is the file's problem
                check.problem([], error_text(e), "fix the code, or run the file to see where it fails")
    finally:
        substitutions.restore()
        capture.end_scenario()
    return {
        "problems": check.problems,
        "checked": {
            "imported": check.imported,
            "hooks": check.hooks,
            "factory": check.factory,
            "agent": check.agent,
            "replaced": check.replaced,
        },
    }


def _import_hint(paths: list[str]) -> str:
    shown = ", ".join(paths) or "(none)"
    return f"the scenario's `python_path` folders: {shown}"


def _call_place(base: list, error: str, args: dict, models: dict, target: Any) -> tuple[list, str]:
    """Where a failed call of the user's class or factory is in the file, and what to change."""
    try:
        parameters = ", ".join(f"`{p}`" for p in inspect.signature(target).parameters) or "none"
    except (TypeError, ValueError):
        parameters = "unknown"
    found = _UNEXPECTED.search(error)
    if found:
        name = found.group(1)
        key = "models" if name in models else "args"
        return base + [key, name], f"it takes no argument `{name}` (its parameters: {parameters}); remove or rename it"
    found = _MISSING.search(error)
    if found:
        return base + (["args"] if args else ["python"]), f"give {found.group(1)} under `args` (its parameters: {parameters})"
    return base + ["python"], "your code raised while it was called with the entry's `args` and `models`; fix it"


def _construct(sc, request, recorder, scripts, substitutions, check: _Check, paths: list[str]) -> None:
    definitions = [(["shared_hooks", name], d) for name, d in sc.shared_hooks.items()]
    for point, refs in sc.hooks.items():
        definitions += [(["hooks", point, ref.index], ref.definition) for ref in refs if ref.definition is not None]
    # 1. Import the user's objects.
    values: dict[int, Any] = {}
    for place, d in definitions:
        if d.kind != "python":
            continue
        try:
            values[id(d)] = resolve(d.python, f"hook `{d.python}`")
            check.imported.append(d.python)
        except UserCodeError as e:
            check.problem(place + ["python"], str(e), _import_hint(paths), at_value=True)
    factory = None
    if sc.factory is not None:
        try:
            factory = resolve(sc.factory.python, "agent.python")
            check.imported.append(sc.factory.python)
        except UserCodeError as e:
            check.problem(["agent", "python"], str(e), _import_hint(paths), at_value=True)
    replaced = set()
    for name, script in sc.models.items():
        if script.replaces is None:
            continue
        place = ["models", name, "replaces"]
        try:
            cls = resolve(script.replaces, f"models.{name}.replaces")
        except UserCodeError as e:
            check.problem(place, str(e), _import_hint(paths), at_value=True)
            continue
        if not inspect.isclass(cls) or not callable(getattr(cls, "run", None)):
            check.problem(
                place,
                f"models.{name}.replaces: `{script.replaces}` is {type(cls).__name__}, not a generator class",
                "name the chat generator class your code builds (a class with `run(messages)`)",
                at_value=True,
            )
            continue
        substitutions.substitute(cls, scripts[name])
        replaced.add(cls)
        check.replaced.append(script.replaces)
    for qualified, cls in generator_classes().items():
        if cls not in replaced:
            substitutions.refuse(cls, qualified)
    substitutions.refuse_imported_later()
    # 2. Make each hook, then register it alone at its point: Haystack checks the point and `allowed_hook_points`.
    def make(place: list, d: spec.HookDef) -> Any:
        if d.kind == "python" and id(d) not in values:
            return None
        try:
            hook = running._make(d, values, scripts, recorder)
        except running.UnregisteredHook:
            return None
        except UserCodeError as e:
            target = values.get(id(d))
            where, hint = _call_place(place, str(e), d.args, d.models, target)
            check.problem(where, str(e), hint)
            return None
        except Exception as e:  # noqa: BLE001 - a ready-made hook Haystack refuses to build
            check.problem(place, error_text(e), "fix the entry's parameters")
            return None
        if d.kind == "python":
            check.hooks += 1
        return hook

    shared = {name: make(["shared_hooks", name], d) for name, d in sc.shared_hooks.items()}
    probe = ScriptedChatGenerator(scripts["model"], recorder)
    hooks: dict[str, list] = {}
    for point, refs in sc.hooks.items():
        hooks[point] = []
        for ref in refs:
            place = ["hooks", point, ref.index]
            hook = shared.get(ref.shared) if ref.shared is not None else make(place, ref.definition)
            if hook is None:
                continue
            try:
                Agent(chat_generator=probe, hooks={point: [hook]})
            except Exception as e:  # noqa: BLE001 - Haystack's construction error, at the entry it is about
                allowed = getattr(hook, "allowed_hook_points", None)
                hint = (
                    f"put the entry under one of {', '.join(f'`{p}`' for p in allowed)}"
                    if allowed
                    else "register an object with `run(state)` (a @hook function, a hook instance)"
                )
                check.problem(place, f"the Agent cannot be built: {error_text(e)}", hint)
                continue
            hooks[point].append(hook)
    if check.problems:
        return
    # 3. The Agent: the scenario's, or the factory's with the scenario's generator, tools and hooks. One the test
    # registers (`agent.custom`) exists only where the test runs the scenario (pytest): nothing more to check here.
    if sc.custom_agent is not None:
        return
    main = ScriptedChatGenerator(scripts["model"], recorder)
    if factory is None:
        try:
            running.new_agent(sc, main, hooks)
        except Exception as e:  # noqa: BLE001
            check.problem(["agent"], f"the Agent cannot be built: {error_text(e)}", "fix the agent's settings")
            return
        check.agent = True
        return
    kwargs = {**copy.deepcopy(sc.factory.args), **running._generators(sc.factory.models, scripts, recorder, "agent")}
    check.factory = sc.factory.python
    try:
        built = call_user(factory, kwargs, f"agent.python `{sc.factory.python}`")
    except UserCodeError as e:
        where, hint = _call_place(["agent"], str(e), sc.factory.args, sc.factory.models, factory)
        check.problem(where, str(e), hint)
        return
    if not isinstance(built, Agent):
        check.problem(
            ["agent", "python"],
            f"agent.python: `{sc.factory.python}` returned {type(built).__name__}, not a haystack Agent",
            "name a function that builds and returns the Agent",
            at_value=True,
        )
        return
    try:
        tools = running._factory_tools(built, sc.tools, sc.factory.python)
    except UserCodeError as e:
        found = _TOOL_PLACE.match(str(e))
        place = ["tools", int(found.group(1)), "name"] if found else ["tools"]
        check.problem(place, str(e), "script a tool the factory's Agent has, by its name", at_value=bool(found))
        return
    own = built.hooks or {}
    merged = {point: list(own.get(point, [])) + hooks.get(point, []) for point in [*own, *(p for p in hooks if p not in own)]}
    try:
        built.clone(chat_generator=main, tools=tools, hooks=merged)
    except Exception as e:  # noqa: BLE001
        check.problem(["agent", "python"], f"the Agent cannot be built: {error_text(e)}", "fix the factory's Agent")
        return
    check.agent = True
