"""`gotchas serve --http` against an oversized request: refused with 413, and still serving.

A body far larger than any JSON-RPC message the tools take is answered ``413`` without the
server holding it whole; the next ordinary request is answered as usual.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

from support.clients import HttpServer, http_server, make_scenario_repo

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "oversized-body-test", "version": "0"},
    },
}
MEGABYTE = 1 << 20


def send(server: HttpServer, body: bytes) -> int:
    """POST ``body`` to the MCP endpoint in 1 MB pieces; the status, even if the server stops
    reading early."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    try:
        conn.putrequest("POST", server.path)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Accept", "application/json, text/event-stream")
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        try:
            for start in range(0, len(body), MEGABYTE):
                conn.send(body[start : start + MEGABYTE])
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it was all sent: the answer is still there to read
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_fifty_megabyte_body_is_refused_with_413_and_the_server_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    padding = "x" * (50 * MEGABYTE)
    huge = json.dumps({**INITIALIZE, "params": {**INITIALIZE["params"], "padding": padding}}).encode()
    with http_server(root) as server:
        status = send(server, huge)
        after = send(server, json.dumps(INITIALIZE).encode())
        assert server.process.poll() is None
    assert status == 413
    assert after == 200
