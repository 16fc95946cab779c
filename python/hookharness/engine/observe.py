"""Where the trace is observed in Haystack 3.4.1, for one run of the main agent.

Recording never changes the run: no hook is added, no return value altered. Each event is taken where Haystack does
the thing, by wrapping the function it calls there (module globals, looked up at call time) for one run:

| event | where |
|---|---|
| `run_started` | the main agent's first `_run_hooks` call (before_run): State is initialised |
| `hook_started` / `hook_finished` | `haystack.hooks.invocation._create_hook_span`, the span Haystack opens around each hook call (on both paths; the index counts the calls of one `_run_hooks`) |
| `llm_*` | the scripted generators (`scripted.answer`) |
| `tool_finished` | `tool_calling._create_tool_span`, the span around each tool invocation (its `haystack.tool.error` tag is the error flag); buffered and flushed in call order when the step's `_run_tool` returns |
| `tools_finished` | after `agent._record_tool_calls` (the tool messages are appended and counted) |
| `exit` | the agent instance's `_continue_after_exit_hooks[_async]`, after it returns |
| `stopped` | after the before_llm `_run_hooks`, when `stop_run` is set |
| `max_steps_reached` | before the after_run hooks, when the loop's last `_run_step` did not end it |
| `run_finished` | after `Agent.run` returns (`run.py`) |

Only the main agent is recorded: calls for another agent (an `AgentTool` sub-agent, an agent a hook runs) are told
apart by their `hooks` dict and `State` and pass through unrecorded (their output goes to the enclosing call).

Scripted tool results are reserved in `tool_calling._schedule_tool_calls`, which Haystack calls once per step with
every resolved call before any runs: an exhausted script fails the step before a call executes, and results go to
calls in call order whatever the thread timing; the tool span hands each call its reservation (a context variable,
which Haystack copies into the call's thread or task).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from haystack.components.agents import agent as agent_module
from haystack.components.agents import tool_calling
from haystack.hooks import invocation

from .capture import Capture
from .errors import ScenarioRunError
from .recorder import TOOL_EVENTS, Failure, Recorder
from .scripted import ToolScript
from .user_code import error_text, hook_name

# The Haystack functions `observed` wraps, as (module, name): the worker's handshake refuses a haystack-ai that lacks
# one (haystack-ai 3.0.0 has no `_create_hook_span`), so no scenario fails on it one by one.
OBSERVED = (
    ("haystack.components.agents.agent", "_run_hooks"),
    ("haystack.components.agents.agent", "_run_hooks_async"),
    ("haystack.components.agents.agent", "_run_tool"),
    ("haystack.components.agents.agent", "_run_tool_async"),
    ("haystack.components.agents.agent", "_record_tool_calls"),
    ("haystack.hooks.invocation", "_create_hook_span"),
    ("haystack.components.agents.tool_calling", "_create_tool_span"),
    ("haystack.components.agents.tool_calling", "_schedule_tool_calls"),
)


@dataclass
class _PointCall:
    point: str
    names: list
    state: Any
    next: int = 0


@dataclass
class Assignment:
    """The scripted result reserved for one call."""

    result: tuple


@dataclass
class _Batch:
    """The pending calls of one step of the main agent, and the scripted results reserved for them."""

    calls: list
    step: dict  # `{"step": VALUE}`: `step_count` when the step's tools are dispatched, or `{}` when State has none
    assignments: dict = field(default_factory=dict)  # id(ToolCall) -> Assignment

    def position(self, call) -> int | None:
        for i, pending in enumerate(self.calls):
            if pending is call:
                return i
        return None


_POINT: contextvars.ContextVar[_PointCall | None] = contextvars.ContextVar("hh_point", default=None)
_BATCH: contextvars.ContextVar[_Batch | None] = contextvars.ContextVar("hh_batch", default=None)
_ASSIGNMENT: contextvars.ContextVar[Assignment | None] = contextvars.ContextVar("hh_assignment", default=None)


def current_assignment() -> Assignment | None:
    return _ASSIGNMENT.get()


class _ErrorTag:
    """The tool span, passed through; remembers whether Haystack marked the call failed: the `haystack.tool.error`
    tag (3.4), or (older versions, which set no such tag) the output tag `{"error": TEXT}` of its failure branch. A
    step that returns its tool messages corrects this from them (`errors_of`); the tag matters for a call whose
    failure raised out of the step (`raise_on_tool_invocation_failure`)."""

    def __init__(self, span: Any) -> None:
        self._span = span
        self.error = False

    def set_tag(self, key: str, value: Any) -> None:
        if key == "haystack.tool.error" and value:
            self.error = True
        self._span.set_tag(key, value)

    def set_content_tag(self, key: str, value: Any) -> None:
        if key == "haystack.agent.step.tool.output" and isinstance(value, dict) and list(value) == ["error"]:
            self.error = True
        self._span.set_content_tag(key, value)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._span, name)


def _reserve(batch: _Batch, tool_calls: list, scripts: dict[str, ToolScript]) -> None:
    wanted: dict[str, int] = {}
    for call in tool_calls:
        if call.tool_name in scripts:
            wanted[call.tool_name] = wanted.get(call.tool_name, 0) + 1
    for name, count in wanted.items():
        script = scripts[name]
        total = script.consumed + count
        if total > len(script.results) and not (script.repeat_last and script.results):
            raise ScenarioRunError(
                f"tool `{name}` was called {total} times; the scenario scripts {len(script.results)} results; "
                "add results to the tool's `results`, or set `repeat_last: true`",
                "tool",
            )
    for call in tool_calls:
        script = scripts.get(call.tool_name)
        if script is None:
            continue
        index = min(script.consumed, len(script.results) - 1)
        script.consumed += 1
        batch.assignments[id(call)] = Assignment(result=script.results[index])


class _Run:
    """One run's observation: what the observers record into and the functions they stand in for."""

    __slots__ = ("capture", "exit_async", "exit_sync", "names", "originals", "recorder", "step_async", "step_sync", "tool_scripts")


