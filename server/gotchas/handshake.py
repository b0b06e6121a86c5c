"""The server command ``init`` writes, and the check that it starts: an MCP ``initialize``
over stdio, answered by a server named ``gotchas``.

Only our own commands are ever started here (the published one through ``uvx``, or this
installation's); a server entry the repository wrote is never run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

from gotchas.errors import ConfigError


class ServerEntry(TypedDict):
    """One ``mcpServers`` entry of ``.mcp.json``: how Claude Code starts the server."""

    type: str
    command: str
    args: list[str]


SERVER: ServerEntry = {"type": "stdio", "command": "uvx", "args": ["gotchas-mcp"]}
"""The server as the README adds it (``claude mcp add --scope project gotchas -- uvx gotchas-mcp``)."""

PROBE_TIMEOUT = 60.0


def installed_server(python: str | None = None) -> ServerEntry:
    """The running installation's server, by absolute path (as the merge driver is)."""
    return {
        "type": "stdio",
        "command": os.path.abspath(python or sys.executable),
        "args": ["-m", "gotchas", "serve"],
    }


def answers(entry: ServerEntry, root: Path, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Why the server ``entry`` starts does not answer an MCP ``initialize`` over stdio, or
    None when it does. Only our own commands are started, never one the repository names."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "gotchas-init", "version": "0"},
        },
    }
    try:
        done = subprocess.run(
            [entry["command"], *entry["args"]],
            input=(json.dumps(request) + "\n").encode(),
            capture_output=True,
            cwd=root,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{entry['command']} did not start or answer: {exc}"
    for line in done.stdout.splitlines():
        try:
            reply = json.loads(line)
        except ValueError:
            continue
        result = reply.get("result") if isinstance(reply, dict) else None
        server = result.get("serverInfo") if isinstance(result, dict) else None
        if isinstance(server, dict) and server.get("name") == "gotchas":
            return None
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return (
        f"{entry['command']} exited {done.returncode} without answering: {said[-1] if said else 'no message'}"
    )


def server_entry(root: Path) -> ServerEntry:
    """The published server through ``uvx`` when it answers here, else this installation's;
    ``ConfigError`` when neither answers (nothing is written then)."""
    tried = []
    for entry in ([SERVER] if shutil.which("uvx") else []) + [installed_server()]:
        why = answers(entry, root)
        if why is None:
            return entry
        tried.append(why)
    raise ConfigError("the gotchas server does not start: " + "; ".join(tried) + "; nothing was changed")
