"""Validating a parsed scenario file into a `Scenario`.

Every key of the core is checked here; anything unknown or of the wrong type is a
file error naming the file, the key path and (YAML) the line and column. Things
Haystack itself checks when the Agent is built (hook-point names, reserved
`state_schema` keys, `allowed_hook_points`, invalid numbers) are left to Haystack
so that they surface as construction errors with Haystack's own messages.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haystack.dataclasses import ChatMessage

from . import ready_made
from .source import FileError, Source, is_json_number

ROLES = ("user", "system", "assistant", "tool")
FINISH_REASONS = ("stop", "length", "content_filter", "tool_calls")
STATE_TYPES = ("list", "str", "int", "float", "bool", "dict", "any")
HANDLERS = ("merge_lists", "replace_values")
READY_MADE = ("token_budget", "tool_result_offload", "compaction", "confirmation")
SUPPORTED_READY_MADE = ready_made.SUPPORTED
RUN_PARAMETERS = ("messages", "tools", "hook_context", "streaming_callback", "generation_kwargs")
MESSAGE_ACTIONS = ("append_messages", "prepend_messages", "replace_messages")


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict
    results: list  # ("text", str) | ("error", str) | ("json", value) | ("echo", None)
    repeat_last: bool
    inputs_from_state: dict | None = None  # state key -> parameter
    outputs_to_state: dict | None = None  # state key -> {"source"?, "handler"?: name}
    outputs_to_string: dict | None = None  # {"source"?} or {out: {"source"}}


@dataclass
class Reply:
    error: str | None = None
    text: str | None = None
    tool_calls: list = field(default_factory=list)  # {"tool", "arguments", "id"}
    usage: dict | None = None
    finish_reason: str | None = None
    chunks: list | None = None  # streamed before the reply when the run streams


@dataclass
class HookDef:
    """A hook object's definition: declarative (`kind == "declarative"`) or ready-made (`kind` = its tag)."""

    kind: str
    name: str | None
    when: dict = field(default_factory=dict)
    do: list = field(default_factory=list)  # (action, argument)
    allowed_hook_points: list | None = None
    params: dict = field(default_factory=dict)  # ready-made constructor parameters


@dataclass
class HookRef:
    """One entry of a hook point's list: a definition of its own, or a `shared:` reference."""

    point: str
    index: int
    definition: HookDef | None = None
    shared: str | None = None


@dataclass
class Scenario:
    file: str
    name: str
    agent: dict
    tools: list
    hooks: dict  # point -> list[HookRef], in file order
    shared_hooks: dict  # name -> HookDef
    model: list
    run: dict
    expect: dict


class _Checker:
    """Small typed accessors that raise file errors with the key path."""

    def __init__(self, src: Source):
        self.src = src

    def err(self, path, message) -> FileError:
        return self.src.error(path, message)

    def map(self, value, path, allowed=None, required=()) -> dict:
        if not isinstance(value, dict):
            raise self.err(path, f"expected a map, got {_kind(value)}")
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    raise self.err((*path, key), f"unknown key `{key}`")
        for key in required:
            if key not in value:
                raise self.err((*path, key), "required key is missing")
        return value

    def list(self, value, path) -> list:
        if not isinstance(value, list):
            raise self.err(path, f"expected a list, got {_kind(value)}")
        return value

    def str(self, value, path, nullable=False):
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.err(path, f"expected a string, got {_kind(value)}")
        return value

    def bool(self, value, path) -> bool:
        if not isinstance(value, bool):
            raise self.err(path, f"expected a boolean, got {_kind(value)}")
        return value

    def int(self, value, path) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.err(path, f"expected an integer, got {_kind(value)}")
        return value

    def number(self, value, path):
        if not is_json_number(value):
            raise self.err(path, f"expected a number, got {_kind(value)}")
        return value

    def one_of(self, value, path, choices):
        if not isinstance(value, str) or value not in choices:
            raise self.err(path, f"expected one of {', '.join(choices)}, got {_show(value)}")
        return value

    def str_list(self, value, path) -> list:
        return [self.str(v, (*path, i)) for i, v in enumerate(self.list(value, path))]


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a map"
    return type(value).__name__


