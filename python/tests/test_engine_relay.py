"""Record runs (protocol 3, `relay.py`): each model call of a `live` run goes to the caller as `model_call`, and the
worker answers it with the caller's `model_reply` exactly as a script entry would; old requests are unchanged."""

import json
import os

from engine_driver import Worker
from engine_fixtures import FIXTURES, module_worker

worker = module_worker()

TOOL = {
    "name": "search",
    "description": "Search the web",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    "results": ["found it"],
}


def live_request(scenario: dict) -> dict:
    return {
        "scenario": {"version": 1, "name": "live", "run": {"messages": [{"role": "user", "text": "q"}]}, **scenario},
        "file": "live.yaml",
        "dir": os.getcwd(),
        "hook_names": {},
        "detail": "summary",
        "keep_requests": True,
        "live": True,
    }


def run_live(worker: Worker, request: dict, replies: list) -> tuple[list, dict]:
    """Runs `request`, answering its model calls with `replies` in order; the calls received and the final answer."""
    worker.next_id += 1
    ident = worker.next_id
    worker.send({"id": ident, "run": request})
    calls = []
    while True:
        message = worker._read()
        assert message["id"] == ident, message
        if "model_call" not in message:
            return calls, message
        calls.append(message["model_call"])
        worker.send({"id": ident, "model_reply": replies[len(calls) - 1]})


def test_the_handshake_speaks_protocol_3(worker):
    assert worker.hello["protocol"] == 3


def test_each_main_model_call_is_relayed_with_its_conversation_and_tools_and_answered_as_a_script_entry(worker):
    request = live_request({"model": [{"text": "stale script entry"}], "tools": [TOOL]})
    replies = [
        {"tool_calls": [{"tool": "search", "arguments": {"query": "x"}, "id": "call_1"}], "finish_reason": "tool_calls"},
        {"text": "the answer", "usage": {"total_tokens": 3}},
    ]
    calls, answer = run_live(worker, request, replies)
    assert [c["model"] for c in calls] == [None, None]
    assert calls[0]["messages"] == [{"role": "user", "meta": {}, "name": None, "content": [{"text": "q"}]}]
    assert calls[0]["tools"] == [{k: TOOL[k] for k in ("name", "description", "parameters")}]
    assert calls[0]["generation_kwargs"] is None
    # The second call sees the tool's result for the relayed tool call.
    results = [p for m in calls[1]["messages"] for p in m["content"] if "tool_call_result" in p]
    assert results[0]["tool_call_result"]["result"] == "found it"
    assert results[0]["tool_call_result"]["origin"]["id"] == "call_1"
    record = answer["record"]
    assert record["error"] is None, record["error"]
    assert record["result"]["last_message"]["content"] == [{"text": "the answer"}]
    assert record["result"]["last_message"]["meta"] == {"usage": {"total_tokens": 3}}
    assert len(record["requests"]) == 2


def test_an_error_reply_fails_the_run_as_a_scripted_error_entry_does(worker):
    calls, answer = run_live(worker, live_request({"model": []}), [{"error": "server said no"}])
    assert len(calls) == 1
    assert "server said no" in answer["record"]["error"]["message"]


def test_a_named_model_a_hook_builds_is_relayed_under_its_name_and_the_main_call_gets_the_generation_kwargs(worker):
    request = live_request(
        {
            "model": [],
            "python_path": ["user_code"],
            "models": {
                "judge": {"replies": [], "replaces": "haystack.components.generators.chat:OpenAIChatGenerator"}
            },
            "hooks": {"before_llm": [{"python": "misbehaving:ask_openai"}]},
        }
    )
    request["dir"] = str(FIXTURES)
    request["hook_names"] = {"before_llm": ["ask_openai"]}
    request["scenario"]["run"]["generation_kwargs"] = {"temperature": 0}
    calls, answer = run_live(worker, request, [{"text": "judged"}, {"text": "main"}])
    assert [c["model"] for c in calls] == ["judge", None]
    assert calls[0]["messages"][0]["content"] == [{"text": "hi"}]
    assert calls[1]["generation_kwargs"] == {"temperature": 0}
    record = answer["record"]
    assert record["error"] is None, record["error"]
    assert [e.get("model") for e in record["trace"] if e["event"] == "llm_finished"] == ["judge", None]
    assert record["result"]["last_message"]["content"] == [{"text": "main"}]


def test_a_reply_that_is_not_a_reply_fails_the_run_and_the_worker_still_serves(worker):
    worker.next_id += 1
    ident = worker.next_id
    worker.send({"id": ident, "run": live_request({"model": []})})
    message = worker._read()
    assert "model_call" in message
    worker.send({"id": ident + 7, "run": {}})
    answer = worker._read()
    assert answer["id"] == ident
    assert "where the reply to a live model call belongs" in answer["record"]["error"]["message"]
    _calls, again = run_live(worker, live_request({"model": []}), [{"text": "fine"}])
    assert again["record"]["error"] is None


def test_a_run_that_is_not_live_never_sends_a_model_call(worker):
    request = live_request({"model": [{"text": "scripted"}]})
    del request["live"]
    calls, answer = run_live(worker, request, [])
    assert calls == []
    assert answer["record"]["result"]["last_message"]["content"] == [{"text": "scripted"}]
    assert json.dumps(answer).count("model_call") == 0
