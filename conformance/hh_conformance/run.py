"""Running one scenario through Haystack's Agent and building its outcome."""

import asyncio
import copy
import re
from pathlib import Path
from typing import Any

from haystack.components.agents import Agent
from haystack.components.agents.state.state_utils import merge_lists, replace_values
from haystack.dataclasses import ChatMessage

from . import scenario as scenario_mod
from . import source
from .hooks import build_hooks
from .instrument import Recorder, ScenarioAbort, instrumented
from .scripted import ScriptedChatGenerator, build_tools
from .values import build_message, json_eq, jsonify, render

_TYPES: dict[str, Any] = {"list": list, "str": str, "int": int, "float": float, "bool": bool, "dict": dict, "any": Any}
_HANDLERS = {"merge_lists": merge_lists, "replace_values": replace_values}
# Error texts that embed a Python object's repr (e.g. State's unknown-key error prints the schema with its
# handler functions) carry memory addresses; they are dropped so that two runs give byte-identical outcomes.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _state_schema(schema: dict) -> dict:
    out = {}
    for key, entry in schema.items():
        # `type: list` on `messages` means a list of chat messages (Haystack requires list[ChatMessage] there).
        python_type = list[ChatMessage] if key == "messages" and entry["type"] == "list" else _TYPES[entry["type"]]
        out[key] = {"type": python_type}
        if "handler" in entry:
            out[key]["handler"] = _HANDLERS[entry["handler"]]
    return out


def _build_agent(sc: scenario_mod.Scenario, recorder: Recorder) -> Agent:
    a = sc.agent
    return Agent(
        chat_generator=ScriptedChatGenerator(sc.model, recorder),
        tools=build_tools(sc.tools, recorder),
        system_prompt=a["system_prompt"],
        user_prompt=a["user_prompt"],
        required_variables=copy.deepcopy(a["required_variables"]),
        exit_conditions=list(a["exit_conditions"]),
        state_schema=_state_schema(a["state_schema"]),
        max_agent_steps=a["max_agent_steps"],
        raise_on_tool_invocation_failure=a["raise_on_tool_invocation_failure"],
        tool_concurrency_limit=a["tool_concurrency_limit"],
        hooks=build_hooks(sc.hooks, sc.shared_hooks, recorder),
    )


def _run_agent(agent: Agent, sc: scenario_mod.Scenario, recorder: Recorder) -> dict:
    kwargs: dict[str, Any] = {
        "messages": [build_message(m) for m in sc.run["messages"]],
        # The caller's dict: Haystack keeps a non-empty one by identity so hooks can mutate it.
        "hook_context": copy.deepcopy(sc.run["hook_context"]),
        **copy.deepcopy(sc.run["state"]),
        **copy.deepcopy(sc.run["variables"]),
    }
    if sc.run["tools"] is not None:
        kwargs["tools"] = list(sc.run["tools"])
    if sc.run["generation_kwargs"] is not None:
        kwargs["generation_kwargs"] = copy.deepcopy(sc.run["generation_kwargs"])
    if sc.run["stream"]:
        kwargs["streaming_callback"] = _recording_callback(recorder.streamed, is_async=sc.run["async"])
    with instrumented(agent, recorder):
        if sc.run["async"]:
            return asyncio.run(agent.run_async(**kwargs))
        return agent.run(**kwargs)


def _chunk_summary(chunk) -> Any:
    """A text chunk as its text, a tool result as {tool_result: TEXT}, an empty ending chunk as {finish_reason: R}."""
    if chunk.tool_call_result is not None:
        result = chunk.tool_call_result.result
        return {"tool_result": result if isinstance(result, str) else None}
    if chunk.finish_reason is not None and chunk.content == "":
        return {"finish_reason": chunk.finish_reason}
    return chunk.content


def _recording_callback(sink: list, *, is_async: bool):
    """`run.stream`: records every chunk; async on the async path, so that it is awaited."""
    if is_async:

        async def record_async(chunk) -> None:
            sink.append(_chunk_summary(chunk))

        return record_async

    def record(chunk) -> None:
        sink.append(_chunk_summary(chunk))

    return record


def _result(sc: scenario_mod.Scenario, result: dict) -> dict:
    """Haystack's return value in JSON form: messages as to_dict(), public user state keys under `state`."""
    last = result.get("last_message")
    return {
        "messages": jsonify(result.get("messages", [])),
        "last_message": jsonify(last) if last is not None else None,
        "exit_reason": jsonify(result.get("exit_reason")),
        "step_count": jsonify(result.get("step_count")),
        "token_usage": jsonify(result.get("token_usage")),
        "tool_call_counts": jsonify(result.get("tool_call_counts")),
        "state": {
            key: jsonify(result[key]) for key in sc.agent["state_schema"] if key != "messages" and key in result
        },
    }


def _error_text(error: BaseException) -> str:
    return _ADDRESS.sub("", str(error))