def _show(value) -> str:
    return repr(value) if isinstance(value, str) else _kind(value)


def parse(src: Source) -> Scenario:
    c = _Checker(src)
    top = c.map(
        src.data,
        (),
        allowed=("version", "name", "description", "agent", "tools", "hooks", "model", "run", "expect", "shared_hooks"),
    )
    version = c.int(top.get("version", 1), ("version",))
    if version != 1:
        raise c.err(("version",), f"unknown format version {version} (this runner reads version 1)")
    if "model" not in top:
        raise c.err(("model",), "required key is missing")
    name = c.str(top.get("name"), ("name",), nullable=True) or Path(src.file).stem
    c.str(top.get("description"), ("description",), nullable=True)

    agent = _agent(c, top.get("agent", {}))
    tools = _tools(c, top.get("tools", []))
    shared_src = c.map(top.get("shared_hooks", {}), ("shared_hooks",))
    shared = {}
    for key, entry in shared_src.items():
        ref = _hook_entry(c, entry, ("shared_hooks", key), point=None, index=0, allow_shared=False)
        shared[key] = ref.definition
    hooks = _hooks(c, top.get("hooks", {}), shared)
    model = _model(c, top["model"])
    run = _run(c, top.get("run", {}), agent)
    expect = _expect(c, top.get("expect", {}))
    return Scenario(
        file=src.file,
        name=name,
        agent=agent,
        tools=tools,
        hooks=hooks,
        shared_hooks=shared,
        model=model,
        run=run,
        expect=expect,
    )


# --- agent, tools, model, run ------------------------------------------------------------------------------------


def _agent(c: _Checker, raw) -> dict:
    p = ("agent",)
    raw = c.map(
        raw,
        p,
        allowed=(
            "max_agent_steps",
            "exit_conditions",
            "system_prompt",
            "user_prompt",
            "required_variables",
            "state_schema",
            "raise_on_tool_invocation_failure",
            "tool_concurrency_limit",
        ),
    )
    schema = {}
    for key, entry in c.map(raw.get("state_schema", {}), (*p, "state_schema")).items():
        ep = (*p, "state_schema", key)
        entry = c.map(entry, ep, allowed=("type", "handler"), required=("type",))
        schema[key] = {"type": c.one_of(entry["type"], (*ep, "type"), STATE_TYPES)}
        if entry.get("handler") is not None:
            schema[key]["handler"] = c.one_of(entry["handler"], (*ep, "handler"), HANDLERS)
    return {
        "max_agent_steps": c.int(raw.get("max_agent_steps", 100), (*p, "max_agent_steps")),
        "exit_conditions": c.str_list(raw.get("exit_conditions", ["text"]), (*p, "exit_conditions")),
        "system_prompt": c.str(raw.get("system_prompt"), (*p, "system_prompt"), nullable=True),
        "user_prompt": c.str(raw.get("user_prompt"), (*p, "user_prompt"), nullable=True),
        "required_variables": _required_variables(c, raw.get("required_variables", "*"), (*p, "required_variables")),
        "state_schema": schema,
        "raise_on_tool_invocation_failure": c.bool(
            raw.get("raise_on_tool_invocation_failure", False), (*p, "raise_on_tool_invocation_failure")
        ),
        "tool_concurrency_limit": c.int(raw.get("tool_concurrency_limit", 4), (*p, "tool_concurrency_limit")),
    }


def _required_variables(c: _Checker, raw, path):
    """`"*"`, a list of names, or null (none)."""
    if raw is None or raw == "*":
        return raw
    if isinstance(raw, str):
        raise c.err(path, f"`agent.required_variables` is `{raw}`; write `\"*\"`, a list of names, or null")
    return c.str_list(raw, path)


