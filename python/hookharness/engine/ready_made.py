"""Ready-made hook entries as Haystack's own hook objects (3.4.1; 3.2.0 lacks some compactors).

A ready-made entry is `{name?, KIND: PARAMS}`; PARAMS are the constructor parameters of the
Haystack hook of that kind, exactly the `init_parameters` of its `to_dict()`, with the objects
among them (stores, policies, strategies, UIs) in Haystack's serialized form
`{type, init_parameters}` (docs/scenario-format-extensions.md).

- `validate` (from the conformance runner's reader) turns PARAMS, as the file wrote them and the
  Rust loader accepted them, into the canonical form: every object as `{type, init_parameters}`
  (an absent or null `init_parameters` is `{}`, a null strategies map is `{}`). The Rust loader
  has already refused what the harness refuses; a mismatch here is reported as a bug between the two.
- `build` makes the hook. `token_budget` calls `TokenBudgetHook(...)`; the other kinds go
  through the hook class's own `from_dict`, so Haystack itself reads the parameters: its tuple
  keys, its nested deserialization and its policy, strategy and hook classes.
- Three classes the scenarios name are not part of Haystack but of the harness. They are defined
  here, implementing Haystack's protocols, under the qualified names the harness gives them
  (`hookharness.hooks.offload.InMemoryToolResultStore`,
  `hookharness.hooks.confirmation.ScriptedConfirmationUI`,
  `hookharness.hooks.compaction.ScriptedSummarizer`), so that Haystack's `from_dict`
  imports them by those names.
- `compaction` hooks go through `CompactionHook.from_dict`, which reads the compactor and the token
  counter with Haystack's own classes. The one change: `ToolResultOffloadCompactor`'s store keys
  end in a per-compactor counter instead of `uuid4().hex`, as in the harness (docs/deviations.md,
  `compaction-offload-key-suffix`), see `_counter_offload_keys`.
"""

from __future__ import annotations

import contextvars
import copy
import json
import sys
import types
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from haystack import component
from haystack.core.serialization import allow_deserialization_module, default_to_dict
from haystack.dataclasses import ChatMessage
from haystack.hooks.human_in_the_loop import ConfirmationUIResult
from haystack.hooks.human_in_the_loop.types import ConfirmationUI
from haystack.hooks.tool_result_offloading.types import ToolResultStore

from .errors import ScenarioAbort, ScenarioRunError, ScriptedError
from .spec import HookDef

SUPPORTED = ("token_budget", "tool_result_offload", "compaction", "confirmation")

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
SIMPLE_CONSOLE_UI = "haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI"
_CONSOLE_UIS = ("haystack.hooks.human_in_the_loop.user_interfaces.RichConsoleUI",)
COMPACTION_HOOK = "haystack.hooks.compaction.hooks.CompactionHook"
_COMPACTION = "haystack.hooks.compaction."
SLIDING_WINDOW = _COMPACTION + "sliding_window.SlidingWindowCompactor"
TOOL_RESULT_PRUNING = _COMPACTION + "tool_result_pruning.ToolResultPruningCompactor"
TOOL_RESULT_OFFLOAD_COMPACTOR = _COMPACTION + "tool_result_offloading.ToolResultOffloadCompactor"
SUMMARIZATION = _COMPACTION + "summarization.SummarizationCompactor"
APPROXIMATE_COUNTER = "haystack.token_counters.approximate_counter.ApproximateTokenCounter"
_PROVIDER_COUNTERS = (
    "haystack.token_counters.openai_counter.OpenAITokenCounter",
    "haystack.token_counters.tiktoken_counter.TiktokenCounter",
)
SCRIPTED_SUMMARIZER = "hookharness.hooks.compaction.ScriptedSummarizer"


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
    UI protocol is not given the call's id, so this text cannot name it; the harness's text is this
    one with the id after it, which the comparison of error texts by substring counts as equal.
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


@component
class ScriptedSummarizer:
    """The harness's scripted summarizer: a chat generator answering each summary call with the next reply.

    `replies` holds, per call in order, a summary text (one assistant reply), `None` (no reply at all, which the
    compactor reports as "no usable text") or `{"error": TEXT}` (the generator raises `TEXT`). Haystack's
    `SummarizationCompactor` catches what its generator raises and, with `raise_on_failure: false`, keeps the last
    good result; a call past the last reply must fail the run whatever `raise_on_failure` says (as in the harness,
    docs/deviations.md `compaction-scripted-summarizer-exhausted`), so it raises a `ScenarioAbort`, which Haystack's
    `except Exception` lets through.
    """

    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies
        self.calls = 0

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
        index = self.calls
        self.calls += 1
        if index >= len(self.replies):
            n = len(self.replies)
            raise ScenarioAbort(
                f"the scripted summarizer has no reply left for summary call {index}: "
                f"it scripts {n} repl{'y' if n == 1 else 'ies'}"
            )
        reply = self.replies[index]
        if reply is None:
            return {"replies": []}
        if isinstance(reply, dict):
            raise ScriptedError(reply["error"])
        return {"replies": [ChatMessage.from_assistant(reply)]}

    @component.output_types(replies=list[ChatMessage])
    async def run_async(self, messages: list[ChatMessage]) -> dict[str, Any]:
        return self.run(messages=messages)

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, replies=copy.deepcopy(self.replies))