# The observers are made once, as module functions, and read the run they observe from here (`observed` sets it): a
# scenario only swaps them in and out, where making them anew for each run (a dozen closures) cost it about as much as
# the swapping. After a run this holds an idle one (`_idle`), which holds nothing of the scenario (its hooks, its
# State), as the closures of a finished run held nothing once it ended, and through which an observer called after
# its run (kept by code that outlived its scenario) passes the call on, recording nothing.
_NOW: list = [None]


class _Nobody:
    """The recorder of no run: no agent's hooks and no State are its own."""

    hooks = state = object()


_NOBODY = _Nobody()


def _idle(originals: list) -> _Run:
    run = _Run()
    run.recorder = _NOBODY
    run.capture = None
    run.names = {}
    run.tool_scripts = {}
    run.originals = originals
    return run


def _enter_point(run: _Run, hooks, hook_point, state):
    recorder = run.recorder
    if hooks is not recorder.hooks:
        return _POINT.set(None)
    if recorder.state is None:
        recorder.state = state
        recorder.run_started(state)
    if hook_point == "after_run" and recorder.last_step is not False:
        recorder.max_steps_reached()
    return _POINT.set(_PointCall(hook_point, run.names.get(hook_point, []), state))


def _leave_point(run: _Run, token, hooks, hook_point, state):
    _POINT.reset(token)
    recorder = run.recorder
    if hooks is recorder.hooks and hook_point == "before_llm":
        reason = state.data.get("stop_run")
        if reason is not None:
            recorder.stopped(reason)


def _patched_run_hooks(*, hooks, hook_point, state):
    run = _NOW[0]
    token = _enter_point(run, hooks, hook_point, state)
    try:
        run.originals[0](hooks=hooks, hook_point=hook_point, state=state)
    except BaseException:
        _POINT.reset(token)
        raise
    _leave_point(run, token, hooks, hook_point, state)


