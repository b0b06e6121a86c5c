"""``gotchas init``: set a repository up in one command, saying every change it makes.

The record (when there is none), ``.mcp.json`` (the server), ``.claude/settings.json`` (the
read-only tools allowed, the server enabled, the session-start hook), ``.gitattributes``
(the record's merge driver, the journal merged as a union; a path with spaces or
specials C-quoted, as gitattributes requires) and the merge driver in the repository's git
config: the running Python, by absolute path, so it works without ``gotchas`` on PATH. A
merge driver already configured is kept and reported, never overwritten (the form an
earlier ``init`` wrote is upgraded). The server written is one that was started and
answered an MCP ``initialize``; every ``mcpServers`` entry kept is named. Every path is the
fixed one, as written (:mod:`gotchas.confine`): a symlink in its place stops the run
before anything is written, and nothing under ``.git/`` is written but by git. Existing JSON
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

from gotchas import confine
from gotchas.errors import ConfigError
from gotchas.handshake import SERVER, ServerEntry, installed_server, server_entry
from gotchas.workspace import JOURNAL_FILE, Snapshot, Workspace, write_atomic

JsonObject = dict[str, object]


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
DRIVER_ARGS = "-m gotchas merge-record -- %O %A %B %P"
"""``--`` first: git's ``%P`` is a path from the repository, and a file named ``-h`` is a path."""
_OLD_DRIVER = re.compile(r"^'(?:[^']|'\\'')*' -m gotchas merge-record %O %A %B %P$")
"""A driver an earlier ``init`` wrote, without ``--``: upgraded, not kept."""
NEXT = "next: run `claude` in this repository; /mcp lists the gotchas server as connected"


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


def plan(ws: Workspace, *, server: ServerEntry | None = None) -> list[Change]:
    """Every change the repository needs, computed from what is there; nothing is written.

    Every path is the fixed one, as written (:mod:`gotchas.confine`): a symlink or a special
    file in its place stops the run before anything is written.
    """
    changes: list[Change] = []
    record_name = _record_name(ws)
    record = confine.fixed(ws.root, record_name, doing="init writes")
    ws.writable_record(None)  # a Markdown file outside .git/ and the state folder
    targets = {name: _fixed(ws, name) for name in (".mcp.json", ".claude/settings.json", ".gitattributes")}
    found = ws.snapshot(record, missing_ok=True)
    if found.signature is None:
        changes.append(Change(record_name, "create the lessons file", _writer(ws, record, NEW_RECORD, found)))
    ours = server or server_entry(ws.root)
    changes += _servers(ws, targets[".mcp.json"], ours)
    changes += _json_change(
        ws,
        targets[".claude/settings.json"],
        _with_settings,
        "allow the read-only gotchas tools, enable the server, add the session-start hook",
    )
    changes += _attributes(ws, targets[".gitattributes"], record_name)
    changes += _git_config(ws)
    return changes


def _record_name(ws: Workspace) -> str:
    """The configured record's name under the root, as written (``..`` kept, to be refused)."""
    given = Path(ws.default_record)
    path = given if given.is_absolute() else ws.root / given
    return Path(os.path.relpath(os.path.normpath(path), ws.root)).as_posix()


def _fixed(ws: Workspace, name: str) -> Path:
    return confine.fixed(ws.root, name, doing="init writes")


def _writer(ws: Workspace, path: Path, data: bytes, read: Snapshot) -> Callable[[], None]:
    """Replace ``path`` with ``data`` under its lock, only if it is still the version ``read``."""

    def write() -> None:
        confine.fixed(ws.root, ws.name(path), doing="init writes")  # again, at the last moment
        with ws.lock(path):
            write_atomic(path, data, root=ws.root, expect=read)

    return write


