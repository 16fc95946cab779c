"""Compare the Rust harness with Haystack 3.4.1, scenario by scenario.

Usage:
    python conformance/compare.py [PATH...] [--hookharness BIN] [--python PY] [--all]

Runs `BIN run PATH... --format json` (the Rust harness) and
`PY conformance/runner.py PATH... --format json` (the real haystack-ai 3.4.1
Agent) over the same paths (default `scenarios/`), matches the outcomes by
`file` and compares them as parsed JSON, field by field, `file` excepted.
Each scenario gets one line:

    identical                      the two outcomes are equal
    deviation (documented: ID...)  they differ only where docs/deviations.md allows
    different                      an undocumented difference: the first one is shown
                                   as a JSON path (`trace[3].step`) and both values

Error texts are compared as the scenario contract asks ("Compare error texts by
substring only"): an `error` field whose Rust text contains Haystack's whole
(non-empty) text is equal, and so are two `expect.error` verdicts in `failures`
that expect the same text and quote error texts related that way. Any other
difference, in `failures` too, is a difference.

The documented deviations come from conformance/deviations.json: rules that apply
to every scenario (an `error` text of the Rust harness that contains Haystack's
text once Python's sets are sorted, State's schema printed as its keys, a file
error in each implementation's words) and deviations that name their scenarios and the JSON paths that may differ.

Exit status: 0 when every difference is documented; 1 on an undocumented
difference or a scenario present in only one output; 2 when either runner
crashed, printed something that is not an outcome, or found no scenario.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEVIATIONS = HERE / "deviations.json"

# `hookharness run` exit codes that still mean "every outcome was printed":
# 0 all passed, 1 a scenario failed, 2 a scenario file is invalid (3 is "no scenario found").
RUST_OK_CODES = (0, 1, 2)
# runner.py: 0 all passed, 1 a scenario did not pass (2 is a usage error).
PYTHON_OK_CODES = (0, 1)

MISSING = object()  # a key or list item present on one side only


class RunnerCrash(Exception):
    """A runner exited abnormally or printed something that is not an outcome."""


@dataclass
class Difference:
    path: str
    rust: Any
    python: Any

    def show(self) -> str:
        return f"{self.path}: rust {_show(self.rust)} | haystack {_show(self.python)}"


def _show(value: Any, limit: int = 300) -> str:
    if value is MISSING:
        return "<absent>"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- running


def _run(name: str, argv: list[str], ok_codes: tuple[int, ...]) -> dict[str, dict]:
    """Run one implementation and return its outcomes keyed by normalized `file`."""
    try:
        proc = subprocess.run(argv, cwd=os.getcwd(), capture_output=True, text=True, encoding="utf-8")
    except OSError as e:
        raise RunnerCrash(f"{name}: cannot start {argv[0]}: {e}") from e
    tail = "\n".join(proc.stderr.strip().splitlines()[-20:])
    if proc.returncode not in ok_codes:
        raise RunnerCrash(f"{name} exited with status {proc.returncode}:\n{tail}")
    if "Traceback (most recent call last)" in proc.stderr:
        # runner.py exits 1 on an uncaught exception too: its traceback is the sign of a crash.
        raise RunnerCrash(f"{name} raised:\n{tail}")
    if proc.returncode != 0 and not proc.stdout.strip():
        # e.g. a usage error (clap and argparse exit 2): no outcome was printed at all.
        raise RunnerCrash(f"{name} exited with status {proc.returncode} and printed no outcome:\n{tail}")
    outcomes: dict[str, dict] = {}
    for n, line in enumerate(proc.stdout.split("\n"), 1):
        if not line.strip():
            continue
        try:
            outcome = json.loads(line)
        except json.JSONDecodeError as e:
            raise RunnerCrash(f"{name}: output line {n} is not JSON ({e}): {line[:200]}") from e
        if not isinstance(outcome, dict) or not isinstance(outcome.get("file"), str):
            raise RunnerCrash(f"{name}: output line {n} is not an outcome (no `file`): {line[:200]}")
        key = _file_key(outcome["file"])
        if key in outcomes:
            raise RunnerCrash(f"{name}: two outcomes for {outcome['file']}")
        outcomes[key] = outcome
    return outcomes


def _file_key(file: str) -> str:
    """The scenario file relative to the repository root, with `/` separators (how deviations.json names it)."""
    path = os.path.normpath(os.path.abspath(file))
    try:
        return Path(os.path.relpath(path, ROOT)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(path).as_posix()


# ---------------------------------------------------------------- comparing


def _same_scalar(a: Any, b: Any) -> bool:
    # Parsed JSON: booleans equal only booleans, integers only integers, floats only floats
    # (Python's `True == 1` and `1 == 1.0` would hide a type difference).
    return type(a) is type(b) and a == b


def differences(rust: Any, python: Any, path: str = "") -> list[Difference]:
    """Every difference between two parsed JSON values, in output order (object keys sorted)."""
    if isinstance(rust, dict) and isinstance(python, dict):
        out: list[Difference] = []
        for key in sorted(set(rust) | set(python)):
            sub = f"{path}.{key}" if path else key
            a, b = rust.get(key, MISSING), python.get(key, MISSING)
            if a is MISSING or b is MISSING:
                out.append(Difference(sub, a, b))
            else:
                out.extend(differences(a, b, sub))
        return out
    if isinstance(rust, list) and isinstance(python, list):
        out = []
        for i in range(max(len(rust), len(python))):
            a = rust[i] if i < len(rust) else MISSING
            b = python[i] if i < len(python) else MISSING
            if a is MISSING or b is MISSING:
                out.append(Difference(f"{path}[{i}]", a, b))
            else:
                out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    if isinstance(rust, (dict, list)) or isinstance(python, (dict, list)) or not _same_scalar(rust, python):
        return [Difference(path, rust, python)]
    return []


def _path_matches(path: str, pattern: str) -> bool:
    """`pattern` is a JSON path prefix: `result` covers `result.messages[2]`; `*` stands for any one index."""
    parts, want = _split(path), _split(pattern)
    if len(want) > len(parts):
        return False
    return all(w == p or (w == "[*]" and p.startswith("[")) for w, p in zip(want, parts))


def _split(path: str) -> list[str]:
    out, token = [], ""
    for ch in path:
        if ch in ".[":
            if token:
                out.append(token)
            token = "" if ch == "." else "["
        else:
            token += ch
            if ch == "]":
                out.append(token)
                token = ""
    if token:
        out.append(token)
    return out


_ERROR_VERDICT = re.compile(r'^(error: expected an error containing ".*", got )(".*")$', re.S)


def _contains(rust: Any, python: Any) -> bool:
    """The contract's comparison of error texts: Haystack's (non-empty) text is a substring of the Rust one."""
    return isinstance(rust, str) and isinstance(python, str) and python != "" and python in rust


def same_by_contract(diff: Difference) -> bool:
    """`True` when the scenario contract counts the two sides of `diff` as equal: it compares error texts
    by substring only (`expect.error` is "an error whose text contains this string"), so an `error` field
    whose Rust text contains Haystack's whole text is no difference, and neither are two verdicts of
    `expect.error` that expect the same text and quote error texts related the same way."""
    quoted = _error_verdicts(diff)
    if quoted is not None:
        diff = quoted
    return diff.path == "error" and _contains(diff.rust, diff.python)


def _error_verdicts(diff: Difference) -> Difference | None:
    """Two verdicts of `expect.error` expecting the same text, as a difference of their error texts."""
    if not _split(diff.path)[:1] == ["failures"] or not isinstance(diff.rust, str) or not isinstance(diff.python, str):
        return None
    a, b = _ERROR_VERDICT.match(diff.rust), _ERROR_VERDICT.match(diff.python)
    if not (a and b and a.group(1) == b.group(1)):
        return None
    try:
        return Difference("error", json.loads(a.group(2)), json.loads(b.group(2)))
    except json.JSONDecodeError:
        return None


def _schema_keys(params: dict, diff: Difference, rust: dict, python: dict) -> bool:
    """State's unknown-key error: Haystack prints the schema dict (types, handler functions), Rust the keys.

    Equal when Haystack's text up to the marker is inside the Rust text and the Rust text then
    lists exactly the schema's keys, in Haystack's order.
    """
    marker = params["marker"]
    if diff.path != "error" or not isinstance(diff.rust, str) or not isinstance(diff.python, str):
        return False
    if marker not in diff.python or marker not in diff.rust:
        return False
    head, schema = diff.python.split(marker, 1)
    if head + marker not in diff.rust:
        return False
    try:
        listed = ast.literal_eval(diff.rust.split(marker, 1)[1].strip())
    except (ValueError, SyntaxError):
        return False
    # Top-level keys of the printed dict: `'key': {'type': ...` (values are dicts of that form).
    keys = re.findall(r"(?:^\{|\}, )'([^']*)': \{'type'", schema)
    return isinstance(listed, list) and listed == keys


def _file_error_text(params: dict, diff: Difference, rust: dict, python: dict) -> bool:
    """File errors are each implementation's own wording; both must begin with the file as given."""
    if diff.path != "error" or not isinstance(diff.rust, str) or not isinstance(diff.python, str):
        return False
    file = rust.get("file")
    return (
        isinstance(file, str)
        and file == python.get("file")
        and diff.rust.startswith(file + ":")
        and diff.python.startswith(file + ":")
        and rust.get("status") == python.get("status") == "error"
    )


