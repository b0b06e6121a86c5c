"""The one rule for every path the tool writes or stages: the fixed path, as written.

A repository may commit a symlink where we expect a file (``.mcp.json -> package.json``,
``.gitattributes -> .git/config``, ``journal.jsonl -> ../../.env``). Resolving it would
make us write or stage the file it points to, so a path is never resolved: it is walked
from the root, one name at a time, with ``lstat``. A symlink, or anything but a folder
above and a regular file at the end, is refused before anything is written; so is a
name that leaves the root (``..``, absolute) or enters ``.git/``, which only git itself
writes. A missing file is allowed (the caller creates it, without following a link).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from gotchas.errors import UnsafePath

GIT_DIR = ".git"


def plain_name(name: str) -> str:
    """``name`` when it is a relative path of plain names below the root, outside ``.git/``."""
    parts = PurePosixPath(name).parts if name else ()
    if not parts or name.startswith("/") or "\x00" in name or any(p in ("", ".", "..") for p in parts):
        raise UnsafePath(f"{name!r} is not a plain path below the project root; nothing was written")
    if any(p.lower() == GIT_DIR for p in parts):
        raise UnsafePath(f"{name!r} is inside {GIT_DIR}/, which only git writes; nothing was written")
    return "/".join(parts)


def fixed(root: Path, name: str, *, doing: str = "gotchas writes") -> Path:
    """``root / name`` after checking the path as written: every folder on the way a real
    folder, the file a regular file or absent; ``UnsafePath`` otherwise (``doing`` names the
    command refusing, for the message)."""
    checked = plain_name(name)
    parts = checked.split("/")
    here = root
    for depth, part in enumerate(parts):
        here = here / part
        try:
            info = os.lstat(here)
        except FileNotFoundError:
            return root / checked
        shown = "/".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePath(
                f"{shown} is a symbolic link; {doing} only regular files reached without one; "
                "nothing was written"
            )
        if not (stat.S_ISREG(info.st_mode) if last else stat.S_ISDIR(info.st_mode)):
            raise UnsafePath(
                f"{shown} is not a regular {'file' if last else 'folder'}; "
                f"{doing} only regular files; nothing was written"
            )
    return root / checked


CLAUDE_OWN = ("commands", "agents", "skills", "hooks", "output-styles", "plugins")
"""Folders of ``.claude/`` whose files are Claude Code's own instructions and programs."""
LESSONS_DIR = ".claude/rules"
STATE = ".claude/gotchas"
MARKDOWN = (".md", ".markdown")


def check_record(root: Path, given: str | None, path: Path, configured: Path) -> None:
    """``UnsafePath`` unless ``path`` (``given``, resolved inside ``root``) may be read or
    written as a record.

    No record, configured or given, lies in ``.git/``, in the state folder, or among Claude
    Code's own commands, agents, skills, hooks or settings (checked as written and as
    resolved). A ``record`` argument of a tool or a stored proposal names the configured
    record (``configured``) or another Markdown lessons file in ``.claude/rules/``; never
    an arbitrary file, so a read-only tool cannot read ``.git/config`` and a write cannot
    land in ``.claude/commands/deploy.md``.
    """
    name = path.relative_to(root).as_posix()
    written = os.path.normpath(given).replace(os.sep, "/") if given else name
    for shown in dict.fromkeys((name, written)):
        why = _forbidden(shown)
        if why:
            raise UnsafePath(f"{shown!r} cannot be a lessons file: {why}; nothing was read or written")
    if given is None or path == configured:
        return
    if not (name.startswith(f"{LESSONS_DIR}/") and name.lower().endswith(MARKDOWN)):
        raise UnsafePath(
            f"{written!r} is not the project's lessons file ({configured.relative_to(root).as_posix()}): "
            f"a record argument names the configured record or a Markdown file in {LESSONS_DIR}/; "
            "set `record` in .claude/gotchas.toml or pass --record to choose another"
        )


def _forbidden(name: str) -> str | None:
    parts = [p.lower() for p in name.split("/")]
    if GIT_DIR in parts:
        return f"it is inside {GIT_DIR}/"
    if f"{name}/".startswith(f"{STATE}/"):
        return f"it is gotchas' own state ({STATE}/)"
    if parts[0] == ".claude" and len(parts) > 1 and parts[1] in CLAUDE_OWN:
        return f"it is one of Claude Code's own {parts[1]}"
    if parts[0] == ".claude" and len(parts) == 2 and parts[1].startswith("settings"):
        return "it is Claude Code's settings"
    return None
