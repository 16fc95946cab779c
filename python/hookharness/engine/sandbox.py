"""What surrounds one scenario's run: `python_path`, the frozen clock and the closed network.

- `python_path` entries (relative to the scenario's folder) go first on `sys.path` for the scenario; the modules
  imported from them during the scenario are dropped from `sys.modules` afterwards, so the next scenario imports
  them afresh (module-level state does not leak from one scenario to the next; modules of installed packages, and
  anything imported before the scenario, are kept).
- `clock:` freezes the wall clock with time-machine (`datetime.now`/`utcnow`, `date.today`, `time.time`/`time_ns`).
  time-machine rather than freezegun: it patches the C-level clock functions once per travel, where freezegun walks
  every loaded module to swap references on each start (costly with Haystack imported) and misses `from time import
  time` bound before it started. Both install from PyPI into the reference venv; time-machine 3.6 is the one used.
- `random`'s shared generator (`random.random`, `choice`, `shuffle`, ...) starts each scenario from the state
  `random.seed(0)` gives, so code that draws from it prints and returns the same values run after run (and in
  every scenario of a command alike). Generators your code makes itself (`random.Random()` with no seed),
  `random.SystemRandom`, `secrets`, `os.urandom` and `uuid.uuid4` are the operating system's, not seeded.
- The network is closed: name lookups (`socket.getaddrinfo`, `gethostbyname`, `gethostbyname_ex`, `gethostbyaddr`),
  `socket.create_connection`, and `connect`/`connect_ex`/`sendto`/`sendmsg` of IP sockets raise `ScenarioAbort`
  naming the host and port (a BaseException, so an HTTP client's retry loop does not swallow it). asyncio's
  connections go through these (`loop.getaddrinfo`, `sock_connect`, datagram `sendto`), and so do urllib, http.client,
  requests and httpx. Unix-domain sockets and socket pairs stay open (asyncio's own plumbing). What this cannot
  reach (C code opening sockets itself, a subprocess) the worker's network namespace covers where the system gives
  one (docs/engines.md).
- Credentials are not handed on: the worker takes the variables that hold a model provider's or a cloud's
  credentials (`is_credential`: `OPENAI_API_KEY`, `HF_TOKEN`, `AWS_SECRET_ACCESS_KEY`, ...) out of its environment
  when it starts, so your code never reads a real key and a scenario's outcome does not depend on whether the shell
  that ran it had one; a Haystack `Secret` read from such a variable resolves to a placeholder (`scripted.py`).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import random
import socket
import sys
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from .errors import ScenarioAbort

_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))

# What names a credential variable: the endings model providers' and clouds' SDKs (and Haystack's integrations) read
# keys and tokens from, and the names that have no such ending.
_CREDENTIAL_ENDINGS = (
    "_API_KEY",
    "_API_TOKEN",
    "_ACCESS_TOKEN",
    "_ACCESS_KEY",
    "_ACCESS_KEY_ID",
    "_SECRET_KEY",
    "_SESSION_TOKEN",
    "_AD_TOKEN",
)
_CREDENTIAL_NAMES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS")


def is_credential(name: str) -> bool:
    """Whether an environment variable of this name holds a credential the worker does not hand on."""
    upper = name.upper()
    return upper in _CREDENTIAL_NAMES or upper.endswith(_CREDENTIAL_ENDINGS)


def hide_credentials() -> None:
    """Takes every credential variable out of this process's environment (and so out of what it starts)."""
    for name in [name for name in os.environ if is_credential(name)]:
        del os.environ[name]

_HOW_TO_SCRIPT = (
    "the network is closed while a scenario runs; script the call instead: a generator with "
    '`models: {NAME: {replies: [...], replaces: "module:Class"}}`, a tool with a `tools` entry of its name'
)