# Jinja2's `UndefinedError` texts, and minijinja's for an undefined value at the same place.
_JINJA2_UNDEFINED = re.compile(r"'[^']*' is undefined|'[^']*' has no attribute '[^']*'|\S+ object has no element .*")
_MINIJINJA_UNDEFINED = re.compile(
    r"undefined value|on unsupported types (undefined and \w+|\w+ and undefined)|"
    r"undefined has no method named \w+"
)


def _error_text(outcome: dict) -> str | None:
    """An outcome's error text: `error` in the contract's form, `error.message` in the full one."""
    error = outcome.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return error if isinstance(error, str) else None


def _undefined_error_text(params: dict, diff: Difference, rust: dict, python: dict) -> bool:
    """An undefined value used in an operation: both runs fail there, Haystack with Jinja2's
    `UndefinedError` text, the harness with minijinja's (docs/deviations.md,
    `prompt-undefined-operations`). What follows from the two texts may differ too: the `error`,
    and the `status` and `failures`, which the expectations derive from the result and the trace
    (each compared on its own: a difference there is no part of this) and from the error's text
    (`expect.error` may hold on one side only)."""
    if diff.path == "error" and isinstance(diff.rust, str) and isinstance(diff.python, str):
        texts = diff.rust, diff.python
    else:
        texts = _error_text(rust), _error_text(python)
    if not all(isinstance(text, str) for text in texts) or "invalid" in (rust.get("status"), python.get("status")):
        return False
    return (
        _JINJA2_UNDEFINED.fullmatch(texts[1].strip()) is not None
        and _MINIJINJA_UNDEFINED.search(texts[0]) is not None
        and (diff.path in ("error", "status") or _split(diff.path)[:1] == ["failures"])
    )


