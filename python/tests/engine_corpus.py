"""The engine worker against the Rust engine over the corpus, trace by trace.

    python python/tests/engine_corpus.py [PATH...] [--hookharness BIN] [--tojson BIN] [--verbose]

For each scenario file (default: `scenarios/`): the Rust outcome (`hookharness run PATH... --format json --trace
full`), the scenario's canonical JSON (`--tojson BIN`, a program printing `{"file", "scenario"}` per file from
`Scenario::to_value()`; without it, the file read as YAML 1.2 by the conformance reader), and the worker's record
for it. Compared: `result`, `error` (kind and context equal; the Rust text contains the worker's) and the full
`trace`, event by event. One line per scenario, `identical` or `different: PATH: rust X | haystack Y`; the exit
status is 1 when any scenario differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_driver import ROOT, Worker, hook_names, scenario_value  # noqa: E402

MISSING = object()


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def first_difference(rust, haystack, path: str = ""):
    """The first (path, rust, haystack) where two JSON values differ, else None."""
    if isinstance(rust, dict) and isinstance(haystack, dict):
        for key in list(rust) + [k for k in haystack if k not in rust]:
            sub = f"{path}.{key}" if path else key
            found = first_difference(rust.get(key, MISSING), haystack.get(key, MISSING), sub)
            if found:
                return found
        return None
    if isinstance(rust, list) and isinstance(haystack, list):
        for i in range(max(len(rust), len(haystack))):
            a = rust[i] if i < len(rust) else MISSING
            b = haystack[i] if i < len(haystack) else MISSING
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if rust is MISSING or haystack is MISSING or not _same(rust, haystack):
        return (path, rust, haystack)
    return None


def compare(outcome: dict, record: dict):
    """The first difference between a Rust outcome (`--trace full`) and a worker record, else None."""
    rust_error, error = outcome.get("error"), record.get("error")
    if (rust_error is None) != (error is None):
        return ("error", rust_error, error)
    if rust_error is not None:
        context = {k: v for k, v in rust_error.items() if k != "message"}
        mine = {k: v for k, v in error.items() if k != "message"}
        found = first_difference(context, mine, "error")
        if found:
            return found
        if error["message"] not in rust_error["message"]:
            return ("error.message", rust_error["message"], error["message"])
    found = first_difference(outcome.get("result"), record.get("result"), "result")
    if found:
        return found
    return first_difference(outcome.get("trace"), record.get("trace"), "trace")


def _show(value, limit: int = 400) -> str:
    if value is MISSING:
        return "<absent>"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rust_outcomes(binary: str, paths: list[str]) -> dict[str, dict]:
    proc = subprocess.run(
        [binary, "run", *paths, "--format", "json", "--trace", "full"], capture_output=True, text=True, cwd=ROOT
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
        return {os.path.normpath(f): scenario_value(ROOT / f) for f in files}
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
    parser.add_argument("--hookharness", default=os.environ.get("HOOKHARNESS_BIN", str(ROOT / "target/release/hookharness")))
    parser.add_argument("--tojson", default=os.environ.get("HOOKHARNESS_TOJSON"))
    parser.add_argument("--detail", choices=["summary", "full"], default="full")
    args = parser.parse_args(argv)
    outcomes = rust_outcomes(args.hookharness, args.paths)
    files = sorted(outcomes)
    scenarios = canonical(args.tojson, files)
    worker = Worker()
    differing = skipped = 0
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
            found = compare(outcome, record)
            if found is None:
                print(f"{file}: identical")
            else:
                differing += 1
                path, a, b = found
                print(f"{file}: different: {path}: rust {_show(a)} | haystack {_show(b)}")
    finally:
        worker.close()
    print(f"{len(files)} scenarios, {skipped} skipped, {differing} different")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
