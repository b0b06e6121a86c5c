"""``check``: lessons the repository has moved away from (the work is in :mod:`gotchas.check`)."""

from __future__ import annotations

import argparse

from gotchas.cli.options import workspace


def add_check(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--at", metavar="REV", help="check the record as it was at this commit (default: now)")
    cmd.add_argument(
        "--format",
        choices=["human", "text", "github"],
        default="human",
        help="human: one block per finding; text: `path:line:col: severity code message`; "
        "github: Actions annotations (default: %(default)s)",
    )
    cmd.add_argument("--strict", action="store_true", help="exit 1 on any finding, not only errors")
    cmd.add_argument("--no-sources", action="store_true", help="do not ask task sources (ledger, command)")
    cmd.add_argument("--json", action="store_true", help="print the findings as JSON")


def run_check(args: argparse.Namespace) -> int:
    from gotchas.check.command import main

    return main(workspace(args), args)
