"""``serve`` and ``demo``: the MCP server, and a walk-through driven through it."""

from __future__ import annotations

import argparse
import os
import sys
from importlib.util import find_spec

from gotchas import surface
from gotchas.cli.options import workspace
from gotchas.errors import NeedsServerStack

SERVER_STACK = ("mcp", "pydantic", "anyio", "uvicorn")
"""What the server imports beyond the core: the ``mcp`` extra, which ``gotchas-mcp`` installs."""


def require_server_stack(command: str) -> None:
    """Refuse in one line, naming what to install, where the core was installed alone."""
    missing = [name for name in SERVER_STACK if find_spec(name) is None]
    if missing:
        raise NeedsServerStack(
            f"`gotchas {command}` runs the MCP server, which this install lacks ({', '.join(missing)}): "
            "install gotchas-mcp (pip install gotchas-mcp, or uvx gotchas-mcp)"
        )


def add_serve(cmd: argparse.ArgumentParser) -> None:
    cmd.epilog = (
        "environment:\n"
        "  GOTCHAS_TOKEN          bearer token every HTTP request must carry; required beyond\n"
        "                         loopback (clients send 'Authorization: Bearer <token>')\n"
        "  GOTCHAS_ALLOWED_HOSTS  more Host names to accept, comma-separated (like --allowed-host)\n"
        "exit 6 when the address cannot be listened on (port in use, not this machine's);\n"
        "exit 8 (token-required) beyond loopback -- a non-loopback --host or allowed host --\n"
        "without GOTCHAS_TOKEN."
    )
    cmd.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    cmd.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="address to listen on with --http (default: %(default)s; beyond loopback, "
        "GOTCHAS_TOKEN is required)",
    )
    cmd.add_argument(
        "--port",
        type=int,
        default=8000,
        help="port to listen on with --http (default: %(default)s; 0: any free)",
    )
    cmd.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name clients use to reach the server (repeat; default: the bind address, "
        "loopback names, and for 0.0.0.0 this machine's names)",
    )


def run_serve(args: argparse.Namespace) -> int:
    from gotchas import collector

    require_server_stack("serve")
    collector.starting()  # collection waits until the server is built (see gotchas.collector)
    surface.use("mcp")  # the server's hints name its tools, not these commands
    ws = workspace(args)
    if args.http:
        from gotchas import endpoint

        hosts = endpoint.parse_hosts([os.environ.get(endpoint.HOSTS_VARIABLE, ""), *args.allowed_host])
        raw_token = os.environ.get(endpoint.TOKEN_VARIABLE)
        endpoint.require_token(args.host, hosts, raw_token)  # exit 8 before any other token check
        token = endpoint.parse_token(raw_token)
        collector.serving()
        endpoint.serve(ws, args.host, args.port, token, hosts)
        return 0
    from gotchas.server import build

    server = build(ws)
    collector.serving()
    server.run()
    return 0


def add_demo(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--no-pause", action="store_true", help="run through without waiting for Enter")


def run_demo(args: argparse.Namespace) -> int:
    require_server_stack("demo")
    from gotchas.demo import run

    surface.use("mcp")  # the demo shows the tool calls a model makes
    return run(interactive=sys.stdin.isatty() and not args.no_pause)