_HARNESS_CLASSES = {
    IN_MEMORY_STORE: InMemoryToolResultStore,
    SCRIPTED_UI: ScriptedConfirmationUI,
    SCRIPTED_SUMMARIZER: ScriptedSummarizer,
}
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
            elif not getattr(module, "__hh_engine__", False) and i == len(parts):
                raise RuntimeError(f"a module `{name}` is already loaded; the engine defines its own under that name")
            module.__hh_engine__ = True
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
    if kind == "compaction":
        return _compaction(c, raw, path)
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


def _compaction(c: _Checker, raw: Any, path: tuple) -> dict:
    raw = c.map(
        raw,
        path,
        allowed=("compactor", "context_window", "compact_at", "compact_to", "token_counter"),
        required=("compactor", "context_window"),
    )
    params = {
        "compactor": _component(
            c,
            raw["compactor"],
            (*path, "compactor"),
            {
                SLIDING_WINDOW: _sliding_window,
                TOOL_RESULT_PRUNING: _tool_result_pruning,
                TOOL_RESULT_OFFLOAD_COMPACTOR: _tool_result_offload_compactor,
                SUMMARIZATION: _summarization,
            },
        ),
        "context_window": c.int(raw["context_window"], (*path, "context_window")),
    }
    for key in ("compact_at", "compact_to"):
        if key in raw:
            params[key] = c.number(raw[key], (*path, key))
    # `null` is the default counter, as in Haystack (`token_counter or ApproximateTokenCounter()`).
    if raw.get("token_counter") is not None:
        params["token_counter"] = _component(
            c,
            raw["token_counter"],
            (*path, "token_counter"),
            {APPROXIMATE_COUNTER: _approximate_counter},
            _REFUSED_COUNTERS,
        )
    return params


def _approximate_counter(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("chars_per_token", "tokens_per_image", "tokens_per_file"))
    out = {}
    if "chars_per_token" in init:
        out["chars_per_token"] = c.number(init["chars_per_token"], (*path, "chars_per_token"))
    for key in ("tokens_per_image", "tokens_per_file"):
        if key in init:
            out[key] = c.int(init[key], (*path, key))
    return out


def _ints(c: _Checker, init: dict, path: tuple, keys: tuple[str, ...]) -> dict:
    return {key: c.int(init[key], (*path, key)) for key in keys if key in init}


def _sliding_window(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("min_keep_steps", "omission_note"))
    out = _ints(c, init, path, ("min_keep_steps",))
    if "omission_note" in init:  # `null`: no note (Haystack's None)
        out["omission_note"] = c.str(init["omission_note"], (*path, "omission_note"), nullable=True)
    return out


def _tool_result_pruning(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("min_keep_steps", "min_tokens", "placeholder", "skip_meta_keys"))
    out = _ints(c, init, path, ("min_keep_steps", "min_tokens"))
    if "placeholder" in init:
        out["placeholder"] = c.str(init["placeholder"], (*path, "placeholder"))
    if "skip_meta_keys" in init:
        out["skip_meta_keys"] = c.str_list(init["skip_meta_keys"], (*path, "skip_meta_keys"))
    return out


def _tool_result_offload_compactor(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("store", "min_keep_steps", "min_tokens", "preview_chars"), required=("store",))
    return {
        "store": _component(c, init["store"], (*path, "store"), {IN_MEMORY_STORE: _no_parameters}, _REFUSED_STORES),
        **_ints(c, init, path, ("min_keep_steps", "min_tokens", "preview_chars")),
    }


