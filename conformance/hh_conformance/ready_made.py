"""Ready-made hook entries as Haystack 3.4.1's own hook objects.

A ready-made entry is `{name?, KIND: PARAMS}`; PARAMS are the constructor parameters of the
Haystack hook of that kind, exactly the `init_parameters` of its `to_dict()`, with the objects
among them (stores, policies, strategies, UIs) in Haystack's serialized form
`{type, init_parameters}` (docs/scenario-format-extensions.md).

- `validate` checks PARAMS when the file is read. Anything the harness refuses is a file error
  naming the key path: an unknown or refused `type`, an unknown, missing or mistyped parameter,
  a key starting with `[` that is not a JSON array of tool names. The result is the canonical
  form: every object as `{type, init_parameters}` (an absent or null `init_parameters` is `{}`).
- `build` makes the hook. `token_budget` calls `TokenBudgetHook(...)`; the other kinds go
  through the hook class's own `from_dict`, so Haystack itself reads the parameters: its tuple
  keys, its nested deserialization and its policy, strategy and hook classes.
- Two classes the scenarios name are not part of Haystack but of the harness. They are defined
  here, implementing Haystack's protocols, under the qualified names the harness gives them
  (`hookharness.hooks.offload.InMemoryToolResultStore`,
  `hookharness.hooks.confirmation.ScriptedConfirmationUI`), so that Haystack's `from_dict`
  imports them by those names.

Not yet supported: `compaction` (rejected as unsupported when the file is read).
"""

from __future__ import annotations

import copy
import json
import sys
import types
import warnings
from typing import TYPE_CHECKING, Any, Callable

from haystack.core.serialization import allow_deserialization_module, default_to_dict
from haystack.hooks.human_in_the_loop import ConfirmationUIResult
from haystack.hooks.human_in_the_loop.types import ConfirmationUI
from haystack.hooks.tool_result_offloading.types import ToolResultStore

from .instrument import ScenarioRunError

if TYPE_CHECKING:
    from .instrument import Recorder
    from .scenario import HookDef, _Checker

SUPPORTED = ("token_budget", "tool_result_offload", "confirmation")

# Qualified class names, as the scenarios (and the hooks' `to_dict()`) write them.
OFFLOAD_HOOK = "haystack.hooks.tool_result_offloading.hooks.ToolResultOffloadHook"
CONFIRMATION_HOOK = "haystack.hooks.human_in_the_loop.hooks.ConfirmationHook"
IN_MEMORY_STORE = "hookharness.hooks.offload.InMemoryToolResultStore"
FILE_SYSTEM_STORE = "haystack.hooks.tool_result_offloading.stores.FileSystemToolResultStore"
_OFFLOAD_POLICIES = "haystack.hooks.tool_result_offloading.policies."
ALWAYS_OFFLOAD = _OFFLOAD_POLICIES + "AlwaysOffload"
NEVER_OFFLOAD = _OFFLOAD_POLICIES + "NeverOffload"
OFFLOAD_OVER_CHARS = _OFFLOAD_POLICIES + "OffloadOverChars"
BLOCKING_STRATEGY = "haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy"
_CONFIRMATION_POLICIES = "haystack.hooks.human_in_the_loop.policies."
ALWAYS_ASK = _CONFIRMATION_POLICIES + "AlwaysAskPolicy"
NEVER_ASK = _CONFIRMATION_POLICIES + "NeverAskPolicy"
ASK_ONCE = _CONFIRMATION_POLICIES + "AskOncePolicy"
SCRIPTED_UI = "hookharness.hooks.confirmation.ScriptedConfirmationUI"
_CONSOLE_UIS = (
    "haystack.hooks.human_in_the_loop.user_interfaces.RichConsoleUI",
    "haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI",
)


# -- the harness's own classes --------------------------------------------------------------------------------------


class InMemoryToolResultStore(ToolResultStore):
    """The harness's in-memory store: results stay in a dict, references are `memory://<key>`.

    Deterministic (no paths), so outcomes are the same on every machine; takes binary content.
    Serialized form: `{type: hookharness.hooks.offload.InMemoryToolResultStore}` (no parameters).
    """

    supports_binary_content = True
    SCHEME = "memory://"

    def __init__(self) -> None:
        self.entries: dict[str, str | bytes] = {}

    def write(self, *, key: str, content: str | bytes) -> str:
        self.entries[key] = content
        return f"{self.SCHEME}{key}"

    def read(self, reference: str) -> str | bytes:
        key = reference[len(self.SCHEME) :] if reference.startswith(self.SCHEME) else None
        if key is None or key not in self.entries:
            raise LookupError(f"no stored result at '{reference}'")
        return self.entries[key]


