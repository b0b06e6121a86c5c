"""The options of ``gotchas check``: apart from the command, so that building the command line
for another command imports nothing of the check."""

from __future__ import annotations

import argparse


def add_arguments(cmd: argparse.ArgumentParser) -> None:
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
