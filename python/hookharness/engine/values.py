"""Value helpers shared by the hooks, the expectations and the outcome."""

import copy
import json
import math
import sys
from typing import Any

from haystack.dataclasses import (
    ChatMessage,
    ChatRole,
    TextContent,
    ToolCall,
    ToolCallResult,
)

from .errors import ScenarioAbort


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
        "arguments": jsonify(call.arguments),
        "id": call.id,
        "extra": jsonify(call.extra),
    }


def message_dict(message: ChatMessage) -> dict:
    """`message.to_dict()`, as a copy (Haystack's shares the live `meta` dict), computed directly for the common
    parts (text, tool calls, text tool results): `to_dict()` goes through `dataclasses.asdict`, which costs more
    than a hook call, and the trace serializes every message the model sees. Any other part: `to_dict()` itself.
    Values user code put in `meta` or a tool call go through `jsonify`, so the record stays JSON."""
    if not isinstance(message, ChatMessage):
        raise ScenarioAbort(
            f"State `messages` holds {type(message).__name__} {_shown(message)}, not a ChatMessage (code that writes "
            '`state.data["messages"]` directly put it there): the engine records the conversation as ChatMessages; '
            "keep `messages` a list of ChatMessage (`state.set(\"messages\", [...])`)"
        )
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
            return jsonify(message.to_dict())
    return {
        "role": message._role.value,
        "meta": jsonify(message._meta) if message._meta else {},
        "name": message._name,
        "content": parts,
    }


# How deep a value user code leaves in State (or in a message's `meta`) is written into the record: the Rust side
# reads the record with serde_json, which refuses JSON nested more than 128 levels, and the record itself nests a
# value up to about 10 levels deep (`record.trace[i].changes.data[j].after`, `result.messages[i].meta`). Deeper
# containers are cut with a marker, as are cycles (a list that holds itself), where Python's own `repr` writes `[...]`.
MAX_DEPTH = 64
# Digits of the largest int `json.dumps` writes: CPython refuses to turn a longer int into text
# (`sys.get_int_max_str_digits()`, 4300 by default); its bit length is checked first, which costs nothing.
_BIG_INT_BITS = 14_000


def jsonify(value: Any) -> Any:
    """Turn a State/result value into plain JSON data (messages in their `to_dict()` form).

    What JSON cannot hold becomes a string in angle brackets: an object of another type its type name (`<set>`,
    `<bytes>`), a float NaN or infinity `<float nan>` / `<float inf>` / `<float -inf>`, an int too long for `str()`
    `<int of more than 4300 digits>`, a container that holds itself `<recursive list>` / `<recursive dict>`, and
    one nested deeper than `MAX_DEPTH` `<list nested deeper than 64 levels>`."""
    return _jsonify(value, 0, set())


def _jsonify(value: Any, depth: int, path: set) -> Any:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value if value.bit_length() <= _BIG_INT_BITS else _big_int(value)
    if kind is dict or kind is list:
        key = id(value)
        if key in path:
            return "<recursive dict>" if kind is dict else "<recursive list>"
        if depth >= MAX_DEPTH:
            return f"<{kind.__name__} nested deeper than {MAX_DEPTH} levels>"
        path.add(key)
        depth += 1
        if kind is dict:
            out: Any = {k if type(k) is str else _key(k): _jsonify(v, depth, path) for k, v in value.items()}
        else:
            out = [_jsonify(v, depth, path) for v in value]
        path.discard(key)
        return out
    if kind is float:
        return value if math.isfinite(value) else f"<float {value!r}>"
    return _other(value, depth, path)


def _other(value: Any, depth: int, path: set) -> Any:
    """A value of a type other than the plain JSON ones: subclasses of them, messages, objects with `to_dict`."""
    if isinstance(value, ChatMessage):
        return message_dict(value)
    if isinstance(value, (dict, list, tuple)):
        name = "dict" if isinstance(value, dict) else type(value).__name__
        if id(value) in path:
            return f"<recursive {name}>"
        if depth >= MAX_DEPTH:
            return f"<{name} nested deeper than {MAX_DEPTH} levels>"
        path.add(id(value))
        try:
            if isinstance(value, dict):
                return {k if type(k) is str else _key(k): _jsonify(v, depth + 1, path) for k, v in value.items()}
            return [_jsonify(v, depth + 1, path) for v in value]
        finally:
            path.discard(id(value))
    if isinstance(value, float):
        return value if math.isfinite(value) else f"<float {value!r}>"
    if isinstance(value, int):
        return value if value.bit_length() <= _BIG_INT_BITS else _big_int(value)
    if isinstance(value, str):
        return value
    if hasattr(value, "to_dict"):
        try:
            return _jsonify(value.to_dict(), depth, path)
        except Exception:  # noqa: BLE001, S110 - e.g. a Tool whose function cannot be serialized
            pass
    # Anything else has no JSON form; show its type rather than a repr with a memory address.
    return f"<{type(value).__name__}>"


def _shown(value: Any) -> str:
    """A short `repr` of a value in an error text (or its type when `repr` fails)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a value whose __repr__ raises
        return f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _key(key: Any) -> str:
    """A dict key as JSON's text key: `str(key)`, or its type in angle brackets when `str` fails."""
    try:
        return str(key)
    except Exception:  # noqa: BLE001 - a key whose __str__ raises
        return f"<{type(key).__name__}>"


def _big_int(value: int) -> Any:
    try:
        int.__repr__(value)
    except ValueError:
        return f"<int of more than {sys.get_int_max_str_digits()} digits>"
    return value


def render(value: Any) -> str:
    """One-line rendering of a JSON value for failure messages."""
    return json.dumps(jsonify(value), ensure_ascii=False, sort_keys=True)


_SCALARS = (str, int, float, bool, type(None))


def fresh(value: Any) -> Any:
    """A copy of data read from a request (dicts, lists, strings, numbers, booleans, null): what `copy.deepcopy`
    gives for it, at a fraction of the cost (JSON data shares no container, so there is no memo to keep; a run's
    arguments are copied this way at every scenario). Anything else is left to `copy.deepcopy`."""
    kind = type(value)
    if kind is dict:
        return {key: fresh(item) for key, item in value.items()}
    if kind is list:
        return [fresh(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def build_message(spec: dict) -> ChatMessage:
    """Build a fresh ChatMessage from a validated message spec (simple form or `to_dict()` form).

    Specs are rebuilt on every use so that no two places in a run share one mutable message or meta dict.
    """
    spec = fresh(spec)
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
