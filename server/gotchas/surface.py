"""The surface a hint speaks to: the MCP tools for a model, the ``gotchas`` commands for a person.

A refusal or next step names what to do next, and what to do is spelled differently on
each surface (``list_gotchas`` vs ``gotchas list``, the ``record`` argument vs ``--record``).
The one text lives here, parameterised by the surface; the process says once which
surface it is (the CLI at start; the server is the default), so the core that raises the
error needs no argument threaded through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    Surface = Literal["mcp", "cli"]
else:  # no typing at run time: a one-shot command does not load it
    Surface = str

_current: Surface = "mcp"


def use(surface: Surface) -> None:
    """Set the surface for this process (the CLI calls this once at start)."""
    global _current  # noqa: PLW0603 - one process serves one surface
    _current = surface


def current() -> Surface:
    return _current


def _pick(mcp: str, cli: str) -> str:
    return cli if _current == "cli" else mcp


def list_ids() -> str:
    """Where the ids are listed."""
    return _pick("list_gotchas shows the ids", "`gotchas list` shows the ids")


def record_option() -> str:
    """How to point at another record."""
    return _pick("the `record` argument", "--record")


def apply(proposal_id: str) -> str:
    """The call that applies a stored proposal."""
    return _pick(f"apply_supersede({proposal_id!r})", f"`gotchas apply {proposal_id}`")


def withdraw(proposal_id: str) -> str:
    """The call that withdraws a stored proposal."""
    return _pick(f"withdraw_proposal({proposal_id!r})", f"`gotchas withdraw {proposal_id}`")


def after_option() -> str:
    """How a new lesson is placed after a chosen entry."""
    return _pick("the `after` argument", "--after ID")


def propose_lesson() -> str:
    """The call that records a new lesson."""
    return _pick("propose_lesson", "`gotchas propose` (without --target-id)")


def list_proposals() -> str:
    """Where the stored proposals are listed."""
    return _pick("list_proposals shows the stored ones", "`gotchas proposals` shows the stored ones")


def verify() -> str:
    """The call that checks the record."""
    return _pick("verify_record()", "`gotchas verify`")


def create_record() -> str:
    """How a repository without a record starts one."""
    return _pick(
        "propose_lesson(...) then apply_supersede(proposal_id) creates it",
        "`gotchas propose --title ... --body ... --tasks ... --root-cause confirmed` then "
        "`gotchas apply p-...` creates it (or point to another file with --record)",
    )


def pin_reading() -> str:
    """What to do when an edit changes how other lessons of the file are read."""
    return _pick(
        "other lessons of the file read differently with the edit, so its reading is not settled: "
        "show the user `gotchas outline`, pin the reading that is right (`gotchas pin --lines N,N,…`), "
        "then propose again",
        "other lessons of the file read differently with the edit, so its reading is not settled: "
        "check `gotchas outline`, pin the reading that is right (`gotchas pin`, or "
        "`gotchas pin --lines N,N,…`), then propose again",
    )