def _load(ws: Workspace, path: Path) -> tuple[JsonObject | None, Snapshot]:
    """The JSON object at ``path`` (None when there is no file) and the version read."""
    name = ws.name(path)
    found = ws.snapshot(path, missing_ok=True)
    if found.signature is None:
        return None, found
    try:
        current = json.loads(found.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(
            f"{name} is not valid JSON ({exc}); fix it and run init again; nothing was changed"
        ) from None
    if not isinstance(current, dict):
        raise ConfigError(f"{name} holds {type(current).__name__}, not a JSON object; nothing was changed")
    return current, found


def _json_change(
    ws: Workspace, path: Path, update: Callable[[JsonObject], JsonObject], what: str
) -> list[Change]:
    current, found = _load(ws, path)
    updated = update(json.loads(json.dumps(current or {})))
    if updated == (current or {}):
        return []
    data = (json.dumps(updated, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    verb = "create" if current is None else "update"
    return [Change(ws.name(path), f"{verb}: {what}", _writer(ws, path, data, found))]


def _servers(ws: Workspace, path: Path, ours: ServerEntry) -> list[Change]:
    """Our server added to ``.mcp.json``; every entry already there named as kept, so a
    repository-defined ``gotchas`` entry (which the settings then enable) is never silent."""
    current, _ = _load(ws, path)
    servers = (current or {}).get("mcpServers")
    kept = []
    if isinstance(servers, dict):
        for name, entry in servers.items():
            if name == "gotchas" and entry in (ours, SERVER, installed_server()):
                continue
            shown = _command_line(entry)
            note = (
                "defined by the repository, enabled by init: check it starts the gotchas you expect"
                if name == "gotchas"
                else "not enabled by init"
            )
            kept.append(
                Change(f".mcp.json mcpServers.{name}", f"kept {shown}: {note}", lambda: None, kept=True)
            )

    def with_server(config: JsonObject) -> JsonObject:
        _object(config, "mcpServers", ".mcp.json mcpServers").setdefault("gotchas", dict(ours))
        return config

    return _json_change(ws, path, with_server, "add the gotchas MCP server: " + _command_line(ours)) + kept


def _command_line(entry: object) -> str:
    if not isinstance(entry, dict):
        return json.dumps(entry)[:120]
    args = entry.get("args")
    words = [entry.get("command") or entry.get("url") or "?", *(args if isinstance(args, list) else [])]
    return json.dumps(" ".join(str(w) for w in words), ensure_ascii=False)[:200]


def _object(parent: JsonObject, key: str, where: str) -> JsonObject:
    value = parent.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where} is {type(value).__name__}, not a JSON object; nothing was changed")
    return value


def _array(parent: JsonObject, key: str, where: str) -> list[object]:
    value = parent.setdefault(key, [])
    if not isinstance(value, list):
        raise ConfigError(f"{where} is {type(value).__name__}, not a JSON array; nothing was changed")
    return value


def _with_settings(settings: JsonObject) -> JsonObject:
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
        isinstance(group, dict) and any(_runs_session_start(h) for h in _hooks_of(group)) for group in starts
    )
    if not present:
        starts.append({"hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 30}]})
    return settings


def _hooks_of(group: JsonObject) -> list[object]:
    hooks = group.get("hooks")
    return hooks if isinstance(hooks, list) else []


def _runs_session_start(hook: object) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and "session-start" in command and "gotchas" in command


def _attributes(ws: Workspace, path: Path, record: str) -> list[Change]:
    found = ws.snapshot(path, missing_ok=True)
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
            _writer(ws, path, data, found),
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
        if _OLD_DRIVER.match(now) and key == "merge.gotchas.driver":

            def upgrade(key: str = key, value: str = value) -> None:
                git.run("config", "--local", key, value)

            what = f"upgraded to {value!r}: every argument after -- is a path, even one named -h"
            changes.append(Change(f"git config {key}", what, upgrade))
        elif now and now != value:
            changes.append(
                Change(f"git config {key}", f"already {now!r}; left as it is", lambda: None, kept=True)
            )
        elif now != value:

            def write(key: str = key, value: str = value) -> None:
                git.run("config", "--local", key, value)

            changes.append(Change(f"git config {key}", f"set to {value!r}", write))
    return changes


def run(ws: Workspace, *, dry_run: bool) -> list[Change]:
    """Plan, then (unless ``dry_run``) make every change, in order; the changes either way.

    A real run writes only a server command it has seen answer; a dry run shows the published
    one when none answers here (with only the core installed), since it starts nothing for good.
    """
    try:
        server = server_entry(ws.root)
    except ConfigError:
        if not dry_run:
            raise
        server = SERVER
    changes = plan(ws, server=server)
    if not dry_run:
        for change in changes:
            change.write()
    return changes
