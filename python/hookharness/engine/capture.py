"""What user code prints or logs, captured per hook or tool call, never reaching the protocol stream.

At start the worker points fd 1 and fd 2 at one capture file, and `sys.stdout` / `sys.stderr` at a router; a
logging handler on the root logger does the same for log records. While a hook or a tool call runs, `call()` makes a
buffer current (a context variable: Haystack copies the context into the thread or task of each tool call, so
concurrent calls each see their own); the router and the handler append there. Bytes written to the file
descriptors directly (C code, a subprocess) are read back when the call ends and given to that call.

Output outside any hook or tool call (a factory, a module import) goes to the scenario's own buffer, `stray`.

Each buffer keeps at most `limit` characters (`HOOKHARNESS_OUTPUT_LIMIT`, default `DEFAULT_LIMIT`): past that the
text is dropped and the buffer ends in `cut_marker(limit)`, so a call printing 100 MB costs a bounded amount of
memory here and in the record the Rust side reads (bytes written to the file descriptors are read back only up to
the limit; the capture file itself is on disk and emptied between scenarios).
"""

from __future__ import annotations

import contextvars
import io
import logging
import os
import sys
import tempfile
import threading

_FORMAT = logging.Formatter("%(levelname)s:%(name)s:%(message)s")

# The characters one hook or tool call (or the scenario, outside any call) may leave in the trace.
DEFAULT_LIMIT = 1 << 20
LIMIT_ENV = "HOOKHARNESS_OUTPUT_LIMIT"


def cut_marker(limit: int) -> str:
    """What ends a buffer whose text went past `limit` characters."""
    return f"\n[hookharness: output cut at {limit} characters; set {LIMIT_ENV} to keep more]\n"


def limit_from_env() -> int:
    """`HOOKHARNESS_OUTPUT_LIMIT` as a number of characters (a positive integer), else `DEFAULT_LIMIT`; any other
    value is refused naming the variable, so that a typo does not silently keep the default."""
    raw = os.environ.get(LIMIT_ENV, "").strip()
    if not raw:
        return DEFAULT_LIMIT
    if not (raw.isascii() and raw.isdigit()) or int(raw) == 0:  # `"²".isdigit()` holds, `int("²")` fails
        raise ValueError(f"{LIMIT_ENV}={raw!r}: expected a positive number of characters, e.g. {DEFAULT_LIMIT}")
    return int(raw)


class Buffer:
    """The output of one call: its text up to `limit` characters, then the cut marker."""

    __slots__ = ("_lock", "_parts", "cut", "limit", "room")

    def __init__(self, limit: int) -> None:
        self._parts: list[str] = []
        self._lock = threading.Lock()  # the threads a call starts may print at once
        self.limit = limit
        self.room = limit
        self.cut = False

    def append(self, text: str) -> None:
        with self._lock:
            if self.cut or not text:
                return
            if len(text) > self.room:
                text = text[: self.room]
                self.cut = True
            self.room -= len(text)
            if text:
                self._parts.append(text)

    def text(self) -> str:
        with self._lock:
            joined = "".join(self._parts)
            return joined + cut_marker(self.limit) if self.cut else joined


_CURRENT: contextvars.ContextVar[Buffer | None] = contextvars.ContextVar("hh_capture", default=None)


class _Router(io.TextIOBase):
    """`sys.stdout` / `sys.stderr`: text goes to the current call's buffer, else to the scenario's."""

    def __init__(self, capture: Capture, name: str) -> None:
        self._capture = capture
        self._name = name

    @property
    def name(self) -> str:  # some libraries read it
        return self._name

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        self._capture.append(str(text))
        return len(text)

    def flush(self) -> None:
        pass


class _Handler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = _FORMAT.format(record)
        except (TypeError, ValueError, KeyError):  # a record whose arguments do not format: keep the template
            text = f"{record.levelname}:{record.name}:{record.msg}"
        self.capture.append(text + "\n")

    capture: Capture


# The lowest descriptor the capture file may take (the worker's own channels take the first ones from here on).
_HIGH_FDS = 200


