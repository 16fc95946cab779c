"""The trace: every event the Rust engine records (src/outcome/recorder.rs), as its serde JSON.

Each event is a dict in the form of `TraceEvent` (tag `event`, snake_case kinds, fields in declaration order; `step`
left out when State has no `step_count`, `arguments` when empty, `changes` unless the request asked for detail
`full`). `observe` calls these methods from the places where Haystack 3.4.1 does each thing; recording only reads
State, it never changes the run.
"""

from __future__ import annotations

import contextvars
import copy
import math
import threading
from dataclasses import dataclass, field
from typing import Any

from .values import json_eq, jsonify, message_dict

# State keys that are not `data` in the Rust State: the conversation, the run's tools and the hook context.
_NOT_DATA = ("messages", "tools", "hook_context")

# While a tool call of the main agent runs: where the model calls it makes (a sub-agent's, a tool's own generator)
# are recorded. They are emitted with that call's `tool_finished`, in call order, so that concurrent calls do not
# interleave their events by thread timing.
TOOL_EVENTS: contextvars.ContextVar[list | None] = contextvars.ContextVar("hh_tool_events", default=None)


@dataclass
class Failure:
    """Where the exception that ended the run came from, when a recorded call raised it."""

    exception: BaseException
    kind: str  # "hook" | "generator"
    context: dict = field(default_factory=dict)