class ScriptedConfirmationUI(ConfirmationUI):
    """The harness's scripted UI: each question takes the next scripted answer, in order.

    `answers` are `{action, feedback?, new_tool_params?}` maps (Haystack's `ConfirmationUIResult`
    fields). A question past the last answer fails (and with it the hook and the run). Haystack's
    UI protocol is not given the call's id, so unlike the harness's text this one cannot name it
    (docs/deviations.md, `scripted-ui-call-id`).
    """

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self.asked = 0

    def get_user_confirmation(
        self, tool_name: str, tool_description: str, tool_params: dict[str, Any]
    ) -> ConfirmationUIResult:
        index = self.asked
        self.asked += 1
        if index >= len(self.answers):
            n = len(self.answers)
            raise ScenarioRunError(
                f"the scripted confirmation UI has no answer left for the call to `{tool_name}`: "
                f"it scripts {n} answer{'' if n == 1 else 's'}"
            )
        return ConfirmationUIResult(**copy.deepcopy(self.answers[index]))

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, answers=copy.deepcopy(self.answers))


_HARNESS_CLASSES = {IN_MEMORY_STORE: InMemoryToolResultStore, SCRIPTED_UI: ScriptedConfirmationUI}
_registered = False


def _register_harness_classes() -> None:
    """Make the harness classes importable by their qualified names, and allowed to Haystack's deserialization."""
    global _registered
    if _registered:
        return
    for qualified, cls in _HARNESS_CLASSES.items():
        module_name, class_name = qualified.rsplit(".", 1)
        parts = module_name.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            module = sys.modules.get(name)
            if module is None:
                module = sys.modules[name] = types.ModuleType(name)
                if i > 1:
                    setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], module)
            elif not getattr(module, "__hh_conformance__", False) and i == len(parts):
                raise RuntimeError(f"a module `{name}` is already loaded; the runner defines its own under that name")
            module.__hh_conformance__ = True
        cls.__module__ = module_name
        setattr(sys.modules[module_name], class_name, cls)
        allow_deserialization_module(module_name)
    _registered = True


# -- validation -----------------------------------------------------------------------------------------------------

Validator = Callable[["_Checker", dict, tuple], dict]


def validate(c: _Checker, kind: str, raw: Any, path: tuple) -> dict:
    """The canonical constructor parameters of a `kind:` entry; file errors for anything the harness refuses."""
    if kind == "token_budget":
        return _token_budget(c, raw, path)
    if kind == "tool_result_offload":
        return _tool_result_offload(c, raw, path)
    if kind == "confirmation":
        return _confirmation(c, raw, path)
    raise AssertionError(kind)


def _token_budget(c: _Checker, raw: Any, path: tuple) -> dict:
    raw = c.map(raw, path, allowed=("max_total_tokens", "add_final_message"), required=("max_total_tokens",))
    params = {"max_total_tokens": c.int(raw["max_total_tokens"], (*path, "max_total_tokens"))}
    if "add_final_message" in raw:
        params["add_final_message"] = c.bool(raw["add_final_message"], (*path, "add_final_message"))
    return params


def _tool_result_offload(c: _Checker, raw: Any, path: tuple) -> dict:
    raw = c.map(
        raw, path, allowed=("store", "offload_strategies", "preview_chars"), required=("store", "offload_strategies")
    )
    params = {
        "store": _component(c, raw["store"], (*path, "store"), {IN_MEMORY_STORE: _no_parameters}, _REFUSED_STORES),
        "offload_strategies": _per_tool(
            c,
            raw["offload_strategies"],
            (*path, "offload_strategies"),
            lambda value, p: _component(
                c,
                value,
                p,
                {ALWAYS_OFFLOAD: _no_parameters, NEVER_OFFLOAD: _no_parameters, OFFLOAD_OVER_CHARS: _over_chars},
            ),
        ),
    }
    if "preview_chars" in raw:
        params["preview_chars"] = c.int(raw["preview_chars"], (*path, "preview_chars"))
    return params


def _confirmation(c: _Checker, raw: Any, path: tuple) -> dict:
    raw = c.map(raw, path, allowed=("confirmation_strategies",), required=("confirmation_strategies",))
    return {
        "confirmation_strategies": _per_tool(
            c,
            raw["confirmation_strategies"],
            (*path, "confirmation_strategies"),
            lambda value, p: _component(c, value, p, {BLOCKING_STRATEGY: _blocking_strategy}),
        )
    }


_REFUSED_STORES = {
    FILE_SYSTEM_STORE: f"its references are absolute paths, so the outcome would depend on the machine; "
    f"scenarios use `{IN_MEMORY_STORE}`",
}
_REFUSED_UIS = {ui: f"a console UI needs a person; scenarios use `{SCRIPTED_UI}`" for ui in _CONSOLE_UIS}


