"""A loopback model endpoint for the agent's tests: the OpenAI chat-completions wire protocol over HTTP
(``POST /v1/chat/completions``, JSON in and out, ``tool_calls``), playing scripted turns. Nothing leaves
127.0.0.1; the port is chosen by the system."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A scripted turn: an HTTP error status, or a function of the request's body giving the assistant message.
Turn = int | Callable[[dict[str, Any]], dict[str, Any]]


def tool_call(name: str, arguments: str | dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def says(*calls: dict[str, Any], content: str | None = None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A turn that answers with these tool calls (or only ``content``)."""

    def turn(_request: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = list(calls)
        return message

    return turn


@dataclass
class Endpoint:
    turns: list[Turn]
    usage: int = 100  # total tokens per answer
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""


@contextmanager
def endpoint(turns: list[Turn], usage: int = 100) -> Iterator[Endpoint]:
    ep = Endpoint(list(turns), usage)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            ep.requests.append(body)
            ep.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != "/v1/chat/completions" or not ep.turns:
                self._send(404 if ep.turns else 400, {"error": {"message": "no such turn", "type": "invalid"}})
                return
            turn = ep.turns.pop(0)
            if isinstance(turn, int):
                self._send(turn, {"error": {"message": f"scripted {turn}", "type": "server_error"}})
                return
            message = turn(body)
            done = "tool_calls" if message.get("tool_calls") else "stop"
            half = ep.usage // 2
            self._send(
                200,
                {
                    "id": f"chatcmpl-{len(ep.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "message": message, "finish_reason": done}],
                    "usage": {"prompt_tokens": half, "completion_tokens": ep.usage - half, "total_tokens": ep.usage},
                },
            )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ep.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield ep
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
