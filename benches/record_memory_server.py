"""A local OpenAI-compatible server for measuring `hookharness record`'s memory.

Every answer is a reply of about REPLY_BYTES bytes: a text and a `search` tool
call, until the request holds REPLIES - 1 assistant messages; then a final
text. Stateless: the reply depends on the request only.

    python3 benches/record_memory_server.py PORT [REPLIES] [REPLY_BYTES]
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1])
REPLIES = int(sys.argv[2]) if len(sys.argv) > 2 else 100
REPLY_BYTES = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        request = json.loads(self.rfile.read(length))
        answered = sum(1 for m in request["messages"] if m["role"] == "assistant")
        words = " ".join(f"word{answered}-{i}" for i in range(REPLY_BYTES // 12))
        text = words[: REPLY_BYTES - 300]
        if answered + 1 < REPLIES:
            message = {
                "role": "assistant",
                "content": text,
                "tool_calls": [
                    {
                        "id": f"call_{answered}",
                        "type": "function",
                        "function": {"name": "search", "arguments": json.dumps({"query": f"q{answered}"})},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": text}
            finish = "stop"
        body = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
