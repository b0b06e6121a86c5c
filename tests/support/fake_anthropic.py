"""A small stand-in for the Anthropic Messages API, for driving Claude Code offline.

It listens on 127.0.0.1 and plays the model from a script: each request that carries
tools (Claude Code's main agent loop) is answered by the next scripted step, streamed
as server-sent events exactly as the real API streams them (``message_start``,
``content_block_start``/``delta``/``stop`` including ``tool_use`` blocks built from
``input_json_delta`` fragments, ``message_delta``, ``message_stop``). A step is either a
fixed list of content blocks or a callable that sees the request body, so a script can
read a tool result (e.g. a proposal id) and act on it, or change the world between
turns. Requests without tools (titles, summaries, quota probes) get a short text
answer and do not consume the script. ``count_tokens`` and any other endpoint answer
harmlessly. Every request is recorded.

Usage from a test::

    with FakeAnthropic([step1, step2, ...]) as api:
        env["ANTHROPIC_BASE_URL"] = api.base_url
        ...run claude -p...
    api.requests        # every request (method, path, headers, JSON body)
    api.agent_requests  # the bodies answered from the script

Or stand-alone, with a JSON script (a list of steps, each a list of blocks)::

    python tests/support/fake_anthropic.py --port 0 --script script.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

JSON = dict[str, Any]
Block = JSON
StepFn = Callable[[JSON], Sequence[Block]]
Step = Sequence[Block] | StepFn

MODEL = "claude-fake-1"


def text(value: str) -> Block:
    """A text content block."""
    return {"type": "text", "text": value}


def tool_use(name: str, tool_input: JSON, tool_id: str | None = None) -> Block:
    """A tool_use content block; the id is generated when not given."""
    block: Block = {"type": "tool_use", "name": name, "input": tool_input}
    if tool_id is not None:
        block["id"] = tool_id
    return block


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: JSON | None


def tool_results(body: JSON) -> list[JSON]:
    """All tool_result blocks in a request's messages, oldest first."""
    found: list[JSON] = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            found.extend(b for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return found


def result_text(result: JSON) -> str:
    """The text of a tool_result block (its content may be a string or blocks)."""
    content = result.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(str(b.get("text", "")) for b in texts)
    return ""


def last_tool_result(body: JSON) -> JSON:
    """The most recent tool_result in a request; raises if there is none."""
    results = tool_results(body)
    if not results:
        raise LookupError("the request carries no tool_result")
    return results[-1]


@dataclass
class _State:
    script: list[Step]
    requests: list[Recorded] = field(default_factory=list)
    agent_requests: list[JSON] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ids: Iterator[int] = field(default_factory=itertools.count)


def _sse(event: str, data: JSON) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _usage(input_tokens: int = 10, output_tokens: int = 5) -> JSON:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


class _Handler(BaseHTTPRequestHandler):
    server_version = "fake-anthropic/1"
    protocol_version = "HTTP/1.1"
    state: _State  # set on the subclass made per server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    # -- plumbing -------------------------------------------------------------
    def _read_body(self) -> JSON | None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}
        return parsed if isinstance(parsed, dict) else {"_json": parsed}

    def _record(self, body: JSON | None) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.state.lock:
            self.state.requests.append(Recorded(self.command, self.path, headers, body))

    def _send_json(self, status: int, payload: JSON) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_fake_{next(self.state.ids)}")
        self.end_headers()
        self.wfile.write(data)

    # -- verbs ----------------------------------------------------------------
    def do_HEAD(self) -> None:
        self._record(None)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record(None)
        if self.path.split("?")[0].rstrip("/") == "/v1/models":
            self._send_json(200, {"data": [{"id": MODEL, "type": "model"}], "has_more": False})
            return
        self._send_json(200, {})

    def do_POST(self) -> None:
        body = self._read_body()
        self._record(body)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/v1/messages/count_tokens"):
            self._send_json(200, {"input_tokens": 100})
        elif path.endswith("/v1/messages"):
            self._messages(body or {})
        else:
            self._send_json(200, {})

    # -- the model ------------------------------------------------------------
    def _messages(self, body: JSON) -> None:
        blocks: list[Block]
        if body.get("tools"):
            with self.state.lock:
                self.state.agent_requests.append(body)
                step = self.state.script.pop(0) if self.state.script else None
            if step is None:
                blocks = [text("(script finished)")]
            else:
                try:
                    blocks = list(step(body) if callable(step) else step)
                except Exception as exc:  # reported to the test, never raised here
                    with self.state.lock:
                        self.state.errors.append(f"{type(exc).__name__}: {exc}")
                    blocks = [text(f"(script step failed: {exc})")]
        else:
            blocks = [text("ok")]
        blocks = [
            {**b, "id": b.get("id") or f"toolu_fake_{next(self.state.ids):04d}"}
            if b["type"] == "tool_use"
            else b
            for b in blocks
        ]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        message_id = f"msg_fake_{next(self.state.ids):04d}"
        model = str(body.get("model") or MODEL)
        if not body.get("stream"):
            self._send_json(
                200,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": _usage(),
                },
            )
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", f"req_fake_{next(self.state.ids)}")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        out = self.wfile
        out.write(
            _sse(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": _usage(output_tokens=1),
                    },
                },
            )
        )
        for index, block in enumerate(blocks):
            if block["type"] == "tool_use":
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                raw = json.dumps(block["input"])
                cut = max(1, len(raw) // 2)
                deltas = [
                    {"type": "input_json_delta", "partial_json": part}
                    for part in (raw[:cut], raw[cut:])
                    if part
                ]
            else:
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": block["text"]}]
            out.write(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                )
            )
            for delta in deltas:
                out.write(
                    _sse(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": index, "delta": delta},
                    )
                )
            out.write(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.write(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            )
        )
        out.write(_sse("message_stop", {"type": "message_stop"}))
        out.flush()


class FakeAnthropic:
    """A scripted Messages API on a free loopback port, served from a thread."""

    def __init__(self, script: Sequence[Step], host: str = "127.0.0.1", port: int = 0) -> None:
        self._state = _State(script=list(script))
        handler = type("Handler", (_Handler,), {"state": self._state})
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[Recorded]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def agent_requests(self) -> list[JSON]:
        with self._state.lock:
            return list(self._state.agent_requests)

    @property
    def remaining_steps(self) -> int:
        with self._state.lock:
            return len(self._state.script)

    @property
    def errors(self) -> list[str]:
        with self._state.lock:
            return list(self._state.errors)

    def start(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON: a list of steps, each a list of blocks")
    parser.add_argument("--record", type=Path, help="write every request here (JSON) on exit")
    args = parser.parse_args(argv)
    script: list[Step] = json.loads(args.script.read_text()) if args.script else []
    api = FakeAnthropic(script, port=args.port).start()
    print(api.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        api.stop()
        if args.record:
            args.record.write_text(json.dumps([r.__dict__ for r in api.requests], indent=1))


if __name__ == "__main__":
    main()
