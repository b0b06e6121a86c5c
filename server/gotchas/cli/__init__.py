"""The ``gotchas`` command: the same operations as the MCP tools, for people and CI.

Output is a readable table or, with ``--json``, the same object the tool returns. A
refusal is one line on stderr and a non-zero exit (:data:`EXIT_CODES`); hints name the
commands and options of this surface (:mod:`gotchas.surface`). The MCP SDK is imported
only by ``serve`` and ``demo``, so every other command starts fast.

Layout: :mod:`~gotchas.cli.registry` lists every command as data; one module per command
group builds and runs its commands (``listing``, ``holds``, ``proposals``, ``history``,
``repository``, ``verify``, ``serve``); :mod:`~gotchas.cli.parser`, :mod:`~gotchas.cli.options`,
:mod:`~gotchas.cli.output` and :mod:`~gotchas.cli.exits` are what they share. A command line
that names a command imports that command's module alone.

Adding a command = one module (``add_<name>(parser)`` for its arguments, ``run_<name>(args)``
returning the exit code, importing what it runs on inside ``run_<name>``) and one row in
:data:`~gotchas.cli.registry.REGISTRY`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gotchas import surface
from gotchas.cli import exits
from gotchas.cli.exits import EXIT_CODES
from gotchas.cli.output import emit, say
from gotchas.cli.parser import build
from gotchas.cli.registry import COMMANDS
from gotchas.errors import GotchasError, from_os_error

__all__ = ["COMMANDS", "EXIT_CODES", "main"]


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run one command line; ``prog`` names the program when it is not ``gotchas`` (the
    ``gotchas-mcp`` command runs ``serve`` under its own name)."""
    surface.use("cli")
    parser = build(sys.argv[1:] if argv is None else argv, prog=prog)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return exits.EXIT_USAGE
    try:
        return int(args.run(args))
    except GotchasError as exc:
        _refuse(args, exc)
        return exits.for_error(exc)
    except KeyboardInterrupt:
        return exits.EXIT_INTERRUPTED
    except BrokenPipeError:
        return exits.EXIT_OK
    except OSError as exc:
        _refuse(args, from_os_error(exc))
        return exits.EXIT_ERROR
    except Exception as exc:  # a bug: still one line, never a traceback
        _refuse(args, GotchasError(f"{type(exc).__name__}: {exc}"), code="internal-error")
        return exits.EXIT_ERROR


def _refuse(args: argparse.Namespace, exc: GotchasError, code: str | None = None) -> None:
    """One line on stderr; with ``--json``, also the error as a JSON object on stdout, so a
    script reading stdout gets an answer it can parse (``code``, ``message``, ``hint``)."""
    code = code or exc.code
    say(f"{'internal error' if code == 'internal-error' else code}: {exc.message}")
    if getattr(args, "json", False):
        emit({"code": code, "message": exc.message, "hint": exc.hint}, True)