def _tools(c: _Checker, raw) -> list:
    tools = []
    for i, entry in enumerate(c.list(raw, ("tools",))):
        p = ("tools", i)
        entry = c.map(
            entry,
            p,
            allowed=(
                "name",
                "description",
                "parameters",
                "results",
                "repeat_last",
                "inputs_from_state",
                "outputs_to_state",
                "outputs_to_string",
            ),
            required=("name",),
        )
        results = []
        for j, r in enumerate(c.list(entry.get("results", []), (*p, "results"))):
            rp = (*p, "results", j)
            if isinstance(r, str):
                results.append(("text", r))
                continue
            shape = "a result is a string, `{error: MESSAGE}`, `{json: VALUE}` or `{echo_arguments: true}`"
            if not isinstance(r, dict):
                raise c.err(rp, shape)
            r = c.map(r, rp, allowed=("error", "json", "echo_arguments"))
            if len(r) != 1:
                raise c.err(rp, shape)
            if "error" in r:
                results.append(("error", c.str(r["error"], (*rp, "error"))))
            elif "echo_arguments" in r:
                if c.bool(r["echo_arguments"], (*rp, "echo_arguments")) is not True:
                    raise c.err((*rp, "echo_arguments"), "`echo_arguments` takes only `true`")
                results.append(("echo", None))
            else:
                results.append(("json", r["json"]))
        parameters = entry.get("parameters")
        tools.append(
            ToolSpec(
                name=c.str(entry["name"], (*p, "name")),
                description=c.str(entry.get("description"), (*p, "description"), nullable=True) or "",
                parameters=c.map(parameters, (*p, "parameters"))
                if parameters is not None
                else {"type": "object", "properties": {}},
                results=results,
                repeat_last=c.bool(entry.get("repeat_last", False), (*p, "repeat_last")),
                inputs_from_state=_inputs_from_state(c, entry, p),
                outputs_to_state=_outputs_to_state(c, entry, p),
                outputs_to_string=_outputs_to_string(c, entry, p),
            )
        )
    return tools


def _inputs_from_state(c: _Checker, entry: dict, p: tuple) -> dict | None:
    if "inputs_from_state" not in entry:
        return None
    ip = (*p, "inputs_from_state")
    return {key: c.str(param, (*ip, key)) for key, param in c.map(entry["inputs_from_state"], ip).items()}


def _outputs_to_state(c: _Checker, entry: dict, p: tuple) -> dict | None:
    if "outputs_to_state" not in entry:
        return None
    op = (*p, "outputs_to_state")
    out = {}
    for key, config in c.map(entry["outputs_to_state"], op).items():
        # Null options (`received:` alone) read as `{}`.
        config = {} if config is None else c.map(config, (*op, key), allowed=("source", "handler"))
        out[key] = {}
        if "source" in config:
            out[key]["source"] = c.str(config["source"], (*op, key, "source"))
        if "handler" in config:
            out[key]["handler"] = c.one_of(config["handler"], (*op, key, "handler"), HANDLERS)
    return out


def _outputs_to_string(c: _Checker, entry: dict, p: tuple) -> dict | None:
    """`{source: KEY}` (or `{}`), else the multiple-output form `{out: {source: KEY}, ...}`."""
    if "outputs_to_string" not in entry:
        return None
    sp = (*p, "outputs_to_string")
    config = c.map(entry["outputs_to_string"], sp)
    if "source" in config or not config:
        c.map(config, sp, allowed=("source",))
        return {"source": c.str(config["source"], (*sp, "source"))} if "source" in config else {}
    out = {}
    for key, output in config.items():
        output = c.map(output, (*sp, key), allowed=("source",), required=("source",))
        out[key] = {"source": c.str(output["source"], (*sp, key, "source"))}
    return out


def _tool_call(c: _Checker, raw, path) -> dict:
    raw = c.map(raw, path, allowed=("tool", "arguments", "id"), required=("tool",))
    return {
        "tool": c.str(raw["tool"], (*path, "tool")),
        "arguments": c.map(raw.get("arguments", {}), (*path, "arguments")),
        "id": c.str(raw.get("id"), (*path, "id"), nullable=True),
    }


