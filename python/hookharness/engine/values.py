"""Value helpers shared by the hooks, the expectations and the outcome."""

import copy
import json
import math
from typing import Any

from haystack.dataclasses import (
    ChatMessage,
    ChatRole,
    TextContent,
    ToolCall,
    ToolCallResult,
)


def json_eq(a: Any, b: Any) -> bool:
    """JSON-value equality: booleans equal only booleans, numbers compare numerically, containers structurally.

    Python's own `==` would make `True == 1`, which the contract rules out.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_eq(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_eq(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def _call_dict(call: ToolCall) -> dict:
    return {
        "tool_name": call.tool_name,
        "arguments": copy.deepcopy(call.arguments),
        "id": call.id,
        "extra": copy.deepcopy(call.extra),
    }


def message_dict(message: ChatMessage) -> dict:
    """`message.to_dict()`, as a copy (Haystack's shares the live `meta` dict), computed directly for the common
    parts (text, tool calls, text tool results): `to_dict()` goes through `dataclasses.asdict`, which costs more
    than a hook call, and the trace serializes every message the model sees. Any other part: `to_dict()` itself."""
    parts = []
    for part in message._content:
        kind = type(part)
        if kind is TextContent:
            parts.append({"text": part.text})
        elif kind is ToolCall:
            parts.append({"tool_call": _call_dict(part)})
        elif kind is ToolCallResult and isinstance(part.result, str) and type(part.origin) is ToolCall:
            parts.append(
                {"tool_call_result": {"result": part.result, "origin": _call_dict(part.origin), "error": part.error}}
            )
        else:
            return copy.deepcopy(message.to_dict())
    return {
        "role": message._role.value,
        "meta": copy.deepcopy(message._meta) if message._meta else {},
        "name": message._name,
        "content": parts,
    }


def jsonify(value: Any) -> Any:
    """Turn a State/result value into plain JSON data (messages in their `to_dict()` form)."""
    if isinstance(value, ChatMessage):
        return message_dict(value)
    if isinstance(value, dict):
        return {str(k): jsonify(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonify(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "to_dict"):
        try:
            return jsonify(value.to_dict())
        except Exception:  # noqa: BLE001, S110 - e.g. a Tool whose function cannot be serialized
            pass
    # Anything else has no JSON form; show its type rather than a repr with a memory address.
    return f"<{type(value).__name__}>"


def render(value: Any) -> str:
    """One-line rendering of a JSON value for failure messages."""
    return json.dumps(jsonify(value), ensure_ascii=False, sort_keys=True)


def build_message(spec: dict) -> ChatMessage:
    """Build a fresh ChatMessage from a validated message spec (simple form or `to_dict()` form).

    Specs are rebuilt on every use so that no two places in a run share one mutable message or meta dict.
    """
    spec = copy.deepcopy(spec)
    if "content" in spec:
        return ChatMessage.from_dict(spec)
    # Simple form: the text part (when given) followed by the tool calls, for any role (a `tool` role gets text
    # content, not a tool result); written calls get no default id.
    parts: list = []
    if spec.get("text") is not None:
        parts.append(TextContent(text=spec["text"]))
    for call in spec.get("tool_calls") or []:
        parts.append(ToolCall(tool_name=call["tool"], arguments=call.get("arguments") or {}, id=call.get("id")))
    return ChatMessage(_role=ChatRole(spec["role"]), _content=parts, _name=spec.get("name"), _meta=spec.get("meta") or {})


def is_json_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))