RULES = {
    "error-schema-keys": _schema_keys,
    "file-error-text": _file_error_text,
    "undefined-error-text": _undefined_error_text,
}


class Deviations:
    """The machine-readable side of docs/deviations.md (conformance/deviations.json).

    Each entry has an `id` and `applies_to`, one of:
    - `{"rule": NAME, ...parameters}`: a comparison rule for every scenario (see RULES);
    - `{"scenarios": [FILE...], "paths": [JSON_PATH_PREFIX...]}`: differences allowed at those
      paths (`*` for any list index) in those scenario files (relative to the repository root);
    - `{"api": TEXT}`: a difference of the library API that no scenario can show.
    """

    def __init__(self, data: dict):
        self.rules: list[tuple[str, Any, dict]] = []
        self.scoped: list[tuple[str, set[str], list[str]]] = []
        for entry in data["deviations"]:
            applies = entry["applies_to"]
            if "rule" in applies:
                if applies["rule"] not in RULES:
                    raise ValueError(f"deviation {entry['id']}: unknown rule {applies['rule']!r}")
                self.rules.append((entry["id"], RULES[applies["rule"]], applies))
            elif "scenarios" in applies:
                self.scoped.append((entry["id"], set(applies["scenarios"]), list(applies["paths"])))
            elif "api" not in applies:
                raise ValueError(f"deviation {entry['id']}: applies_to needs rule, scenarios or api")

    @classmethod
    def load(cls, path: Path) -> "Deviations":
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def unseen(self, verdicts: list["Verdict"]) -> list[tuple[str, str]]:
        """Scenario-bound deviations whose scenario was compared but did not show them."""
        shown = {(dev_id, v.file) for v in verdicts for dev_id in v.ids}
        compared = {v.file for v in verdicts if v.kind in ("identical", "documented", "different")}
        return [
            (dev_id, file)
            for dev_id, files, _ in self.scoped
            for file in sorted(files)
            if file in compared and (dev_id, file) not in shown
        ]

    def explain(self, file_key: str, diff: Difference, rust: dict, python: dict) -> str | None:
        """The id of the documented deviation that covers this difference, if any.

        The verdict of `expect.error` quotes the run's error text (`error: expected an error
        containing "X", got "TEXT"`): two verdicts that expect the same text compare their texts as
        `error` fields do. Any other difference in `failures` is a difference."""
        quoted = _error_verdicts(diff)
        if quoted is not None:
            diff = quoted
        for dev_id, rule, params in self.rules:
            if rule(params, diff, rust, python):
                return dev_id
        for dev_id, files, paths in self.scoped:
            if file_key in files and any(_path_matches(diff.path, p) for p in paths):
                return dev_id
        return None