async def _patched_run_hooks_async(*, hooks, hook_point, state):
    run = _NOW[0]
    token = _enter_point(run, hooks, hook_point, state)
    try:
        await run.originals[1](hooks=hooks, hook_point=hook_point, state=state)
    except BaseException:
        _POINT.reset(token)
        raise
    _leave_point(run, token, hooks, hook_point, state)


@contextlib.contextmanager
def _hook_call(run: _Run, inner, call: _PointCall, index: int, name: str):
    recorder = run.recorder
    state = call.state
    before = recorder.hook_started(call.point, index, name, state)
    failure: BaseException | None = None
    buffer = None
    with inner as span:
        try:
            with run.capture.call() as buffer:
                yield span
        except BaseException as exception:
            failure = exception
            raise
        finally:
            text = error_text(failure) if failure is not None else None
            recorder.hook_finished(call.point, index, name, state, text, before, "" if buffer is None else buffer.text())
            if failure is not None and recorder.failure is None:
                recorder.failure = Failure(
                    failure, "hook", {"hook": name, "point": call.point, "step": recorder.step_number()}
                )


def _patched_create_hook_span(hook, hook_point, parent_span):
    run = _NOW[0]
    inner = run.originals[5](hook=hook, hook_point=hook_point, parent_span=parent_span)
    call = _POINT.get()
    if call is None:
        return inner
    index = call.next
    call.next += 1
    name = call.names[index] if index < len(call.names) else hook_name(hook)
    return _hook_call(run, inner, call, index, name)


def _enter_tools(run: _Run, state, messages):
    if state is not run.recorder.state:
        return _BATCH.set(None), False
    calls = [c for m in messages for c in m.tool_calls]
    # The calls are reported at the step they ran in: what a tool merges into `step_count` shows from the next
    # event on, never in its own batch's tool events (which threads race to read).
    return _BATCH.set(_Batch(calls, run.recorder.step_field())), True


def _errors_of(batch: _Batch | None, returned) -> dict[int, bool] | None:
    """Which calls failed, from the tool messages the step returned (a result's `origin` is its call)."""
    if batch is None or returned is None:
        return None
    errors = {}
    for message in returned[0]:
        result = message.tool_call_result
        position = batch.position(result.origin) if result is not None else None
        if position is not None:
            errors[position] = bool(result.error)
    return errors


def _patched_run_tool(**kwargs):
    run = _NOW[0]
    token, main = _enter_tools(run, kwargs["state"], kwargs["messages"])
    batch, returned = _BATCH.get(), None
    try:
        returned = run.originals[2](**kwargs)
        return returned
    finally:
        _BATCH.reset(token)
        if main:
            run.recorder.flush_tools(batch.step, _errors_of(batch, returned))


async def _patched_run_tool_async(**kwargs):
    run = _NOW[0]
    token, main = _enter_tools(run, kwargs["state"], kwargs["messages"])
    batch, returned = _BATCH.get(), None
    try:
        returned = await run.originals[3](**kwargs)
        return returned
    finally:
        _BATCH.reset(token)
        if main:
            run.recorder.flush_tools(batch.step, _errors_of(batch, returned))


def _patched_schedule(tool_calls, tools):
    run = _NOW[0]
    batch = _BATCH.get()
    if batch is not None:
        _reserve(batch, tool_calls, run.tool_scripts)
    return run.originals[7](tool_calls, tools)


@contextlib.contextmanager
def _tool_call(run: _Run, inner, position: int, call, assignment):
    raised = False
    buffer = None
    events: list = []
    with inner as span:
        tag = _ErrorTag(span)
        token = _ASSIGNMENT.set(assignment)
        events_token = TOOL_EVENTS.set(events)
        try:
            with run.capture.call() as buffer:
                yield tag
        except BaseException:
            raised = True
            raise
        finally:
            TOOL_EVENTS.reset(events_token)
            _ASSIGNMENT.reset(token)
            run.recorder.tool_finished(position, call, tag.error or raised, "" if buffer is None else buffer.text(), events)


