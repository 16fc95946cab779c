"""The `hookharness` package: the binary it finds, the interpreter it names."""

import subprocess
import sys

import hookharness
import pytest
from plugin_support import ROOT


def printing_binary(tmp_path):
    """A stand-in for the binary that prints the interpreter it was given."""
    script = tmp_path / "hookharness"
    script.write_text('#!/bin/sh\nprintf "%s" "$HOOKHARNESS_PYTHON"\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def test_the_binary_is_started_with_this_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_BIN", str(printing_binary(tmp_path)))
    monkeypatch.delenv("HOOKHARNESS_PYTHON", raising=False)
    done = hookharness.run([], capture_output=True, check=True)
    assert done.stdout.decode() == sys.executable


def test_python_m_hookharness_names_this_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_BIN", str(printing_binary(tmp_path)))
    monkeypatch.delenv("HOOKHARNESS_PYTHON", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "python"))
    done = subprocess.run([sys.executable, "-m", "hookharness"], capture_output=True, check=True)
    assert done.stdout.decode() == sys.executable


def test_an_interpreter_given_by_the_user_is_kept(monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_PYTHON", "/opt/py/bin/python")
    assert hookharness.environment()["HOOKHARNESS_PYTHON"] == "/opt/py/bin/python"


def test_a_bin_variable_naming_nothing_is_an_error_that_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_BIN", str(tmp_path / "nothing"))
    with pytest.raises(hookharness.BinaryNotFound, match="HOOKHARNESS_BIN is .*nothing"):
        hookharness.binary()


def test_the_installed_binary_sits_in_the_scripts_folder(monkeypatch):
    monkeypatch.delenv("HOOKHARNESS_BIN", raising=False)
    try:
        found = hookharness.binary()
    except hookharness.BinaryNotFound as error:
        pytest.skip(str(error))
    done = subprocess.run([found, "--version"], capture_output=True, check=True)
    assert done.stdout.decode().startswith("hookharness ")
