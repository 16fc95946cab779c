"""Running scenarios on a worker forked from this process, so they take its live objects.

A scenario file holds what can be written down; a database client, an Agent built by a fixture or a hook object
registered under a name cannot. `run()` forks this process: the fork installs the objects (`engine/live.py`) and
serves as the Haystack engine's worker, its channel three pipes; then it starts `hookharness run` with those pipes
and `HOOKHARNESS_ENGINE_ATTACH=PID,REQUESTS,ANSWERS,STDERR`, so the command talks to the fork instead of starting a
worker of its own. The fork is its own process group: a scenario that outlives `--timeout` has it killed, as the
command kills a worker it started. The fork sees the objects as they are when `run()` is called; what the scenario
changes in them stays in the fork (a database it writes to is changed; a Python object here is not).

Linux only: `os.fork`, and the command checks the fork it is handed through `/proc`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from hookharness import binary, environment

ATTACH_ENV = "HOOKHARNESS_ENGINE_ATTACH"


def run(
    args: list[str], hooks=None, agents=None, hook_context=None, timeout=None, not_inherited=()
) -> subprocess.CompletedProcess:
    """`hookharness ARGS...` (`run --engine haystack ...`) with a worker forked from this process, holding `hooks`,
    `agents` and `hook_context`; the completed command, its output captured. Raises `TypeError` for objects that are
    not dicts keyed by name, `subprocess.TimeoutExpired` past `timeout` seconds.

    `not_inherited`: descriptors of this process's own machinery, as `Descriptor`s, that the fork closes (the pytest
    plugin's: pytest's captured output and terminal, pytest-xdist's channel to its controller), so that a scenario
    writing to a descriptor it did not open reaches none of them, as it reaches none in a worker of the command's."""
    from hookharness.engine import live

    # Checked here, where the fixture's mistake can be named, not in the fork.
    live.install(hooks=hooks, agents=agents, hook_context=hook_context)
    try:
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        channel = (requests_read, requests_write, answers_read, answers_write, stderr_read, stderr_write)
        # Still the same open file (not one a fixture opened since under a number that was freed), never the channel.
        closed = sorted({d.fd for d in not_inherited if d.fd > 2 and d.fd not in channel and d.same()})
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the fork ends in os._exit
            _serve(requests_read, answers_write, stderr_write, (requests_write, answers_read, stderr_read, *closed))
        _own_group(pid)
        for fd in (requests_read, answers_write, stderr_write):
            os.close(fd)
        passed = (requests_write, answers_read, stderr_read)
        env = environment()
        env[ATTACH_ENV] = ",".join(str(n) for n in (pid, *passed))
        try:
            return subprocess.run(
                [binary(), *args], pass_fds=passed, env=env, capture_output=True, timeout=timeout, check=False
            )
        finally:
            for fd in passed:
                os.close(fd)
            _reap(pid)
    finally:
        live.install()


class Descriptor:
    """A descriptor of this process and the file it is open on now (`same()`: still that file)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._file = self._identity()
        self.mode = self._file[2] if self._file else 0

    def _identity(self):
        try:
            found = os.fstat(self.fd)
        except (OSError, ValueError):
            return None
        return (found.st_dev, found.st_ino, found.st_mode)

    def same(self) -> bool:
        return self._file is not None and self._identity() == self._file


def open_descriptors() -> list[Descriptor]:
    """This process's open descriptors above 2 (from /proc/self/fd or /dev/fd; none where neither lists them)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found = [Descriptor(int(n)) for n in names if n.isdigit() and int(n) > 2]
        return [d for d in found if d.same()]  # the listing's own descriptor is closed by now
    return []


def _own_group(pid: int) -> None:
    # Both sides set it (the classic race: the command may signal the group before the fork has run a line).
    try:
        os.setpgid(pid, pid)
    except OSError:  # the fork did it already, or has ended
        pass


def _serve(requests: int, answers: int, stderr: int, others: tuple) -> None:
    """The fork: closes `others` (the parent's ends of the channel, the parent's own descriptors); its stdin, stdout
    and stderr become the channel, then it serves as the worker and exits."""
    code = 1
    try:
        os.setpgid(0, 0)
        for fd in others:
            try:
                os.close(fd)
            except OSError:  # closed already
                pass
        # The caller's handlers (pytest's, a test's) are not the worker's.
        for name in ("SIGINT", "SIGTERM", "SIGUSR1", "SIGPIPE"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL if name != "SIGINT" else signal.default_int_handler)
        for fd, target in ((requests, 0), (answers, 1), (stderr, 2)):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - lives as long as the fork
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        from hookharness.engine import worker

        code = worker.main(attached=True)
    except BaseException:  # noqa: BLE001 - whatever happens, the fork must never return into the caller's code
        try:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001, S110 - nothing is left to tell it to
            pass
    finally:
        os._exit(code)


def _reap(pid: int) -> None:
    """Waits for the fork: it ends when the command closes its channel (or has killed it); one that does not within
    5 s is killed with its group."""
    deadline = time.monotonic() + 5
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        if time.monotonic() > deadline:
            for target in (-pid, pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except OSError:
                    pass
            os.waitpid(pid, 0)
            return
        time.sleep(0.005)