def _patched_create_tool_span(tool, tool_call_, parent_span):
    run = _NOW[0]
    inner = run.originals[6](tool, tool_call_, parent_span)
    batch = _BATCH.get()
    position = batch.position(tool_call_) if batch is not None else None
    if position is None:
        return inner
    return _tool_call(run, inner, position, tool_call_, batch.assignments.get(id(tool_call_)))


def _patched_record_tool_calls(*, state, tool_messages):
    run = _NOW[0]
    run.originals[4](state=state, tool_messages=tool_messages)
    if state is run.recorder.state:
        run.recorder.tools_finished()


def _patched_exit(run: _Run, *, exe_context):
    decision = run.exit_sync(exe_context=exe_context)
    run.recorder.exit(decision)
    return decision


async def _patched_exit_async(run: _Run, *, exe_context):
    decision = await run.exit_async(exe_context=exe_context)
    run.recorder.exit(decision)
    return decision


def _patched_step(run: _Run, *, exe_context, agent_span):
    recorder = run.recorder
    recorder.exe_context = exe_context
    recorder.last_step = bool(run.step_sync(exe_context=exe_context, agent_span=agent_span))
    return recorder.last_step


async def _patched_step_async(run: _Run, *, exe_context, agent_span):
    recorder = run.recorder
    recorder.exe_context = exe_context
    recorder.last_step = bool(await run.step_async(exe_context=exe_context, agent_span=agent_span))
    return recorder.last_step


# Where each observer goes, in the order of `_Run.originals`.
_SLOTS = (
    (agent_module, "_run_hooks", _patched_run_hooks),
    (agent_module, "_run_hooks_async", _patched_run_hooks_async),
    (agent_module, "_run_tool", _patched_run_tool),
    (agent_module, "_run_tool_async", _patched_run_tool_async),
    (agent_module, "_record_tool_calls", _patched_record_tool_calls),
    (invocation, "_create_hook_span", _patched_create_hook_span),
    (tool_calling, "_create_tool_span", _patched_create_tool_span),
    (tool_calling, "_schedule_tool_calls", _patched_schedule),
)


@contextlib.contextmanager
def observed(
    agent: Any,
    recorder: Recorder,
    capture: Capture,
    names: dict[str, list[str]],
    tool_scripts: dict[str, ToolScript],
) -> Iterator[None]:
    """Install the observers for one run of `agent`; everything is restored on exit."""
    recorder.hooks = agent.hooks
    run = _Run()
    run.recorder = recorder
    run.capture = capture
    run.names = names
    run.tool_scripts = tool_scripts
    # What each observer stands in for: what is there now (the function it wraps, for this run), put back on exit.
    run.originals = originals = [getattr(module, attr) for module, attr, _ in _SLOTS]
    run.exit_sync = agent._continue_after_exit_hooks
    run.exit_async = agent._continue_after_exit_hooks_async
    run.step_sync = agent._run_step
    run.step_async = agent._run_step_async
    _NOW[0] = run
    for module, attr, observer in _SLOTS:
        setattr(module, attr, observer)
    # The agent's own: bound to this run, and gone with the attributes on the way out.
    agent._continue_after_exit_hooks = functools.partial(_patched_exit, run)
    agent._continue_after_exit_hooks_async = functools.partial(_patched_exit_async, run)
    agent._run_step = functools.partial(_patched_step, run)
    agent._run_step_async = functools.partial(_patched_step_async, run)
    try:
        yield
    finally:
        for (module, attr, _), original in zip(_SLOTS, originals):
            setattr(module, attr, original)
        _NOW[0] = _idle(originals)
        for attr in ("_continue_after_exit_hooks", "_continue_after_exit_hooks_async", "_run_step", "_run_step_async"):
            agent.__dict__.pop(attr, None)
