"""``gotchas init``: set a repository up in one command, saying every change it makes.

The record (when there is none), ``.mcp.json`` (the server), ``.claude/settings.json`` (the
read-only tools allowed, the server enabled, the session-start hook), ``.gitattributes``
(the record's merge driver, the journal merged as a union; a path with spaces or
specials C-quoted, as gitattributes requires) and the merge driver in the repository's git
config: the running Python, by absolute path, so it works without ``gotchas`` on PATH. A
merge driver already configured is kept and reported, never overwritten. Existing JSON
is merged key by key, never replaced; existing lines are kept byte for byte. Every file
is read and checked before anything is written, so a malformed file stops the run with
nothing changed; each write holds the file's lock and replaces it only if it is still the
version read (else the run stops, asking for another); a second run changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gotchas.errors import ConfigError
from gotchas.workspace import JOURNAL_FILE, Snapshot, Workspace, write_atomic

SERVER = {"type": "stdio", "command": "uvx", "args": ["gotchas-mcp"]}
"""The server as the README adds it (``claude mcp add --scope project gotchas -- uvx gotchas-mcp``)."""
ALLOWED_TOOLS = (
    "list_gotchas",
    "get_gotcha",
    "check_hold",
    "propose_supersede",
    "propose_lesson",
    "verify_record",
    "list_proposals",
    "history",
    "check_record",
    "propose_retire",
)
"""Tools that never write the record; apply_supersede stays behind the permission prompt."""
HOOK_COMMAND = (
    "command -v gotchas >/dev/null 2>&1 && exec gotchas session-start; "
    "command -v uvx >/dev/null 2>&1 && exec uvx --quiet --from gotchas gotchas session-start; exit 0"
)
"""The installed ``gotchas`` when there is one, else the published one through uvx; never a
program from the repository, and silent when neither is there."""
DRIVER_ARGS = "-m gotchas merge-record %O %A %B %P"


def driver(python: str | None = None) -> str:
    """The driver command git runs through the shell: this Python, single-quoted, by absolute
    path, so the merge works in a shell without ``gotchas`` (or a virtualenv) on PATH."""
    path = os.path.abspath(python or sys.executable)
    return "'" + path.replace("'", "'\\''") + "' " + DRIVER_ARGS


DRIVER_NAME = "gotchas: keep both sides' corrections of the lessons file"
NEW_RECORD = b"# Gotchas\n\nLessons from past tasks, each naming the task that taught it.\n"


@dataclass(frozen=True)
class Change:
    """One change ``init`` makes (or would make): where, and what, in words."""

    target: str
    what: str
    write: Callable[[], None]
    kept: bool = False
    """Left as it is (a value someone set): reported, nothing is written."""


def plan(ws: Workspace) -> list[Change]:
    """Every change the repository needs, computed from what is there; nothing is written."""
    changes: list[Change] = []
    record = ws.writable_record(None)
    found = ws.snapshot(record, missing_ok=True)
    if found.signature is None:
        changes.append(
            Change(ws.name(record), "create the lessons file", _writer(ws, record, NEW_RECORD, found))
        )
    changes += _json_change(ws, ".mcp.json", _with_server, "add the gotchas MCP server")
    changes += _json_change(
        ws,
        ".claude/settings.json",
        _with_settings,
        "allow the read-only gotchas tools, enable the server, add the session-start hook",
    )
    changes += _attributes(ws, ws.name(record))
    changes += _git_config(ws)
    return changes


def _writer(ws: Workspace, path: Path, data: bytes, read: Snapshot) -> Callable[[], None]:
    """Replace ``path`` with ``data`` under its lock, only if it is still the version ``read``."""

    def write() -> None:
        with ws.lock(path):
            write_atomic(path, data, root=ws.root, expect=read)

    return write


def _read(ws: Workspace, name: str) -> Snapshot:
    return ws.snapshot(ws.inside(name), missing_ok=True)


def _json_change(
    ws: Workspace, name: str, update: Callable[[dict[str, Any]], dict[str, Any]], what: str
) -> list[Change]:
    found = _read(ws, name)
    raw = found.data if found.signature is not None else None
    try:
        current = json.loads(raw.decode("utf-8")) if raw is not None else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(
            f"{name} is not valid JSON ({exc}); fix it and run init again; nothing was changed"
        ) from None
    if not isinstance(current, dict):
        raise ConfigError(f"{name} holds {type(current).__name__}, not a JSON object; nothing was changed")
    updated = update(json.loads(json.dumps(current)))
    if updated == current:
        return []
    data = (json.dumps(updated, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    verb = "create" if raw is None else "update"
    return [Change(name, f"{verb}: {what}", _writer(ws, ws.inside(name), data, found))]


def _object(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = parent.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where} is {type(value).__name__}, not a JSON object; nothing was changed")
    return value


def _array(parent: dict[str, Any], key: str, where: str) -> list[Any]:
    value = parent.setdefault(key, [])
    if not isinstance(value, list):
        raise ConfigError(f"{where} is {type(value).__name__}, not a JSON array; nothing was changed")
    return value


def _with_server(config: dict[str, Any]) -> dict[str, Any]:
    servers = _object(config, "mcpServers", ".mcp.json mcpServers")
    servers.setdefault("gotchas", dict(SERVER))
    return config


def _with_settings(settings: dict[str, Any]) -> dict[str, Any]:
    where = ".claude/settings.json"
    allow = _array(
        _object(settings, "permissions", f"{where} permissions"), "allow", f"{where} permissions.allow"
    )
    for tool in ALLOWED_TOOLS:
        if f"mcp__gotchas__{tool}" not in allow:
            allow.append(f"mcp__gotchas__{tool}")
    enabled = _array(settings, "enabledMcpjsonServers", f"{where} enabledMcpjsonServers")
    if "gotchas" not in enabled:
        enabled.append("gotchas")
    starts = _array(
        _object(settings, "hooks", f"{where} hooks"), "SessionStart", f"{where} hooks.SessionStart"
    )
    present = any(
        isinstance(group, dict) and any(_runs_session_start(h) for h in group.get("hooks") or [])
        for group in starts
    )
    if not present:
        starts.append({"hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 30}]})
    return settings


def _runs_session_start(hook: object) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and "session-start" in command and "gotchas" in command


def _attributes(ws: Workspace, record: str) -> list[Change]:
    found = _read(ws, ".gitattributes")
    raw = found.data
    have = {line.strip() for line in raw.decode("utf-8", errors="replace").splitlines()}
    wanted = [f"{_quoted(record)} merge=gotchas", f"{JOURNAL_FILE} merge=union"]
    missing = [line for line in wanted if line not in have]
    if not missing:
        return []
    eol = b"\r\n" if b"\r\n" in raw else b"\n"
    prefix = raw + (eol if raw and not raw.endswith((b"\n", b"\r")) else b"")
    data = prefix + b"".join(line.encode("utf-8") + eol for line in missing)
    what = "merge the record with gotchas and the journal as a union"
    return [
        Change(
            ".gitattributes",
            f"{'update' if raw else 'create'}: {what}",
            _writer(ws, ws.inside(".gitattributes"), data, found),
        )
    ]


_PLAIN = re.compile(r"^[A-Za-z0-9._/+@,=:~%-]+$")


def _quoted(path: str) -> str:
    """A path as a .gitattributes pattern naming exactly that file.

    Glob characters (and the backslash) are escaped with a backslash; a path with anything
    but plain characters is then written C-style in double quotes (backslashes, quotes and
    control characters escaped), as gitattributes requires for spaces.
    """
    pattern = "".join(f"\\{c}" if c in "\\*?[]!" else c for c in path)
    if _PLAIN.match(path) and not path.startswith("#"):
        return pattern
    out = []
    for char in pattern:
        if char in '"\\':
            out.append("\\" + char)
        elif char in _C_ESCAPES:
            out.append(_C_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}


def _git_config(ws: Workspace) -> list[Change]:
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.git import Git

    git = Git(ws.root)
    try:
        inside = git.run("rev-parse", "--is-inside-work-tree", check=False).stdout.strip() == "true"
    except SourceFailed:
        return []
    if not inside:
        return []
    changes = []
    for key, value in (("merge.gotchas.name", DRIVER_NAME), ("merge.gotchas.driver", driver())):
        now = git.run("config", "--get", key, check=False).stdout.rstrip("\n")
        if now and now != value:
            changes.append(
                Change(f"git config {key}", f"already {now!r}; left as it is", lambda: None, kept=True)
            )
        elif now != value:

            def write(key: str = key, value: str = value) -> None:
                git.run("config", "--local", key, value)

            changes.append(Change(f"git config {key}", f"set to {value!r}", write))
    return changes


def run(ws: Workspace, *, dry_run: bool) -> list[Change]:
    """Plan, then (unless ``dry_run``) make every change, in order; the changes either way."""
    changes = plan(ws)
    if not dry_run:
        for change in changes:
            change.write()
    return changes
