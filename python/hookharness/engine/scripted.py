"""Scripted models and tools: every model call of a scenario answered from a script, none from a network.

- `Script`: one model script (`model`, or a named `models` entry) and how far the run has read it; every
  generator that answers from the same script shares it.
- `ScriptedChatGenerator`: a Haystack chat generator (`@component`) answering from a script. The main agent's
  generator answers from `model`; factories and hooks get named ones through `models:` keyword arguments.
- `Substitutions`: while a scenario runs, every instance of a `replaces:` class answers from its script (the class's
  `run`, `run_async`, `warm_up`, `close` are swapped on the class itself, so instances the user's code builds, at
  import time or later, are covered; its constructor gets a placeholder for an API key it reads from the
  environment), and every other Haystack generator class refuses to run, naming the caller and the fix.
- `build_tools` / `scripted_tool`: scripted `Tool`s; results are reserved in call order (see `observe`).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import importlib
import inspect
import threading
from collections.abc import Iterator
from typing import Any

from haystack import component
from haystack.components.agents.state.state_utils import merge_lists, replace_values
from haystack.dataclasses import ChatMessage, StreamingChunk, ToolCall
from haystack.tools import Tool

from . import wire
from .errors import ScenarioAbort, ScenarioRunError, ScriptedError
from .recorder import Failure, Recorder
from .sandbox import caller, is_credential
from .spec import ModelScript, Reply, ToolSpec

HANDLERS = {"merge_lists": merge_lists, "replace_values": replace_values}


class Script:
    """A model script and its read position; `name` is None for the main `model`."""

    def __init__(self, name: str | None, replies: list[Reply]) -> None:
        self.name = name
        self.replies = replies
        self.used = 0
        # During a record run (`relay.py`): each call is answered live by the caller, not from `replies`.
        self.relay: Any = None
        self._lock = threading.Lock()

    def take(self) -> tuple[int, Reply | None]:
        with self._lock:
            index = self.used
            self.used += 1
        return index, self.replies[index] if index < len(self.replies) else None

    @property
    def unused(self) -> int:
        return max(0, len(self.replies) - self.used)

    def exhausted(self, index: int) -> str:
        n = len(self.replies)
        if self.name is None:
            return (
                f"model script exhausted at LLM call {index} (the scenario scripts {n} replies); "
                "script one more reply under `model`, or expect this error with `expect.error`"
            )
        return (
            f"model script `{self.name}` exhausted at call {index} from {caller()} (the scenario scripts {n} "
            f"replies); script one more reply under `models.{self.name}.replies`, or expect this error with "
            "`expect.error`"
        )


def build_reply(reply: Reply, call_index: int) -> ChatMessage:
    """The assistant message for one scripted reply (meta: only what the script gives)."""
    meta: dict[str, Any] = {}
    if reply.usage is not None:
        meta["usage"] = copy.deepcopy(reply.usage)
    if reply.finish_reason is not None:
        meta["finish_reason"] = reply.finish_reason
    calls = [
        ToolCall(
            tool_name=call["tool"],
            arguments=copy.deepcopy(call["arguments"]),
            id=call["id"] if call["id"] is not None else f"call_{call_index}_{i}",
        )
        for i, call in enumerate(reply.tool_calls)
    ]
    return ChatMessage.from_assistant(text=reply.text, meta=meta, tool_calls=calls or None)


def _as_messages(messages: Any) -> list:
    if isinstance(messages, str):
        return [ChatMessage.from_user(messages)]
    return list(messages or [])


def answer(
    script: Script, recorder: Recorder, messages: Any, tools: Any, generation_kwargs: Any = None
) -> tuple[ChatMessage, list]:
    """One call answered from `script` (or, in a record run, by the caller live): the events, the reply, and the
    chunks to stream before it."""
    messages = _as_messages(messages)
    main = script.name is None
    recorder.llm_started(messages, tools, script.name)
    index, reply = script.take()
    if script.relay is not None:
        reply = script.relay.ask(script.name, messages, tools, generation_kwargs)
    call = recorder.main_llm_calls
    if main:
        recorder.main_llm_calls += 1
    if reply is None:
        text = script.exhausted(index)
        recorder.llm_failed(text, script.name)
        if main:
            error = ScenarioRunError(text, "generator", call=call, step=recorder.loop_step())
            recorder.failure = Failure(error, "generator", {"call": call, "step": recorder.loop_step()})
            raise error
        # A named script is called by user code, which must not swallow the scenario's error.
        raise ScenarioAbort(text)
    if reply.error is not None:
        recorder.llm_failed(reply.error, script.name)
        error = ScriptedError(reply.error)
        if main:
            recorder.failure = Failure(error, "generator", {"call": call, "step": recorder.loop_step()})
        raise error
    chunks = [StreamingChunk(content=piece, index=0, start=i == 0) for i, piece in enumerate(reply.chunks or [])]
    return build_reply(reply, index), chunks


def _finish(recorder: Recorder, script: Script, message: ChatMessage) -> dict:
    recorder.llm_finished([message], script.name)
    return {"replies": [message]}


@component
class ScriptedChatGenerator:
    """A chat generator replaying one script, one reply per call; past its end a call is the run's error."""

    def __init__(self, script: Script, recorder: Recorder) -> None:
        self.script = script
        self.recorder = recorder

    @classmethod
    def pooled(cls, script: Script, recorder: Recorder, pool: list) -> ScriptedChatGenerator:
        """The main agent's generator, reused from scenario to scenario (building a component parses its `run`
        signature each time, as much as a small Agent's own tools cost); `pool` holds the one free instance."""
        generator = pool.pop() if pool else cls(script, recorder)
        generator.script, generator.recorder = script, recorder
        return generator

    @component.output_types(replies=list[ChatMessage])
    def run(
        self,
        messages: list[ChatMessage],
        streaming_callback: Any = None,
        generation_kwargs: dict | None = None,
        *,
        tools: Any = None,
        tools_strict: bool | None = None,
    ) -> dict[str, Any]:
        message, chunks = answer(self.script, self.recorder, messages, tools, generation_kwargs)
        if streaming_callback is not None:
            for chunk in chunks:
                streaming_callback(chunk)
        return _finish(self.recorder, self.script, message)

    @component.output_types(replies=list[ChatMessage])
    async def run_async(
        self,
        messages: list[ChatMessage],
        streaming_callback: Any = None,
        generation_kwargs: dict | None = None,
        *,
        tools: Any = None,
        tools_strict: bool | None = None,
    ) -> dict[str, Any]:
        message, chunks = answer(self.script, self.recorder, messages, tools, generation_kwargs)
        if streaming_callback is not None:
            for chunk in chunks:
                result = streaming_callback(chunk)
                if inspect.isawaitable(result):
                    await result
        return _finish(self.recorder, self.script, message)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "hookharness.engine.scripted.ScriptedChatGenerator", "init_parameters": {}}