def _high(file):
    """`file` (a binary temporary file) on a descriptor far above those a program uses, close-on-exec: code that
    closes or reuses descriptors 3, 4, ... (the next free ones, where the file would be) cannot take the capture,
    and with it the output of every scenario after it, away. `file` itself where no such descriptor is to be had."""
    try:
        import fcntl

        fd = fcntl.fcntl(file.fileno(), fcntl.F_DUPFD_CLOEXEC, _HIGH_FDS)
    except (ImportError, OSError):  # no fcntl (Windows), or a descriptor limit below it
        return file
    file.close()
    return os.fdopen(fd, "w+b")


class Capture:
    """The worker's capture machinery, installed once (`install`), reused for every scenario."""

    def __init__(self, limit: int | None = None) -> None:
        """`limit`: the characters a call's buffer keeps (`None`: `HOOKHARNESS_OUTPUT_LIMIT`, else the default)."""
        self.limit = limit_from_env() if limit is None else limit
        self.stray = Buffer(limit)
        self._lock = threading.Lock()
        self._file = None
        self._offset = 0

    def install(self) -> None:
        """Point fd 1 and fd 2, `sys.stdout`, `sys.stderr` and the root logger at the capture."""
        self._file = _high(tempfile.TemporaryFile())  # noqa: SIM115 - open for the process's life
        self._stdout = _Router(self, "<stdout>")
        self._stderr = _Router(self, "<stderr>")
        self._handler = _Handler()
        self._handler.capture = self
        self._point()

    def _point(self) -> None:
        """(Again) point fd 1, fd 2, `sys.stdout`, `sys.stderr` and the root logger here: a scenario's code may have
        closed or replaced any of them, and the next scenario's output must still be captured."""
        os.dup2(self._file.fileno(), 1)
        os.dup2(self._file.fileno(), 2)
        sys.stdout = self._stdout
        sys.stderr = self._stderr
        root = logging.getLogger()
        if self._handler not in root.handlers:
            root.addHandler(self._handler)

    def append(self, text: str) -> None:
        buffer = _CURRENT.get()
        (self.stray if buffer is None else buffer).append(text)

    def _drain_fds(self, room: int) -> str:
        """What was written to fd 1 / fd 2 since the last drain, read up to `room` characters (UTF-8 takes at
        most 4 bytes a character, so 4 * room + 1 bytes hold them and show whether more was written)."""
        if self._file is None:
            return ""
        with self._lock:
            size = os.fstat(self._file.fileno()).st_size
            if size <= self._offset:
                return ""
            data = os.pread(self._file.fileno(), min(size - self._offset, 4 * room + 1), self._offset)
            self._offset = size
        return data.decode("utf-8", errors="replace")

    def call(self) -> _Call:
        """Make a fresh buffer current for one hook or tool call (`with capture.call() as buffer:`); its text is
        `buffer.text()` afterwards."""
        return _Call(self)

    def _drain_fds_to_stray(self) -> None:
        self.stray.append(self._drain_fds(self.stray.room))

    def start_scenario(self) -> None:
        if self._file is not None:
            self._point()
        self._drain_fds(0)
        self.stray = Buffer(self.limit)
        if self._file is not None and self._offset > 1 << 24:  # keep the file small over a long session
            with self._lock:
                self._file.truncate(0)
                os.lseek(self._file.fileno(), 0, os.SEEK_SET)  # fd 1 and fd 2 share this offset
                self._offset = 0

    def end_scenario(self) -> str:
        self._drain_fds_to_stray()
        text, self.stray = self.stray.text(), Buffer(self.limit)
        return text


class _Call:
    """One hook or tool call's capture (`Capture.call`): a class rather than a generator, which costs a call about
    a microsecond more on its way in and out, around every hook and tool call of every scenario."""

    __slots__ = ("_buffer", "_capture", "_token")

    def __init__(self, capture: Capture) -> None:
        self._capture = capture

    def __enter__(self) -> Buffer:
        capture = self._capture
        capture._drain_fds_to_stray()
        self._buffer = Buffer(capture.limit)
        self._token = _CURRENT.set(self._buffer)
        return self._buffer

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)
        self._buffer.append(self._capture._drain_fds(self._buffer.room))
