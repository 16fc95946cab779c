"""The protocol's JSON: a request line read, a record written; and the JSON text the worker's caches are keyed by.

pydantic-core's reader and writer do it in about half the time of the standard library's (the record's JSON was a
tenth of what the engine adds to a scenario; docs/engines.md, "Cost"). Haystack depends on pydantic, so every
interpreter the engine runs in has it; where it is missing, or on any input it answers differently, the standard
library's answer is the one given:
- a request nested deeper than pydantic-core reads (about 200 levels) is read again by `json.loads`;
- a record is written by `json` when pydantic-core refuses it (a lone surrogate, a nesting past its limit) or when its
  text holds `NaN` or `Infinity` (pydantic-core writes a float NaN as the bare word; `json` with `allow_nan=False`
  refuses it, and the worker answers with an error record). The record's dict keys are strings (`values.jsonify`
  writes every key so), where the two writers would differ (`None` is `"None"` to one and `"null"` to the other).
"""

from __future__ import annotations

import json
from typing import Any

try:
    from pydantic_core import from_json as _from_json
    from pydantic_core import to_json as _to_json
except ImportError:  # an interpreter without pydantic (no haystack-ai either: the handshake says so)
    _from_json = _to_json = None

# The standard library's writer, made once (`json.dumps` with options builds one per call), without the check for a
# container that holds itself: a record is plain data the engine built (`values.jsonify` turns a recursive value into
# text). Should one hold itself after all, the encoder recurses until Python's limit, and `encode` writes it again
# with the check, which gives the same answer as `json.dumps`.
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), check_circular=False).encode


def decode(raw: bytes) -> Any:
    """A request line's value; `ValueError` (as `json.loads` raises it) when the line is not JSON."""
    if _from_json is not None:
        try:
            return _from_json(raw)
        except ValueError:
            pass
    return json.loads(raw)


def encode(message: Any) -> bytes:
    """A message's JSON text as UTF-8 bytes, without the line's end; `ValueError` or `TypeError` (as `json.dumps`
    raises them) for a value JSON cannot hold."""
    if _to_json is not None:
        try:
            data = _to_json(message)
        except Exception:  # noqa: BLE001, S110 - pydantic-core's refusal: the standard library decides
            pass
        else:
            if b"NaN" not in data and b"Infinity" not in data:
                return data
    try:
        text = _ENCODE(message)
    except RecursionError:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (`"\udcff"`, bytes decoded with surrogateescape) in user text
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


# The caches' writer where pydantic-core is missing: `default=str` as `key` gives it, keys in their order.
_KEY_ENCODE = json.JSONEncoder(default=str, check_circular=False).encode


def key(value: Any) -> bytes:
    """A cache key of settings read from a request (an Agent's, a scripted tool's): their JSON text, maps' keys in
    their order, so that two settings a run tells apart (a state schema's order, a tool's parameters' order) are two
    keys; a value JSON has no form for is written as its `str`. A container that holds itself raises `ValueError`, as
    `json.dumps` does."""
    if _to_json is not None:
        try:
            return _to_json(value, fallback=str)
        except Exception:  # noqa: BLE001, S110 - pydantic-core's refusal: the standard library decides
            pass
    try:
        return _KEY_ENCODE(value).encode("utf-8", "surrogatepass")
    except RecursionError:
        return json.dumps(value, default=str).encode()
