"""`gotchas serve --http`: streamable HTTP on loopback, DNS-rebinding protection and the
bearer token, exercised with the SDK's own client and raw HTTP requests."""

from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from support.clients import (
    HOLD,
    HttpServer,
    git_env,
    gotchas_cmd,
    http_server,
    make_scenario_repo,
    run_gotchas,
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-http-test", "version": "0"},
    },
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    run_gotchas(root, "task", "set", "664", "running")
    return root


def post(server: HttpServer, headers: dict[str, str], body: Any = INITIALIZE) -> tuple[int, str]:
    """POST to /mcp with exactly these headers (Host included); returns status and body."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.putrequest("POST", server.path, skip_host=True, skip_accept_encoding=True)
        payload = json.dumps(body).encode()
        base = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Content-Length": str(len(payload)),
        }
        for key, value in {**base, **headers}.items():
            conn.putheader(key, value)
        conn.endheaders(payload)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


async def scenario_calls(url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = {tool.name for tool in (await client.list_tools()).tools}
        listed = await client.call_tool("list_gotchas", {"task": "#664", "verbose": True})
        hold = await client.call_tool("check_hold", {"predicate": HOLD})
        return {"tools": tools, "listed": listed, "hold": hold}


def test_a_real_client_works_over_streamable_http(repo: Path) -> None:
    with http_server(repo) as server:
        got = asyncio.run(scenario_calls(server.url))
    assert {"list_gotchas", "check_hold", "apply_supersede"} <= got["tools"]
    assert got["listed"].is_error is False
    (entry,) = got["listed"].structured_content["entries"]
    assert "chunk it" in entry["title"]
    assert got["hold"].structured_content["state"] == "held"


def test_dns_rebinding_a_foreign_host_or_origin_is_rejected(repo: Path) -> None:
    with http_server(repo) as server:
        local = f"127.0.0.1:{server.port}"
        ok_status, _ = post(server, {"Host": local})
        assert ok_status == 200
        bad_host, _ = post(server, {"Host": f"attacker.example:{server.port}"})
        bad_origin, _ = post(server, {"Host": local, "Origin": "http://attacker.example"})
        localhost_origin, _ = post(
            server, {"Host": f"localhost:{server.port}", "Origin": f"http://localhost:{server.port}"}
        )
    assert bad_host in {403, 421}, bad_host
    assert bad_origin == 403, bad_origin
    assert localhost_origin == 200


def test_with_a_token_every_request_needs_the_bearer_header(repo: Path) -> None:
    token = "test-token-5f2a"
    with http_server(repo, env={"GOTCHAS_TOKEN": token}) as server:
        local = {"Host": f"127.0.0.1:{server.port}"}
        missing, body = post(server, local)
        wrong, _ = post(server, {**local, "Authorization": "Bearer not-the-token"})
        basic, _ = post(server, {**local, "Authorization": f"Basic {token}"})
        right, _ = post(server, {**local, "Authorization": f"Bearer {token}"})
        got = asyncio.run(scenario_calls(server.url, {"Authorization": f"Bearer {token}"}))
    assert (missing, wrong, basic) == (401, 401, 401)
    assert "token" in body.lower()
    assert right == 200
    assert got["hold"].structured_content["state"] == "held"


def test_binding_beyond_loopback_without_a_token_is_refused(repo: Path) -> None:
    env = git_env()
    env.pop("GOTCHAS_TOKEN", None)
    done = subprocess.run(
        [*gotchas_cmd(repo), "serve", "--http", "--host", "0.0.0.0", "--port", "0"],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "GOTCHAS_TOKEN" in done.stderr
