"""Withdrawing a proposal: a correction someone regrets or forgot is never applied.

``apply --released`` in CI applies every released proposal, so a proposal that should not
land must be able to say so. Withdrawing appends one ``withdrawn`` event to the journal
(who, when, why; committed and merged as a union like every event), under the record lock
that every apply takes, so an apply either ran before it or sees it. The journal is read
here only to refuse: a withdrawal can stop an apply, never allow one.

A withdrawal is final. Proposing the same thing again makes a new proposal (its id is
made from the intent plus the withdrawn id it renews), so nothing is un-withdrawn silently.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from gotchas import journal, proposal, surface
from gotchas.errors import GotchasError, InvalidArgument, ProposalWithdrawn, shown
from gotchas.proposal import Proposal
from gotchas.results import ProposalSummary, WithdrawalView, WithdrawResult
from gotchas.workspace import Workspace

MAX_WHY = 500
STATUSES = ("pending", "applied", "superseded", "conflicting", "withdrawn", "all")
_ID = re.compile(r"^p-[0-9a-f]{12}$")
_RENEWALS = 64  # withdrawn generations of one intent before a propose gives up


def withdrawals(events: Sequence[Mapping[str, Any]]) -> dict[str, WithdrawalView]:
    """Each withdrawn proposal id with its first withdrawal (later ones change nothing)."""
    found: dict[str, WithdrawalView] = {}
    for event in events:
        pid = event.get("proposal_id")
        if event.get("status") != "withdrawn" or not isinstance(pid, str) or not _ID.match(pid):
            continue
        if pid not in found:
            why = event.get("why")
            found[pid] = WithdrawalView(
                at=str(event.get("at") or ""),
                by=str(event.get("actor") or journal.DEFAULT_ACTOR),
                why=why if isinstance(why, str) else None,
            )
    return found


def withdrawn(ws: Workspace) -> dict[str, WithdrawalView]:
    """The withdrawn proposals of this workspace, read from its journal. A journal that cannot
    be read (a symlink, a special file) records none: it is refused where it is written, and
    whoever could make it unreadable could as well delete the line."""
    try:
        return withdrawals(journal.read(ws.journal_path))
    except (GotchasError, OSError):
        return {}


def refuse_withdrawn(ws: Workspace, stored: Proposal) -> None:
    """ProposalWithdrawn when ``stored`` was withdrawn: called by apply under the record lock."""
    found = withdrawn(ws).get(stored.id)
    if found is not None:
        raise ProposalWithdrawn(
            f"proposal {stored.id} was withdrawn ({said(found)}); it is never applied. "
            f"Propose again to make a new proposal ({surface.list_proposals()})"
        )


def said(view: WithdrawalView) -> str:
    """Who withdrew it, when and why, in one clause."""
    why = f": {view['why']}" if view["why"] else ""
    return f"by {view['by']} at {view['at']}{why}"


def withdraw(ws: Workspace, *, proposal_id: str, why: str | None = None) -> WithdrawResult:
    """Mark a stored proposal withdrawn: journalled with who, when and why; idempotent.

    A proposal already in the record cannot be withdrawn (the record holds it: correct it
    with a new proposal instead); a damaged or unknown proposal is refused by its load.
    """
    reason = _why(why)
    stored = proposal.load(ws.proposals_dir, proposal_id)
    path = ws.writable_record(stored.record)
    with ws.lock(path):
        earlier = withdrawn(ws).get(stored.id)
        if earlier is not None:
            return _result(ws, "already-withdrawn", stored.id, earlier)
        _refuse_applied(ws, stored)
        view = WithdrawalView(at=_now(), by=journal.actor(), why=reason)
        event = {
            "at": view["at"],
            "status": "withdrawn",
            "proposal_id": stored.id,
            "why": reason,
            **journal.about(stored),
        }
        journal.append(ws.journal_path, event)
    return _result(ws, "withdrawn", stored.id, view)


def _result(ws: Workspace, status: str, pid: str, view: WithdrawalView) -> WithdrawResult:
    step = (
        f"{pid} is never applied; commit {ws.name(ws.journal_path)} so every checkout "
        "(and `gotchas apply --released` in CI) sees the withdrawal; propose again for a new proposal"
    )
    return WithdrawResult(
        status="withdrawn" if status == "withdrawn" else "already-withdrawn",
        proposal_id=pid,
        withdrawn=view,
        next_step=step,
    )


def _why(why: str | None) -> str | None:
    """The reason as one short line; InvalidArgument for control characters or a long text."""
    if why is None:
        return None
    text = " ".join(why.split())
    if len(text) > MAX_WHY:
        raise InvalidArgument(f"the reason for withdrawing is {len(text)} characters; at most {MAX_WHY}")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise InvalidArgument(f"the reason for withdrawing holds a control character: {shown(text)}")
    return text or None


def _refuse_applied(ws: Workspace, stored: Proposal) -> None:
    from gotchas.replay import is_applied

    path = ws.writable_record(stored.record)
    if not path.exists() and not path.is_symlink():
        return
    if is_applied(ws.load(path), stored=stored):
        raise InvalidArgument(
            f"proposal {stored.id} is already applied: {stored.new_id!r} is in the record, so there "
            "is nothing to withdraw; correct the entry with a new proposal instead"
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def fresh(ws: Workspace, draft: Proposal) -> Proposal:
    """``draft`` with its id; when that id was withdrawn, a new one that renews it, so a
    propose after a withdrawal never revives the withdrawn proposal."""
    final = dataclasses.replace(draft, id=proposal.make_id(draft))
    gone = withdrawn(ws)
    for _ in range(_RENEWALS):
        if final.id not in gone:
            return final
        renewed = dataclasses.replace(final, renews=final.id, id="")
        final = dataclasses.replace(renewed, id=proposal.make_id(renewed))
    raise InvalidArgument(f"this proposal was withdrawn {_RENEWALS} times; propose something else")


def select(found: Sequence[ProposalSummary], status: str | None) -> list[ProposalSummary]:
    """The proposals a listing shows: every one but the withdrawn by default, ``all`` for
    every one, or those of one status; InvalidArgument names the statuses."""
    if status is None:
        return [p for p in found if p["status"] != "withdrawn"]
    if status not in STATUSES:
        raise InvalidArgument(f"unknown proposal status {shown(status)}; known: {', '.join(STATUSES)}")
    return list(found) if status == "all" else [p for p in found if p["status"] == status]
