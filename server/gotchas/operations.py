"""The product's operations, shared by the MCP tools and the CLI.

Each one reads through the workspace, calls the pure core (record, query, edit,
verification, hold) and writes through the workspace. Proposing lives in :mod:`gotchas.propose`,
a proposal's hold in :mod:`gotchas.holding`, and a stored proposal set against today's record
(already applied? its edit recomputed) in :mod:`gotchas.replay`; this module applies, and
hands out every operation under one name. Follow one supersede from here:
``propose_supersede`` → ``edit.plan_supersede`` → ``verification.check_plan`` on the planned
bytes → ``proposal.save``; then ``apply`` → ``workspace.lock`` → ``holds.check.check_hold`` →
``edit.apply_insertions`` on the unchanged bytes (or ``edit.plan_supersede`` again, rebased) →
``Workspace.swap`` (compare-and-swap; a write the rename displaced is rebased onto and
swapped in again) → ``verification.check_written`` on the bytes read back →
``journal.append``.

Every operation takes the workspace and keyword arguments only, and returns a typed result
(the TypedDicts of :mod:`gotchas.results`) that the shells hand out as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gotchas import edit, journal, lookup, proposal, verification
from gotchas.errors import (
    Conflict,
    GotchasError,
    HoldNotReleased,
    RecordReadOnly,
    UnsafePath,
)
from gotchas.proposal import Proposal
from gotchas.record import Record
from gotchas.results import (
    ApplyResult,
)
from gotchas.workspace import RecordChanged, Snapshot, Workspace

if TYPE_CHECKING:
    from gotchas.holds.decision import HoldAnswer
from gotchas.holding import NO_HOLD, check_hold, default_hold, hold_view
from gotchas.propose import propose_lesson, propose_retire, propose_supersede
from gotchas.replay import carries_proposal, is_applied, recompute, refuse_unresolved_merge, replan, sha

__all__ = [  # the operations the shells call, wherever they are defined
    "NO_HOLD",
    "apply",
    "check_hold",
    "default_hold",
    "get_gotcha",
    "is_applied",
    "list_gotchas",
    "propose_lesson",
    "propose_retire",
    "propose_supersede",
    "refuse_unresolved_merge",
    "replan",
    "verify_record",
]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _load(ws: Workspace, record: str | None) -> tuple[Path, Record]:
    path = ws.record_path(record)
    return path, ws.load(path)


list_gotchas = lookup.list_gotchas  # the read-only tools live in ``lookup``: no edit machinery
get_gotcha = lookup.get_gotcha
verify_record = lookup.verify_record


def apply(ws: Workspace, *, proposal_id: str) -> ApplyResult:
    """Apply a stored proposal under the record lock; refuse unless the hold is released.

    The stored proposal is a request, not an authority: the record it may touch is the
    configured one, and the edit is recomputed from its intent on the current bytes and
    verified before anything is written.
    """
    from gotchas.withdraw import refuse_withdrawn

    stored = proposal.load(ws.proposals_dir, proposal_id)
    path = ws.writable_record(stored.record)
    with ws.lock(path):
        refuse_withdrawn(ws, stored)  # under the lock: a withdrawal is seen or comes after
        result = _apply_locked(ws, path, stored)
        report = result["verification"]
        event = {
            "at": _now(),
            **{k: v for k, v in result.items() if k not in ("verification", "warnings")},
            **journal.about(stored),
        }
        event["verified"] = bool(report and report["ok"])
        if result["status"] == "already-applied" and not _journaled(ws, stored.id):
            event["reconciled"] = True  # the record holds the result, but its event was lost
            event["status"] = "applied"
        try:
            journal.append(ws.journal_path, event)
        except (OSError, GotchasError) as exc:
            if result["status"] != "applied":
                raise
            result.setdefault("warnings", []).append(
                f"the record was written, but the journal could not be: {exc}; "
                "the next apply of this proposal records it"
            )
    return result


def _journaled(ws: Workspace, proposal_id: str) -> bool:
    """Whether the journal holds an ``applied`` event for ``proposal_id``."""
    try:
        events = journal.read(ws.journal_path)
    except (OSError, GotchasError, UnicodeDecodeError):
        return False
    return any(e.get("proposal_id") == proposal_id and e.get("status") == "applied" for e in events)


def _apply_locked(ws: Workspace, path: Path, stored: Proposal) -> ApplyResult:
    creates = stored.base_sha256 == sha(b"") and not path.exists() and not path.is_symlink()
    snapshot = ws.snapshot(path, missing_ok=creates)
    data = snapshot.data
    name = ws.name(path)  # the reading knows the file by its name (a CLAUDE.md is a guide)
    current = ws.parse(data, name=name)
    verification.refuse_conflict_markers(current)  # raised: nothing written, nothing journaled
    before_sha = current.sha256  # hashed once, by the parse cache

    def answer(
        status: Literal["applied", "already-applied", "refused"],
        reason: str,
        *,
        hold: HoldAnswer | None = None,
        code: str | None = None,
        report: verification.AppliedCheck | None = None,
        rebased: bool = False,
        after_sha256: str = before_sha,
        warnings: Sequence[str] = (),
    ) -> ApplyResult:
        out = ApplyResult(
            status=status,
            reason=reason,
            proposal_id=stored.id,
            record=stored.record,
            rebased=rebased,
            before_sha256=before_sha,
            after_sha256=after_sha256,
            hold=hold_view(hold),
            verification=report.to_view() if report is not None else None,
        )
        if code is not None:
            out["code"] = code
        if warnings:
            out["warnings"] = list(warnings)
        return out

    if before_sha == stored.result_sha256 or (
        before_sha != stored.base_sha256 and carries_proposal(current, stored=stored)
    ):
        return answer("already-applied", f"{stored.new_id!r} is already in the record; nothing written")
    hold_answer = check_hold(ws, predicate=stored.hold) if stored.hold else None
    if hold_answer is not None and hold_answer.state != "released":
        ways = f"; {hold_answer.ways_out}" if hold_answer.ways_out else ""
        return answer(
            "refused",
            f"hold {stored.hold} is {hold_answer.state}: {hold_answer.reason}{ways}",
            hold=hold_answer,
            code=HoldNotReleased.code,
        )
    expect = snapshot  # what the record must still hold at the rename
    renamed: Snapshot | None = None  # what our last rename put in place
    done: tuple[Record, edit.Plan, Record, verification.EditCheck] | None = None
    warnings: list[str] = []
    tries = 0  # counted from the first rename again: bringing a late write back has its own bound
    while tries < _REBASES:
        tries += 1
        try:
            plan, planned, check = recompute(
                ws, current=current, stored=stored, unchanged=current.sha256 == stored.base_sha256
            )
        except GotchasError as exc:
            if renamed is None:
                return answer("refused", str(exc), hold=hold_answer, code=exc.code)
            warnings.append(_unmerged(ws, path, str(exc)))
            break
        try:
            swap = ws.swap(path, plan.data, expect=expect)
        except (RecordReadOnly, UnsafePath) as exc:
            if renamed is None:
                return answer("refused", str(exc), hold=hold_answer, code=exc.code)
            warnings.append(_unmerged(ws, path, str(exc)))
            break
        except RecordChanged:
            fresh = ws.snapshot(path, missing_ok=False)
            if renamed is not None:
                # our edit is in the record, a late write is not, and the record changed again
                if not fresh.data.startswith(expect.data):
                    warnings.append(_unmerged(ws, path, "the record was rewritten meanwhile"))
                    break
                current = ws.parse(current.data + fresh.data[len(expect.data) :], name=name)  # keep both
                expect = fresh
                continue
            current = ws.parse(fresh.data, name=name)
            verification.refuse_conflict_markers(current)  # a merge began meanwhile
            if carries_proposal(current, stored=stored):
                return answer(
                    "already-applied", f"{stored.new_id!r} is already in the record; nothing written"
                )
            expect = fresh
            continue
        warnings += swap.warnings
        done = (current, plan, planned, check)
        if swap.late is None:
            break
        # someone wrote to the old file between the compare and the rename: rebase onto
        # what they wrote and swap again, against the bytes just renamed
        if renamed is None:  # the old file held only others' bytes
            current = ws.parse(swap.late, name=name)
            tries = 0
        elif swap.late.startswith(expect.data):  # it held ours: keep what was added to it
            current = ws.parse(current.data + swap.late[len(expect.data) :], name=name)
        else:
            warnings.append(_unmerged(ws, path, "the record was rewritten meanwhile"))
            break
        renamed = expect = swap.written
    else:
        if renamed is None:
            return answer(
                "refused",
                "conflict: the record kept changing while the edit was being written; apply again",
                hold=hold_answer,
                code=Conflict.code,
            )
        warnings.append(_unmerged(ws, path, "the record kept changing"))
    assert done is not None  # every way out of the loop without a rename has returned
    current, plan, planned, check = done
    rebased = current.sha256 != stored.base_sha256
    reason = "applied"
    report = None
    try:
        written = ws.read(path)
        after = planned if written == plan.data else ws.parse(written, name=name)
        report = verification.check_written(
            current,
            after,
            written,
            plan,
            stored.adds,
            stored.entries_digest,
            edit=check if after is planned else None,
        )
        reason += " and verified" if report.ok else ", but verification found problems"
        after_sha = after.sha256
    except (OSError, GotchasError) as exc:
        warnings.append(f"the record was written, but reading it back failed: {exc}")
        after_sha = planned.sha256
    if rebased:
        reason += " (rebased: the record changed elsewhere since the proposal)"
    return answer(
        "applied",
        reason,
        rebased=rebased,
        after_sha256=after_sha,
        hold=hold_answer,
        report=report,
        warnings=warnings,
    )


def _unmerged(ws: Workspace, path: Path, why: str) -> str:
    """The warning when a write displaced by our rename could not be brought back."""
    return (
        f"a write made to {ws.name(path)} in the instant of the rename could not be merged back "
        f"({why}); check the record for a change that is missing"
    )


_REBASES = 8
"""How often an apply re-reads and rebases when the record changes under its write."""
