"""Hostile hooks and tools: each tries to break the worker or the protocol, and must cost at most its scenario."""

import os
import subprocess
import sys
import threading
import time

from haystack.components.agents.state import State
from haystack.dataclasses import ChatMessage
from haystack.hooks import hook


@hook
def print_100mb(state: State) -> None:
    chunk = "x" * (1 << 20)
    for _ in range(100):
        sys.stdout.write(chunk)


@hook
def returns_value(state: State) -> int:
    return 42


class Custom(BaseException):
    pass


@hook
def raise_base_exception(state: State) -> None:
    raise Custom("not an Exception")


@hook
def raise_keyboard_interrupt(state: State) -> None:
    raise KeyboardInterrupt


@hook
def raise_system_exit(state: State) -> None:
    sys.exit(7)


@hook
def close_fd1(state: State) -> None:
    os.close(1)
    os.close(2)


@hook
def write_fd3(state: State) -> None:
    for fd in range(3, 10):
        try:
            os.write(fd, b"not a protocol line\n")
        except OSError:
            pass


@hook
def spawn_child(state: State) -> None:
    child = subprocess.Popen(["sleep", "3600"])
    with open(os.environ.get("HH_CHILD_PID_FILE", os.devnull), "w") as out:
        out.write(str(child.pid))


@hook
def recurse(state: State) -> None:
    def down(n: int) -> int:
        return down(n + 1) + 1

    down(0)


def _chatter() -> None:
    while True:
        print("still here")
        time.sleep(0.01)


@hook
def leave_thread(state: State) -> None:
    threading.Thread(target=_chatter, daemon=False).start()


@hook
def odd_text(state: State) -> None:
    print("naïve café ✓ 𝄞 \x00\x01\x1b[31mred\x1b[0m\r\n\ttab \u2028 end")


@hook
def lone_surrogate(state: State) -> None:
    print("bad \udcff text")
    os.write(1, b"raw \xff\xfe bytes\n")


_CONNECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("reached")
except OSError as e:
    print(f"unreachable: {e}")
"""


@hook
def subprocess_connect(state: State) -> None:
    """A subprocess (out of reach of the Python-level closure) connecting to the test's port on 127.0.0.1."""
    done = subprocess.run(
        [sys.executable, "-c", _CONNECT, os.environ["HH_PORT"]], capture_output=True, text=True, check=True
    )
    with open(os.environ["HH_NET_RESULT"], "w") as out:
        out.write(done.stdout.strip())


def _nested(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


@hook
def state_without_json_form(state: State) -> None:
    """Values Haystack keeps in State without complaint but JSON cannot hold as they are: the run must still pass,
    each value shown by a marker (no lost record, no RecursionError from the engine's own copy)."""
    cycle: list = [1]
    cycle.append(cycle)
    loop: dict = {}
    loop["self"] = loop
    state.set("floats", [float("nan"), float("inf"), -float("inf"), 0.5])
    state.set("ints", [10**5000, 2**64])
    state.set("cycles", [cycle, loop])
    state.set("deep", _nested(150))
    state.set("deeper", _nested(100_000))
    state.set("others", {(1, 2): {3, 4}, "raw": b"\x00"})
    meta = {"score": float("nan"), "seen": {"a"}, "deep": _nested(200)}
    state.set("messages", [ChatMessage.from_user("a note", meta=meta)])


def _write_fd_forever() -> None:
    while True:
        os.write(1, b"left behind\n")
        time.sleep(0.001)


@hook
def leave_fd_writer(state: State) -> None:
    """A thread that outlives its scenario writing to fd 1: none of it may reach another scenario's trace."""
    threading.Thread(target=_write_fd_forever, daemon=True).start()
