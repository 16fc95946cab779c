"""Running scenario files through the `hookharness` command, in batches.

One `hookharness run --format json --trace full FILE...` runs every file of
a batch (so one engine worker serves the batch); each outcome is kept by
file until its pytest item asks for it. The report of a failure is
hookharness's own, read back from the saved outcome by
`hookharness explain --outcome` (no second run).
"""

import json
import math
import os
import subprocess
import tempfile

from hookharness import binary, environment


def shown(path):
    """`path` relative to the working folder when it is below it (as the
    report and the rerun command show it), else as it is."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


class BatchFailed(Exception):
    """The `hookharness` command did not give an outcome for a file."""


class Outcomes:
    """The outcomes of the files run so far in this process, by file."""

    def __init__(self, engine=None, timeout=None):
        self.engine = engine
        self.timeout = timeout
        self._by_file = {}
        self.runs = 0

    def engine_args(self):
        return ["--engine", self.engine] if self.engine else []

    def get(self, path, batch):
        """The outcome of `path`; when it is not known yet, `path` and the
        files of `batch` not run yet are run in one command."""
        path = shown(path)
        if path not in self._by_file:
            pending = [path] + [shown(p) for p in batch]
            self._run([p for p in dict.fromkeys(pending) if p not in self._by_file])
        found = self._by_file.get(path)
        if found is None:
            raise BatchFailed(f"`hookharness run` gave no outcome for {path}")
        if isinstance(found, BatchFailed):
            raise found
        return found

    def _run(self, files):
        command = [binary(), "run", "--format", "json", "--trace", "full", *self.engine_args(), *files]
        self.runs += 1
        try:
            done = subprocess.run(command, check=False, capture_output=True, env=environment(), timeout=self.timeout)
        except subprocess.TimeoutExpired:
            failure = BatchFailed(f"`hookharness run` did not finish within {self.timeout} s: {' '.join(command)}")
            self._by_file.update({f: failure for f in files})
            return
        self._by_file.update(read_outcomes(done.stdout))
        missing = [f for f in files if f not in self._by_file]
        if missing:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            failure = BatchFailed(
                f"`{' '.join(command[:6])} ...` exited {done.returncode} without an outcome for "
                f"this file{': ' + stderr if stderr else ''}"
            )
            self._by_file.update({f: failure for f in missing})


def run_attached(path, objects, timeout=None, not_inherited=()):
    """The outcome of `path` and its JSON line, run on the Haystack engine by a worker forked from this process
    that holds `objects` (`hooks`, `agents`, `hook_context`: `_attached.run`), without the descriptors
    `not_inherited`. Never batched: the objects are one test's."""
    from hookharness import _attached

    if not hasattr(os, "fork") or not os.path.exists("/proc/self/stat"):
        raise BatchFailed(
            "this scenario's fixtures hand it objects, which it takes in a fork of the pytest process, and that "
            "needs Linux (os.fork, /proc): run it there, or give it only what its file can hold"
        )
    path = shown(path)
    args = ["run", "--format", "json", "--trace", "full", "--engine", "haystack", path]
    if timeout is not None:
        # The command's own deadline first: it kills the fork and says where the scenario was stuck.
        args[-1:-1] = ["--timeout", str(max(1, math.ceil(timeout)))]
        timeout += 30
    try:
        done = _attached.run(args, timeout=timeout, not_inherited=not_inherited, **objects)
    except subprocess.TimeoutExpired:
        raise BatchFailed(f"`hookharness run` did not finish within {timeout} s: {path}") from None
    found = read_outcomes(done.stdout).get(path)
    if found is None:
        stderr = done.stderr.decode("utf-8", "replace").strip()
        raise BatchFailed(
            f"`hookharness run --engine haystack {path}` exited {done.returncode} without an outcome"
            f"{': ' + stderr if stderr else ''}"
        )
    return found


def read_outcomes(stdout):
    """file -> (outcome, its JSON line), from what `hookharness run --format json` printed."""
    found = {}
    for line in stdout.decode("utf-8", "replace").split("\n"):
        if not line.strip():
            continue
        try:
            outcome = json.loads(line)
        except ValueError:
            continue
        if isinstance(outcome, dict):
            found[outcome.get("file", "")] = (outcome, line)
    return found


def report(line, path):
    """hookharness's report of the saved outcome `line` (the failures, their
    expected and actual values, the trace's last events), as
    `hookharness run FILE` prints it."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as saved:
        saved.write(line + "\n")
    try:
        done = subprocess.run(
            [binary(), "explain", "--outcome", saved.name], check=False, capture_output=True, env=environment(), timeout=60
        )
    finally:
        os.unlink(saved.name)
    text = done.stdout.decode("utf-8", "replace")
    # `explain --outcome` prints the timeline, a blank line, then the report,
    # whose first line is the status and the file.
    lines = text.split("\n")
    for index, line_text in enumerate(lines):
        if line_text.startswith(("FAIL ", "ERROR")) and shown(path) in line_text:
            return "\n".join(lines[index:])
    return text or done.stderr.decode("utf-8", "replace")