def _model(c: _Checker, raw) -> list:
    replies = []
    for i, entry in enumerate(c.list(raw, ("model",))):
        p = ("model", i)
        if entry is None:
            replies.append(Reply())
            continue
        entry = c.map(entry, p, allowed=("text", "chunks", "tool_calls", "usage", "finish_reason", "error", "sees"))
        # `sees` is about the request, checked by the harness only (harness-side, as `has_matcher`).
        entry = {k: v for k, v in entry.items() if k != "sees"}
        if "error" in entry:
            if len(entry) != 1:
                other = next(k for k in entry if k != "error")
                raise c.err((*p, other), "an `error` entry takes no other key")
            replies.append(Reply(error=c.str(entry["error"], (*p, "error"))))
            continue
        reply = Reply(text=c.str(entry.get("text"), (*p, "text"), nullable=True))
        if "chunks" in entry:
            if "text" in entry:
                raise c.err(p, "a reply takes `text` or `chunks`, not both")
            reply.chunks = c.str_list(entry["chunks"], (*p, "chunks"))
            reply.text = "".join(reply.chunks)
        for j, call in enumerate(c.list(entry.get("tool_calls", []), (*p, "tool_calls"))):
            reply.tool_calls.append(_tool_call(c, call, (*p, "tool_calls", j)))
        if "usage" in entry:
            reply.usage = c.map(entry["usage"], (*p, "usage"))
        if entry.get("finish_reason") is not None:
            reply.finish_reason = c.one_of(entry["finish_reason"], (*p, "finish_reason"), FINISH_REASONS)
        replies.append(reply)
    return replies


def message_spec(c: _Checker, raw, path) -> dict:
    """Validate one message spec; the returned dict is rebuilt into a ChatMessage on every use."""
    raw = c.map(raw, path)
    if "content" in raw:
        c.map(raw, path, allowed=("role", "content", "meta", "name"), required=("role",))
        c.one_of(raw["role"], (*path, "role"), ROLES)
        c.list(raw["content"], (*path, "content"))
        if raw.get("meta") is not None:
            c.map(raw["meta"], (*path, "meta"))
        c.str(raw.get("name"), (*path, "name"), nullable=True)
        try:
            ChatMessage.from_dict(raw)
        except Exception as e:  # Haystack's own reading of the to_dict() form decides what is valid
            raise c.err((*path, "content"), f"not a valid ChatMessage: {e}") from None
        return raw
    c.map(raw, path, allowed=("role", "text", "tool_calls", "meta", "name"), required=("role",))
    spec: dict = {"role": c.one_of(raw["role"], (*path, "role"), ROLES)}
    spec["text"] = c.str(raw.get("text"), (*path, "text"), nullable=True)
    spec["tool_calls"] = [
        _tool_call(c, call, (*path, "tool_calls", j)) for j, call in enumerate(c.list(raw.get("tool_calls", []), (*path, "tool_calls")))
    ]
    spec["meta"] = c.map(raw["meta"], (*path, "meta")) if raw.get("meta") is not None else {}
    spec["name"] = c.str(raw.get("name"), (*path, "name"), nullable=True)
    return spec


def _messages(c: _Checker, raw, path) -> list:
    return [message_spec(c, m, (*path, i)) for i, m in enumerate(c.list(raw, path))]


