"""Objects a scenario takes from the Python process that runs it, by name: what cannot live in a file.

The pytest plugin fills this in a fork of the pytest process, from its fixtures (`hookharness_hooks`,
`hookharness_hook_context`, `hookharness_agents`), before that fork serves as the Haystack engine's worker
(`hookharness._attached`). A worker the `hookharness` command starts itself has none: a scenario naming one then
errors, saying where it comes from.

- `custom: NAME` at a hook point is `HOOKS[NAME]` (a `@hook` function, a `FunctionHook`, a hook instance);
- `agent: {custom: NAME}` is `AGENTS[NAME]` (a haystack `Agent`, its chat generator replaced by the scenario's
  `model` and its tools scripted by name, as for `agent.python`);
- `HOOK_CONTEXT` joins the run's `hook_context` (its entries over the file's), by identity: a database client is
  the object itself, never a copy.
"""

from __future__ import annotations

import difflib
from typing import Any

HOOKS: dict[str, Any] = {}
AGENTS: dict[str, Any] = {}
HOOK_CONTEXT: dict[str, Any] = {}

# Where the objects come from, for messages.
_SOURCE = {
    "hooks": "your conftest.py's `hookharness_hooks` fixture (a dict: name -> hook)",
    "agents": "your conftest.py's `hookharness_agents` fixture (a dict: name -> Agent)",
}


def install(hooks: dict | None = None, agents: dict | None = None, hook_context: dict | None = None) -> None:
    """Makes these the objects scenarios take (replacing any given before)."""
    for name, given in (("hookharness_hooks", hooks), ("hookharness_agents", agents), ("hookharness_hook_context", hook_context)):
        if given is not None and not isinstance(given, dict):
            raise TypeError(f"the `{name}` fixture gave {type(given).__name__}; give a dict (name -> object)")
        for key in given or {}:
            if not isinstance(key, str):
                raise TypeError(f"the `{name}` fixture has the key {key!r}; give names (str) as keys")
    HOOKS.clear()
    HOOKS.update(hooks or {})
    AGENTS.clear()
    AGENTS.update(agents or {})
    HOOK_CONTEXT.clear()
    HOOK_CONTEXT.update(hook_context or {})


def _missing(kind: str, name: str, known: dict) -> str:
    have = ", ".join(f"`{n}`" for n in sorted(known)) or "nothing"
    close = difflib.get_close_matches(name, list(known), n=1)
    suggestion = f"; did you mean `{close[0]}`?" if close else f"; add `{name}` to it"
    return f"{_SOURCE[kind]} gives {have}, not `{name}`{suggestion}"


def _registered(registry: dict, kind: str, name: str, where: str, none_here: str) -> Any:
    """`registry[name]`; `LookupError` saying what to do when it is not there: `none_here` when this process
    registered nothing at all (no test handed it objects), else the names it has."""
    if name in registry:
        return registry[name]
    if not HOOKS and not AGENTS and not HOOK_CONTEXT:
        raise LookupError(f"`{where}` {none_here}")
    raise LookupError(f"`{where}`: {_missing(kind, name, registry)}")


def hook(name: str) -> Any:
    """The hook registered as `name`; `LookupError` with what to do when there is none."""
    return _registered(
        HOOKS,
        "hooks",
        name,
        f"custom: {name}",
        "is a hook your test registers, and none is registered here: a Rust test registers it on `Replay` "
        f"(`--engine rust`), a Python one through {_SOURCE['hooks']}, run by pytest; or name a Python hook with "
        '`python: "module:attribute"`',
    )


def agent(name: str) -> Any:
    """The Agent registered as `name`; `LookupError` with what to do when there is none."""
    return _registered(
        AGENTS,
        "agents",
        name,
        f"agent.custom: {name}",
        f"is an Agent your test registers, and none is registered here: run the scenario with pytest, through "
        f'{_SOURCE["agents"]}; or build it from a factory with `agent: {{python: "module:factory"}}`',
    )
