"""hookharness: test Haystack hooks, tools and agents against scripted scenarios.

From Python: the installed `hookharness` command, and the interpreter it
runs the Haystack engine with.

`pip install hookharness` puts the Rust binary in the environment's scripts
folder (`bin/` in a venv, `Scripts\\` on Windows), beside the environment's
own interpreter; the binary runs the Haystack engine's worker
(`python -m hookharness.engine.worker`) with that interpreter, so
`pip install hookharness haystack-ai` needs no `--python`. From Python (the
pytest plugin, `python -m hookharness`), the interpreter is named outright:
`environment()` sets `HOOKHARNESS_PYTHON` to `sys.executable`.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

__all__ = ["BinaryNotFound", "binary", "environment", "run"]

_NAME = "hookharness.exe" if os.name == "nt" else "hookharness"


class BinaryNotFound(FileNotFoundError):
    """No `hookharness` executable where the wheel installs it nor on PATH."""


def _candidates():
    # Where pip put the wheel's binary: this interpreter's scripts folder,
    # for a venv, a --user install and a system install alike.
    yield os.path.join(sysconfig.get_path("scripts"), _NAME)
    for scheme in ("posix_user", "nt_user", "osx_framework_user"):
        if scheme in sysconfig.get_scheme_names():
            yield os.path.join(sysconfig.get_path("scripts", scheme), _NAME)
    yield os.path.join(os.path.dirname(sys.executable), _NAME)
    found = shutil.which("hookharness")
    if found:
        yield found


def binary():
    """The path of the `hookharness` executable: `HOOKHARNESS_BIN` when set
    (an error when it names no executable file), else the one this interpreter's environment installed, else the one on
    PATH."""
    given = os.environ.get("HOOKHARNESS_BIN")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise BinaryNotFound(
            f"HOOKHARNESS_BIN is {given!r}, which is not an executable file: "
            "point it at the `hookharness` binary, or unset it to use the installed one"
        )
    for path in _candidates():
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise BinaryNotFound(
        "no `hookharness` executable: install the wheel into this environment "
        f"({sys.executable} -m pip install hookharness), or set HOOKHARNESS_BIN "
        "to the binary (`cargo install --path .` puts it in ~/.cargo/bin)"
    )


def environment(base=None):
    """`base` (default: this process's environment) with `HOOKHARNESS_PYTHON`
    set to this interpreter, unless it is already set, and without
    `HOOKHARNESS_ENGINE_ATTACH`: that hands one command the worker forked for it
    (`hookharness._attached`, which sets it on the command it starts), and a
    value left in this environment names a process and descriptors that are
    not a worker of the command's (which would take that process for its
    worker, and kill it when done)."""
    env = dict(os.environ if base is None else base)
    env.setdefault("HOOKHARNESS_PYTHON", sys.executable)
    env.pop("HOOKHARNESS_ENGINE_ATTACH", None)
    return env


def run(args, **kwargs):
    """`subprocess.run([binary(), *args], env=environment(), **kwargs)`."""
    kwargs.setdefault("env", environment())
    kwargs.setdefault("check", False)
    return subprocess.run([binary(), *args], **kwargs)  # noqa: PLW1510 (check is in kwargs)
