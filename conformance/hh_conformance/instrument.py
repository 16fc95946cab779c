"""The trace recorder and the places in Haystack 3.4.1 where it observes the run.

Recording must not change the run (see the contract's design note): nothing here
registers extra hooks or alters a return value. Each event is taken where Haystack
actually does the thing:

- `hook`: by the hook objects themselves (`hooks.py`), when Haystack invokes them; the
  hook point they were invoked for is read from the wrapped `_run_hooks` call, since one
  shared hook object is registered under several points and cannot know which one
  Haystack is running.
- `llm`: by the scripted chat generator (`scripted.py`) when Haystack calls it.
- `tool`: by the scripted tool functions when Haystack's executor invokes them; they
  run on worker threads, so events are buffered per step and flushed in call order.
- `exit`: by wrapping the Agent's own exit handling (`_continue_after_exit_hooks`),
  which runs the on_exit hooks (if any) and returns the loop's decision.

The module-level functions patched below are looked up as globals by `Agent._run_step`
(`agent._run_hooks`, `agent._run_tool`) and by `tool_calling._run_tool`
(`_schedule_tool_calls`, `_make_context_bound_invoke`); patches are installed only
for the duration of one scenario run.
"""

import contextlib
import contextvars
import copy
import threading
from dataclasses import dataclass
from typing import Any

import haystack.components.agents.agent as agent_module
import haystack.components.agents.tool_calling as tool_calling


class ScenarioRunError(Exception):
    """A failure caused by the scenario's script itself (exhausted model or tool script)."""


class ScenarioAbort(BaseException):
    """A failure of the scenario's script that ends the run even where Haystack catches `Exception`.

    Raised by a scripted summarizer asked past its last reply: `SummarizationCompactor` catches what its
    generator raises (and with `raise_on_failure: false` logs it and goes on), but the scenario contract makes
    running out of scripted replies fail the run. Not an `Exception`, so nothing in Haystack swallows it; the
    runner reports it as the run's error.
    """


@dataclass
class ToolScript:
    name: str
    results: list  # ("text", str) | ("error", str) | ("json", value)
    repeat_last: bool
    consumed: int = 0


@dataclass
class Assignment:
    """The scripted result reserved for one dispatched tool call."""

    call: Any  # the ToolCall object Haystack dispatches
    result: tuple
    position: int  # index among the step's dispatched calls, i.e. call order
    taken: bool = False


# The assignment of the tool call being executed. Haystack copies the context into the
# worker thread (sync path) or task (async path) that runs each call, so a scripted tool
# function sees the assignment made for exactly its call, whatever the thread timing.
_ASSIGNMENT: contextvars.ContextVar[Assignment | None] = contextvars.ContextVar("hh_assignment", default=None)


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict] = []
        self.state = None  # the run's live State, captured from the first `_run_hooks` call (before_run)
        self.point: str | None = None
        self.llm_calls = 0
        self.streamed: list = []  # `run.stream`: what the streaming callback received, summarized
        self.tool_scripts: dict[str, ToolScript] = {}
        self._lock = threading.Lock()
        self._pending_tool_events: list[tuple[int, dict]] = []
        self._assignments: list[Assignment] = []
        self.tool_step: Any = 0  # `step_count` when the step's tools were dispatched, before any of them ran

    def step(self) -> Any:
        return self.state.data.get("step_count") if self.state is not None else 0

    # -- events ---------------------------------------------------------------------------------------------------

    def hook_event(self, name: str, state) -> None:
        self.events.append({"event": "hook", "point": self.point, "hook": name, "step": state.data.get("step_count")})

    def llm_event(self, messages_in: int) -> int:
        """Record one chat-generator call; returns its 0-based index in the run."""
        index = self.llm_calls
        self.llm_calls += 1
        self.events.append({"event": "llm", "step": self.step(), "messages_in": messages_in})
        return index

    def tool_event(self, assignment: Assignment, name: str, error: bool) -> None:
        event = {"event": "tool", "step": self.tool_step, "tool": name, "id": assignment.call.id, "error": error}
        with self._lock:
            self._pending_tool_events.append((assignment.position, event))

    def flush_tool_events(self) -> None:
        with self._lock:
            pending, self._pending_tool_events = self._pending_tool_events, []
            self._assignments = []
        self.events.extend(event for _, event in sorted(pending, key=lambda item: item[0]))

    def exit_event(self, state, decision: Any) -> None:
        self.events.append(
            {
                "event": "exit",
                "step": state.data.get("step_count"),
                "reason": state.data.get("exit_reason"),
                "continue": bool(decision),
            }
        )

    # -- scripted tool results ------------------------------------------------------------------------------------

    def assign_results(self, tool_calls: list) -> None:
        """Reserve a scripted result for every call of the step, in call order, before any call runs.

        This is where exhaustion is detected: the whole batch is known here, so a step that would run past the
        end of a tool's script fails before any of its calls executes, and results are consumed per tool in
        call order rather than in thread-completion order.
        """
        wanted: dict[str, int] = {}
        for call in tool_calls:
            wanted[call.tool_name] = wanted.get(call.tool_name, 0) + 1
        for name, count in wanted.items():
            script = self.tool_scripts[name]
            total = script.consumed + count
            if total > len(script.results) and not (script.repeat_last and script.results):
                raise ScenarioRunError(
                    f"tool `{name}` was called {total} times; the scenario scripts {len(script.results)} results"
                )
        for position, call in enumerate(tool_calls):
            script = self.tool_scripts[call.tool_name]
            index = min(script.consumed, len(script.results) - 1)
            script.consumed += 1
            self._assignments.append(Assignment(call=call, result=script.results[index], position=position))

    def take_assignment(self, call) -> Assignment:
        for assignment in self._assignments:
            if assignment.call is call and not assignment.taken:
                assignment.taken = True
                return assignment
        raise RuntimeError(f"no scripted result was reserved for the call to `{call.tool_name}`")


