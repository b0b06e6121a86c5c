"""`gotchas serve --http`: streamable HTTP on loopback, DNS-rebinding protection and the
bearer token, exercised with the SDK's own client and raw HTTP requests."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gotchas.errors import InvalidArgument
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
        missing = await client.call_tool("get_gotcha", {"id": "no-such-lesson-here"})
        return {"tools": tools, "listed": listed, "hold": hold, "missing": missing}


def test_a_real_client_works_over_streamable_http(repo: Path) -> None:
    with http_server(repo) as server:
        got = asyncio.run(scenario_calls(server.url))
    assert {"list_gotchas", "check_hold", "apply_supersede"} <= got["tools"]
    assert got["listed"].is_error is False
    (entry,) = got["listed"].structured_content["entries"]
    assert "chunk it" in entry["title"]
    assert got["hold"].structured_content["state"] == "held"
    # `gotchas serve` is started by the CLI, but its hints speak to a model: tools, not commands
    hint = got["missing"].content[0].text
    assert got["missing"].is_error and "list_gotchas shows the ids" in hint and "gotchas list" not in hint


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


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--host", "0.0.0.0"], {}),
        (["--host", "192.0.2.7"], {}),
        (["--allowed-host", "lessons.example"], {}),
        (["--allowed-host", "192.0.2.7:8443"], {}),
        ([], {"GOTCHAS_ALLOWED_HOSTS": "localhost, proxy.example"}),
        (["--host", "0.0.0.0"], {"GOTCHAS_TOKEN": "   "}),
        (["--allowed-host", "lessons.example"], {"GOTCHAS_TOKEN": ""}),
    ],
)
def test_serving_beyond_loopback_without_a_token_exits_8(
    repo: Path, args: list[str], env: dict[str, str]
) -> None:
    """A non-loopback bind or allowed host with no (or a blank) token: token-required, exit 8,
    one line naming GOTCHAS_TOKEN, and nothing listens."""
    done = serve_once(repo, *args, "--port", "0", **env)
    assert done.returncode == 8, done.stderr
    assert done.stderr.startswith("gotchas: token-required: ")
    assert "GOTCHAS_TOKEN" in done.stderr and "http://" not in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("hosts", [["--allowed-host", "localhost"], ["--allowed-host", "127.0.0.5:9000"], []])
def test_loopback_names_only_need_no_token(repo: Path, hosts: list[str]) -> None:
    with http_server(repo, *hosts) as server:
        got = asyncio.run(scenario_calls(server.url))
    assert got["listed"].is_error is False


def test_beyond_loopback_a_real_client_with_the_token_and_an_allowed_host_works(repo: Path) -> None:
    """A wildcard bind with a token: the client reaches it under a name given with
    --allowed-host; a foreign Host is 421 and a request without the token 401."""
    token = "beyond-loopback-7c1e"
    name = "lessons.example"
    with http_server(repo, "--allowed-host", name, host="0.0.0.0", env={"GOTCHAS_TOKEN": token}) as server:
        port = server.port
        loopback = HttpServer(server.process, "127.0.0.1", port, server.log)
        bearer = {"Authorization": f"Bearer {token}"}
        named = asyncio.run(scenario_calls(loopback.url, {**bearer, "Host": f"{name}:{port}"}))
        direct = asyncio.run(scenario_calls(loopback.url, bearer))
        foreign, _ = post(loopback, {**bearer, "Host": f"attacker.example:{port}"})
        no_token, _ = post(loopback, {"Host": f"{name}:{port}"})
        try:  # the same client under a name nobody allowed is turned away
            asyncio.run(scenario_calls(loopback.url, {**bearer, "Host": f"attacker.example:{port}"}))
            refused = ""
        except BaseException as exc:  # whatever the client raises, it must raise
            refused = repr(exc)
        printed = server.output()
    assert named["hold"].structured_content["state"] == "held"
    assert direct["listed"].is_error is False
    assert foreign == 421
    assert no_token == 401
    assert "error response" in refused, refused
    assert f"http://127.0.0.1:{port}/mcp" in printed
    assert name in printed and "GOTCHAS_TOKEN" in printed
    assert token not in printed


def test_the_allowed_hosts_variable_adds_names_like_the_flag(repo: Path) -> None:
    token = "variable-hosts-0b3d"
    env = {"GOTCHAS_TOKEN": token, "GOTCHAS_ALLOWED_HOSTS": "one.example, two.example:443"}
    with http_server(repo, host="0.0.0.0", env=env) as server:
        loopback = HttpServer(server.process, "127.0.0.1", server.port, server.log)
        bearer = {"Authorization": f"Bearer {token}"}
        one, _ = post(loopback, {**bearer, "Host": f"one.example:{server.port}"})
        two, _ = post(loopback, {**bearer, "Host": "two.example:443"})
        two_elsewhere, _ = post(loopback, {**bearer, "Host": f"two.example:{server.port}"})
    assert (one, two, two_elsewhere) == (200, 200, 421)


def test_a_second_loopback_address_accepts_its_own_host(repo: Path) -> None:
    with http_server(repo, host="127.0.0.2") as server:
        own, _ = post(server, {"Host": f"127.0.0.2:{server.port}"})
        foreign, _ = post(server, {"Host": f"attacker.example:{server.port}"})
        got = asyncio.run(scenario_calls(server.url))
    assert own == 200
    assert foreign == 421
    assert got["listed"].is_error is False


def serve_once(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = git_env()
    full.pop("GOTCHAS_TOKEN", None)
    full.update(env)
    return subprocess.run(
        [*gotchas_cmd(repo), "serve", "--http", *args],
        cwd=repo,
        env=full,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("host", "token"), [("127.0.0.1", "   "), ("127.0.0.1", "\t"), ("0.0.0.0", "two words")]
)
def test_a_token_of_whitespace_is_refused(repo: Path, host: str, token: str) -> None:
    done = serve_once(repo, "--host", host, "--port", "0", GOTCHAS_TOKEN=token)
    assert done.returncode == 2
    assert "GOTCHAS_TOKEN" in done.stderr and "whitespace" in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_busy_port_exits_6_never_the_code_for_held(repo: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = serve_once(repo, "--port", str(port))
    assert done.returncode == 6
    assert "cannot-listen" in done.stderr and "in use" in done.stderr and str(port) in done.stderr


def test_a_malformed_allowed_host_is_refused(repo: Path) -> None:
    done = serve_once(repo, "--port", "0", "--allowed-host", "http://x.example/path")
    assert done.returncode == 2
    assert "--allowed-host" in done.stderr


def test_the_accepted_names_follow_the_bind_address() -> None:
    from gotchas import endpoint

    specific = endpoint.policy("192.0.2.7", 8000, "t", ["proxy.example"])
    assert specific.names == ("192.0.2.7", "proxy.example")
    assert "192.0.2.7:8000" in specific.allowed_hosts and "proxy.example" in specific.allowed_hosts
    assert "127.0.0.1:8000" not in specific.allowed_hosts
    v6 = endpoint.policy("::1", 9000, None, [])
    assert v6.names[0] == "[::1]" and v6.url == "http://[::1]:9000/mcp"
    wildcard = endpoint.policy("0.0.0.0", 8000, "t", [])
    assert {"127.0.0.1", "localhost", "[::1]"} <= set(wildcard.names)
    assert socket.gethostname().lower() in wildcard.names
    assert wildcard.url == "http://127.0.0.1:8000/mcp"
    with pytest.raises(endpoint.TokenRequired, match="GOTCHAS_TOKEN"):
        endpoint.policy("192.0.2.7", 8000, None, [])
    with pytest.raises(endpoint.TokenRequired, match=r"proxy\.example"):
        endpoint.policy("127.0.0.1", 8000, None, ["proxy.example"])


@pytest.mark.parametrize(
    "bad", ["*", "*.example", "name:*", "a%b", "http://x.example", "x.example/mcp", "u@x"]
)
def test_an_allowed_host_is_a_host_name_and_nothing_else(bad: str) -> None:
    from gotchas import endpoint

    with pytest.raises(InvalidArgument):
        endpoint.parse_hosts([bad])


def test_allowed_hosts_are_lower_cased_and_deduplicated() -> None:
    from gotchas import endpoint

    assert endpoint.parse_hosts(["Lessons.Example, lessons.example", "[::1] 10.0.0.2:8443"]) == [
        "lessons.example",
        "[::1]",
        "10.0.0.2:8443",
    ]