def run_file(file: str) -> dict:
    """Run one scenario file and return its outcome (not yet serialized)."""
    try:
        src = source.load(file)
    except source.FileError as e:
        return _outcome(Path(file).stem, file, "error", [], str(e), None, [])
    fallback_name = src.data.get("name") if isinstance(src.data, dict) else None
    try:
        sc = scenario_mod.parse(src)
    except source.FileError as e:
        name = fallback_name if isinstance(fallback_name, str) else Path(file).stem
        return _outcome(name, file, "error", [], str(e), None, [])

    recorder = Recorder()
    result, error = None, None
    try:
        # Building the tools and the Agent is part of the run: construction errors (unknown hook point, reserved
        # state key, allowed_hook_points, invalid numbers) are Haystack's and can be expected with `expect.error`.
        agent = _build_agent(sc, recorder)
        result = _result(sc, _run_agent(agent, sc, recorder))
    except (Exception, ScenarioAbort) as e:  # any failure of the run is part of the outcome
        error = _error_text(e)

    failures = check_expectations(sc, result, recorder.events, error, recorder.streamed)
    if error is not None and "error" not in sc.expect:
        status = "error"
    else:
        status = "fail" if failures else "pass"
    return _outcome(sc.name, file, status, failures, error, result, recorder.events)


def _outcome(name, file, status, failures, error, result, trace) -> dict:
    return {
        "scenario": name,
        "file": file,
        "status": status,
        "failures": failures,
        "error": error,
        "result": result,
        "trace": trace,
    }


# --- expectations ------------------------------------------------------------------------------------------------


def check_expectations(
    sc: scenario_mod.Scenario, result: dict | None, trace: list, error: str | None, streamed: list
) -> list:
    """One readable line per unmet expectation, in the order of the contract's `expect` table."""
    expect = sc.expect
    failures: list[str] = []
    no_result = "no result to check (the run failed)"

    def compare(key: str, want: Any, got: Any) -> None:
        if not json_eq(got, want):
            failures.append(f"{key}: expected {render(want)}, got {render(got)}")

    for key in ("exit_reason", "step_count", "token_usage", "tool_call_counts"):
        if key in expect:
            if result is None:
                failures.append(f"{key}: {no_result}")
            else:
                compare(key, expect[key], result[key])
    if "state" in expect:
        if result is None:
            failures.append(f"state: {no_result}")
        else:
            for key, want in expect["state"].items():
                if key not in result["state"]:
                    failures.append(f"state.{key}: expected {render(want)}, but the key is not in the result")
                else:
                    compare(f"state.{key}", want, result["state"][key])
    if "last_message" in expect:
        if result is None:
            failures.append(f"last_message: {no_result}")
        else:
            failures.extend(_check_last_message(expect["last_message"], result["last_message"]))
    if "message_count" in expect:
        if result is None:
            failures.append(f"message_count: {no_result}")
        else:
            compare("message_count", expect["message_count"], len(result["messages"]))

    # Trace-based expectations hold for failed runs too: the trace stops at the failure.
    if "hooks" in expect:
        ran = [f"{e['point']}:{e['hook']}" for e in trace if e["event"] == "hook"]
        want = expect["hooks"]
        matches = len(ran) == len(want) and all(
            r == w if ":" in w else r.split(":", 1)[0] == w for r, w in zip(ran, want)
        )
        if not matches:
            failures.append(f"hooks: expected {render(want)}, got {render(ran)}")
    if "llm_calls" in expect:
        compare("llm_calls", expect["llm_calls"], sum(1 for e in trace if e["event"] == "llm"))
    if "tools_run" in expect:
        compare("tools_run", expect["tools_run"], [e["tool"] for e in trace if e["event"] == "tool"])
    if "streamed" in expect:
        compare("streamed", expect["streamed"], streamed)

    if "error" in expect:
        if error is None:
            failures.append(
                f"error: expected the run to fail with an error containing {render(expect['error'])}, but it succeeded"
            )
        elif expect["error"] not in error:
            failures.append(f"error: expected an error containing {render(expect['error'])}, got {render(error)}")
    if error is None and expect["unused_replies"] == "fail":
        made = sum(1 for e in trace if e["event"] == "llm")
        if made < len(sc.model):
            unused = len(sc.model) - made
            failures.append(
                f"unused_replies: the scenario scripts {len(sc.model)} replies but the run made {made} LLM calls; "
                f"remove the {unused} unused {'reply' if unused == 1 else 'replies'} from `model`, or set "
                f"`expect.unused_replies: allow` if the run is meant to stop before {'it' if unused == 1 else 'them'}"
            )
    return failures


def _check_last_message(want: dict, last: dict | None) -> list:
    if last is None:
        return ["last_message: the run produced no messages"]
    message = ChatMessage.from_dict(last)
    failures = []
    if "role" in want and message.role.value != want["role"]:
        failures.append(f"last_message.role: expected {render(want['role'])}, got {render(message.role.value)}")
    if "text" in want and message.text != want["text"]:
        failures.append(f"last_message.text: expected {render(want['text'])}, got {render(message.text)}")
    if "text_contains" in want and (message.text is None or want["text_contains"] not in message.text):
        failures.append(
            f"last_message.text_contains: expected text containing {render(want['text_contains'])}, "
            f"got {render(message.text)}"
        )
    if "tool_calls" in want:
        calls = message.tool_calls
        got = [{"tool": c.tool_name, "arguments": c.arguments, "id": c.id} for c in calls]
        ok = len(calls) == len(want["tool_calls"]) and all(
            w["tool"] == c.tool_name
            and ("arguments" not in w or json_eq(c.arguments, w["arguments"]))
            and ("id" not in w or c.id == w["id"])
            for w, c in zip(want["tool_calls"], calls)
        )
        if not ok:
            failures.append(f"last_message.tool_calls: expected {render(want['tool_calls'])}, got {render(got)}")
    return failures
