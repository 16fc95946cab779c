"""What user code prints or logs, captured per hook or tool call, never reaching the protocol stream.

At start the worker points fd 1 and fd 2 at one capture file, and `sys.stdout` / `sys.stderr` at a router; a
logging handler on the root logger does the same for log records. While a hook or a tool call runs, `call()` makes a
buffer current (a context variable: Haystack copies the context into the thread or task of each tool call, so
concurrent calls each see their own); the router and the handler append there. Bytes written to the file
descriptors directly (C code, a subprocess) are read back when the call ends and given to that call.

Output outside any hook or tool call (a factory, a module import) goes to the scenario's own buffer, `stray`.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator

_CURRENT: contextvars.ContextVar[list | None] = contextvars.ContextVar("hh_capture", default=None)
_FORMAT = logging.Formatter("%(levelname)s:%(name)s:%(message)s")


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


class Capture:
    """The worker's capture machinery, installed once (`install`), reused for every scenario."""

    def __init__(self) -> None:
        self.stray: list[str] = []
        self._lock = threading.Lock()
        self._file = None
        self._offset = 0

    def install(self) -> None:
        """Point fd 1 and fd 2, `sys.stdout`, `sys.stderr` and the root logger at the capture."""
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - open for the process's life
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
        if buffer is None:
            with self._lock:
                self.stray.append(text)
        else:
            buffer.append(text)

    def _drain_fds(self) -> str:
        """What was written to fd 1 / fd 2 since the last drain."""
        if self._file is None:
            return ""
        with self._lock:
            size = os.fstat(self._file.fileno()).st_size
            if size <= self._offset:
                return ""
            data = os.pread(self._file.fileno(), size - self._offset, self._offset)
            self._offset = size
        return data.decode("utf-8", errors="replace")

    @contextlib.contextmanager
    def call(self) -> Iterator[list]:
        """Make a fresh buffer current for one hook or tool call; its text is `"".join(buffer)` afterwards."""
        self._drain_fds_to_stray()
        buffer: list[str] = []
        token = _CURRENT.set(buffer)
        try:
            yield buffer
        finally:
            _CURRENT.reset(token)
            raw = self._drain_fds()
            if raw:
                buffer.append(raw)

    def _drain_fds_to_stray(self) -> None:
        raw = self._drain_fds()
        if raw:
            with self._lock:
                self.stray.append(raw)

    def start_scenario(self) -> None:
        if self._file is not None:
            self._point()
        self._drain_fds()
        with self._lock:
            self.stray = []
        if self._file is not None and self._offset > 1 << 24:  # keep the file small over a long session
            with self._lock:
                self._file.truncate(0)
                os.lseek(self._file.fileno(), 0, os.SEEK_SET)  # fd 1 and fd 2 share this offset
                self._offset = 0

    def end_scenario(self) -> str:
        self._drain_fds_to_stray()
        with self._lock:
            text, self.stray = "".join(self.stray), []
        return text
