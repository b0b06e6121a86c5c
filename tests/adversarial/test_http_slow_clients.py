"""`gotchas serve --http` drops clients that send a request too slowly, and goes on serving.

Before, 500 half-sent requests stayed open for as long as their clients liked. The read
deadline (``GOTCHAS_HTTP_READ_TIMEOUT``) closes every connection that has not delivered a
whole request in time: idle ones, half-sent headers, a body that stops midway.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from pathlib import Path

from support.clients import http_server, make_scenario_repo

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
WAIT = 30.0
"""How long all sockets together may take to be closed: far beyond the 1 s deadline, and bounded."""


def closed_by_server(sock: socket.socket, until: float) -> bool:
    """Whether the server closes ``sock`` (end of stream or a reset) before ``until``."""
    sock.settimeout(max(0.05, until - time.monotonic()))
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_idle_and_half_sent_requests_are_closed_and_the_server_still_answers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    with http_server(root, env={"GOTCHAS_HTTP_READ_TIMEOUT": "1"}) as server:
        body = json.dumps(INITIALIZE).encode()
        slow: list[socket.socket] = []
        for n in range(60):
            sock = socket.create_connection((server.host, server.port), timeout=10)
            if n % 3 == 1:  # headers never finished
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
            elif n % 3 == 2:  # a body that stops halfway
                head = (
                    f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
                )
                sock.sendall(head.encode() + body[: len(body) // 2])
            slow.append(sock)
        try:
            until = time.monotonic() + WAIT
            closed = [closed_by_server(sock, until) for sock in slow]
        finally:
            for sock in slow:
                sock.close()

        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        conn.request(
            "POST",
            server.path,
            body=body,
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        status = conn.getresponse().status
        conn.close()
        assert server.process.poll() is None

    assert closed == [True] * len(slow)
    assert status == 200


def test_a_read_timeout_that_is_not_a_positive_number_is_refused(tmp_path: Path) -> None:
    from gotchas import deadline
    from gotchas.errors import InvalidArgument

    assert deadline.read_timeout({}) == deadline.DEFAULT
    assert deadline.read_timeout({deadline.VARIABLE: "2.5"}) == 2.5
    for bad in ("0", "-1", "nan", "inf", "soon"):
        try:
            deadline.read_timeout({deadline.VARIABLE: bad})
        except InvalidArgument as exc:
            assert deadline.VARIABLE in str(exc)
        else:
            raise AssertionError(f"{bad!r} was accepted")
