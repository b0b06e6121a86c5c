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
