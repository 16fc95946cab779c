"""The Haystack engine's worker process: `python -m hookharness.engine.worker`.

Protocol (newline-delimited JSON, UTF-8, one object per line; docs/engines.md):

1. At start the worker `dup`s its stdout to a private fd (the protocol channel) and its stderr to another (its own
   crash text), then points fd 1, fd 2, `sys.stdout`, `sys.stderr` and the root logger at the capture machinery
   (`capture.py`), so nothing user code prints reaches the protocol stream. It writes the handshake:
   `{"hello": "hookharness-engine", "protocol": 3, "haystack": VERSION, "python": VERSION}`, or, when haystack-ai
   cannot be imported, `{"hello": "hookharness-engine", "protocol": 3, "error": TEXT}` and exits 0.
2. Each request line `{"id": N, "run": REQUEST}` gets one response line `{"id": N, "record": RECORD}` (`run.py`).
   A scenario never ends the worker: whatever it raises becomes its record's `error`. A request line that is not
   a request gets `{"id": N or null, "error": TEXT}`.
   Protocol 2 adds `{"id": N, "construct": REQUEST}` (`check --engine haystack`, `construct.py`): everything the run
   builds, built without running the loop; the response is `{"id": N, "problems": [...], "checked": {...}}`.
   A response carries `"retire": true` when the scenario left a thread of its own running: the worker takes no
   other request, and the caller shuts it down and starts another for the next scenario (and sends it again the
   requests it had sent ahead), so that thread's output cannot reach another trace.
   The caller may send the next request before it reads the last answer: requests run one after another, in order.
   Protocol 3 adds record runs: a `run` REQUEST with `"live": true` has each model call sent to the caller as
   `{"id": N, "model_call": CALL}` before its response, and the worker reads `{"id": N, "model_reply": ENTRY}` from
   stdin before it goes on (`relay.py`); the network stays closed, only the caller talks to the model. The caller
   sends nothing ahead of a record run.
3. `{"id": N, "shutdown": true}` (or the end of stdin): the worker exits 0.

Timeouts are the caller's: a scenario that does not answer in time has the worker's process group killed
(SIGKILL, which no hook can block or delay).
"""

from __future__ import annotations

import faulthandler
import os
import platform
import sys
import threading
import traceback
from typing import Any, BinaryIO

from . import wire

PROTOCOL = 3
# The lowest descriptor of the worker's own channels (`_private`).
_PRIVATE_FDS = 200


class Channel:
    """The protocol stream: the original stdout, on a private fd."""

    def __init__(self, fd: int) -> None:
        self._out: BinaryIO = os.fdopen(fd, "wb", buffering=0)

    def send(self, message: dict) -> None:
        try:
            data = wire.encode(message)
        except (TypeError, ValueError) as e:  # a value JSON cannot hold (NaN, infinity) in a record
            data = wire.encode({"id": message.get("id"), "error": f"the record could not be written as JSON: {e}"})
        self._out.write(data + b"\n")


def _hello() -> dict[str, Any]:
    hello: dict[str, Any] = {"hello": "hookharness-engine", "protocol": PROTOCOL}
    try:
        from importlib.metadata import version

        import haystack  # noqa: F401

        hello["haystack"] = version("haystack-ai")
    except Exception as e:  # noqa: BLE001 - any import failure means: no usable haystack-ai here
        hello["error"] = (
            f"haystack-ai cannot be imported in {sys.executable} ({type(e).__name__}: {e}); "
            f"install it with `{sys.executable} -m pip install haystack-ai`"
        )
        return hello
    hello["python"] = platform.python_version()
    missing = _missing_internals()
    if missing:
        hello["error"] = (
            f"haystack-ai {hello['haystack']} in {sys.executable} lacks what the Haystack engine observes the run "
            f"through ({', '.join(missing)}): the engine runs haystack-ai 3.2.0 or later (tested: 3.2.0 and 3.4.1); "
            f"install one with `{sys.executable} -m pip install 'haystack-ai>=3.2'`"
        )
    return hello


def _missing_internals() -> list[str]:
    """The Haystack functions `observe.py` wraps that this haystack-ai does not have, as `module.name`."""
    import importlib

    try:
        from .observe import OBSERVED
    except ImportError as e:  # a module `observe.py` imports is not in this haystack-ai
        return [e.name or str(e)]
    missing = []
    for module_name, name in OBSERVED:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        if not hasattr(module, name):
            missing.append(f"{module_name}.{name}")
    return missing


