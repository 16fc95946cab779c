"""The comparison's own checks: hand-made outcome pairs through `compare.compare`, each with the verdict it must get.

Usage: python conformance/check_compare.py

Every case is a Rust outcome, a Haystack outcome and the verdict (`identical`, `documented` with its ids,
or `different` with the JSON path of its first difference). The cases pin the contract's substring rule for
error texts both ways: a Rust text that contains Haystack's whole text is identical, one that does not is
different, in `error` and in the `expect.error` verdicts of `failures`; any other difference in `failures`
stays a difference. Exit status 1 when a case gets another verdict.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare import DEVIATIONS, Deviations, compare  # noqa: E402

FILE = "conformance/selftest/case.yaml"


def _failed(error: str | None, failures: list[str] | None = None, status: str = "error") -> dict:
    return {"file": FILE, "status": status, "error": error, "result": None, "trace": [], "failures": failures or []}


def _verdict(expected_text: str, got: str) -> str:
    return f'error: expected an error containing "{expected_text}", got "{got}"'


# (name, rust outcome, haystack outcome, kind, ids or the first difference's path)
CASES = [
    (
        "Haystack's text inside the Rust one",
        _failed("hook `x` failed at on_exit (step 1): boom"),
        _failed("boom"),
        "identical",
        None,
    ),
    (
        "a Rust text that does not contain Haystack's",
        _failed("hook `x` failed at on_exit (step 1): bang"),
        _failed("boom"),
        "different",
        "error",
    ),
    (
        "Haystack's text only partly inside the Rust one",
        _failed("the chat generator failed at LLM call 1 (step 1): rate"),
        _failed("rate limited"),
        "different",
        "error",
    ),
    (
        "an empty Haystack text is no substring",
        _failed("the chat generator failed at LLM call 1 (step 1): "),
        _failed(""),
        "different",
        "error",
    ),
    (
        "an error on one side only",
        _failed("boom"),
        _failed(None, status="pass"),
        "different",
        "error",
    ),
    (
        "expect.error verdicts quoting texts related by substring",
        _failed(
            "hook `x` failed at on_exit (step 1): boom",
            [_verdict("bang", "hook `x` failed at on_exit (step 1): boom")],
            status="fail",
        ),
        _failed("boom", [_verdict("bang", "boom")], status="fail"),
        "identical",
        None,
    ),
    (
        "expect.error verdicts quoting a Rust text without Haystack's",
        _failed("bang!", [_verdict("x", "bang!")], status="fail"),
        _failed("boom", [_verdict("x", "boom")], status="fail"),
        "different",
        "error",
    ),
    (
        "expect.error verdicts expecting different texts",
        _failed("boom", [_verdict("x", "boom")], status="fail"),
        _failed("boom", [_verdict("y", "boom")], status="fail"),
        "different",
        "failures[0]",
    ),
    (
        "another verdict in failures",
        _failed("boom", ["llm_calls: expected 1, got 0"], status="fail"),
        _failed("boom", ["llm_calls: expected 1, got 1"], status="fail"),
        "different",
        "failures[0]",
    ),
    (
        "a verdict on one side only",
        _failed("boom", [], status="fail"),
        _failed("boom", ["exit_reason: no result to check (the run failed)"], status="fail"),
        "different",
        "failures[0]",
    ),
    (
        "an undefined value: Jinja2's UndefinedError text, minijinja's at the same place",
        _failed("invalid operation: tried to use + operator on unsupported types undefined and number (in prompt:1)"),
        _failed("'count' is undefined"),
        "documented",
        ["prompt-undefined-operations"],
    ),
    (
        "an undefined value where expect.error expected another text: both verdicts quote their engine's text",
        _failed(
            "unknown method: undefined has no method named title (in prompt:1)",
            [_verdict("Invalid", "unknown method: undefined has no method named title (in prompt:1)")],
            status="fail",
        ),
        _failed("'topic' is undefined", [_verdict("Invalid", "'topic' is undefined")], status="fail"),
        "documented",
        ["prompt-undefined-operations"],
    ),
    (
        "an undefined value whose Jinja2 text holds what expect.error expects and minijinja's does not",
        _failed(
            "unknown method: undefined has no method named title (in prompt:1)",
            [_verdict("'", "unknown method: undefined has no method named title (in prompt:1)")],
            status="fail",
        ),
        _failed("'topic' is undefined", [], status="error"),
        "documented",
        ["prompt-undefined-operations"],
    ),
    (
        "an undefined value on one side only: another failure stays a difference",
        _failed("boom", ["llm_calls: expected 1, got 0"], status="fail"),
        _failed("'topic' is undefined", [], status="error"),
        "different",
        "error",
    ),
    (
        "an UndefinedError against a text of minijinja's that is not about an undefined value",
        _failed("invalid operation: tried to use + operator on unsupported types string and number (in prompt:1)"),
        _failed("'count' is undefined"),
        "different",
        "error",
    ),
    (
        "a set of names in another order (both run with PYTHONHASHSEED=0)",
        _failed("The following tool names are not valid: {'a', 'b'}."),
        _failed("The following tool names are not valid: {'b', 'a'}."),
        "different",
        "error",
    ),
]


def main() -> int:
    deviations = Deviations.load(DEVIATIONS)
    problems = 0
    for name, rust, python, kind, detail in CASES:
        verdict = compare({FILE: rust}, {FILE: python}, deviations)[0]
        got = verdict.ids if verdict.kind == "documented" else verdict.diffs[0].path if verdict.diffs else None
        ok = verdict.kind == kind and got == detail
        problems += not ok
        print(f"{'ok ' if ok else 'BAD'} {name}: {verdict.kind} {got or ''}".rstrip())
        if not ok:
            print(f"    expected {kind} {detail or ''}".rstrip())
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
