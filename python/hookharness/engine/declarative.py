"""Declarative hooks (`when` + `do`) as Haystack hook objects.

A declarative hook is a plain class with `run(state)` (and `run_async`), like any user hook; Haystack's own
validation and invocation apply to it unchanged. The trace records it where Haystack invokes it (`observe`), as every
other hook.
"""

import copy
from typing import Any

from haystack.components.agents.state.state import State, replace_values
from haystack.dataclasses import ChatMessage, ToolCall, ToolCallResult

from .spec import HookDef
from .values import build_message, is_json_number, json_eq, jsonify


class HookFailure(Exception):
    """Raised by the `fail: MESSAGE` action; its text is exactly MESSAGE."""


class DeclarativeHook:
    """A hook object built from a scenario's `when`/`do` entry.

    It is a plain class with `run(state)` (and `run_async`), like any user hook; Haystack's own validation and
    invocation apply to it unchanged. `allowed_hook_points` is None unless the scenario restricts it, which
    Haystack reads as "any point".
    """

    def __init__(self, definition: HookDef, name: str) -> None:
        self.name = name
        self.definition = definition
        allowed = definition.allowed_hook_points
        self.allowed_hook_points = tuple(allowed) if allowed is not None else None
        self.fired = 0  # per object: a shared hook counts its firings at every point

    def run(self, state: State) -> None:
        if not self._holds(state):
            return
        for action, argument in self.definition.do:
            _apply(action, argument, state)
        self.fired += 1

    async def run_async(self, state: State) -> None:
        self.run(state)

    # -- conditions -----------------------------------------------------------------------------------------------

    def _holds(self, state: State) -> bool:
        data = state.data
        when = self.definition.when
        if "step_count" in when:
            step, want = data.get("step_count"), when["step_count"]
            if isinstance(want, dict):
                if not is_json_number(step):
                    return False
                if "gte" in want and not step >= want["gte"]:
                    return False
                if "lt" in want and not step < want["lt"]:
                    return False
            elif not json_eq(step, want):
                return False
        if "exit_reason" in when and not json_eq(data.get("exit_reason"), when["exit_reason"]):
            return False
        if "tool_call_counts" in when:
            counts = data.get("tool_call_counts")
            counts = counts if isinstance(counts, dict) else {}
            if not all(json_eq(counts.get(tool, 0), n) for tool, n in when["tool_call_counts"].items()):
                return False
        if "last_message" in when and not _last_message_matches(data.get("messages") or [], when["last_message"]):
            return False
        if "state" in when and not all(
            key in data and json_eq(jsonify(data[key]), v) for key, v in when["state"].items()
        ):
            return False
        if "hook_context" in when:
            context = data.get("hook_context")
            context = context if isinstance(context, dict) else {}
            if not all(key in context and json_eq(jsonify(context[key]), v) for key, v in when["hook_context"].items()):
                return False
        return not ("times" in when and not self.fired < when["times"])


def _last_message_matches(messages: list, want: dict) -> bool:
    if not messages:
        return False
    last = messages[-1]
    if "role" in want and last.role.value != want["role"]:
        return False
    if "has_tool_calls" in want and bool(last.tool_calls) != want["has_tool_calls"]:
        return False
    # `.text` is the first text part; a message without text (a tool result) never matches.
    return "text_contains" not in want or (last.text is not None and want["text_contains"] in last.text)


# -- actions ------------------------------------------------------------------------------------------------------


def _apply(action: str, argument: Any, state: State) -> None:
    if action == "append_messages":
        state.set("messages", [build_message(m) for m in argument])
    elif action == "prepend_messages":
        current = state.data.get("messages") or []
        state.set("messages", [*(build_message(m) for m in argument), *current], handler_override=replace_values)
    elif action == "replace_messages":
        state.set("messages", [build_message(m) for m in argument], handler_override=replace_values)
    elif action in ("set", "replace"):
        override = replace_values if action == "replace" else None
        for key, value in argument.items():
            if key == "messages":
                value = [build_message(m) for m in value] if isinstance(value, list) else build_message(value)
            else:
                # A fresh copy per firing: the loop mutates some values in place (tool_call_counts).
                value = copy.deepcopy(value)
            state.set(key, value, handler_override=override)
    elif action == "continue_run":
        state.set("continue_run", argument)
    elif action == "stop_run":
        state.set("stop_run", argument)
    elif action == "drop_tool_calls":
        _replace_last_message_parts(
            state,
            lambda part: None
            if isinstance(part, ToolCall) and (argument == "all" or part.tool_name in argument)
            else part,
        )
    elif action == "set_tool_arguments":
        _replace_last_message_parts(
            state,
            lambda part: ToolCall(
                tool_name=part.tool_name,
                arguments=copy.deepcopy(argument["arguments"]),
                id=part.id,
                extra=copy.deepcopy(part.extra),
            )
            if isinstance(part, ToolCall) and part.tool_name == argument["tool"]
            else part,
        )
    elif action == "rewrite_tool_results":
        _rewrite_tool_results(state, argument)
    elif action == "fail":
        raise HookFailure(argument)
    else:
        raise AssertionError(action)


def _replace_last_message_parts(state: State, change) -> None:
    """Rebuild the last message with `change` applied to each content part (None drops the part).

    No-op when no part changes; otherwise the new message keeps role, name and meta and replaces the old one.
    """
    messages = state.data.get("messages") or []
    if not messages:
        return
    last = messages[-1]
    parts, changed = [], False
    for part in last._content:
        new = change(part)
        changed = changed or new is not part
        if new is not None:
            parts.append(new)
    if not changed:
        return
    message = ChatMessage(_role=last.role, _content=parts, _name=last.name, _meta=copy.deepcopy(last.meta))
    state.set("messages", [*messages[:-1], message], handler_override=replace_values)


def _rewrite_tool_results(state: State, argument: dict) -> None:
    messages = list(state.data.get("messages") or [])
    # The trailing contiguous block of tool-result messages, as Haystack's ToolResultOffloadHook finds it.
    start = len(messages)
    while start > 0 and messages[start - 1].tool_call_result is not None:
        start -= 1
    changed = False
    for i in range(start, len(messages)):
        message = messages[i]
        parts, touched = [], False
        for part in message._content:
            if isinstance(part, ToolCallResult) and isinstance(part.result, str):
                text = part.result[: argument["truncate"]] if "truncate" in argument else argument["replace"]
                parts.append(ToolCallResult(result=text, origin=part.origin, error=part.error))
                touched = True
            else:
                parts.append(part)
        if touched:
            messages[i] = ChatMessage(
                _role=message.role, _content=parts, _name=message.name, _meta=copy.deepcopy(message.meta)
            )
            changed = True
    if changed:
        state.set("messages", messages, handler_override=replace_values)