def caller() -> str:
    """The innermost frame of user code on the stack, as `file:line in function`; without one (a sub-agent's
    model, called by Haystack's own loop) the innermost frame outside this engine."""
    # The frames' code objects and lines, without reading any source line (`traceback.extract_stack` would).
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    for filename, lineno, name in frames:
        if is_user_file(filename):
            return f"{filename}:{lineno} in {name}"
    outside = [f for f in frames if not os.path.abspath(f[0]).startswith(_ENGINE_DIR)] or frames
    filename, lineno, name = outside[0]
    return f"{filename}:{lineno} in {name}"


def is_user_file(filename: str) -> bool:
    """A file of the user's code: not the standard library, an installed package or this engine."""
    if filename.startswith("<"):
        return False
    if filename.startswith(os.sep):  # `os.path.isabs` on the POSIX systems the worker runs on
        return _is_user_path(filename)
    return _is_user_path.__wrapped__(os.path.abspath(filename))  # relative to the working directory, which may change


@functools.lru_cache(maxsize=4096)
def _is_user_path(filename: str) -> bool:
    """`is_user_file` of an absolute path, remembered: a traceback through Haystack's loop has a dozen frames and
    more, and an error's text looks at each (`abspath` of each cost an error about 50 µs)."""
    path = os.path.normpath(filename)
    if path.startswith(_ENGINE_DIR):
        return False
    if "site-packages" in path or "dist-packages" in path:
        return False
    return not path.startswith(_STDLIB)


_STDLIB = os.path.dirname(os.__file__)


def _refuse(host, port) -> None:
    raise ScenarioAbort(f"network access to {host}:{port} attempted at {caller()}: {_HOW_TO_SCRIPT}")


def _address(address) -> tuple:
    if isinstance(address, tuple) and len(address) >= 2:
        return address[0], address[1]
    return address, None


_LOOKUPS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr")
_SOCKET_METHODS = ("connect", "connect_ex", "sendto", "sendmsg")


def _is_local(sock) -> bool:
    return sock.family == getattr(socket, "AF_UNIX", None)


def _sendmsg_address(args) -> tuple:
    # sendmsg(buffers[, ancdata[, flags[, address]]])
    return _address(args[3]) if len(args) > 3 else (None, None)


# The network's guards are put in place once, at the first scenario, and stay: each passes its call on to the function
# it replaced unless a scenario runs (`_CLOSED[0]`, a depth: `check` nests nothing, but nothing breaks if it does).
# A scenario only raises and lowers that count, where swapping ten functions in and out of `socket` cost a scenario
# about as much as its whole trace's JSON; on its way out it puts back any guard its code replaced, so what one
# scenario does to `socket` does not reach the next, as when each scenario restored the functions it found.
_CLOSED = [0]
_GUARDS: dict[tuple[Any, str], Any] = {}


def _install_guards() -> None:
    saved_lookups = {name: getattr(socket, name) for name in _LOOKUPS}
    saved_create = socket.create_connection
    saved_methods = {name: getattr(socket.socket, name) for name in _SOCKET_METHODS}
    closed = _CLOSED

    def getaddrinfo(host, port, *args, **kwargs):
        if not closed[0]:
            return saved_lookups["getaddrinfo"](host, port, *args, **kwargs)
        _refuse(host, port)

    def looking_up(name):
        original = saved_lookups[name]

        def lookup(host, *args, **kwargs):
            if not closed[0]:
                return original(host, *args, **kwargs)
            _refuse(host, None)

        return lookup

    def create_connection(address, *args, **kwargs):
        if not closed[0]:
            return saved_create(address, *args, **kwargs)
        _refuse(*_address(address))

    def connect(self, address):
        if not closed[0] or _is_local(self):
            return saved_methods["connect"](self, address)
        _refuse(*_address(address))

    def connect_ex(self, address):
        if not closed[0] or _is_local(self):
            return saved_methods["connect_ex"](self, address)
        _refuse(*_address(address))

    def sendto(self, data, *args):
        # sendto(data, address) or sendto(data, flags, address)
        if not closed[0] or _is_local(self) or not args:
            return saved_methods["sendto"](self, data, *args)
        _refuse(*_address(args[-1]))

    def sendmsg(self, buffers, *args):
        host, port = _sendmsg_address((buffers, *args)) if closed[0] else (None, None)
        if _is_local(self) or host is None:
            return saved_methods["sendmsg"](self, buffers, *args)
        _refuse(host, port)

    _GUARDS[(socket, "getaddrinfo")] = getaddrinfo
    for name in _LOOKUPS[1:]:
        _GUARDS[(socket, name)] = looking_up(name)
    _GUARDS[(socket, "create_connection")] = create_connection
    for name, function in (("connect", connect), ("connect_ex", connect_ex), ("sendto", sendto), ("sendmsg", sendmsg)):
        _GUARDS[(socket.socket, name)] = function
    _put_back_guards()


