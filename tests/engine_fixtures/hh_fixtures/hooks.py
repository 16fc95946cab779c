"""One misbehaving hook per failure the Haystack engine must contain to its own scenario."""

import os
import socket
import subprocess
import time
import urllib.request

from haystack.components.agents.state import State
from haystack.dataclasses import ChatMessage
from haystack.hooks import hook


@hook
def well_behaved(state: State) -> None:
    assert state.get("messages")


@hook
def hang(state: State) -> None:
    time.sleep(3600)


@hook
def nap(state: State) -> None:
    time.sleep(1.2)


@hook
def crash(state: State) -> None:
    os._exit(3)


@hook
def shout(state: State) -> None:
    print("hello from a hook")
    print("second line", flush=True)


def _fail(reason: str) -> None:
    raise ValueError(f"the hook broke: {reason}")


@hook
def boom(state: State) -> None:
    _fail("no budget left")


@hook
def judge_unscripted(state: State) -> None:
    # Imported here, not with the module: the OpenAI client's import doubles the module's, and the scenarios
    # that run beside a hung hook (after its worker was killed) have only their `--timeout` for it.
    from haystack.components.generators.chat import OpenAIChatGenerator

    judge = OpenAIChatGenerator(model="gpt-4o-mini")
    judge.run(messages=[ChatMessage.from_user("grade this")])


@hook
def connect_ip(state: State) -> None:
    socket.create_connection(("10.255.255.1", 8081), timeout=1)


@hook
def connect_raw_socket(state: State) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        s.connect(("10.255.255.1", 8082))


@hook
def fetch_hostname(state: State) -> None:
    urllib.request.urlopen("http://api.example.com:8443/v1/grade", timeout=1)


@hook
def shout_fd(state: State) -> None:
    os.write(1, b"straight to fd 1\n")
    subprocess.run(["echo", "from a child process"], check=True)


class CountCalls:
    """A hook class taking one keyword argument (`check_bad_kwarg.yaml` gives it another)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def run(self, state: State) -> None:
        self.limit -= 1


class ToolsOnly:
    """A hook Haystack allows only at `before_tool` (`check_not_allowed.yaml` registers it at `before_llm`)."""

    allowed_hook_points = ("before_tool",)

    def run(self, state: State) -> None:
        return None


def broken_agent(topic: str):
    """An agent factory that raises before it builds anything (`check_factory_raises.yaml`)."""
    raise RuntimeError(f"no index configured for {topic}")
