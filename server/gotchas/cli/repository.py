"""``init``, ``merge-record`` and ``session-start``: how the record joins a repository, its git
merges and Claude Code's sessions."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit, say
from gotchas.errors import GotchasError

if TYPE_CHECKING:
    from gotchas.outline import Decision
    from gotchas.workspace import Workspace


def add_merge_record(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "paths",
        nargs=argparse.REMAINDER,
        help="-- %%O %%A %%B %%P: base, ours (the merge is written here), theirs, the record's path; "
        "every one a path, whatever it starts with",
    )


def run_merge_record(args: argparse.Namespace) -> int:
    """The git merge driver: exit 0 merged (into %A), 1 conflict markers left in %A."""
    from gotchas import merge

    paths = args.paths[1:] if args.paths[:1] == ["--"] else args.paths  # all paths, even "-h"
    if len(paths) not in (3, 4):
        say("merge-record takes %O %A %B [%P]: the base, ours (merged into), theirs, the path")
        return 2
    name = paths[3] if len(paths) == 4 else None  # the record's path: a CLAUDE.md reads as a guide
    try:  # the three versions are read as the repository pins its record (entries = …)
        read: merge.Read = functools.partial(workspace(args).parse_as_edit, name=name)
    except GotchasError as exc:
        say(f"{exc.message}; reading the record unpinned")
        read = functools.partial(merge.read_guessed, name=name)
    status, line = merge.run(Path(paths[0]), Path(paths[1]), Path(paths[2]), (paths + paths[1:2])[3], read)
    say(line)
    return status


def add_init(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--dry-run", action="store_true", help="print the changes without making them")
    json_flag(cmd)


def run_init(args: argparse.Namespace) -> int:
    from gotchas import initialize, outline

    ws = workspace(args)
    changes = initialize.run(ws, dry_run=args.dry_run)
    verb = "would change" if args.dry_run else "changed"
    lines = [f"{'kept' if c.kept else verb} {c.target}: {c.what}" for c in changes]
    if all(c.kept for c in changes):
        lines.append("nothing to change: already set up")
    decision = _reading(ws)
    if decision is not None:
        lines.extend(outline.summary(decision, ws.default_record))
    lines.append(initialize.NEXT)
    view = {
        "dry_run": args.dry_run,
        "changes": [{"target": c.target, "what": c.what, "kept": c.kept} for c in changes],
        "reading": None if decision is None else outline.brief(decision),
    }
    emit(view, args.json, "\n".join(lines))
    return 0


def _reading(ws: Workspace) -> Decision | None:
    """How the record reads, to show once set up; none when there is no record yet (a dry run)
    or it cannot be read: setting up never fails on the reading."""
    from gotchas import outline

    try:
        parsed = ws.load(ws.record_path())
    except (OSError, GotchasError):
        return None
    assert parsed.reading is not None  # a record read from a file always has its reading
    return outline.describe(parsed.reading, [e.id for e in parsed.entries])


def add_session_start(cmd: argparse.ArgumentParser) -> None:
    """No options beyond ``--root`` and ``--record``: Claude Code runs it as it is."""


def run_session_start(args: argparse.Namespace) -> int:
    """The SessionStart hook: always exit 0, print nothing unless proposals are ready."""
    from gotchas import session_start

    try:
        text = session_start.hook_output(workspace(args))
    except Exception:  # a failing hook must not stop the session from starting
        return 0
    if text:
        sys.stdout.write(text + "\n")
    return 0