def _put_back_guards() -> None:
    for (owner, name), guard in _GUARDS.items():
        if getattr(owner, name) is not guard:
            setattr(owner, name, guard)


@contextlib.contextmanager
def closed_network() -> Iterator[None]:
    if not _GUARDS:
        _install_guards()
    else:
        _put_back_guards()
    _CLOSED[0] += 1
    try:
        yield
    finally:
        _CLOSED[0] -= 1
        _put_back_guards()


# The state `random.seed(0)` leaves, taken once: `setstate` of it costs what `seed(0)` does, and touches no other
# generator than the module's shared one.
_SEEDED = random.Random(0).getstate()


def seeded_random() -> None:
    """Start `random`'s shared generator from the state of `random.seed(0)` (the next scenario starts it again)."""
    random.setstate(_SEEDED)


@contextlib.contextmanager
def frozen_clock(clock: str | None) -> Iterator[None]:
    if clock is None:
        yield
        return
    try:
        import time_machine  # the engine's dependency for `clock:`; see the module docstring for why this one
    except ImportError as e:
        raise ScenarioAbort(
            f"`clock:` needs the time-machine package, which {sys.executable} cannot import ({e}); install it with "
            f"`{sys.executable} -m pip install time-machine`"
        ) from e

    moment = datetime.fromisoformat(clock)
    with time_machine.travel(moment, tick=False):
        yield


@contextlib.contextmanager
def python_path(entries: list[str], folder: str) -> Iterator[list[str]]:
    """Put the scenario's `python_path` first on `sys.path`; forget the modules imported from it afterwards."""
    if not entries:  # nothing put on the path, no module of it to forget; `sys.path` itself is still restored
        saved = list(sys.path)
        try:
            yield []
        finally:
            sys.path[:] = saved
        return
    paths, roots = _entries(folder, tuple(entries))
    # `sys.modules` is a dict: the modules imported during the scenario come after the ones already there.
    before = len(sys.modules)
    saved = list(sys.path)
    sys.path[:0] = paths
    try:
        yield list(paths)
    finally:
        sys.path[:] = saved
        # The last `len - before` names, read from the end: skipping the `before` names in front of them (Haystack's
        # thousand modules and more) cost every scenario more than all the rest of this; the same names, in order.
        added = list(itertools.islice(reversed(sys.modules), max(len(sys.modules) - before, 0)))
        added.reverse()
        for name in added:
            module = sys.modules.get(name)
            file = getattr(module, "__file__", None) or ""
            if name.split(".")[0] == "hookharness" or not file:
                continue
            if os.path.abspath(file).startswith(roots) and is_user_file(file):
                del sys.modules[name]


@functools.lru_cache(maxsize=1024)
def _entries(folder: str, entries: tuple[str, ...]) -> tuple[list[str], tuple[str, ...]]:
    """A `python_path`'s folders (its entries relative to the scenario's folder), and each as the start of a path:
    the same for every scenario of a folder, so worked out once (about a fifth of what `python_path` cost)."""
    paths = [os.path.normpath(os.path.join(folder, entry)) for entry in entries]
    return paths, tuple(os.path.join(p, "") for p in paths)
