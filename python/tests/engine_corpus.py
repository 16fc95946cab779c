"""The engine worker against the Rust engine over the corpus, trace by trace.

    python python/tests/engine_corpus.py [PATH...] [--hookharness BIN] [--tojson BIN] [--verbose]

For each scenario file (default: `scenarios/`): the Rust outcome (`hookharness run PATH... --format json --trace
full`), the scenario's canonical JSON (`--tojson BIN`, a program printing `{"file", "scenario"}` per file from
`Scenario::to_value()`; without it, the file read as YAML 1.2 by the conformance reader), and the worker's record
for it. Compared: `result`, `error` (kind and context equal; the Rust text contains the worker's) and the full
`trace`, event by event. One line per scenario: `identical`, `deviation (documented: ID)` (an error text that
differs only as conformance/deviations.json allows Haystack's to), or `different: PATH: rust X | haystack Y`; the
exit status is 1 when any scenario differs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_driver import ROOT, Worker, hook_names, release_binary, scenario_value

MISSING = object()


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def differences(rust, haystack, path: str = ""):
    """Every (path, rust, haystack) where two JSON values differ, in order."""
    if isinstance(rust, dict) and isinstance(haystack, dict):
        for key in list(rust) + [k for k in haystack if k not in rust]:
            sub = f"{path}.{key}" if path else key
            yield from differences(rust.get(key, MISSING), haystack.get(key, MISSING), sub)
    elif isinstance(rust, list) and isinstance(haystack, list):
        for i in range(max(len(rust), len(haystack))):
            a = rust[i] if i < len(rust) else MISSING
            b = haystack[i] if i < len(haystack) else MISSING
            yield from differences(a, b, f"{path}[{i}]")
    elif rust is MISSING or haystack is MISSING or not _same(rust, haystack):
        yield (path, rust, haystack)


def _error_differences(rust_error, error):
    if (rust_error is None) != (error is None):
        yield ("error", rust_error, error)
        return
    if rust_error is None:
        return
    context = {k: v for k, v in rust_error.items() if k != "message"}
    mine = {k: v for k, v in error.items() if k != "message"}
    yield from differences(context, mine, "error")
    if error["message"] not in rust_error["message"]:
        yield ("error.message", rust_error["message"], error["message"])


def compare(outcome: dict, record: dict):
    """The first difference between a Rust outcome (`--trace full`) and a worker record that no documented
    deviation covers: `(path, rust, haystack)`; else `("documented", IDS)` when some were documented; else None."""
    documented: list[str] = []
    found = (
        *_error_differences(outcome.get("error"), record.get("error")),
        *differences(outcome.get("result"), record.get("result"), "result"),
        *differences(outcome.get("trace"), record.get("trace"), "trace"),
    )
    for path, a, b in found:
        if _same_error_text(path, a, b):
            continue
        deviation = _documented(outcome, path, a, b)
        if deviation is None:
            return (path, a, b)
        if deviation not in documented:
            documented.append(deviation)
    return ("documented", ", ".join(documented)) if documented else None


def _same_error_text(path: str, rust_value, value) -> bool:
    """The scenario contract compares error texts by substring only: a failed hook's error in the trace whose Rust
    text contains the worker's whole text is no difference (the run's `error.message` is checked so already)."""
    is_error = path == "error.message" or (path.startswith("trace[") and path.endswith(".error"))
    return is_error and isinstance(rust_value, str) and isinstance(value, str) and value != "" and value in rust_value


def _documented(outcome: dict, path: str, rust_value, value) -> str | None:
    """The id of the documented deviation (conformance/deviations.json) that covers a difference, if any: the
    worker runs Haystack itself, so Haystack's documented deviations from the Rust engine apply to it unchanged.
    Error texts (the run's, and a failed hook's in the trace) are compared by the deviations' error rules."""
    import compare as conformance_compare

    deviations = conformance_compare.Deviations.load(conformance_compare.DEVIATIONS)
    file_key = conformance_compare._file_key(str(ROOT / outcome["file"]))
    python = {"file": outcome["file"], "status": outcome["status"]}
    is_text = isinstance(rust_value, str) and isinstance(value, str)
    if is_text and (path == "error.message" or (path.startswith("trace[") and path.endswith(".error"))):
        found = deviations.explain(file_key, conformance_compare.Difference("error", rust_value, value), outcome, python)
        if found is not None:
            return found
    found = deviations.explain(file_key, conformance_compare.Difference(path, rust_value, value), outcome, python)
    if found is None:
        # A message the trace shows (what the model saw last, its replies, a hook's changes) is a message of the
        # conversation: a deviation documented on `result.messages[*]` covers its copy in the trace.
        message = _MESSAGE_IN_TRACE.match(path)
        if message is not None:
            as_result = "result.messages[0]." + message.group("rest")
            found = deviations.explain(
                file_key, conformance_compare.Difference(as_result, rust_value, value), outcome, python
            )
    return found