_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def _step_int(value: Any) -> int:
    """A step value as the integer an error's context shows, as the Rust engine converts it (src/value.rs
    `step_number`): a bool is 0 or 1, a float is truncated (saturating; NaN is 0), an int is clamped to 64 bits,
    anything else is 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return max(_I64_MIN, min(_I64_MAX, value))
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        if value >= 2.0**63:
            return _I64_MAX
        if value <= -(2.0**63):
            return _I64_MIN
        return int(value)
    return 0


class Recorder:
    def __init__(self, *, detail: str = "summary", keep_requests: bool = False) -> None:
        self.events: list[dict] = []
        self.full = detail == "full"
        self.keep_requests = keep_requests
        self.requests: list[dict] = []
        self.streamed: list = []
        self.state = None  # the main agent's live State, from its first `_run_hooks` call (before_run)
        self.hooks = None  # the main agent's `hooks` dict: calls for any other agent (a sub-agent) are not recorded
        self.last_step: bool | None = None  # what the main loop's last `_run_step` returned
        self.exe_context = None  # the main loop's execution context, from its first `_run_step`
        self.main_llm_calls = 0
        self.failure: Failure | None = None
        self._lock = threading.Lock()
        self._pending_tools: list[tuple[int, dict]] = []

    # -- helpers ----------------------------------------------------------------------------------------------------

    def _with_step(self, event: dict, state=None) -> dict:
        state = self.state if state is None else state
        if state is not None and "step_count" in state.data:
            event["step"] = jsonify(state.data["step_count"])
        return event

    def step_field(self) -> dict:
        """`{"step": VALUE}` with `step_count` as it is now, or `{}` when State has none (an event then has no step)."""
        return self._with_step({})

    def loop_step(self) -> int:
        """The loop's own counter (`exe_context.counter`) as an integer, for the context of a generator error: the
        step the loop is in, whatever a hook wrote into `step_count`."""
        return _step_int(self.exe_context.counter if self.exe_context is not None else 0)

    def step_number(self) -> int:
        """`step_count` when State holds an integer there, else the loop's counter, for the context of a hook
        error (as the Rust engine words it)."""
        value = self.state.data.get("step_count") if self.state is not None else None
        if isinstance(value, int) and not isinstance(value, bool) and _I64_MIN <= value <= _I64_MAX:
            return value
        return self.loop_step()

    @staticmethod
    def _data(state) -> dict:
        return {key: jsonify(value) for key, value in state.data.items() if key not in _NOT_DATA}

    @staticmethod
    def _messages(state) -> list:
        return [message_dict(m) for m in state.data.get("messages") or []]

    # -- events -----------------------------------------------------------------------------------------------------

    def run_started(self, state) -> None:
        self.events.append({"event": "run_started", "messages": len(state.data.get("messages") or [])})

    def hook_started(self, point: str, index: int, name: str, state) -> Any:
        """Records the start; returns what `hook_finished` needs to compute the changes (detail full)."""
        event = {"event": "hook_started", "point": point, "index": index, "hook": name}
        self.events.append(self._with_step(event, state))
        if self.full:
            return (self._messages(state), self._data(state))
        return None

    def hook_finished(self, point: str, index: int, name: str, state, error: str | None, before, output: str) -> None:
        event: dict[str, Any] = {"event": "hook_finished", "point": point, "index": index, "hook": name}
        self._with_step(event, state)
        event["error"] = error
        if point == "before_tool":
            messages = state.data.get("messages") or []
            calls = messages[-1].tool_calls if messages else []
            event["tools"] = {
                "pending": [_call_ref(call) for call in calls],
                "tool_call_counts": jsonify(state.data.get("tool_call_counts")),
            }
        if before is not None:
            event["changes"] = _changes(before, (self._messages(state), self._data(state)))
        if output:
            event["output"] = output
        self.events.append(event)

    def _append(self, event: dict) -> None:
        sink = TOOL_EVENTS.get()
        if sink is not None:
            sink.append(event)
        else:
            self.events.append(event)

    def llm_started(self, messages: list, tools: Any, model: str | None) -> None:
        event = self._with_step({"event": "llm_started"})
        event["messages_in"] = len(messages)
        event["last"] = message_dict(messages[-1]) if messages else None
        if model is not None:
            event["model"] = model
        self._append(event)
        if model is None and self.keep_requests:
            names = [getattr(t, "name", str(t)) for t in flatten_tools(tools)]
            self.requests.append({"messages": [message_dict(m) for m in messages], "tools": names})

    def llm_finished(self, replies: list, model: str | None) -> None:
        event = self._with_step({"event": "llm_finished"})
        event["replies"] = [message_dict(m) for m in replies]
        if model is not None:
            event["model"] = model
        self._append(event)

    def llm_failed(self, error: str, model: str | None) -> None:
        event = self._with_step({"event": "llm_failed"})
        event["error"] = error
        if model is not None:
            event["model"] = model
        self._append(event)

    def tool_finished(self, position: int, call, error: bool, output: str, inner: list) -> None:
        """Called on the tool's thread; buffered and flushed in call order when the step's tools are done, after the
        model calls the tool call made (`inner`)."""
        event: dict[str, Any] = {"event": "tool_finished", "tool": call.tool_name, "id": call.id, "error": error}
        if call.arguments:
            event["arguments"] = jsonify(call.arguments)
        if output:
            event["output"] = output
        with self._lock:
            self._pending_tools.append((position, event, inner))

    def flush_tools(self, step: dict, errors: dict[int, bool] | None = None) -> None:
        """Emit the step's `tool_finished` events in call order, at `step` (from `step_field` when the step's tools
        were dispatched); `errors` (by call position), from the step's tool messages when Haystack returned them, is
        the word on which calls failed."""
        with self._lock:
            pending, self._pending_tools = self._pending_tools, []
        for position, event, inner in sorted(pending, key=lambda item: item[0]):
            self.events.extend(inner)
            if errors is not None and position in errors:
                event["error"] = errors[position]
            # `step` goes after `event`, as the serde form orders it.
            ordered = {"event": event.pop("event"), **step, **event}
            self.events.append(ordered)

    def tools_finished(self) -> None:
        event = self._with_step({"event": "tools_finished"})
        event["tool_call_counts"] = jsonify(self.state.data.get("tool_call_counts"))
        self.events.append(event)

    def exit(self, continues: bool) -> None:
        event = self._with_step({"event": "exit"})
        event["reason"] = jsonify(self.state.data.get("exit_reason"))
        event["continues"] = bool(continues)
        self.events.append(event)

    def stopped(self, reason: Any) -> None:
        event = self._with_step({"event": "stopped"})
        event["reason"] = jsonify(reason)
        self.events.append(event)

    def max_steps_reached(self) -> None:
        self.events.append(self._with_step({"event": "max_steps_reached"}))

    def run_finished(self) -> None:
        event = self._with_step({"event": "run_finished"})
        event["exit_reason"] = jsonify(self.state.data.get("exit_reason"))
        event["continue_run"] = jsonify(self.state.data.get("continue_run"))
        self.events.append(event)


def flatten_tools(tools: Any) -> list:
    """The tools a generator was given, Toolsets flattened; what is not tools, as it is."""
    if tools is None:
        return []
    try:
        from haystack.tools import flatten_tools_or_toolsets

        return flatten_tools_or_toolsets(tools)
    except Exception:  # noqa: BLE001 - a generator given something that is not tools: name what is there
        return list(tools) if isinstance(tools, (list, tuple)) else [tools]


def _call_ref(call) -> dict:
    ref: dict[str, Any] = {"tool": call.tool_name, "id": call.id}
    if call.arguments:
        ref["arguments"] = jsonify(call.arguments)
    return ref


def _changes(before: tuple, after: tuple) -> dict:
    """`StateChanges` between two snapshots (messages as `to_dict()`, data as JSON), as Rust computes it."""
    old_messages, old_data = before
    new_messages, new_data = after
    if json_eq(old_messages, new_messages):
        messages: dict[str, Any] = {"kind": "unchanged"}
    elif len(new_messages) > len(old_messages) and json_eq(new_messages[: len(old_messages)], old_messages):
        messages = {"kind": "appended", "messages": copy.deepcopy(new_messages[len(old_messages) :])}
    else:
        first = next(
            (i for i, (old, new) in enumerate(zip(old_messages, new_messages)) if not json_eq(old, new)),
            None,
        )
        messages = {
            "kind": "rewritten",
            "before": len(old_messages),
            "after": len(new_messages),
            "first_changed": [first, new_messages[first]] if first is not None else None,
        }
    data = []
    for key, value in new_data.items():
        if key in old_data and json_eq(old_data[key], value):
            continue
        change: dict[str, Any] = {"key": key}
        if key in old_data:
            change["before"] = old_data[key]
        change["after"] = value
        data.append(change)
    out: dict[str, Any] = {"messages": messages, "data": data}
    if messages["kind"] == "rewritten":
        out["rewrite"] = {"before": old_messages, "after": new_messages}
    return out