# -- substituted and refused generator classes ------------------------------------------------------------------------

_SWAPPED = ("run", "run_async", "warm_up", "warm_up_async", "close", "close_async")
_PLACEHOLDER_KEY = "hookharness-scripted-no-key"
# Set while a substituted class's constructor runs: a secret it reads from an unset variable gets a placeholder.
_CONSTRUCTING: contextvars.ContextVar[bool] = contextvars.ContextVar("hh_constructing", default=False)


def import_object(target: str) -> Any:
    """`module.path:attribute.path` -> the object."""
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else []:
        value = getattr(value, part)
    return value


class Substitutions:
    """Swaps methods on generator classes for one scenario and puts them back."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self._saved: list[tuple[type, str, Any]] = []

    def _swap(self, cls: type, name: str, value: Any) -> None:
        self._saved.append((cls, name, cls.__dict__.get(name, _ABSENT)))
        setattr(cls, name, value)

    def refuse_imported_later(self) -> None:
        """Until `restore`, a Haystack generator class imported from now on (a hook or tool importing its generator
        inside the function) is refused as soon as its class is defined, like those imported before the run."""
        _WatchedRegistry.install()
        _WatchedRegistry.watcher = self.refuse

    def restore(self) -> None:
        _WatchedRegistry.watcher = None
        for cls, name, value in reversed(self._saved):
            if value is _ABSENT:
                with contextlib.suppress(AttributeError):
                    delattr(cls, name)
            else:
                setattr(cls, name, value)
        self._saved = []

    def substitute(self, cls: type, script: Script) -> None:
        """Every instance of `cls` answers from `script` (methods swapped on the class)."""
        recorder = self.recorder
        original_run = getattr(cls, "run", None)
        original_async = getattr(cls, "run_async", None)

        def _bind(original, args, kwargs) -> tuple[Any, Any, Any, Any]:
            try:
                bound = inspect.signature(original).bind(None, *args, **kwargs).arguments
            except (TypeError, ValueError):
                bound = kwargs
            return (
                bound.get("messages", args[0] if args else None),
                bound.get("tools"),
                bound.get("streaming_callback"),
                bound.get("generation_kwargs"),
            )

        def run(self, *args, **kwargs):
            messages, tools, callback, generation_kwargs = _bind(original_run, args, kwargs)
            message, chunks = answer(script, recorder, messages, tools, generation_kwargs)
            if callback is not None:
                for chunk in chunks:
                    callback(chunk)
            return _finish(recorder, script, message)

        async def run_async(self, *args, **kwargs):
            messages, tools, callback, generation_kwargs = _bind(original_async or original_run, args, kwargs)
            message, chunks = answer(script, recorder, messages, tools, generation_kwargs)
            if callback is not None:
                for chunk in chunks:
                    result = callback(chunk)
                    if inspect.isawaitable(result):
                        await result
            return _finish(recorder, script, message)

        def nothing(self, *args, **kwargs):
            return None

        async def nothing_async(self, *args, **kwargs):
            return None

        if original_run is not None:
            self._swap(cls, "run", functools.wraps(original_run)(run))
        if original_async is not None:
            self._swap(cls, "run_async", functools.wraps(original_async)(run_async))
        for name in ("warm_up", "close"):
            if hasattr(cls, name):
                self._swap(cls, name, nothing)
        for name in ("warm_up_async", "close_async"):
            if hasattr(cls, name):
                self._swap(cls, name, nothing_async)
        original_init = cls.__init__

        @functools.wraps(original_init)
        def __init__(self, *args, **kwargs):
            token = _CONSTRUCTING.set(True)
            try:
                original_init(self, *args, **kwargs)
            finally:
                _CONSTRUCTING.reset(token)

        self._swap(cls, "__init__", __init__)

    def refuse(self, cls: type, qualified: str) -> None:
        """`cls` is a generator no script answers: a call to it is the run's error, naming the caller."""
        module, _, class_name = qualified.rpartition(".")

        def message(method: str) -> str:
            return (
                f"unscripted model call: `{class_name}.{method}` called at {caller()}; script it with "
                f'`models: {{NAME: {{replies: [...], replaces: "{module}:{class_name}"}}}}`, or pass a scripted '
                "model through `models:` to the factory or hook that builds it"
            )

        def run(self, *args, **kwargs):
            raise ScenarioAbort(message("run"))

        async def run_async(self, *args, **kwargs):
            raise ScenarioAbort(message("run_async"))

        def nothing(self, *args, **kwargs):
            return None

        async def nothing_async(self, *args, **kwargs):
            return None

        if hasattr(cls, "run"):
            self._swap(cls, "run", functools.wraps(cls.run)(run))
        if hasattr(cls, "run_async"):
            self._swap(cls, "run_async", functools.wraps(cls.run_async)(run_async))
        # Warming up would read an API key or open a client: the refusal comes at the call, which names the caller.
        for name in ("warm_up", "close"):
            if hasattr(cls, name):
                self._swap(cls, name, nothing)
        for name in ("warm_up_async", "close_async"):
            if hasattr(cls, name):
                self._swap(cls, name, nothing_async)