def _summarization(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(
        init,
        path,
        allowed=(
            "chat_generator",
            "min_keep_steps",
            "approximate_summary_tokens",
            "summary_instruction",
            "raise_on_failure",
        ),
        required=("chat_generator",),
    )
    out = {
        "chat_generator": _component(
            c, init["chat_generator"], (*path, "chat_generator"), {SCRIPTED_SUMMARIZER: _scripted_summarizer}
        ),
        **_ints(c, init, path, ("min_keep_steps", "approximate_summary_tokens")),
    }
    if "summary_instruction" in init:
        out["summary_instruction"] = c.str(init["summary_instruction"], (*path, "summary_instruction"))
    if "raise_on_failure" in init:
        out["raise_on_failure"] = c.bool(init["raise_on_failure"], (*path, "raise_on_failure"))
    return out


def _scripted_summarizer(c: _Checker, init: dict, path: tuple) -> dict:
    c.map(init, path, allowed=("replies",), required=("replies",))
    replies: list[Any] = []
    for i, reply in enumerate(c.list(init["replies"], (*path, "replies"))):
        rp = (*path, "replies", i)
        if reply is None or isinstance(reply, str):
            replies.append(reply)
            continue
        if not isinstance(reply, dict):
            raise c.err(rp, "a reply is a summary text, null (no reply) or `{error: MESSAGE}`")
        c.map(reply, rp, allowed=("error",), required=("error",))
        replies.append({"error": c.str(reply["error"], (*rp, "error"))})
    return {"replies": replies}


_REFUSED_STORES = {
    FILE_SYSTEM_STORE: f"its references are absolute paths, so the outcome would depend on the machine; "
    f"scenarios use `{IN_MEMORY_STORE}`",
}
_REFUSED_UIS = {ui: f"a console UI needs a person; scenarios use `{SCRIPTED_UI}`" for ui in _CONSOLE_UIS}

_REFUSED_COUNTERS = {
    counter: f"a provider's counter calls its API or downloads its encodings; scenarios use `{APPROXIMATE_COUNTER}`"
    for counter in _PROVIDER_COUNTERS
}


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
            c,
            init["confirmation_ui"],
            (*path, "confirmation_ui"),
            {SCRIPTED_UI: _scripted_ui, SIMPLE_CONSOLE_UI: _no_parameters},
            _REFUSED_UIS,
        ),
    }
    if out["confirmation_ui"]["type"] == SIMPLE_CONSOLE_UI and out["confirmation_policy"]["type"] != NEVER_ASK:
        raise c.err(
            (*path, "confirmation_ui", "type"),
            f"`{SIMPLE_CONSOLE_UI}` asks a person at the console, and a scenario run has none; "
            f"use it with `{NEVER_ASK}` (which never asks), or use `{SCRIPTED_UI}`",
        )
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


# The classes a ready-made entry may name whose construction reads nothing but its parameters (no environment, no
# clock, no file, no generator a scenario scripts): an entry naming only these is built once by `from_dict` and each
# scenario gets a deep copy of that unused object, the same objects `from_dict` would build, in a few microseconds
# instead of a few hundred. An entry naming any other class (a real chat generator as a summarizer, a provider's
# token counter, a rich console UI) is built by `from_dict` every time.
_PURE_TYPES = frozenset(
    {
        IN_MEMORY_STORE, FILE_SYSTEM_STORE, ALWAYS_OFFLOAD, NEVER_OFFLOAD, OFFLOAD_OVER_CHARS, BLOCKING_STRATEGY,
        ALWAYS_ASK, NEVER_ASK, ASK_ONCE, SCRIPTED_UI, SIMPLE_CONSOLE_UI, SLIDING_WINDOW, TOOL_RESULT_PRUNING,
        TOOL_RESULT_OFFLOAD_COMPACTOR, SUMMARIZATION, APPROXIMATE_COUNTER, SCRIPTED_SUMMARIZER,
    }
)
# Unused hook objects by entry (kind and parameters as JSON); bounded, most recent kept.
_BUILT: dict[str, Any] = {}
_BUILT_SIZE = 256


