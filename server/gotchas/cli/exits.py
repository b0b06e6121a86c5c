"""Exit codes: one table, shown by ``--help`` and the README; a code means one thing whichever
command exits with it."""

from __future__ import annotations

from gotchas.errors import GotchasError, InvalidArgument

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_HELD = 3
EXIT_CANNOT_LISTEN = 6
EXIT_REFUSED = 7
EXIT_TOKEN_REQUIRED = 8
EXIT_INTERRUPTED = 130

EXIT_CODES = (
    (0, "success (check-hold: released; verify: no problem that fails)"),
    (1, "an error: a refusal, a problem found by verify, a failed read or write"),
    (2, "bad input: unknown option, invalid argument, a key .claude/gotchas.toml does not know"),
    (3, "held: check-hold's hold is held, apply refused, or apply --released left some held"),
    (4, "check-hold: unsatisfiable (a task can no longer land)"),
    (5, "check-hold: unknown (no source could tell)"),
    (6, "serve --http cannot listen: port in use, address not this machine's, no permission"),
    (
        7,
        "apply --released: some proposals were refused, each named with its reason (unreadable, "
        "forged, a conflict, or verification found problems)",
    ),
    (8, "serve --http beyond loopback without GOTCHAS_TOKEN (token-required)"),
    (130, "interrupted"),
)


def for_error(exc: GotchasError) -> int:
    """The exit code of a refusal: its own code where the table names one, else usage or error."""
    if exc.code == "cannot-listen":
        return EXIT_CANNOT_LISTEN
    if exc.code == "token-required":
        return EXIT_TOKEN_REQUIRED
    return EXIT_USAGE if isinstance(exc, InvalidArgument) else EXIT_ERROR


def table() -> str:
    """The table as ``--help`` prints it."""
    return "exit codes:\n" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES)