_ABSENT = object()


def _is_generator(qualified: str) -> bool:
    return qualified.split(".")[0] in ("haystack", "haystack_integrations") and qualified.endswith("Generator")


def generator_classes() -> dict[str, type]:
    """The Haystack generator classes imported so far, by qualified name (from Haystack's component registry)."""
    registry = component.registry
    if isinstance(registry, _WatchedRegistry):  # it counts its changes: the last answer holds until one comes
        key = (id(registry), len(registry), _WatchedRegistry.changes)
        if _GENERATORS[0] == key:
            return dict(_GENERATORS[1])
        found = {qualified: cls for qualified, cls in registry.items() if _is_generator(qualified)}
        _GENERATORS[:] = [key, found]
        return dict(found)
    return {qualified: cls for qualified, cls in registry.items() if _is_generator(qualified)}


# The last `generator_classes` answer and the state of the registry it was read from: every scenario asks, and a
# scenario rarely defines a component (walking the registry, a hundred classes and more, cost it more than the rest).
_GENERATORS: list = [None, {}]


class _WatchedRegistry(dict):
    """Haystack's component registry (`@component` adds each class as its module is imported), telling the running
    scenario's `Substitutions.refuse` of a generator class defined while it runs."""

    watcher: Any = None
    changes = 0  # how many times a class was set (`generator_classes` reads it; a removal changes the length)

    @classmethod
    def install(cls) -> None:
        if not isinstance(component.registry, cls):
            component.registry = cls(component.registry)

    def update(self, *args, **kwargs) -> None:
        _WatchedRegistry.changes += 1
        super().update(*args, **kwargs)

    def __setitem__(self, qualified: str, value: type) -> None:
        _WatchedRegistry.changes += 1
        super().__setitem__(qualified, value)
        watcher = _WatchedRegistry.watcher
        if watcher is not None and _is_generator(qualified):
            watcher(value, qualified)


