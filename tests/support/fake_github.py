"""A stand-in for GitHub's REST API on 127.0.0.1, answering the documented shapes.

Serves ``GET /repos/{owner}/{repo}/issues/{n}`` and ``/pulls/{n}`` from dictionaries the
test fills in, records ``POST /repos/{owner}/{repo}/pulls`` (a pull request opened) in
``opened``, and can be told to misbehave the ways the real service does: 404, 401,
a primary rate limit (403 with ``x-ratelimit-remaining: 0`` and ``x-ratelimit-reset``),
a secondary limit (429 with ``retry-after``), a dropped connection, a body that is not
JSON or is nested past the parser's depth, or no answer at all. Every request is recorded with its headers.

Usage::

    with FakeGitHub() as github:
        github.issues["octo/proj", 664] = issue(664, state="open")
        source = GitHubSource(root, repo="octo/proj", base_url=github.base_url)
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

_PULLS = re.compile(r"^/(?:api/v3/)?repos/(?P<repo>[^/]+/[^/]+)/pulls$")
Failure = str  # "404", "401", "rate-limit", "retry-after", "drop", "bad-json", "deep-json", "hang", "500"
DEEP = 100_000  # levels of nesting in a "deep-json" answer

_PATH = re.compile(r"^/(?:api/v3/)?repos/(?P<repo>[^/]+/[^/]+)/(?P<kind>issues|pulls)/(?P<n>\d+)$")


def issue(
    number: int,
    *,
    state: str = "open",
    state_reason: str | None = None,
    repo: str = "octo/proj",
    pull: bool = False,
) -> dict[str, object]:
    """An issue as ``GET /repos/{owner}/{repo}/issues/{n}`` returns it (the fields that matter)."""
    body: dict[str, object] = {
        "id": 1000 + number,
        "node_id": f"I_{number}",
        "url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "html_url": f"https://github.com/{repo}/{'pull' if pull else 'issues'}/{number}",
        "number": number,
        "state": state,
        "state_reason": state_reason,
        "title": f"Task {number}",
        "closed_at": None if state == "open" else "2026-11-20T10:00:00Z",
        "labels": [],
        "user": {"login": "someone"},
    }
    if pull:
        body["pull_request"] = {
            "url": f"https://api.github.com/repos/{repo}/pulls/{number}",
            "html_url": f"https://github.com/{repo}/pull/{number}",
            "merged_at": None,
        }
    return body


def pull_request(
    number: int,
    *,
    state: str = "open",
    merged_at: str | None = None,
    repo: str = "octo/proj",
) -> dict[str, object]:
    """A pull request as ``GET /repos/{owner}/{repo}/pulls/{n}`` returns it."""
    return {
        "id": 2000 + number,
        "url": f"https://api.github.com/repos/{repo}/pulls/{number}",
        "html_url": f"https://github.com/{repo}/pull/{number}",
        "number": number,
        "state": state,
        "merged": merged_at is not None,
        "merged_at": merged_at,
        "merge_commit_sha": "0123456789abcdef0123456789abcdef01234567" if merged_at else None,
        "closed_at": merged_at if merged_at else (None if state == "open" else "2026-11-21T09:00:00Z"),
    }


class _QuietServer(ThreadingHTTPServer):
    """A dropped connection is on purpose here; do not print its traceback."""

    def handle_error(self, request: object, client_address: object) -> None:
        return


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class FakeGitHub:
    issues: dict[tuple[str, int], dict[str, object]] = field(default_factory=dict)
    pulls: dict[tuple[str, int], dict[str, object]] = field(default_factory=dict)
    failure: Failure | None = None  # applies to every request while set
    rate_limit_reset: int = 1_796_022_000  # 2026-11-30T07:00:00Z
    requests: list[Request] = field(default_factory=list)
    opened: list[tuple[str, dict[str, object]]] = field(default_factory=list)  # (repo, request body)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first (use it as a context manager)"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                fake.requests.append(
                    Request("GET", self.path, {k.lower(): v for k, v in self.headers.items()})
                )
                fake._answer(self)

            def do_POST(self) -> None:
                fake.requests.append(
                    Request("POST", self.path, {k.lower(): v for k, v in self.headers.items()})
                )
                fake._open_pull(self)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        failure = self.failure
        if failure == "drop":
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)  # no status line: the client sees a drop
            return
        if failure == "hang":
            time.sleep(3)
            _send(handler, 200, {"state": "open"})
            return
        if failure == "bad-json":
            _send_raw(handler, 200, b"<html>Unicorn! This page is taking too long</html>", {})
            return
        if failure == "deep-json":  # an answer nested past any JSON parser's depth
            _send_raw(handler, 200, b"[" * DEEP + b"]" * DEEP, {})
            return
        if failure == "deep-json-404":  # the same, as the body of an error
            _send_raw(handler, 404, b'{"message":' * DEEP + b"1" + b"}" * DEEP, {})
            return
        if failure == "401":
            _send(handler, 401, _error("Bad credentials", "authentication", 401))
            return
        if failure == "rate-limit":
            headers = {
                "x-ratelimit-limit": "60",
                "x-ratelimit-remaining": "0",
                "x-ratelimit-used": "60",
                "x-ratelimit-reset": str(self.rate_limit_reset),
                "x-ratelimit-resource": "core",
            }
            message = "API rate limit exceeded for 127.0.0.1."
            _send(handler, 403, _error(message, "rate-limits-for-the-rest-api", 403), headers)
            return
        if failure == "retry-after":
            message = "You have exceeded a secondary rate limit."
            _send(handler, 429, _error(message, "secondary-rate-limits", 429), {"retry-after": "60"})
            return
        if failure == "500":
            _send(handler, 500, {"message": "Server Error"})
            return
        match = _PATH.match(handler.path)
        table = None
        if match is not None:
            table = self.issues if match["kind"] == "issues" else self.pulls
        key = (match["repo"], int(match["n"])) if match is not None else None
        if failure == "404" or table is None or key not in table:
            _send(handler, 404, _error("Not Found", "issues#get-an-issue", 404))
            return
        _send(handler, 200, table[key])

    def _open_pull(self, handler: BaseHTTPRequestHandler) -> None:
        """``POST /repos/{owner}/{repo}/pulls``: 201 with the new pull request, or 401/404/422."""
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length)
        match = _PULLS.match(handler.path)
        if match is None:
            _send(handler, 404, _error("Not Found", "pulls#create-a-pull-request", 404))
            return
        if not handler.headers.get("authorization", "").startswith(("Bearer ", "token ")):
            _send(handler, 401, _error("Requires authentication", "pulls#create-a-pull-request", 401))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            _send(handler, 400, _error("Problems parsing JSON", "pulls#create-a-pull-request", 400))
            return
        if not isinstance(body, dict) or not all(
            isinstance(body.get(k), str) for k in ("title", "head", "base")
        ):
            _send(handler, 422, _error("Validation Failed", "pulls#create-a-pull-request", 422))
            return
        self.opened.append((match["repo"], body))
        number = 100 + len(self.opened)
        url = f"https://github.com/{match['repo']}/pull/{number}"
        _send(handler, 201, {"number": number, "html_url": url, "state": "open", **body})

    def paths(self) -> Iterator[str]:
        return (request.path for request in self.requests)


def _error(message: str, anchor: str, status: int) -> dict[str, object]:
    return {
        "message": message,
        "documentation_url": f"https://docs.github.com/rest/{anchor}",
        "status": str(status),
    }


def _send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: dict[str, object],
    headers: dict[str, str] | None = None,
) -> None:
    _send_raw(handler, status, json.dumps(body).encode(), headers or {})


def _send_raw(handler: BaseHTTPRequestHandler, status: int, payload: bytes, headers: dict[str, str]) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json; charset=utf-8")
    handler.send_header("Content-Length", str(len(payload)))
    handler.send_header("X-GitHub-Api-Version-Selected", "2022-11-28")
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(payload)
