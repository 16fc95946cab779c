"""The scripted chat generator and the scripted tools."""

import copy
import inspect
from typing import Any

from haystack import component
from haystack.dataclasses import ChatMessage, StreamingChunk, ToolCall
from haystack.components.agents.state.state_utils import merge_lists, replace_values
from haystack.tools import Tool

from .instrument import Recorder, ScenarioRunError, ToolScript, scripted_tool_function
from .scenario import Reply, ToolSpec


def build_reply(reply: Reply, call_index: int) -> ChatMessage:
    """The assistant message for one scripted reply.

    Its meta holds only what the script gives (`usage`, `finish_reason`): a real generator adds model/index
    keys, but those would be invented data, and `to_dict()` must match what the contract implies.
    """
    meta: dict[str, Any] = {}
    if reply.usage is not None:
        meta["usage"] = copy.deepcopy(reply.usage)
    if reply.finish_reason is not None:
        meta["finish_reason"] = reply.finish_reason
    calls = [
        ToolCall(
            tool_name=call["tool"],
            arguments=copy.deepcopy(call["arguments"]),
            id=call["id"] if call["id"] is not None else f"call_{call_index}_{i}",
        )
        for i, call in enumerate(reply.tool_calls)
    ]
    # from_assistant: text=None adds no text part, text="" one empty part; calls follow the text.
    return ChatMessage.from_assistant(text=reply.text, meta=meta, tool_calls=calls or None)


@component
class ScriptedChatGenerator:
    """A chat generator replaying the scenario's `model` list, one entry per call, one reply per call."""

    def __init__(self, replies: list, recorder: Recorder) -> None:
        self.replies = replies
        self.recorder = recorder

    def _next(self, messages: list[ChatMessage]) -> tuple[ChatMessage, list[StreamingChunk]]:
        # The event is recorded before the reply is looked up: a failing call (error entry, exhausted script)
        # is still a call.
        index = self.recorder.llm_event(messages_in=len(messages))
        if index >= len(self.replies):
            raise ScenarioRunError(
                f"model script exhausted at LLM call {index} (the scenario scripts {len(self.replies)} replies)"
            )
        reply = self.replies[index]
        if reply.error is not None:
            raise Exception(reply.error)
        chunks = [StreamingChunk(content=piece, index=0, start=i == 0) for i, piece in enumerate(reply.chunks or [])]
        return build_reply(reply, index), chunks

    @component.output_types(replies=list[ChatMessage])
    def run(
        self,
        messages: list[ChatMessage],
        tools: Any = None,
        streaming_callback: Any = None,
        generation_kwargs: dict | None = None,
    ) -> dict[str, Any]:
        message, chunks = self._next(messages)
        if streaming_callback is not None:
            for chunk in chunks:
                streaming_callback(chunk)
        return {"replies": [message]}

    @component.output_types(replies=list[ChatMessage])
    async def run_async(
        self,
        messages: list[ChatMessage],
        tools: Any = None,
        streaming_callback: Any = None,
        generation_kwargs: dict | None = None,
    ) -> dict[str, Any]:
        message, chunks = self._next(messages)
        if streaming_callback is not None:
            for chunk in chunks:
                result = streaming_callback(chunk)
                if inspect.isawaitable(result):
                    await result
        return {"replies": [message]}


_HANDLERS = {"merge_lists": merge_lists, "replace_values": replace_values}


def build_tools(specs: list[ToolSpec], recorder: Recorder) -> list[Tool]:
    tools = []
    for spec in specs:
        # A duplicate name keeps the first script; Haystack rejects duplicate tool names at the first step anyway.
        recorder.tool_scripts.setdefault(spec.name, ToolScript(spec.name, spec.results, spec.repeat_last))
        function = scripted_tool_function(recorder, spec.name)
        # The function declares no parameters of its own: the parameters it accepts (for `inputs_from_state`
        # validation, `_get_valid_inputs`) are those of its `parameters` schema, as the contract says.
        function.__signature__ = inspect.Signature()
        outputs_to_state = None
        if spec.outputs_to_state is not None:
            outputs_to_state = {
                key: {**config, **({"handler": _HANDLERS[config["handler"]]} if "handler" in config else {})}
                for key, config in spec.outputs_to_state.items()
            }
        tools.append(
            Tool(
                name=spec.name,
                description=spec.description,
                parameters=copy.deepcopy(spec.parameters),
                function=function,
                inputs_from_state=copy.deepcopy(spec.inputs_from_state),
                outputs_to_state=outputs_to_state,
                outputs_to_string=copy.deepcopy(spec.outputs_to_string),
            )
        )
    return tools
