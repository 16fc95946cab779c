"""`wire`: the protocol's JSON reads and writes what the standard library's `json` does, value for value, and falls
back to it wherever pydantic-core answers otherwise."""

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hookharness.engine import wire
from hookharness.engine.values import jsonify


@pytest.fixture(autouse=True, params=["pydantic-core", "json alone"])
def reader_and_writer(request, monkeypatch):
    """Every test runs twice: with pydantic-core, and as in an interpreter without it."""
    if request.param == "json alone":
        monkeypatch.setattr(wire, "_from_json", None)
        monkeypatch.setattr(wire, "_to_json", None)
    elif wire._to_json is None:
        pytest.skip("pydantic-core is not installed here")


def nested(levels, inner=0):
    value = inner
    for _ in range(levels):
        value = [value]
    return value


VALUES = [
    {"a": [1, 2.5, True, None, "x", {"b": []}], "n": 2**64, "m": -(10**40)},
    {"text": "é \u2028 \x00 \x1f \U0001f600 \"quoted\" \\ back", "float": [0.1, 1e300, 5e-324, -0.0, 1e16, 1.5e-7]},
    {"id": 3, "record": {"trace": [{"event": "run_started", "messages": 1}], "result": None, "error": None}},
    "NaN is only a word here, and so is Infinity",
    nested(150),
    [],
    {},
]


@pytest.mark.parametrize("value", VALUES)
def test_a_written_value_reads_back_as_json_reads_it(value):
    data = wire.encode(value)
    assert isinstance(data, bytes) and b"\n" not in data
    assert json.loads(data) == json.loads(json.dumps(value))


@pytest.mark.parametrize("value", VALUES)
def test_a_read_line_is_the_value_json_reads(value):
    raw = json.dumps(value, ensure_ascii=False).encode() + b"\n"
    assert wire.decode(raw) == json.loads(raw)


def test_a_request_nested_past_pydantic_cores_limit_is_read_by_json():
    raw = json.dumps({"run": nested(600)}).encode()
    assert wire.decode(raw) == json.loads(raw)


def test_a_line_that_is_not_json_raises_value_error_as_json_does():
    with pytest.raises(ValueError):
        wire.decode(b'{"id": 1, "run": ')
    with pytest.raises(ValueError):
        wire.decode(b"\xff\xfe not utf-8")


def test_a_float_json_cannot_hold_is_refused_as_json_refuses_it():
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
            wire.encode({"record": {"x": [bad]}})


def test_a_lone_surrogate_is_written_as_the_replacement_character():
    assert json.loads(wire.encode({"text": "a\udcffb"})) == {"text": "a\ufffdb"}


def test_a_container_that_holds_itself_is_refused_as_json_refuses_it():
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference detected"):
        wire.encode({"record": cycle})


def test_what_jsonify_leaves_is_written_with_the_same_values():
    value = jsonify({"nan": math.nan, "set": {1}, "tuple": (1, 2), 3: "int key", None: "none key", "big": 10**5000})
    assert json.loads(wire.encode(value)) == json.loads(json.dumps(value))


def _random_value(rng, depth=0):
    kind = rng.randrange(9 if depth < 6 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 2**31, 2**63, 2**64 + 1, -(2**70), 10**30, rng.randrange(-(10**6), 10**6)])
    if kind == 3:
        return rng.choice([0.0, -0.0, 0.1, 1e16, 1e-7, 5e-324, 1.7976931348623157e308, rng.uniform(-1e6, 1e6)])
    if kind in (4, 5):
        alphabet = "ab \\\"\n\t\x00\x1f\x7f\u00e9\u2028\u2029\ufeff\U0001f600NaInfity"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {str(rng.randrange(50)): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _reference(value):
    """What the worker wrote before `wire`: the standard library's text, as UTF-8 (a lone surrogate replaced)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


def test_generated_values_are_written_and_read_as_the_standard_library_does():
    import random

    rng = random.Random(20261207)
    for _ in range(3000):
        value = _random_value(rng)
        if rng.random() < 0.05:  # now and then a value JSON cannot hold, deep inside
            value = {"record": [value, rng.choice([math.nan, math.inf, -math.inf, "\udcff"])]}
        try:
            expected = json.loads(_reference(value))
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)[:20]):
                wire.encode(value)
            continue
        assert json.loads(wire.encode(value)) == expected
        raw = json.dumps(value, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        try:
            read = json.loads(raw)
        except ValueError:
            with pytest.raises(ValueError):
                wire.decode(raw)
            continue
        assert wire.decode(raw) == read