def _component(c: _Checker, raw: Any, path: tuple, known: dict[str, Validator], refused: dict | None = None) -> dict:
    """A serialized object `{type, init_parameters?}` of one of the `known` types, in canonical form."""
    raw = c.map(raw, path, allowed=("type", "init_parameters"), required=("type",))
    type_name = c.str(raw["type"], (*path, "type"))
    if refused and type_name in refused:
        raise c.err((*path, "type"), f"`{type_name}` is not available in scenarios: {refused[type_name]}")
    if type_name not in known:
        raise c.err((*path, "type"), f"unknown type `{type_name}`; known: {', '.join(f'`{k}`' for k in known)}")
    init_path = (*path, "init_parameters")
    init = raw.get("init_parameters")
    init = {} if init is None else c.map(init, init_path)
    return {"type": type_name, "init_parameters": known[type_name](c, init, init_path)}


def _no_parameters(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=())
    return {}


def _over_chars(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("threshold",), required=("threshold",))
    return {"threshold": c.int(init["threshold"], (*path, "threshold"))}


def _blocking_strategy(c: _Checker, init: dict, path: tuple) -> dict:
    templates = ("reject_template", "modify_template", "user_feedback_template")
    c.map(
        init,
        path,
        allowed=("confirmation_policy", "confirmation_ui", *templates),
        required=("confirmation_policy", "confirmation_ui"),
    )
    out = {
        "confirmation_policy": _component(
            c,
            init["confirmation_policy"],
            (*path, "confirmation_policy"),
            {ALWAYS_ASK: _no_parameters, NEVER_ASK: _no_parameters, ASK_ONCE: _no_parameters},
        ),
        "confirmation_ui": _component(
            c, init["confirmation_ui"], (*path, "confirmation_ui"), {SCRIPTED_UI: _scripted_ui}, _REFUSED_UIS
        ),
    }
    for key in templates:
        if key in init:
            out[key] = c.str(init[key], (*path, key))
    return out


def _scripted_ui(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("answers",), required=("answers",))
    answers = []
    for i, answer in enumerate(c.list(init["answers"], (*path, "answers"))):
        ap = (*path, "answers", i)
        answer = c.map(answer, ap, allowed=("action", "feedback", "new_tool_params"), required=("action",))
        out = {"action": c.str(answer["action"], (*ap, "action"))}
        if answer.get("feedback") is not None:
            out["feedback"] = c.str(answer["feedback"], (*ap, "feedback"))
        if answer.get("new_tool_params") is not None:
            out["new_tool_params"] = c.map(answer["new_tool_params"], (*ap, "new_tool_params"))
        answers.append(out)
    return {"answers": answers}


def _per_tool(c: _Checker, raw: Any, path: tuple, value: Callable[[Any, tuple], dict]) -> dict:
    """A per-tool map: a tool name, `"*"`, or a JSON array string of names (Haystack's tuple key) to an object.

    `null` is an empty map, as in the harness.
    """
    if raw is None:
        return {}
    out = {}
    for key, entry in c.map(raw, path).items():
        kp = (*path, key)
        if key.startswith("["):
            try:
                names = json.loads(key)
            except ValueError:
                names = None
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise c.err(kp, f"the key `{key}` starts with `[` but is not a JSON array of tool names")
        out[key] = value(entry, kp)
    return out


# -- building -------------------------------------------------------------------------------------------------------


def build(definition: HookDef, name: str, recorder: Recorder) -> Any:
    """The Haystack hook object of a validated ready-made entry, observed by the recorder."""
    params = copy.deepcopy(definition.params)  # from_dict replaces the serialized objects in place
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ExperimentalWarning
        if definition.kind == "token_budget":
            from haystack.hooks.budget import TokenBudgetHook

            hook = TokenBudgetHook(**params)
        elif definition.kind == "tool_result_offload":
            from haystack.hooks.tool_result_offloading import ToolResultOffloadHook

            _register_harness_classes()
            hook = ToolResultOffloadHook.from_dict({"type": OFFLOAD_HOOK, "init_parameters": params})
        elif definition.kind == "confirmation":
            from haystack.hooks.human_in_the_loop import ConfirmationHook

            _register_harness_classes()
            hook = ConfirmationHook.from_dict({"type": CONFIRMATION_HOOK, "init_parameters": params})
        else:  # rejected when the file is read
            raise AssertionError(definition.kind)
    _observe(hook, name, recorder)
    return hook


def _observe(hook: Any, name: str, recorder: Recorder) -> None:
    """Record each invocation without changing the object's type (Haystack's messages name the type).

    Instance attributes shadow the class's `run` and `run_async`. Haystack calls `run` on the sync path, and on
    the async path `run_async` when the hook has one (ConfirmationHook), else `run` in a worker thread
    (TokenBudgetHook, ToolResultOffloadHook).
    """
    original_run = hook.run

    def run(state) -> None:
        recorder.hook_event(name, state)
        original_run(state)

    hook.run = run
    original_async = getattr(hook, "run_async", None)
    if original_async is not None:

        async def run_async(state) -> None:
            recorder.hook_event(name, state)
            await original_async(state)

        hook.run_async = run_async