@contextlib.contextmanager
def placeholder_secrets() -> Iterator[None]:
    """An environment secret that is not set resolves to a placeholder instead of raising: while a substituted
    class's constructor runs (the scripted instance never uses it), and at any time when it names only credential
    variables, which the worker does not hand on (`sandbox.hide_credentials`): a generator your factory builds with
    the key from the environment is built, with or without a key in the shell, and answers from no network."""
    secret = _ENV_SECRET[0]
    if secret is None:
        from haystack.utils.auth import EnvVarSecret

        secret = _ENV_SECRET[0] = EnvVarSecret
    original = secret.resolve_value
    _RESOLVE[0] = original
    secret.resolve_value = _resolve_value
    try:
        yield
    finally:
        secret.resolve_value = original


# `EnvVarSecret`, imported at the first scenario; the `resolve_value` found when the scenario began (what
# `_resolve_value` stands in for, made once: a scenario only swaps it in and out).
_ENV_SECRET: list = [None]
_RESOLVE: list = [None]


def _resolve_value(self):
    try:
        return _RESOLVE[0](self)
    except ValueError:
        if _CONSTRUCTING.get() or all(is_credential(name) for name in getattr(self, "_env_vars", ())):
            return _PLACEHOLDER_KEY
        raise


def scripts_for(models: dict[str, ModelScript], model: list[Reply]) -> dict[str, Script]:
    scripts = {"model": Script(None, model)}
    for name, entry in models.items():
        scripts[name] = Script(name, entry.replies)
    return scripts


# -- scripted tools ---------------------------------------------------------------------------------------------------


class ToolScript:
    def __init__(self, spec: ToolSpec) -> None:
        self.name = spec.name
        self.results = spec.results
        self.repeat_last = spec.repeat_last
        self.consumed = 0


def scripted_function(name: str):
    """The function behind a scripted Tool: replays the result `observe` reserved for the call being executed."""
    from .observe import current_assignment

    def function(**kwargs):
        assignment = current_assignment()
        if assignment is None:
            raise RuntimeError(f"scripted tool `{name}` invoked outside the Agent's tool execution")
        kind, value = assignment.result
        if kind == "error":
            raise ScriptedError(value)
        if kind == "json":
            return copy.deepcopy(value)
        if kind == "echo":
            return copy.deepcopy(kwargs)
        return value

    # The function declares no parameters: those it accepts are its `parameters` schema's.
    function.__signature__ = inspect.Signature()
    return function


def _outputs_to_state(config: dict | None) -> dict | None:
    if config is None:
        return None
    # A key's options may be null (`received:` alone): they read as {}.
    config = {key: entry or {} for key, entry in config.items()}
    return {
        key: {**entry, **({"handler": HANDLERS[entry["handler"]]} if "handler" in entry else {})}
        for key, entry in config.items()
    }


# Scripted Tools of the scenario's own `tools` (no real tool behind them), by their spec: a scripted Tool holds no
# state of its own (its results are reserved per run, `observe`), and building one validates its parameters' JSON
# Schema, a third of the cost of building a small Agent; so one object serves every scenario that scripts the same
# tool. Bounded: a long session of distinct tools keeps the most recent.
_TOOL_CACHE: dict[str, Tool] = {}
_TOOL_CACHE_SIZE = 512


def cached_scripted_tool(spec: ToolSpec) -> Tool:
    key = wire.key(
        [spec.name, spec.description, spec.parameters, spec.inputs_from_state, spec.outputs_to_state, spec.outputs_to_string]
    )
    tool = _TOOL_CACHE.pop(key, None)
    if tool is None:
        tool = scripted_tool(spec)
    _TOOL_CACHE[key] = tool
    while len(_TOOL_CACHE) > _TOOL_CACHE_SIZE:
        _TOOL_CACHE.pop(next(iter(_TOOL_CACHE)))
    return tool


def scripted_tool(spec: ToolSpec, real: Tool | None = None) -> Tool:
    """A scripted Tool; with `real` (a tool of the user's agent), what the file did not write comes from it."""

    def pick(key: str, own: Any, theirs: Any) -> Any:
        return own if real is None or key in spec.given else theirs

    return Tool(
        name=spec.name,
        description=pick("description", spec.description, getattr(real, "description", "")),
        parameters=copy.deepcopy(pick("parameters", spec.parameters, getattr(real, "parameters", None))),
        function=scripted_function(spec.name),
        inputs_from_state=copy.deepcopy(pick("inputs_from_state", spec.inputs_from_state, getattr(real, "inputs_from_state", None))),
        outputs_to_state=pick("outputs_to_state", _outputs_to_state(spec.outputs_to_state), getattr(real, "outputs_to_state", None)),
        outputs_to_string=copy.deepcopy(pick("outputs_to_string", spec.outputs_to_string, getattr(real, "outputs_to_string", None))),
    )