def _run(c: _Checker, raw, agent: dict) -> dict:
    p = ("run",)
    raw = c.map(
        raw, p, allowed=("messages", "hook_context", "state", "variables", "tools", "stream", "generation_kwargs", "async")
    )
    state = c.map(raw.get("state", {}), (*p, "state"))
    for key in state:
        if key not in agent["state_schema"]:
            raise c.err((*p, "state", key), f"`{key}` is not a state_schema key")
        if key == "messages":
            raise c.err((*p, "state", key), "initial messages go in run.messages")
    variables = c.map(raw.get("variables", {}), (*p, "variables"))
    for name in variables:
        if name in state:
            raise c.err((*p, "variables", name), f"`{name}` is given in both `run.state` and `run.variables`")
        if name in RUN_PARAMETERS:
            raise c.err((*p, "variables", name), f"`run.variables` cannot name `{name}`, a parameter of `Agent.run`")
    hook_context = raw.get("hook_context")
    return {
        "variables": variables,
        "stream": c.bool(raw.get("stream", False), (*p, "stream")),
        "generation_kwargs": c.map(raw["generation_kwargs"], (*p, "generation_kwargs"))
        if "generation_kwargs" in raw
        else None,
        "messages": _messages(c, raw.get("messages", []), (*p, "messages")),
        "hook_context": c.map(hook_context, (*p, "hook_context")) if hook_context is not None else None,
        "state": state,
        "tools": c.str_list(raw["tools"], (*p, "tools")) if "tools" in raw else None,
        "async": c.bool(raw.get("async", False), (*p, "async")),
    }


# --- hooks -------------------------------------------------------------------------------------------------------


def _hooks(c: _Checker, raw, shared: dict) -> dict:
    # Hook-point names are deliberately not checked here: an unknown point is an Agent construction error.
    hooks = {}
    for point, entries in c.map(raw, ("hooks",)).items():
        refs = []
        for i, entry in enumerate(c.list(entries, ("hooks", point))):
            ref = _hook_entry(c, entry, ("hooks", point, i), point=point, index=i, allow_shared=True)
            if ref.shared is not None and ref.shared not in shared:
                raise c.err(("hooks", point, i, "shared"), f"no shared hook named `{ref.shared}` in shared_hooks")
            refs.append(ref)
        hooks[point] = refs
    return hooks


def _hook_entry(c: _Checker, raw, path, *, point, index, allow_shared) -> HookRef:
    raw = c.map(raw, path)
    if "shared" in raw and allow_shared:
        c.map(raw, path, allowed=("shared",))
        return HookRef(point=point, index=index, shared=c.str(raw["shared"], (*path, "shared")))
    if "custom" in raw:
        c.map(raw, path, allowed=("custom", "name"))
        raise c.err((*path, "custom"), "unsupported: custom hooks are registered by Rust tests, not by this runner")
    tags = [k for k in raw if k in READY_MADE]
    if tags:
        tag = tags[0]
        c.map(raw, path, allowed=(tag, "name"))
        if tag not in SUPPORTED_READY_MADE:
            raise c.err((*path, tag), f"unsupported: the reference runner does not implement `{tag}` hooks yet")
        name = c.str(raw.get("name"), (*path, "name"), nullable=True)
        return HookRef(point=point, index=index, definition=HookDef(kind=tag, name=name, params=ready_made.validate(c, tag, raw[tag], (*path, tag))))
    c.map(raw, path, allowed=("name", "when", "do", "allowed_hook_points"))
    definition = HookDef(
        kind="declarative",
        name=c.str(raw.get("name"), (*path, "name"), nullable=True),
        when=_when(c, raw.get("when", {}), (*path, "when")),
        do=_do(c, raw.get("do", []), (*path, "do")),
        allowed_hook_points=c.str_list(raw["allowed_hook_points"], (*path, "allowed_hook_points"))
        if raw.get("allowed_hook_points") is not None
        else None,
    )
    return HookRef(point=point, index=index, definition=definition)


