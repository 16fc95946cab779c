"""Model calls relayed to the caller during a record run (`hookharness record --engine haystack`, protocol 3).

The worker's network stays closed: a model call that a script would answer is sent to the caller on the protocol
channel instead, and the worker waits for the caller's reply on its request stream:

- worker -> caller: `{"id": N, "model_call": {"model": NAME or null, "messages": [...], "tools": [...],
  "generation_kwargs": {...} or null}}`, N the id of the `run` request being served, `model` null for the main
  `model` script, each tool `{name, description, parameters}`;
- caller -> worker: `{"id": N, "model_reply": ENTRY}`, ENTRY a model entry as the scenario format writes it
  (`{text, tool_calls, usage, finish_reason}` or `{error: TEXT}`), which answers the call as a script entry would.

One call at a time: a hook or tool calling a model from several threads waits for the call before it.
"""

from __future__ import annotations

import json
import threading
from typing import Any, BinaryIO

from .errors import ScenarioAbort
from .recorder import flatten_tools
from .spec import Reply, reply_from
from .values import jsonify, message_dict


class Relay:
    """Sends each model call of one `run` request to the caller and reads its reply."""

    def __init__(self, channel: Any, stdin: BinaryIO, ident: Any) -> None:
        self._channel = channel
        self._stdin = stdin
        self._ident = ident
        self._lock = threading.Lock()

    def ask(self, model: str | None, messages: list, tools: Any, generation_kwargs: Any) -> Reply:
        """The caller's reply to one call of the script `model` (None: the main `model`)."""
        call = {
            "model": model,
            "messages": [message_dict(m) for m in messages],
            "tools": [tool_spec(t) for t in flatten_tools(tools)],
            "generation_kwargs": jsonify(generation_kwargs) if isinstance(generation_kwargs, dict) else None,
        }
        try:
            json.dumps(call, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ScenarioAbort(f"the model call of {_named(model)} cannot be sent to the live model as JSON: {e}") from None
        with self._lock:
            self._channel.send({"id": self._ident, "model_call": call})
            line = self._stdin.readline()
        if not line:
            raise ScenarioAbort(f"the caller closed the channel while {_named(model)} waited for its live reply")
        try:
            answer = json.loads(line)
        except ValueError as e:
            raise ScenarioAbort(f"the caller's reply to a live model call is not JSON ({e})") from None
        entry = answer.get("model_reply") if isinstance(answer, dict) else None
        if not isinstance(answer, dict) or answer.get("id") != self._ident or not (entry is None or isinstance(entry, dict)):
            raise ScenarioAbort(f"the caller sent `{line[:200]!r}` where the reply to a live model call belongs")
        return reply_from(entry)


def tool_spec(tool: Any) -> dict:
    """A tool as the model is offered it: `{name, description, parameters}` (Haystack's `Tool.tool_spec`)."""
    spec = getattr(tool, "tool_spec", None)
    if not isinstance(spec, dict):
        spec = {"name": getattr(tool, "name", str(tool)), "description": getattr(tool, "description", "")}
    return {
        "name": str(spec.get("name", "")),
        "description": str(spec.get("description") or ""),
        "parameters": jsonify(spec.get("parameters") or {"type": "object", "properties": {}}),
    }


def _named(model: str | None) -> str:
    return "`model`" if model is None else f"`models.{model}`"
