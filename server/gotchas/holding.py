"""The hold an operation gives a proposal, checked before it is stored, and its state now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gotchas.errors import (
    InvalidArgument,
)
from gotchas.results import (
    HoldView,
)
from gotchas.workspace import Workspace

if TYPE_CHECKING:
    from gotchas.holds.decision import HoldAnswer


def check_hold(ws: Workspace, *, predicate: str) -> HoldAnswer:
    from gotchas.holds.check import check_hold as evaluate

    return evaluate(predicate, ws.root, ws.config)


NO_HOLD = "none"


def default_hold(hold: str | None, *, tasks: Sequence[str], no_hold: bool = False) -> str | None:
    """The hold a proposal gets: the one asked for; none when ``no_hold`` (or the hold ``none``)
    says so; otherwise "until every task it is for lands". A lesson written while its task is
    still root-causing is the mistake this tool exists to prevent, so waiting is the default."""
    asked = (hold or "").strip()
    if no_hold or asked.lower() == NO_HOLD:
        if no_hold and asked and asked.lower() != NO_HOLD:
            raise InvalidArgument("give a hold or no_hold, not both")
        return None
    if asked:
        return asked
    from gotchas.holds.predicate import Predicate

    lands = dict.fromkeys(Predicate(task=task, kind="lands").text for task in tasks)
    return "+".join(lands) or None


def checked_predicate(hold: str | None) -> str | None:
    if not hold or not hold.strip():
        return None
    from gotchas.holds.predicate import parse_predicates

    parse_predicates(hold.strip())
    return hold.strip()


def hold_preview(ws: Workspace, *, hold: str | None) -> HoldAnswer | None:
    predicate = checked_predicate(hold)
    return check_hold(ws, predicate=predicate) if predicate else None


def hold_view(answer: HoldAnswer | None) -> HoldView | None:
    return None if answer is None else answer.to_view()
