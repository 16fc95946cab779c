"""Generate the Haystack 3.4.1 reference fixtures used by the Rust round-trip tests.

Writes two files under tests/fixtures/haystack/:

- messages.json: a list of real `ChatMessage.to_dict()` outputs covering every
  role and content-part kind the harness must read and write unchanged.
- texts.json: a list of `{"kind", "input", "output"}` objects pinning texts that
  Haystack builds with Python-specific rendering (repr of dicts, json.dumps),
  which the Rust side has to reproduce byte for byte.

Every output is produced by running Haystack's own code (the Agent's tool
execution path, `haystack.components.agents.tool_calling._run_tool`), never by
re-implementing the rendering here.

Usage: /work/.venv-ref/bin/python conformance/make_fixtures.py [OUT_DIR]
"""

import base64
import json
import logging
import sys
from pathlib import Path

from haystack.components.agents.state.state import State
from haystack.components.agents.tool_calling import _run_tool
from haystack.dataclasses import ChatMessage, FileContent, ImageContent, ReasoningContent, TextContent, ToolCall
from haystack.tools import Tool

# A 1x1 transparent PNG: ImageContent validates the base64 payload and the MIME type.
PNG_1PX = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def build_messages() -> list[ChatMessage]:
    call_with_id = ToolCall(tool_name="search", arguments={"query": "fusion", "limit": 3}, id="call_0_0")
    call_without_id = ToolCall(tool_name="lookup", arguments={})
    call_with_extra = ToolCall(
        tool_name="search",
        arguments={"query": "naïve café", "filters": {"year": 2024, "tags": ["a", "b"]}, "exact": True},
        id="call_1_0",
        extra={"provider_index": 0, "signature": "sig-ü", "nested": {"x": None}},
    )
    return [
        # user
        ChatMessage.from_user("What are the latest developments in fusion energy?"),
        ChatMessage.from_user(""),
        ChatMessage.from_user("Grüße aus Köln — 日本語のテキスト 😀", name="alice", meta={"lang": "de"}),
        ChatMessage.from_user(content_parts=["first part", TextContent(text="second part"), "third part"]),
        ChatMessage.from_user(
            content_parts=[
                "Describe this image.",
                ImageContent(base64_image=PNG_1PX, mime_type="image/png", detail="low", meta={"source": "test"}),
            ]
        ),
        ChatMessage.from_user(
            content_parts=[
                "Summarize the attached file.",
                FileContent(
                    base64_data=base64.b64encode(b"hello file").decode(),
                    mime_type="text/plain",
                    filename="notes.txt",
                    extra={"k": 1},
                ),
            ]
        ),
        # system
        ChatMessage.from_system("You are a research assistant."),
        ChatMessage.from_system("Line one\nLine two\twith tab and \"quotes\" and 'apostrophes' and \\ backslash"),
        ChatMessage.from_system("named system", name="policy", meta={"priority": 1.5}),
        # assistant
        ChatMessage.from_assistant("Here is what I found."),
        ChatMessage.from_assistant(""),
        ChatMessage.from_assistant(),
        ChatMessage.from_assistant(tool_calls=[call_with_id]),
        ChatMessage.from_assistant(tool_calls=[call_without_id]),
        ChatMessage.from_assistant(
            "Let me search twice.",
            tool_calls=[call_with_extra, ToolCall(tool_name="calc", arguments={"expr": "1+1"}, id="call_1_1")],
            meta={
                "model": "mock-1",
                "index": 0,
                "finish_reason": "tool_calls",
                "usage": {
                    "prompt_tokens": 12,
                    "completion_tokens": 3,
                    "total_tokens": 15,
                    "completion_tokens_details": {"reasoning_tokens": 0, "accepted_prediction_tokens": None},
                },
            },
        ),
        ChatMessage.from_assistant(
            "Final answer.",
            meta={"finish_reason": "stop", "usage": {"input_tokens": 7, "output_tokens": 2}},
            name="helper",
        ),
        ChatMessage.from_assistant("Truncated answ", meta={"finish_reason": "length"}),
        ChatMessage.from_assistant(
            "After thinking.",
            reasoning=ReasoningContent(reasoning_text="The user wants X; check Y first.", extra={"id": "rs_1"}),
        ),
        ChatMessage.from_assistant("With plain reasoning string.", reasoning="short thought"),
        # tool
        ChatMessage.from_tool("Fusion startups reported net-energy-gain milestones.", origin=call_with_id),
        ChatMessage.from_tool(
            "Failed to invoke Tool `lookup` with parameters {}. Error: boom", origin=call_without_id, error=True
        ),
        ChatMessage.from_tool('{"hits": 3, "names": ["ä", "b"]}', origin=call_with_extra, error=False, meta={"k": "v"}),
        ChatMessage.from_tool("", origin=ToolCall(tool_name="calc", arguments={"expr": "1+1"}, id="call_1_1")),
        ChatMessage.from_tool([TextContent(text="block one"), TextContent(text="block two")], origin=call_with_id),
    ]


