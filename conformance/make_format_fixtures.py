"""Writes tests/fixtures/cpython/format_specs.json: what CPython's `format(value, spec)` gives for the values a
confirmation template's fields hold (JSON numbers and booleans) under format specs drawn from the whole mini-language,
each `{"value", "spec", "text"}` or `{"value", "spec", "error": "Type: message"}`.

    python3 conformance/make_format_fixtures.py

Read by the unit tests of `src/pyfmt/spec.rs`. The cases are drawn from a fixed seed, so the file changes only when
this script does.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "cpython" / "format_specs.json"

INTS = [0, 5, -5, 7, 65, 1234, -1234, 1234567, -98765432, 0x10FFFF, 0x110000, -1, 2**63, -(2**63), 10**20, True, False,
        2**130, -(3**90), 10**400]
FLOATS = [
    0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 0.125, 0.375, 2.5, 2.675, 9.995, 99.95, 0.05, 0.0001, -0.0001, 1e-5, 1e-7,
    123.456, 1234567.891, -1234567.891, 1e15, 1e16, 1e17, 1e22, 1e100, 1.7976931348623157e308, 5e-324,
    2.2250738585072014e-308, 0.1, 0.3, 1 / 3, 2 / 3, 1e307,
]
FILL_ALIGN = ["", "<", ">", "^", "=", "x^", "*<", "0=", "0>", "é="]
SIGNS = ["", "+", " ", "-"]
WIDTHS = ["", "1", "5", "8", "12", "20"]
GROUPING = ["", ",", "_"]
PRECISIONS = ["", ".0", ".1", ".2", ".3", ".6", ".10", ".17", ".25"]
TYPES = ["", "e", "E", "f", "F", "g", "G", "n", "%", "d", "c", "x", "b", "s", "r"]


def case(value, spec: str) -> dict:
    out = {"value": value, "spec": spec}
    try:
        out["text"] = format(value, spec)
    except Exception as e:  # noqa: BLE001 - every exception's text is what the harness must give
        out["error"] = f"{type(e).__name__}: {e}"
    return out


def specs(rng: random.Random, count: int) -> list[str]:
    out = []
    for _ in range(count):
        out.append(
            rng.choice(FILL_ALIGN)
            + rng.choice(SIGNS)
            + ("z" if rng.random() < 0.15 else "")
            + ("#" if rng.random() < 0.2 else "")
            + ("0" if rng.random() < 0.2 else "")
            + rng.choice(WIDTHS)
            + rng.choice(GROUPING)
            + rng.choice(PRECISIONS)
            + rng.choice(TYPES)
        )
    return out


def main() -> int:
    rng = random.Random(20261207)
    cases = []
    for value in INTS + FLOATS:
        for spec in specs(rng, 90):
            cases.append(case(value, spec))
    # The specs a confirmation message is likely to use, for every value.
    for value in INTS + FLOATS:
        for spec in (".2f", ".1%", ",", ",.2f", ">10.3e", "g", ".3", "010,.1f", "06,d", "05,d", "+.2e", "#.0f", "c"):
            cases.append(case(value, spec))
    # Left out: a surrogate (`c`), which a message cannot hold, and an integer past 128 bits in hexadecimal, octal
    # or binary, which the harness does not convert (both say so).
    usable = [
        c for c in cases
        if not ("text" in c and any(0xD800 <= ord(ch) <= 0xDFFF for ch in c["text"]))
        and not (isinstance(c["value"], int) and abs(c["value"]) >= 2**127 and c["spec"][-1:] in ("x", "X", "o", "b")
                 and "text" in c)
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(c, ensure_ascii=False) for c in usable)
    OUT.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    print(f"wrote {len(usable)} cases to {OUT.relative_to(ROOT)} (CPython {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