def serve(stdin: BinaryIO, channel: Channel, crash: Any) -> int:
    from .capture import Capture
    from .placement import check_setting

    check_setting()
    capture = Capture()
    capture.install()
    hello = _hello()
    channel.send(hello)
    if "error" in hello:
        return 0
    import logging
    import warnings

    # Haystack's own warnings (experimental APIs, deprecations) are not the user's output.
    warnings.simplefilter("ignore")
    logging.getLogger("haystack").setLevel(logging.CRITICAL)
    from . import placement
    from .run import run_request
    from .user_code import error_limit

    error_limit()  # read now: a hook that changes HOOKHARNESS_OUTPUT_LIMIT later changes no cap

    for raw in stdin:
        if not raw.strip():
            continue
        try:
            message = wire.decode(raw)
        except ValueError as e:
            channel.send({"id": None, "error": f"a request line is not JSON: {e}"})
            continue
        ident = message.get("id") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not any(k in message for k in ("run", "construct", "shutdown")):
            channel.send(
                {"id": ident, "error": "a request is {id, run: REQUEST}, {id, construct: REQUEST} or {id, shutdown: true}"}
            )
            continue
        if message.get("shutdown"):
            return 0
        if "construct" in message:
            from .construct import construct_request

            placement.let_go()  # a factory built here is not a scenario's run: nothing of it stays on one core
            try:
                answer = construct_request(message["construct"], capture)
            except BaseException:  # noqa: BLE001 - a bug of the worker costs its file only
                answer = {"error": "the engine worker failed: " + traceback.format_exc()}
                print(traceback.format_exc(), file=crash, flush=True)
            channel.send({"id": ident, **answer})
            continue
        threads = set(threading.enumerate())
        try:
            relay = None
            if isinstance(message["run"], dict) and message["run"].get("live"):
                from .relay import Relay

                relay = Relay(channel, stdin, ident)
            placement.hold()
            record = run_request(message["run"], capture, relay)
        except BaseException:  # noqa: BLE001 - a bug of the worker (or a stray SystemExit) costs its scenario only
            record = {
                "trace": [],
                "result": None,
                "error": {"kind": "run", "message": "the engine worker failed: " + traceback.format_exc()},
                "streamed": [],
                "requests": [],
                "unused": {"model": 0, "models": {}},
            }
            print(traceback.format_exc(), file=crash, flush=True)
        answer = {"id": ident, "record": record}
        if any(t.is_alive() and t not in threads for t in threading.enumerate()):
            # A thread the scenario started still runs: what it prints or writes to fd 1 and 2 would land in the next
            # scenario's trace. The caller replaces this worker (and its process group) before the next scenario, and
            # this worker runs none: a request the caller sent ahead goes to the new one.
            answer["retire"] = True
            channel.send(answer)
            return 0
        channel.send(answer)
        placement.let_go(unless_recent=True)
    return 0


def _private(fd: int) -> int:
    """A copy of `fd` far above the descriptors a program uses (close-on-exec, not inherited by subprocesses), so
    that user code writing to fd 3, 4, ... (the next free ones) cannot reach the protocol stream or the crash text."""
    try:
        import fcntl

        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _PRIVATE_FDS)
    except (ImportError, OSError):  # no fcntl (Windows), or a descriptor limit below it
        return os.dup(fd)


def _dump_stack_on_request(crash: Any) -> None:
    """On SIGUSR1 the worker writes every thread's Python stack to its crash text: the caller sends it before killing
    a worker whose scenario timed out, and names where the scenario was stuck."""
    import signal

    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=crash, all_threads=True)


def _forget_working_directory() -> None:
    """`python -m` puts the directory the command was started in first on `sys.path`: user code would import from
    wherever the command runs (a scenario passing in one folder and not in another), and a module found there is not
    one of `python_path`'s, so it would not be dropped after its scenario and its state would reach the next one. The
    scenario's `python_path` (relative to its file) is where user code comes from (docs/engines.md)."""
    if not getattr(sys.flags, "safe_path", False) and sys.path:  # `-P` / PYTHONSAFEPATH (3.11) add nothing
        del sys.path[0]


def main(attached: bool = False) -> int:
    """Serves requests on stdin until it ends. `attached`: this process is a fork of the caller's own (the pytest
    plugin's, `hookharness._attached`), whose `sys.path` is the test's and is kept."""
    if not attached:
        _forget_working_directory()
    from .sandbox import hide_credentials

    hide_credentials()
    channel = Channel(_private(1))
    crash = os.fdopen(_private(2), "w", buffering=1, encoding="utf-8")
    faulthandler.enable(crash)
    _dump_stack_on_request(crash)
    stdin = os.fdopen(_private(0), "rb")
    # Nothing the user's code reads from stdin may eat a request.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    try:
        return serve(stdin, channel, crash)
    except BaseException:
        traceback.print_exc(file=crash)
        crash.flush()
        raise


if __name__ == "__main__":
    sys.exit(main())