def _types_named(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        if "type" in value:
            yield value["type"]
        for item in value.values():
            yield from _types_named(item)
    elif isinstance(value, list):
        for item in value:
            yield from _types_named(item)


def build(definition: HookDef) -> Any:
    """The Haystack hook object of a ready-made entry (parameters as the file wrote them, validated by Rust): a
    new one each call (`_PURE_TYPES` says when it is a copy of one built before)."""
    if definition.kind == "token_budget" or not all(t in _PURE_TYPES for t in _types_named(definition.params)):
        return _with_offload_keys(_build(definition))
    key = json.dumps([definition.kind, definition.params], sort_keys=True)
    template = _BUILT.pop(key, None)
    if template is None:
        template = _build(definition)  # raises as Haystack does; nothing is kept then
    _BUILT[key] = template
    while len(_BUILT) > _BUILT_SIZE:
        _BUILT.pop(next(iter(_BUILT)))
    return _with_offload_keys(copy.deepcopy(template))


def _with_offload_keys(hook: Any) -> Any:
    """`hook`, its `ToolResultOffloadCompactor` (if any) counting its store keys from 1 (`_counter_offload_keys`)."""
    compactor = getattr(hook, "compactor", None)
    if compactor is not None:
        from haystack.hooks import compaction

        # Not in every haystack-ai that has compaction (3.2.0 lacks it).
        if isinstance(compactor, getattr(compaction, "ToolResultOffloadCompactor", ())):
            _counter_offload_keys(compactor)
    return hook


def _build(definition: HookDef) -> Any:
    """`build`, always through Haystack's constructor or `from_dict`."""
    params = validate(_Checker(), definition.kind, copy.deepcopy(definition.params), (definition.kind,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ExperimentalWarning
        if definition.kind == "token_budget":
            from haystack.hooks.budget import TokenBudgetHook

            return TokenBudgetHook(**params)
        _register_harness_classes()
        if definition.kind == "tool_result_offload":
            from haystack.hooks.tool_result_offloading import ToolResultOffloadHook

            return ToolResultOffloadHook.from_dict({"type": OFFLOAD_HOOK, "init_parameters": params})
        if definition.kind == "confirmation":
            from haystack.hooks.human_in_the_loop import ConfirmationHook

            return ConfirmationHook.from_dict({"type": CONFIRMATION_HOOK, "init_parameters": params})
        if definition.kind == "compaction":
            from haystack.hooks.compaction import CompactionHook

            return CompactionHook.from_dict({"type": COMPACTION_HOOK, "init_parameters": params})
    raise ValueError(f"unknown ready-made hook kind `{definition.kind}`")


class _Checker:
    """The accessors `validate` uses. The Rust loader has validated the file; a mismatch here is a bug between the
    two readers, reported with its key path."""

    def err(self, path: tuple, message: str) -> ValueError:
        return ValueError(f"{'.'.join(str(p) for p in path)}: {message} (the Rust loader accepted it: please report)")

    def map(self, value, path, allowed=None, required=()) -> dict:
        if not isinstance(value, dict):
            raise self.err(path, "expected a map")
        for key in value if allowed is not None else ():
            if key not in allowed:
                raise self.err((*path, key), f"unknown key `{key}`")
        for key in required:
            if key not in value:
                raise self.err((*path, key), "required key is missing")
        return value

    def list(self, value, path) -> list:
        if not isinstance(value, list):
            raise self.err(path, "expected a list")
        return value

    def str(self, value, path, nullable=False):
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.err(path, "expected a string")
        return value

    def bool(self, value, path) -> bool:
        if not isinstance(value, bool):
            raise self.err(path, "expected a boolean")
        return value

    def int(self, value, path) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.err(path, "expected an integer")
        return value

    def number(self, value, path):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise self.err(path, "expected a number")
        return value

    def str_list(self, value, path) -> list:
        return [self.str(v, (*path, i)) for i, v in enumerate(self.list(value, path))]


# `ToolResultOffloadCompactor` names each store entry `compacted_<tool>_<uuid4().hex>`. The harness writes a
# per-compactor counter in 32 hex digits instead (`...0001`, `...0002`, ...: the same length, so pointer texts
# and token counts are unchanged), so that outcomes do not change from run to run (docs/deviations.md,
# `compaction-offload-key-suffix`). Here the module's `uuid4` is replaced by a function that takes the next
# number of the compactor whose `_offload` is running (a context variable, which `asyncio.to_thread` carries
# into the thread `compact_async` uses); called from anywhere else it is the real `uuid4`.
_OFFLOAD_KEYS: contextvars.ContextVar[Callable[[], uuid.UUID] | None] = contextvars.ContextVar(
    "hh_offload_keys", default=None
)


def _offload_key_uuid4() -> uuid.UUID:
    keys = _OFFLOAD_KEYS.get()
    return keys() if keys is not None else uuid.uuid4()


def _counter_offload_keys(compactor: Any) -> None:
    """Make `compactor`'s store keys end in its own counter, from 1, instead of a random uuid4."""
    import haystack.hooks.compaction.tool_result_offloading as offloading

    offloading.uuid4 = _offload_key_uuid4
    counter = iter(range(1, 2**128))

    def next_key() -> uuid.UUID:
        return uuid.UUID(int=next(counter))  # .hex is the number in 32 hex digits

    original = compactor._offload

    def _offload(*args: Any, **kwargs: Any) -> Any:
        token = _OFFLOAD_KEYS.set(next_key)
        try:
            return original(*args, **kwargs)
        finally:
            _OFFLOAD_KEYS.reset(token)

    compactor._offload = _offload