def _when(c: _Checker, raw, path) -> dict:
    raw = c.map(
        raw, path, allowed=("step_count", "exit_reason", "tool_call_counts", "last_message", "state", "hook_context", "times")
    )
    when: dict[str, Any] = {}
    if "step_count" in raw:
        v = raw["step_count"]
        if isinstance(v, dict):
            c.map(v, (*path, "step_count"), allowed=("gte", "lt"))
            when["step_count"] = {k: c.number(x, (*path, "step_count", k)) for k, x in v.items()}
        else:
            when["step_count"] = c.number(v, (*path, "step_count"))
    if "exit_reason" in raw:
        when["exit_reason"] = c.str(raw["exit_reason"], (*path, "exit_reason"), nullable=True)
    if "tool_call_counts" in raw:
        counts = c.map(raw["tool_call_counts"], (*path, "tool_call_counts"))
        when["tool_call_counts"] = {k: c.number(v, (*path, "tool_call_counts", k)) for k, v in counts.items()}
    if "last_message" in raw:
        lp = (*path, "last_message")
        lm = c.map(raw["last_message"], lp, allowed=("role", "has_tool_calls", "text_contains"))
        when["last_message"] = {}
        if "role" in lm:
            when["last_message"]["role"] = c.one_of(lm["role"], (*lp, "role"), ROLES)
        if "has_tool_calls" in lm:
            when["last_message"]["has_tool_calls"] = c.bool(lm["has_tool_calls"], (*lp, "has_tool_calls"))
        if "text_contains" in lm:
            when["last_message"]["text_contains"] = c.str(lm["text_contains"], (*lp, "text_contains"))
    for key in ("state", "hook_context"):
        if key in raw:
            when[key] = c.map(raw[key], (*path, key))
    if "times" in raw:
        when["times"] = c.int(raw["times"], (*path, "times"))
    return when


def _do(c: _Checker, raw, path) -> list:
    actions = []
    for i, item in enumerate(c.list(raw, path)):
        ip = (*path, i)
        item = c.map(
            item,
            ip,
            allowed=(
                *MESSAGE_ACTIONS,
                "set",
                "replace",
                "continue_run",
                "stop_run",
                "drop_tool_calls",
                "set_tool_arguments",
                "rewrite_tool_results",
                "fail",
            ),
        )
        if not item:
            raise c.err(ip, "an action map needs one action")
        # Several actions in one map are applied in the map's (file) order.
        for action, arg in item.items():
            ap = (*ip, action)
            if action in MESSAGE_ACTIONS:
                arg = _messages(c, arg, ap)
            elif action in ("set", "replace"):
                arg = dict(c.map(arg, ap))
                if "messages" in arg:
                    value = arg["messages"]
                    mp = (*ap, "messages")
                    arg["messages"] = _messages(c, value, mp) if isinstance(value, list) else message_spec(c, value, mp)
            elif action == "continue_run":
                arg = c.bool(arg, ap)
            elif action == "stop_run":
                arg = c.str(arg, ap, nullable=True)
            elif action == "drop_tool_calls":
                if isinstance(arg, str):
                    if arg != "all":
                        raise c.err(ap, "expected `all` or a list of tool names")
                else:
                    arg = c.str_list(arg, ap)
            elif action == "set_tool_arguments":
                c.map(arg, ap, allowed=("tool", "arguments"), required=("tool", "arguments"))
                arg = {"tool": c.str(arg["tool"], (*ap, "tool")), "arguments": c.map(arg["arguments"], (*ap, "arguments"))}
            elif action == "rewrite_tool_results":
                c.map(arg, ap, allowed=("truncate", "replace"))
                if len(arg) != 1:
                    raise c.err(ap, "expected exactly one of `truncate: N` or `replace: TEXT`")
                if "truncate" in arg:
                    n = c.int(arg["truncate"], (*ap, "truncate"))
                    if n < 0:
                        raise c.err((*ap, "truncate"), "expected a non-negative integer")
                    arg = {"truncate": n}
                else:
                    arg = {"replace": c.str(arg["replace"], (*ap, "replace"))}
            elif action == "fail":
                arg = c.str(arg, ap)
            actions.append((action, arg))
    return actions


# --- expect ------------------------------------------------------------------------------------------------------


