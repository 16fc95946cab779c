"""`jsonify`: every value user code can leave in State becomes JSON the Rust side reads (serde_json, 128 levels)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from haystack.dataclasses import ChatMessage
from hookharness.engine.values import MAX_DEPTH, jsonify, message_dict


def nested(levels):
    value = []
    for _ in range(levels):
        value = [value]
    return value


def depth(value):
    levels = 0
    while isinstance(value, list) and len(value) == 1:
        levels, value = levels + 1, value[0]
    return levels, value


def test_plain_json_values_are_kept_as_they_are():
    value = {"a": [1, 2.5, True, None, "x", {"b": []}], "n": 2**64, "t": (1, 2)}
    assert jsonify(value) == {"a": [1, 2.5, True, None, "x", {"b": []}], "n": 2**64, "t": [1, 2]}


def test_non_finite_floats_and_huge_ints_become_markers_json_can_write():
    out = jsonify([float("nan"), float("inf"), -float("inf"), 10**5000, -(10**5000), 10**4000])
    assert out[:5] == ["<float nan>", "<float inf>", "<float -inf>"] + ["<int of more than 4300 digits>"] * 2
    assert out[5] == 10**4000
    json.dumps(out, allow_nan=False)


def test_cycles_are_cut_where_python_repr_writes_an_ellipsis():
    cycle = [1]
    cycle.append(cycle)
    loop = {}
    loop["self"] = loop
    shared = [0]
    assert jsonify([cycle, loop]) == [[1, "<recursive list>"], {"self": "<recursive dict>"}]
    assert jsonify([shared, shared]) == [[0], [0]]  # shared, not recursive: both kept


def test_nesting_is_cut_at_max_depth_without_recursion_error():
    for levels in (MAX_DEPTH + 1, 150, 100_000):
        assert depth(jsonify(nested(levels))) == (MAX_DEPTH, "<list nested deeper than 64 levels>")
    assert depth(jsonify(nested(MAX_DEPTH - 1))) == (MAX_DEPTH - 1, [])  # 64 lists in all: kept whole


def test_a_messages_meta_goes_through_the_same_rules():
    message = ChatMessage.from_user("x", meta={"score": float("nan"), "seen": {"a"}, (1, 2): b"\x00"})
    assert message_dict(message)["meta"] == {"score": "<float nan>", "seen": "<set>", "(1, 2)": "<bytes>"}
