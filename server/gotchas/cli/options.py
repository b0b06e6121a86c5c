"""Options every command shares (``--root``, ``--record``, ``--json``) and the workspace they
name."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gotchas.workspace import Workspace


def locations(target: argparse.ArgumentParser, prefix: str) -> None:
    """``--root`` and ``--record``; ``prefix`` keeps the top-level pair apart from a command's."""
    target.add_argument(
        "--root",
        dest=f"{prefix}root",
        metavar="DIR",
        help="project root (default: $GOTCHAS_ROOT, else $CLAUDE_PROJECT_DIR, else the git top "
        "level, else the current directory)",
    )
    target.add_argument(
        "--record",
        dest=f"{prefix}record",
        metavar="FILE",
        help="lessons file inside the root (default: $GOTCHAS_RECORD, else `record` in "
        ".claude/gotchas.toml, else .claude/rules/gotchas.md)",
    )


def common() -> argparse.ArgumentParser:
    """The parent parser of every command (and of a command's own subcommands)."""
    parent = argparse.ArgumentParser(add_help=False)
    locations(parent, "")
    return parent


def json_flag(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--json", action="store_true", help="print the JSON object the tool returns")


def workspace(args: argparse.Namespace) -> Workspace:
    """The workspace the command line names (a command's ``--root`` before the global one)."""
    from gotchas.workspace import Workspace

    return Workspace.discover(root=args.root or args.global_root, record=args.record or args.global_record)
