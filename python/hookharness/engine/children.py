"""Processes a scenario's code starts are ended when the scenario ends.

While a scenario runs, the ways Python starts a process (`subprocess.Popen`, and through it `subprocess.run` and
asyncio's subprocesses; `os.fork`, `os.forkpty`, `os.posix_spawn`, `os.posix_spawnp`, `os.system`, and the
`os.spawn*` functions built on `os.fork`) note that the scenario started one. Only then, when the scenario ends, the
processes that were not there before are looked up in `/proc` and killed (SIGKILL): every descendant of this process
and every member of its process group (a process that double-forked into the background stays in the group). A
process that was there before the scenario, or that belongs to neither (an unrelated process, one that called
`setsid`), is left alone; one started by C code that calls `fork` itself is ended only with the worker's process
group, at the command's end or a timeout. Scenarios that start no process pay nothing but the flag. multiprocessing's
own way of starting a process without `os.fork` (`_posixsubprocess.fork_exec`, for its `spawn` and `forkserver`
methods) is one of these starters too.

Each starter also gives the calling thread every core of the worker's for the start (`placement.released`), so that a
process a scenario starts is not held on the one core the scenario runs on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
from collections.abc import Iterator

from .placement import released

try:
    import _posixsubprocess  # multiprocessing's `spawnv_passfds` calls its `fork_exec` (subprocess binds its own)
except ImportError:  # not a POSIX system
    _posixsubprocess = None

_PROC = "/proc"


class _Started:
    def __init__(self) -> None:
        self.before: set[int] | None = None  # the processes there before the scenario's first start


_CURRENT: _Started | None = None


def _ours() -> set[int]:
    """Descendants of this process and members of its process group (itself excluded), from `/proc`."""
    me, group = os.getpid(), os.getpgrp()
    parents: dict[int, int] = {}
    out = set()
    try:
        names = os.listdir(_PROC)
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{_PROC}/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses: split after the last `)`.
        fields = stat[stat.rfind(b")") + 2 :].split()
        pid, ppid, pgrp = int(name), int(fields[1]), int(fields[2])
        parents[pid] = ppid
        if pgrp == group and pid != me:
            out.add(pid)
    for pid in parents:
        seen, up = set(), parents.get(pid)
        while up is not None and up not in seen and up > 1:
            if up == me:
                out.add(pid)
                break
            seen.add(up)
            up = parents.get(up)
    return out


def _note() -> None:
    started = _CURRENT
    if started is not None and started.before is None:
        started.before = _ours()


def _noting(function):
    @functools.wraps(function)  # named as the function it stands for, in error texts too
    def wrapper(*args, **kwargs):
        _note()
        with released():
            return function(*args, **kwargs)

    return wrapper


_OS_STARTERS = ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system")


# The wrappers, made once per function they wrap and kept (so that the ids in `_WRAPPER_IDS` stay theirs).
_WRAPPERS: dict = {}
_WRAPPER_IDS: set[int] = set()


def _wrapper_of(function):
    wrapper = _WRAPPERS.get(function)
    if wrapper is None:
        wrapper = _WRAPPERS[function] = _noting(function)
        _WRAPPER_IDS.add(id(wrapper))
    return wrapper


def _popen_init(init):
    wrapper = _WRAPPERS.get(init)
    if wrapper is None:

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            _note()
            with released():
                init(self, *args, **kwargs)

        wrapper = _WRAPPERS[init] = __init__
        _WRAPPER_IDS.add(id(wrapper))
    return wrapper


# The starters' wrappers, by the place each stands in (`os.fork`, ..., `subprocess.Popen.__init__`): put in place by a
# scenario and left there after it, as the network's guards are (`sandbox.py`); outside a scenario a wrapper notes
# nothing (`_CURRENT` is `None`) and calls the function it wraps. A scenario wraps what it finds in a place unless that
# is a wrapper already (code outside a scenario may have put its own function there), and on its way out puts the
# wrapper back where its code replaced it, as when each scenario swapped six functions in and out (which cost it more
# than the rest of this).
_PLACES = (
    *((os, name) for name in _OS_STARTERS if hasattr(os, name)),
    *(((_posixsubprocess, "fork_exec"),) if _posixsubprocess is not None else ()),
    (subprocess.Popen, "__init__"),
)
_INSTALLED: dict[tuple[object, str], object] = {}


def _put_in() -> None:
    for owner, name in _PLACES:
        current = getattr(owner, name)
        if id(current) in _WRAPPER_IDS:
            _INSTALLED[(owner, name)] = current
            continue
        wrapper = _popen_init(current) if name == "__init__" else _wrapper_of(current)
        _INSTALLED[(owner, name)] = wrapper
        setattr(owner, name, wrapper)


def _put_back() -> None:
    for (owner, name), wrapper in _INSTALLED.items():
        if getattr(owner, name) is not wrapper:
            setattr(owner, name, wrapper)


@contextlib.contextmanager
def ended_children() -> Iterator[None]:
    """Within: starting a process is noted; on exit, the processes started since are killed."""
    global _CURRENT
    _put_in()
    started = _Started()
    _CURRENT = started
    try:
        yield
    finally:
        _CURRENT = None
        _put_back()
        if started.before is not None:
            _end(_ours() - started.before)


def _end(pids: set[int]) -> None:
    me = os.getpid()
    for pid in sorted(pids):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for pid in sorted(pids):  # reap the direct children, so that none is left a zombie
        with contextlib.suppress(OSError):
            with open(f"{_PROC}/{pid}/stat", "rb") as f:
                stat = f.read()
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) == me:
                os.waitpid(pid, 0)
