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
    originals = {
        (agent_module, "_run_hooks"): agent_module._run_hooks,
        (agent_module, "_run_hooks_async"): agent_module._run_hooks_async,
        (agent_module, "_run_tool"): agent_module._run_tool,
        (agent_module, "_run_tool_async"): agent_module._run_tool_async,
        (agent_module, "_record_tool_calls"): agent_module._record_tool_calls,
        (invocation, "_create_hook_span"): invocation._create_hook_span,
        (tool_calling, "_create_tool_span"): tool_calling._create_tool_span,
        (tool_calling, "_schedule_tool_calls"): tool_calling._schedule_tool_calls,
    }
    run_hooks = agent_module._run_hooks
    run_hooks_async = agent_module._run_hooks_async
    run_tool = agent_module._run_tool
    run_tool_async = agent_module._run_tool_async
    record_tool_calls = agent_module._record_tool_calls
    create_hook_span = invocation._create_hook_span
    create_tool_span = tool_calling._create_tool_span
    schedule = tool_calling._schedule_tool_calls

    def enter_point(hooks, hook_point, state):
        if hooks is not recorder.hooks:
            return _POINT.set(None)
        if recorder.state is None:
            recorder.state = state
            recorder.run_started(state)
        if hook_point == "after_run" and recorder.last_step is not False:
            recorder.max_steps_reached()
        return _POINT.set(_PointCall(hook_point, names.get(hook_point, []), state))

    def leave_point(token, hooks, hook_point, state):
        _POINT.reset(token)
        if hooks is recorder.hooks and hook_point == "before_llm":
            reason = state.data.get("stop_run")
            if reason is not None:
                recorder.stopped(reason)

    def patched_run_hooks(*, hooks, hook_point, state):
        token = enter_point(hooks, hook_point, state)
        try:
            run_hooks(hooks=hooks, hook_point=hook_point, state=state)
        except BaseException:
            _POINT.reset(token)
            raise
        leave_point(token, hooks, hook_point, state)

    async def patched_run_hooks_async(*, hooks, hook_point, state):
        token = enter_point(hooks, hook_point, state)
        try:
            await run_hooks_async(hooks=hooks, hook_point=hook_point, state=state)
        except BaseException:
            _POINT.reset(token)
            raise
        leave_point(token, hooks, hook_point, state)

    @contextlib.contextmanager
    def hook_call(inner, call: _PointCall, index: int, name: str):
        state = call.state
        before = recorder.hook_started(call.point, index, name, state)
        failure: BaseException | None = None
        buffer = None
        with inner as span:
            try:
                with capture.call() as buffer:
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

    def patched_create_hook_span(hook, hook_point, parent_span):
        inner = create_hook_span(hook=hook, hook_point=hook_point, parent_span=parent_span)
        call = _POINT.get()
        if call is None:
            return inner
        index = call.next
        call.next += 1
        name = call.names[index] if index < len(call.names) else hook_name(hook)
        return hook_call(inner, call, index, name)

    def enter_tools(state, messages):
        if state is not recorder.state:
            return _BATCH.set(None), False
        calls = [c for m in messages for c in m.tool_calls]
        # The calls are reported at the step they ran in: what a tool merges into `step_count` shows from the next
        # event on, never in its own batch's tool events (which threads race to read).
        return _BATCH.set(_Batch(calls, recorder.step_field())), True

    def errors_of(batch: _Batch | None, returned) -> dict[int, bool] | None:
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

    def patched_run_tool(**kwargs):
        token, main = enter_tools(kwargs["state"], kwargs["messages"])
        batch, returned = _BATCH.get(), None
        try:
            returned = run_tool(**kwargs)
            return returned
        finally:
            _BATCH.reset(token)
            if main:
                recorder.flush_tools(batch.step, errors_of(batch, returned))

    async def patched_run_tool_async(**kwargs):
        token, main = enter_tools(kwargs["state"], kwargs["messages"])
        batch, returned = _BATCH.get(), None
        try:
            returned = await run_tool_async(**kwargs)
            return returned
        finally:
            _BATCH.reset(token)
            if main:
                recorder.flush_tools(batch.step, errors_of(batch, returned))

    def patched_schedule(tool_calls, tools):
        batch = _BATCH.get()
        if batch is not None:
            _reserve(batch, tool_calls, tool_scripts)
        return schedule(tool_calls, tools)

    @contextlib.contextmanager
    def tool_call(inner, position: int, call, assignment):
        raised = False
        buffer = None
        events: list = []
        with inner as span:
            tag = _ErrorTag(span)
            token = _ASSIGNMENT.set(assignment)
            events_token = TOOL_EVENTS.set(events)
            try:
                with capture.call() as buffer:
                    yield tag
            except BaseException:
                raised = True
                raise
            finally:
                TOOL_EVENTS.reset(events_token)
                _ASSIGNMENT.reset(token)
                recorder.tool_finished(position, call, tag.error or raised, "" if buffer is None else buffer.text(), events)

    def patched_create_tool_span(tool, tool_call_, parent_span):
        inner = create_tool_span(tool, tool_call_, parent_span)
        batch = _BATCH.get()
        position = batch.position(tool_call_) if batch is not None else None
        if position is None:
            return inner
        return tool_call(inner, position, tool_call_, batch.assignments.get(id(tool_call_)))

    def patched_record_tool_calls(*, state, tool_messages):
        record_tool_calls(state=state, tool_messages=tool_messages)
        if state is recorder.state:
            recorder.tools_finished()

    exit_sync = agent._continue_after_exit_hooks
    exit_async = agent._continue_after_exit_hooks_async
    step_sync = agent._run_step
    step_async = agent._run_step_async

    def patched_exit(*, exe_context):
        decision = exit_sync(exe_context=exe_context)
        recorder.exit(decision)
        return decision

    async def patched_exit_async(*, exe_context):
        decision = await exit_async(exe_context=exe_context)
        recorder.exit(decision)
        return decision

    def patched_step(*, exe_context, agent_span):
        recorder.exe_context = exe_context
        recorder.last_step = bool(step_sync(exe_context=exe_context, agent_span=agent_span))
        return recorder.last_step

    async def patched_step_async(*, exe_context, agent_span):
        recorder.exe_context = exe_context
        recorder.last_step = bool(await step_async(exe_context=exe_context, agent_span=agent_span))
        return recorder.last_step

    agent_module._run_hooks = patched_run_hooks
    agent_module._run_hooks_async = patched_run_hooks_async
    agent_module._run_tool = patched_run_tool
    agent_module._run_tool_async = patched_run_tool_async
    agent_module._record_tool_calls = patched_record_tool_calls
    invocation._create_hook_span = patched_create_hook_span
    tool_calling._create_tool_span = patched_create_tool_span
    tool_calling._schedule_tool_calls = patched_schedule
    agent._continue_after_exit_hooks = patched_exit
    agent._continue_after_exit_hooks_async = patched_exit_async
    agent._run_step = patched_step
    agent._run_step_async = patched_step_async
    try:
        yield
    finally:
        for (module, attr), original in originals.items():
            setattr(module, attr, original)
        for attr in ("_continue_after_exit_hooks", "_continue_after_exit_hooks_async", "_run_step", "_run_step_async"):
            agent.__dict__.pop(attr, None)