def _tool_message_text(tools: list[Tool], call: ToolCall) -> str:
    """Run one call through the Agent's own tool-execution function and return the tool message's result text."""
    state = State(schema={})
    messages, _ = _run_tool(
        messages=[ChatMessage.from_assistant(tool_calls=[call])], state=state, tools=tools, raise_on_failure=False
    )
    assert len(messages) == 1, messages
    result = messages[0].tool_call_result
    assert result is not None and isinstance(result.result, str)
    return result.result


def _raising_tool(name: str, error: str) -> Tool:
    def fn(**kwargs):
        raise Exception(error)

    return Tool(name=name, description="", parameters={"type": "object", "properties": {}}, function=fn)


def _returning_tool(name: str, value) -> Tool:
    def fn(**kwargs):
        return value

    return Tool(name=name, description="", parameters={"type": "object", "properties": {}}, function=fn)


# Values whose Python rendering (repr inside a dict, json.dumps) is easy to get wrong in another language.
VALUES: list = [
    {"query": "fusion"},
    {},
    {"query": "fusion", "limit": 3, "exact": True, "fuzzy": False, "cursor": None},
    {"nested": {"a": {"b": [1, 2, {"c": None}]}, "empty_map": {}, "empty_list": []}},
    {"list": [1, "two", 3.0, True, None, [], {}]},
    {"floats": [1.0, 1e20, 0.1, -0.0, 2.5, 1e16, 1e15, 1e-5, 0.0001, 1e-7, 1.5e-05, 123456789.123]},
    {"more_floats": [0.3333333333333333, 5e-324, 1.7976931348623157e308, 100.0, 1e22, 12345678901234567.0]},
    {"ints": [0, -1, 42, 9007199254740993, -9223372036854775808, 18446744073709551615]},
    {"single": "it's", "double": 'say "hi"', "both": "it's \"both\"", "backslash": "C:\\path\\to"},
    {"newline": "line1\nline2", "tab": "a\tb", "cr": "a\rb", "nul": "a\x00b", "bell": "\x07", "del": "\x7f"},
    {"non_ascii": "naïve café — 日本語 😀", "nbsp": "a\xa0b", "zwsp": "a\u200bb", "ls": "a\u2028b", "bom": "\ufeff"},
    {"escapes": "\u00e9\u0301 \U0001f600 \x80 \x9f \xad"},
    {"key with spaces": 1, "ключ": "значение", "": "empty key"},
    {"order_z": 1, "order_a": 2, "order_m": 3},
]

# Extra values only meaningful as a tool's return value (json.dumps); strings pass through unquoted.
EXTRA_RESULTS: list = [
    "plain string result",
    "",
    '{"already": "json"}',
    42,
    -3,
    2.0,
    0.1,
    1e20,
    True,
    False,
    None,
    [],
    [1, 2, 3],
    ["a", {"b": None}],
]


def build_texts() -> list[dict]:
    texts: list[dict] = []

    # (1) Error text of a tool whose function raises: Tool.invoke renders the kwargs dict with Python's repr.
    errors = ["upstream timeout", "", "it's \"quoted\"\nsecond line", "Fehler: ü"]
    for i, args in enumerate(VALUES):
        error = errors[i % len(errors)]
        out = _tool_message_text([_raising_tool("search", error)], ToolCall(tool_name="search", arguments=args, id="c"))
        texts.append({"kind": "tool_error", "input": {"tool": "search", "arguments": args, "error": error}, "output": out})

    # (2) A non-string tool result becomes the tool message text via json.dumps(v, ensure_ascii=False).
    for value in VALUES + EXTRA_RESULTS:
        out = _tool_message_text([_returning_tool("fetch", value)], ToolCall(tool_name="fetch", arguments={}, id="c"))
        texts.append({"kind": "json_result", "input": value, "output": out})

    # (3) Unknown tool: the "Available tools" list is in the order the tools were given to the Agent.
    for tool_names, call in [
        (["zeta", "alpha", "mid"], "x"),
        (["search"], "serach"),
        (["b", "a", "c"], "a "),
    ]:
        tools = [_returning_tool(name, "ok") for name in tool_names]
        out = _tool_message_text(tools, ToolCall(tool_name=call, arguments={}, id="c"))
        texts.append({"kind": "tool_not_found", "input": {"tools": tool_names, "call": call}, "output": out})

    return texts


def main() -> None:
    # The tool executor logs every failed call; the fixtures are the output, not those logs.
    logging.getLogger("haystack").setLevel(logging.CRITICAL)
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests/fixtures/haystack"
    out_dir.mkdir(parents=True, exist_ok=True)

    messages = [m.to_dict() for m in build_messages()]
    # Round-trip check: every fixture must be readable by Haystack itself.
    for d in messages:
        assert ChatMessage.from_dict(json.loads(json.dumps(d))).to_dict() == d, d

    for name, data in [("messages.json", messages), ("texts.json", build_texts())]:
        path = out_dir / name
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(data)} entries)")


if __name__ == "__main__":
    main()
