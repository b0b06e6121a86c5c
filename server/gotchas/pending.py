"""Pending corrections: where each stored proposal stands now, and applying the released ones.

A proposal parked behind a hold is only useful if someone applies it once the hold is
released. ``assess`` tells, from the current record and the holds evaluated now, which
proposals are pending, already applied, superseded by a newer proposal for the same entry
and task, or in conflict with the record; it reads and never writes. ``apply_released``
applies, in creation order, every pending proposal whose hold is released, each through
:func:`gotchas.operations.apply` (lock, compare-and-swap, verification, journal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from gotchas import operations, proposal, surface
from gotchas.errors import GotchasError
from gotchas.proposal import Proposal
from gotchas.record import Record
from gotchas.results import (
    ApplyResult,
    HoldView,
    ProposalRefusal,
    ProposalSummary,
    ReleasedResult,
    WithdrawalView,
)
from gotchas.withdraw import said, withdrawn
from gotchas.workspace import Workspace


def ordered(ws: Workspace) -> list[Proposal]:
    """The stored proposals in creation order (id breaks ties, so the order is stable)."""
    return sorted(proposal.stored(ws.proposals_dir), key=_order)


def _ordered(found: Sequence[Proposal]) -> list[Proposal]:
    return sorted(found, key=_order)


def _order(p: Proposal) -> tuple[datetime, str]:
    """When ``p`` was made, read as a time (a file without a readable time sorts first)."""
    try:
        made = datetime.fromisoformat(p.created_at)
    except ValueError:
        made = _EPOCH
    if made.tzinfo is None:
        made = made.replace(tzinfo=UTC)
    return made, p.id


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def assess(ws: Workspace, *, only: Callable[[Proposal], bool] | None = None) -> list[ProposalSummary]:
    """Every stored proposal (or those ``only`` keeps) with its status and its hold's state
    now, in creation order; a newer proposal outside ``only`` still supersedes."""
    return _assess(ws, ordered(ws), only)


def _assess(
    ws: Workspace, stored: Sequence[Proposal], only: Callable[[Proposal], bool] | None = None
) -> list[ProposalSummary]:
    records: dict[str, Record | GotchasError] = {}
    holds: dict[str, HoldView] = {}
    gone = withdrawn(ws) if stored else {}
    return [
        _summary(ws, p, _newer(p, stored), records, holds, gone) for p in stored if only is None or only(p)
    ]


def _newer(p: Proposal, stored: Sequence[Proposal]) -> Proposal | None:
    """The newest later proposal correcting the same entry for the same task, if any."""
    if p.kind == "capture" or p.target_id is None:
        return None
    later = [
        q
        for q in stored
        if q.id != p.id
        and _order(q) > _order(p)
        and (q.record, q.target_id, q.task) == (p.record, p.target_id, p.task)
    ]
    return later[-1] if later else None


def _current(ws: Workspace, p: Proposal, records: dict[str, Record | GotchasError]) -> Record | GotchasError:
    if p.record not in records:
        try:
            path = ws.writable_record(p.record)
            if not path.exists() and not path.is_symlink():
                records[p.record] = ws.parse(b"")
            else:
                records[p.record] = ws.parse(ws.read(path), name=ws.name(path))
        except GotchasError as exc:
            records[p.record] = exc
    return records[p.record]


def _hold(ws: Workspace, p: Proposal, holds: dict[str, HoldView]) -> HoldView | None:
    if not p.hold:
        return None
    if p.hold not in holds:
        holds[p.hold] = operations.check_hold(ws, predicate=p.hold).to_view()
    return holds[p.hold]



def summary_of(p: Proposal, *, reason: str) -> ProposalSummary:
    """A stored proposal as listed, pending and with its hold not yet evaluated."""
    return ProposalSummary(
        proposal_id=p.id,
        kind=p.kind,
        record=p.record,
        target_id=p.target_id,
        task=p.task,
        new_id=p.new_id,
        title=p.lesson.title,
        hold=p.hold,
        created_at=p.created_at,
        status="pending",
        reason=reason,
        hold_state=None,
    )

def _summary(
    ws: Workspace,
    p: Proposal,
    newer: Proposal | None,
    records: dict[str, Record | GotchasError],
    holds: dict[str, HoldView],
    gone: Mapping[str, WithdrawalView],
) -> ProposalSummary:
    current = _current(ws, p, records)
    summary = summary_of(p, reason="")
    if p.id in gone:
        summary["status"], summary["withdrawn"] = "withdrawn", gone[p.id]
        summary["reason"] = f"withdrawn {said(gone[p.id])}; never applied"
        return summary
    if isinstance(current, GotchasError):
        summary["status"], summary["reason"] = "conflicting", f"the record cannot be read: {current}"
        summary["code"] = current.code
        return summary
    if operations.is_applied(current, stored=p):
        summary["status"], summary["reason"] = "applied", f"{p.new_id!r} is in the record"
        return summary
    if newer is not None:
        summary["status"] = "superseded"
        summary["superseded_by"] = newer.id
        summary["reason"] = f"{newer.id} is a newer proposal for {p.target_id!r} and {p.task}"
        return summary
    try:
        operations.replan(ws, current=current, stored=p)
        hold = _hold(ws, p, holds)
    except GotchasError as exc:
        summary["status"], summary["reason"], summary["code"] = "conflicting", str(exc), exc.code
        return summary
    summary["hold_state"] = hold
    if hold is None:
        summary["reason"] = "no hold: ready to apply"
    elif hold["state"] == "released":
        summary["reason"] = f"hold {p.hold} is released: ready to apply"
    else:
        ways = hold.get("release") or []
        after = f"; to release it: {'; or '.join(ways)}" if ways else ""
        if hold["state"] == "unsatisfiable":
            after = f"; it can never be released: {surface.withdraw(p.id)} withdraws it"
        summary["reason"] = f"hold {p.hold} is {hold['state']}{after}"
    return summary


def ready(summary: ProposalSummary) -> bool:
    """A pending proposal whose hold, if it has one, is released."""
    hold = summary["hold_state"]
    return summary["status"] == "pending" and (hold is None or hold["state"] == "released")


def apply_released(ws: Workspace) -> ReleasedResult:
    """Apply every pending, released proposal in creation order; list the held ones and leave them.

    The statuses are read once, up front; each apply then checks its hold again under the
    record lock, rebases on what the earlier applies wrote, verifies and journals, exactly
    as a single ``apply`` does. A second run finds them applied and writes nothing.

    A proposal that cannot be applied (its file damaged, forged or of an unknown kind, its
    hold malformed, its edit in conflict with the record) is refused alone and named with
    the reason; the others still apply.
    """
    out = ReleasedResult(applied=[], held=[], refused=[], skipped=[])
    found, unreadable = proposal.read_all(ws.proposals_dir)
    for bad in unreadable:
        out["refused"].append(_refusal(bad.name, bad.code, bad.reason))
    for summary in _assess(ws, _ordered(found)):
        if summary["status"] == "conflicting":
            out["refused"].append(
                _refusal(summary["proposal_id"], summary.get("code", "conflict"), summary["reason"])
            )
        elif summary["status"] != "pending":
            out["skipped"].append(summary)
        elif not ready(summary):
            out["held"].append(summary)
        else:
            _apply_one(ws, summary, out)
    return out


def _apply_one(ws: Workspace, summary: ProposalSummary, out: ReleasedResult) -> None:
    try:
        result: ApplyResult = operations.apply(ws, proposal_id=summary["proposal_id"])
    except GotchasError as exc:  # this one alone: the file changed since it was read, a lock failed
        out["refused"].append(_refusal(summary["proposal_id"], exc.code, exc.message))
        return
    verified = result["verification"] is None or result["verification"]["ok"]
    if result["status"] == "refused" or not verified:
        out["refused"].append(result)
    elif result["status"] == "applied":
        out["applied"].append(result)
    else:
        out["skipped"].append({**summary, "status": "applied", "reason": result["reason"]})


def _refusal(proposal_id: str, code: str, reason: str) -> ProposalRefusal:
    return ProposalRefusal(proposal_id=proposal_id, status="refused", reason=reason, code=code)