# Harness-side expectations (docs/scenario-format-extensions.md, "Match modes and value
# matchers"): the match modes of `hooks`, `tools_run` and `last_message.tool_calls`, `trace`,
# `last_message.meta` and `last_message.tool_result`, and value matchers in `state`, `token_usage` and `last_message.text`.
# The harness checks them; this runner reads past them, so that a scenario using them compares
# on the run itself (result and trace), which is what conformance is about.
MATCHER_WORDS = ("absent", "contains", "gte", "lte", "equals")


def has_matcher(value) -> bool:
    """A matcher map, or a map holding one (through maps)."""
    return isinstance(value, dict) and (
        any(k in MATCHER_WORDS for k in value) or any(has_matcher(v) for v in value.values())
    )


def _expect(c: _Checker, raw) -> dict:
    p = ("expect",)
    raw = c.map(
        raw,
        p,
        allowed=(
            "exit_reason",
            "step_count",
            "token_usage",
            "tool_call_counts",
            "state",
            "last_message",
            "message_count",
            "hooks",
            "llm_calls",
            "tools_run",
            "trace",
            "streamed",
            "error",
            "unused_replies",
            "always",  # what `hookharness explore` checks on variants; the reference runs the scenario as written
        ),
    )
    raw = {
        k: v
        for k, v in raw.items()
        if k != "trace"
        and not (k in ("hooks", "tools_run") and isinstance(v, dict))
        and not (k == "token_usage" and has_matcher(v))
    }
    if isinstance(raw.get("state"), dict):
        raw["state"] = {k: v for k, v in raw["state"].items() if not has_matcher(v)}
    out: dict[str, Any] = {}
    if "exit_reason" in raw:
        out["exit_reason"] = c.str(raw["exit_reason"], (*p, "exit_reason"), nullable=True)
    if "step_count" in raw:
        out["step_count"] = c.number(raw["step_count"], (*p, "step_count"))
    for key in ("token_usage", "tool_call_counts", "state"):
        if key in raw:
            out[key] = c.map(raw[key], (*p, key))
    if "last_message" in raw:
        lp = (*p, "last_message")
        lm = c.map(raw["last_message"], lp, allowed=("role", "text", "text_contains", "tool_calls", "tool_result", "meta"))
        lm = {k: v for k, v in lm.items() if k not in ("meta", "tool_result") and not (isinstance(v, dict) and k in ("text", "tool_calls"))}
        spec: dict[str, Any] = {}
        if "role" in lm:
            spec["role"] = c.one_of(lm["role"], (*lp, "role"), ROLES)
        if "text" in lm:
            spec["text"] = c.str(lm["text"], (*lp, "text"), nullable=True)
        if "text_contains" in lm:
            spec["text_contains"] = c.str(lm["text_contains"], (*lp, "text_contains"))
        if "tool_calls" in lm:
            calls = []
            for i, call in enumerate(c.list(lm["tool_calls"], (*lp, "tool_calls"))):
                cp = (*lp, "tool_calls", i)
                if isinstance(call, str):
                    calls.append({"tool": call})
                    continue
                call = c.map(call, cp, allowed=("tool", "arguments", "id"), required=("tool",))
                entry = {"tool": c.str(call["tool"], (*cp, "tool"))}
                if "arguments" in call:
                    entry["arguments"] = c.map(call["arguments"], (*cp, "arguments"))
                if "id" in call:
                    entry["id"] = c.str(call["id"], (*cp, "id"), nullable=True)
                calls.append(entry)
            spec["tool_calls"] = calls
        out["last_message"] = spec
    for key in ("message_count", "llm_calls"):
        if key in raw:
            out[key] = c.int(raw[key], (*p, key))
    for key in ("hooks", "tools_run"):
        if key in raw:
            out[key] = c.str_list(raw[key], (*p, key))
    if "streamed" in raw:
        out["streamed"] = c.list(raw["streamed"], (*p, "streamed"))
    if "error" in raw:
        out["error"] = c.str(raw["error"], (*p, "error"))
    out["unused_replies"] = c.one_of(raw.get("unused_replies", "fail"), (*p, "unused_replies"), ("fail", "allow"))
    return out
