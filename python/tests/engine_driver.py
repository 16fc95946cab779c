"""Driving the engine worker from tests and scripts: requests built from scenario files, a worker over the protocol.

`scenario_value` stands in for the Rust writer until the binary can print a scenario's canonical JSON: with the
`hookharness` binary given (`HOOKHARNESS_BIN`, or the release build: `release_binary()`) and able to, it asks it; otherwise it
reads the file with the conformance reader's YAML 1.2 loader, which gives the file's own JSON (not canonical: defaults
written out stay, which the worker reads the same).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
sys.path.insert(0, str(ROOT / "conformance"))


def scenario_value(path: Path) -> dict:
    from hh_conformance import source

    return source.load(str(path)).data


def hook_names(scenario: dict) -> dict:
    """The trace name of each `hooks` entry, per point: its `name`, a shared hook's name or key, else
    `POINT#INDEX` (for a `python:` entry, the part after `:`)."""
    shared = scenario.get("shared_hooks") or {}
    names = {}
    for point, entries in (scenario.get("hooks") or {}).items():
        out = []
        for i, entry in enumerate(entries):
            if "shared" in entry:
                definition = shared.get(entry["shared"]) or {}
                out.append(definition.get("name") or entry["shared"])
            elif entry.get("name"):
                out.append(entry["name"])
            elif "python" in entry:
                out.append(entry["python"].rpartition(":")[2])
            elif "custom" in entry:
                out.append(entry["custom"])
            else:
                out.append(f"{point}#{i}")
        names[point] = out
    return names


def request(path: Path, *, detail: str = "full", keep_requests: bool = False, scenario: dict | None = None) -> dict:
    scenario = scenario if scenario is not None else scenario_value(path)
    return {
        "scenario": scenario,
        "file": str(path),
        "dir": str(Path(path).resolve().parent),
        "hook_names": hook_names(scenario),
        "detail": detail,
        "keep_requests": keep_requests,
    }


def release_binary() -> str:
    """The hookharness binary the tests drive: `HOOKHARNESS_BIN`, else the release build in Cargo's target folder
    (`CARGO_TARGET_DIR` when set, as cargo itself reads it, else `target/`)."""
    if os.environ.get("HOOKHARNESS_BIN"):
        return os.environ["HOOKHARNESS_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    return str((ROOT / target) / "release" / "hookharness")


def python() -> str:
    return os.environ.get("HOOKHARNESS_PYTHON", sys.executable)


class Worker:
    """One worker process, spoken to over the protocol."""

    def __init__(self, *, interpreter: str | None = None) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(PYTHON_DIR) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        # As the Rust side starts it (src/engine/haystack/worker.rs): sets of names in Haystack's error texts come
        # in the order the Rust engine reproduces (src/pyfmt/pyset.rs).
        env["PYTHONHASHSEED"] = "0"
        self.process = subprocess.Popen(
            [interpreter or python(), "-m", "hookharness.engine.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own process group, as the Rust side starts it
        )
        self.next_id = 0
        self.hello = self._read()

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the worker closed its channel: " + self.process.stderr.read().decode()[-2000:])
        return json.loads(line)

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def run(self, req: dict) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "run": req})
        response = self._read()
        assert response["id"] == self.next_id, response
        return response["record"]

    def run_ahead(self, requests: list[dict]) -> list[dict]:
        """Each request's record, each next request sent before the last record is read (as `hookharness run` does
        on the Haystack engine): the worker finds it waiting when it finishes a scenario."""
        out: list[dict] = []
        first = self.next_id + 1
        for i, req in enumerate(requests[:2]):
            self.send({"id": first + i, "run": req})
        self.next_id += len(requests)
        for i in range(len(requests)):
            response = self._read()
            assert response["id"] == first + i, response
            if i + 2 < len(requests):
                self.send({"id": first + i + 2, "run": requests[i + 2]})
            out.append(response["record"])
        return out

    def close(self) -> int:
        if self.process.poll() is None:
            self.send({"id": 0, "shutdown": True})
        code = self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()
        return code


def check(scenario: dict, record: dict) -> list[str]:
    """The scenario's expectations that a worker record can be checked against here, until the Rust side checks them
    all: `exit_reason`, `step_count`, `message_count`, `llm_calls`, `tools_run`, `hooks` (lists), `printed`,
    `state`, `last_message` (role, text_contains), `error`, and `model[i].sees` (contains, message_count; the record
    must keep its requests). One line per unmet expectation."""
    expect = scenario.get("expect") or {}
    failures = []
    result, error = record["result"], record["error"]
    trace = record["trace"]

    def compare(key, want, got):
        if want != got:
            failures.append(f"{key}: expected {json.dumps(want)}, got {json.dumps(got)}")

    if "error" in expect:
        if error is None or expect["error"] not in error["message"]:
            failures.append(f"error: expected an error containing {expect['error']!r}, got {error}")
    elif error is not None:
        failures.append(f"the run failed: {error}")
    if result is not None:
        for key in ("exit_reason", "step_count"):
            if key in expect:
                compare(key, expect[key], result[key])
        if "message_count" in expect:
            compare("message_count", expect["message_count"], len(result["messages"]))
        for key, want in (expect.get("state") or {}).items():
            compare(f"state.{key}", want, result["state"].get(key))
        last = expect.get("last_message") or {}
        message = result["last_message"] or {}
        if "role" in last:
            compare("last_message.role", last["role"], message.get("role"))
        if "text_contains" in last:
            texts = [part["text"] for part in message.get("content", []) if "text" in part]
            if not texts or last["text_contains"] not in texts[0]:
                failures.append(f"last_message.text_contains: {last['text_contains']!r} not in {texts}")
    if "llm_calls" in expect:
        compare("llm_calls", expect["llm_calls"], sum(1 for e in trace if e["event"] == "llm_started" and "model" not in e))
    if "tools_run" in expect:
        compare("tools_run", expect["tools_run"], [e["tool"] for e in trace if e["event"] == "tool_finished"])
    if "hooks" in expect:
        compare("hooks", expect["hooks"], [f"{e['point']}:{e['hook']}" for e in trace if e["event"] == "hook_started"])
    if "printed" in expect:
        output = "".join(e.get("output", "") for e in trace if e["event"] in ("hook_finished", "tool_finished"))
        at = 0
        for text in expect["printed"]:
            found = output.find(text, at)
            if found < 0:
                failures.append(f"printed: {text!r} not printed (after position {at}) in {output!r}")
                break
            at = found + len(text)
    for i, entry in enumerate(scenario.get("model") or []):
        sees = (entry or {}).get("sees")
        if not sees:
            continue
        if i >= len(record["requests"]):
            failures.append(f"model[{i}].sees: the model was not called {i + 1} times")
            continue
        seen = record["requests"][i]["messages"]
        if "message_count" in sees:
            compare(f"model[{i}].sees.message_count", sees["message_count"], len(seen))
        if "contains" in sees:
            texts = json.dumps(seen, ensure_ascii=False)
            if sees["contains"] not in texts and sees["contains"].replace("/", "\\/") not in texts:
                failures.append(f"model[{i}].sees.contains: {sees['contains']!r} not in what the model saw")
    return failures