@dataclass
class Verdict:
    file: str
    kind: str  # identical | documented | different | rust-only | haystack-only
    ids: list[str]
    diffs: list[Difference]  # undocumented ones when different, else documented ones

    def line(self, show_all: bool) -> str:
        if self.kind == "identical":
            return f"{self.file}: identical"
        if self.kind == "documented":
            text = f"{self.file}: deviation (documented: {', '.join(self.ids)})"
            if show_all:
                text += "".join(f"\n    {d.show()}" for d in self.diffs)
            return text
        if self.kind == "rust-only":
            return f"{self.file}: different: only the Rust harness has an outcome"
        if self.kind == "haystack-only":
            return f"{self.file}: different: only Haystack has an outcome"
        shown = self.diffs if show_all else self.diffs[:1]
        more = "" if show_all or len(self.diffs) == 1 else f" (+{len(self.diffs) - 1} more)"
        return f"{self.file}: different: {shown[0].show()}{more}" + "".join(f"\n    {d.show()}" for d in shown[1:])


def compare(rust: dict[str, dict], python: dict[str, dict], deviations: Deviations) -> list[Verdict]:
    verdicts = []
    for key in sorted(set(rust) | set(python), key=lambda k: Path(k).parts):
        if key not in python:
            verdicts.append(Verdict(key, "rust-only", [], []))
            continue
        if key not in rust:
            verdicts.append(Verdict(key, "haystack-only", [], []))
            continue
        a = {k: v for k, v in rust[key].items() if k != "file"}
        b = {k: v for k, v in python[key].items() if k != "file"}
        diffs = [d for d in differences(a, b) if not same_by_contract(d)]
        if not diffs:
            verdicts.append(Verdict(key, "identical", [], []))
            continue
        explained = [(d, deviations.explain(key, d, rust[key], python[key])) for d in diffs]
        undocumented = [d for d, dev_id in explained if dev_id is None]
        if undocumented:
            verdicts.append(Verdict(key, "different", [], undocumented))
        else:
            ids = list(dict.fromkeys(dev_id for _, dev_id in explained))
            verdicts.append(Verdict(key, "documented", ids, diffs))
    return verdicts


# ---------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["scenarios/"], metavar="PATH")
    parser.add_argument("--hookharness", default="target/release/hookharness", help="the Rust binary")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with haystack-ai 3.4.1")
    parser.add_argument("--deviations", default=str(DEVIATIONS), help="the documented deviations")
    parser.add_argument("--all", action="store_true", help="show every difference, documented ones too")
    args = parser.parse_args(argv)

    deviations = Deviations.load(Path(args.deviations))
    try:
        # Both runners get the same files, named one by one: the harness's
        # folder search skips a `.json` file without `model` (a Haystack dump,
        # not a scenario), which the selftest's invalid files include on purpose.
        sys.path.insert(0, str(HERE))
        from runner import collect

        files = collect(args.paths)
        rust = _run("hookharness", [args.hookharness, "run", *files, "--format", "json"], RUST_OK_CODES)
        python = _run(
            "haystack runner",
            [args.python, str(HERE / "runner.py"), *args.paths, "--format", "json"],
            PYTHON_OK_CODES,
        )
    except RunnerCrash as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not rust and not python:
        print(f"error: no scenario found under {' '.join(args.paths)}", file=sys.stderr)
        return 2

    verdicts = compare(rust, python, deviations)
    counts = {"identical": 0, "documented": 0, "different": 0}
    for v in verdicts:
        print(v.line(args.all))
        counts[v.kind if v.kind in counts else "different"] += 1
    for dev_id, file in deviations.unseen(verdicts):
        print(f"note: documented deviation {dev_id} no longer shows in {file}; update docs/deviations.md")
    print(f"{counts['identical']} identical, {counts['documented']} documented, {counts['different']} different")
    return 1 if counts["different"] else 0


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main())