def scripted_tool_function(recorder: Recorder, name: str):
    """The function behind a scripted Tool: replays the result reserved for the call being executed."""

    def function(**kwargs):
        assignment = _ASSIGNMENT.get()
        if assignment is None:
            raise RuntimeError(f"scripted tool `{name}` invoked outside the Agent's tool execution")
        kind, value = assignment.result
        recorder.tool_event(assignment, name, error=kind == "error")
        if kind == "error":
            raise Exception(value)
        if kind == "json":
            return copy.deepcopy(value)
        if kind == "echo":
            # The arguments as invoked: the call's, then those injected from State.
            return copy.deepcopy(kwargs)
        return value

    return function


@contextlib.contextmanager
def instrumented(agent, recorder: Recorder):
    """Install the observers for one run of `agent`; everything is restored on exit."""
    originals = {
        (agent_module, "_run_hooks"): agent_module._run_hooks,
        (agent_module, "_run_hooks_async"): agent_module._run_hooks_async,
        (agent_module, "_run_tool"): agent_module._run_tool,
        (agent_module, "_run_tool_async"): agent_module._run_tool_async,
        (tool_calling, "_schedule_tool_calls"): tool_calling._schedule_tool_calls,
        (tool_calling, "_make_context_bound_invoke"): tool_calling._make_context_bound_invoke,
        (tool_calling, "_make_bounded_invoke_async"): tool_calling._make_bounded_invoke_async,
    }
    run_hooks = agent_module._run_hooks
    run_hooks_async = agent_module._run_hooks_async
    run_tool = agent_module._run_tool
    run_tool_async = agent_module._run_tool_async
    schedule = tool_calling._schedule_tool_calls
    make_invoke = tool_calling._make_context_bound_invoke
    make_invoke_async = tool_calling._make_bounded_invoke_async

    # Hook points: every point is passed through `_run_hooks` even when it has no hooks, so the first call
    # (before_run) also hands over the run's State.
    def patched_run_hooks(*, hooks, hook_point, state):
        recorder.state, recorder.point = state, hook_point
        try:
            return run_hooks(hooks=hooks, hook_point=hook_point, state=state)
        finally:
            recorder.point = None

    async def patched_run_hooks_async(*, hooks, hook_point, state):
        recorder.state, recorder.point = state, hook_point
        try:
            return await run_hooks_async(hooks=hooks, hook_point=hook_point, state=state)
        finally:
            recorder.point = None

    # Tool execution of one step: events are flushed in call order once every call has finished (also when a
    # call's failure aborts the run: the calls of the batch that executed still show).
    # A call's event shows the step its tools were dispatched in: a write another call of the batch merges into
    # `step_count` races with the threads still running, so the value is read once, before any call runs.
    def patched_run_tool(**kwargs):
        recorder.tool_step = recorder.step()
        try:
            return run_tool(**kwargs)
        finally:
            recorder.flush_tool_events()

    async def patched_run_tool_async(**kwargs):
        recorder.tool_step = recorder.step()
        try:
            return await run_tool_async(**kwargs)
        finally:
            recorder.flush_tool_events()

    # Called once per step with every resolved call (unknown tools already turned into error messages or
    # raised), before any call is submitted: the dispatch point where results are reserved.
    def patched_schedule(tool_calls, tools):
        recorder.assign_results(tool_calls)
        return schedule(tool_calls, tools)

    # Sync path: the invoke closure copies the current context when it is created, so the assignment is set
    # around its creation.
    def patched_make_invoke(*args, **kwargs):
        call = kwargs["tool_call"] if "tool_call" in kwargs else args[2]
        token = _ASSIGNMENT.set(recorder.take_assignment(call))
        try:
            return make_invoke(*args, **kwargs)
        finally:
            _ASSIGNMENT.reset(token)

    # Async path: each call runs in its own task (asyncio.gather), which has its own context, so the assignment is
    # set inside that task before the real runner starts.
    def patched_make_invoke_async(*args, **kwargs):
        call = kwargs["tool_call"] if "tool_call" in kwargs else args[3]
        assignment = recorder.take_assignment(call)
        runner = make_invoke_async(*args, **kwargs)

        async def bound_runner():
            _ASSIGNMENT.set(assignment)
            return await runner()

        return bound_runner

    # Exit handling: the instance attribute shadows the class method for this Agent only. The event is recorded
    # after the on_exit hooks ran (step and reason read then) and only if they did not raise.
    exit_sync = agent._continue_after_exit_hooks
    exit_async = agent._continue_after_exit_hooks_async

    def patched_exit(*, exe_context):
        decision = exit_sync(exe_context=exe_context)
        recorder.exit_event(exe_context.state, decision)
        return decision

    async def patched_exit_async(*, exe_context):
        decision = await exit_async(exe_context=exe_context)
        recorder.exit_event(exe_context.state, decision)
        return decision

    agent_module._run_hooks = patched_run_hooks
    agent_module._run_hooks_async = patched_run_hooks_async
    agent_module._run_tool = patched_run_tool
    agent_module._run_tool_async = patched_run_tool_async
    tool_calling._schedule_tool_calls = patched_schedule
    tool_calling._make_context_bound_invoke = patched_make_invoke
    tool_calling._make_bounded_invoke_async = patched_make_invoke_async
    agent._continue_after_exit_hooks = patched_exit
    agent._continue_after_exit_hooks_async = patched_exit_async
    try:
        yield recorder
    finally:
        for (module, attr), original in originals.items():
            setattr(module, attr, original)
        del agent._continue_after_exit_hooks
        del agent._continue_after_exit_hooks_async
