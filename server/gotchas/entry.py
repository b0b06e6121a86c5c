"""The ``gotchas-mcp`` command: the MCP server over stdio, exactly as ``gotchas serve`` runs it.

Named like the distribution, as MCP servers are, so ``uvx gotchas-mcp`` starts it. Its
options are ``serve``'s (``--root``, ``--record``, ``--http`` …).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

from gotchas import __version__


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        print(f"gotchas-mcp {__version__}")
        return 0
    if importlib.util.find_spec("mcp") is None:
        print(
            "gotchas-mcp: the MCP server needs the `mcp` extra: pip install 'gotchas[mcp]' "
            "(or run it with uvx gotchas-mcp)",
            file=sys.stderr,
        )
        return 1
    from gotchas.cli import main as cli_main

    return cli_main(["serve", *args], prog="gotchas-mcp")