_MESSAGE_IN_TRACE = re.compile(r"^trace\[\d+\]\.(?:last|replies\[\d+\]|changes\..*?\[\d+\])\.(?P<rest>content.*)$")


def _show(value, limit: int = 400) -> str:
    if value is MISSING:
        return "<absent>"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rust_outcomes(binary: str, paths: list[str]) -> dict[str, dict]:
    proc = subprocess.run(  # exit 1 or 2 (a scenario failed, a file is invalid) still prints every outcome
        [binary, "run", *paths, "--format", "json", "--trace", "full"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    out = {}
    for line in proc.stdout.splitlines():
        if line.strip():
            outcome = json.loads(line)
            out[os.path.normpath(outcome["file"])] = outcome
    if not out:
        raise SystemExit(f"{binary} printed no outcome (status {proc.returncode}): {proc.stderr[-2000:]}")
    return out


def canonical(tojson: str | None, files: list[str]) -> dict[str, dict]:
    if tojson is None:
        out = {}
        for f in files:
            try:
                out[os.path.normpath(f)] = scenario_value(ROOT / f)
            except Exception:  # noqa: BLE001, S110 - an invalid file: Rust reports it, the worker never sees it
                pass
        return out
    proc = subprocess.run([tojson, *files], capture_output=True, text=True, cwd=ROOT, check=True)
    out = {}
    for line in proc.stdout.splitlines():
        entry = json.loads(line)
        if "scenario" in entry:
            out[os.path.normpath(entry["file"])] = entry["scenario"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["scenarios"])
    parser.add_argument("--hookharness", default=release_binary())
    parser.add_argument("--tojson", default=os.environ.get("HOOKHARNESS_TOJSON"))
    parser.add_argument("--detail", choices=["summary", "full"], default="full")
    args = parser.parse_args(argv)
    outcomes = rust_outcomes(args.hookharness, args.paths)
    files = sorted(outcomes)
    scenarios = canonical(args.tojson, files)
    worker = Worker()
    differing = skipped = documented = 0
    try:
        for file in files:
            outcome = outcomes[file]
            error = outcome.get("error") or {}
            if outcome["status"] == "invalid" or error.get("kind") in ("invalid", "unregistered_hook"):
                skipped += 1
                print(f"{file}: skipped ({error.get('kind')})")
                continue
            scenario = scenarios[file]
            request = {
                "scenario": scenario,
                "file": file,
                "dir": str((ROOT / file).parent),
                "hook_names": hook_names(scenario),
                "detail": args.detail,
                "keep_requests": False,
            }
            record = worker.run(request)
            if args.detail == "summary":  # `--trace full` records what each hook changed; summary records do not
                for event in outcome["trace"]:
                    event.pop("changes", None)
            found = compare(outcome, record)
            if found is None:
                print(f"{file}: identical")
            elif found[0] == "documented":
                documented += 1
                print(f"{file}: deviation (documented: {found[1]})")
            else:
                differing += 1
                path, a, b = found
                print(f"{file}: different: {path}: rust {_show(a)} | haystack {_show(b)}")
    finally:
        worker.close()
    print(f"{len(files)} scenarios, {skipped} skipped, {documented} documented deviations, {differing} different")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
