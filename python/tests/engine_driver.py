"""Driving the engine worker from tests and scripts: requests built from scenario files, a worker over the protocol.

`scenario_value` stands in for the Rust writer until the binary can print a scenario's canonical JSON: with the
`hookharness` binary given (`HOOKHARNESS_BIN`, or `target/release/hookharness`) and able to, it asks it; otherwise it
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


def python() -> str:
    return os.environ.get("HOOKHARNESS_PYTHON", sys.executable)


class Worker:
    """One worker process, spoken to over the protocol."""

    def __init__(self, *, interpreter: str | None = None) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(PYTHON_DIR) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
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

    def close(self) -> int:
        if self.process.poll() is None:
            self.send({"id": 0, "shutdown": True})
        code = self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()
        return code
