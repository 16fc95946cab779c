"""Where scenarios run: on one core, kept from one scenario to the next for a quarter of a second at a time.

Haystack runs each step's tool calls in threads of a new pool and hands the interpreter to them and back. Left to the
scheduler, those threads start on the other core, and each handoff crosses cores, into a cache that holds none of the
run's data; between scenarios the worker itself moves, as the command wakes to read each record. So the worker's main
thread is held on one core: the core it is on when a scenario starts (the scheduler's choice), kept for the scenarios
after it, and given back once a scenario ends `KEEP_SECONDS` after the hold began, so that a core another program
keeps busy holds the worker no longer than that and a scenario; the next scenario is held where the scheduler has put
the worker then. The threads a scenario starts inherit the core: they end with the scenario, or the worker retires
(`worker.py`). Measured over the corpus (docs/engines.md, "Cost"), the worker's pass takes about a tenth less.

A process the scenario starts is not held: the process starters `children.py` wraps (`os.fork`, `subprocess.Popen`,
`os.posix_spawn`, multiprocessing's `fork_exec`, ...) release the calling thread around the start, so the child gets
every core the worker had. What a scenario's code sees of it: `os.sched_getaffinity(0)` (and so Python 3.13's
`os.process_cpu_count()`, and the default size of a `ThreadPoolExecutor` there) names one core while a scenario runs.
`check --engine haystack` (a `construct` request) is never held. `HOOKHARNESS_ONE_CORE=0` in the environment of the
command turns this off, for code that needs its threads on several cores at once; systems without
`sched_setaffinity` (macOS, Windows) run unheld.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator

# The environment variable that turns holding off (`0`).
ENV = "HOOKHARNESS_ONE_CORE"


def check_setting() -> None:
    """Refuses a value of `HOOKHARNESS_ONE_CORE` other than `0` (off) and `1` (on, as when it is not set), naming
    the variable: a typo (`false`, `off`) must not leave holding on silently."""
    raw = os.environ.get(ENV, "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"{ENV}={raw!r}: expected 0 (each scenario free to use every core) or 1 (held on one, the default)")


def _current_cpu() -> Callable[[], int] | None:
    """The C library's `sched_getcpu` (the core the calling thread runs on), or `None` where there is none or
    `HOOKHARNESS_ONE_CORE=0` turns holding off."""
    if not hasattr(os, "sched_setaffinity") or os.environ.get(ENV, "").strip() == "0":
        return None
    try:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).sched_getcpu
    except (ImportError, OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = []
    return function


_CPU = _current_cpu()
# The cores the worker may use (its affinity when this module was imported).
_ALL: set[int] = set(os.sched_getaffinity(0)) if _CPU is not None else set()
# How long the worker stays on one core, in seconds, before it lets the scheduler place it again.
KEEP_SECONDS = 0.25
# When the worker was put on its core (`None`: it is free).
_HELD: list[float | None] = [None]
_monotonic = time.monotonic  # taken before any scenario's frozen clock


def hold() -> None:
    """Before a scenario: the calling thread (and every thread it starts) stays on the core it is on now, unless it is
    held already (the scenario before it left it there: that core's cache holds its data). Nothing where holding is
    off, unavailable or pointless (one core)."""
    if _HELD[0] is not None or _CPU is None or len(_ALL) < 2:
        return
    cpu = _CPU()
    if cpu >= 0 and _set({cpu}):
        _HELD[0] = _monotonic()


def let_go(*, unless_recent: bool = False) -> None:
    """Gives the calling thread every core of the worker's again; with `unless_recent`, only once it has been held
    `KEEP_SECONDS` (after a scenario: a core another program keeps busy holds the worker no longer than that and a
    scenario, and two syscalls a scenario are saved)."""
    since = _HELD[0]
    if since is None or (unless_recent and _monotonic() - since <= KEEP_SECONDS):
        return
    _HELD[0] = None
    _set(_ALL)


@contextlib.contextmanager
def released() -> Iterator[None]:
    """Within, while a scenario is held: the calling thread may run on every core the worker has, so that a process
    started here inherits them all; its own cores are given back on the way out (in this process, not in a child
    that `os.fork` made, which keeps every core)."""
    if _HELD[0] is None:
        yield
        return
    pid, own = os.getpid(), os.sched_getaffinity(0)
    if own == _ALL or not _set(_ALL):
        yield
        return
    try:
        yield
    finally:
        if os.getpid() == pid:
            _set(own)


def _set(cores: set[int]) -> bool:
    """Holds the calling thread on `cores`; `False` where the system refuses (a core taken away from the worker's
    cpuset meanwhile): the run goes on where it is."""
    try:
        os.sched_setaffinity(0, cores)
    except OSError:
        return False
    return True
