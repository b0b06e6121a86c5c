"""The command line: the top-level options and one subparser per registered command."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from gotchas import __version__
from gotchas.cli import exits, options
from gotchas.cli.registry import COMMANDS, REGISTRY


def build(argv: Sequence[str] | None = None, *, prog: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``argv`` that starts with a command, only that command's
    parser is built and only its module imported (the others would cost a fifth of a one-shot
    listing, and a command's arguments are parsed by its own parser alone). Anything else --
    ``--help``, an option first, a name that is no command -- builds every command, so help
    and errors are whole. With ``prog``, the named command's usage and help carry that name."""
    first = argv[0] if argv else None
    common = options.common()
    parser = argparse.ArgumentParser(
        prog="gotchas",
        description="Keep the team's lessons file correct: list, hold, propose, apply, verify.",
        epilog=exits.table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.locations(parser, "global_")
    parser.add_argument("--version", action="version", version=f"gotchas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in REGISTRY:
        if first in COMMANDS and command.name != first:
            continue
        module = importlib.import_module(command.module)
        cmd = sub.add_parser(
            command.name,
            parents=[common],
            help=command.help,
            description=command.help,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if prog and command.name == first:
            cmd.prog = prog  # usage and help name the program that was run
        getattr(module, command.build)(cmd)
        cmd.set_defaults(run=getattr(module, command.run))
    return parser
