"""What the plugin's tests share: the plugin's flag, the binary, scenario texts."""

import importlib.metadata
import os
import pathlib
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

PASSES = """\
name: greets
model:
  - text: Hello.
run:
  messages: [{role: user, text: Hi}]
expect:
  exit_reason: text
  last_message: {role: assistant, text: Hello.}
"""

FAILS = """\
name: counts-steps
hooks:
  before_llm:
    - name: log_call
model:
  - text: Done.
run:
  messages: [{role: user, text: Go}]
expect:
  step_count: 2
  hooks: [before_llm:log_call]
"""

INVALID = """\
model:
  - txt: hi
"""


def installed():
    """Whether the plugin comes through the `pytest11` entry point."""
    return any(e.name == "hookharness" for e in importlib.metadata.entry_points(group="pytest11"))


def plugin_args():
    return [] if installed() else ["-p", "hookharness.pytest_plugin"]


def source_path(monkeypatch):
    """Without the wheel installed, a pytest subprocess imports the plugin
    from the repository's python/ folder."""
    if not installed():
        paths = [str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))


def binary():
    """The `hookharness` binary the tests run, or skip."""
    import hookharness

    try:
        return hookharness.binary()
    except hookharness.BinaryNotFound as error:
        pytest.skip(str(error))


def project(pytester, files, ini="hookharness_paths = scenarios"):
    """A pytest project: `files` (name -> scenario text) under scenarios/,
    with `ini` in its pytest.ini."""
    pytester.makeini("[pytest]\n" + textwrap.dedent(ini))
    folder = pytester.path / "scenarios"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    return folder


def counting_binary(tmp_path, real):
    """A wrapper of `real` that logs each invocation's arguments to a file:
    (the wrapper, the log)."""
    log = tmp_path / "invocations.log"
    wrapper = tmp_path / "hookharness-counting"
    wrapper.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(0o755)
    return wrapper, log
