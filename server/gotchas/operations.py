"""The product's operations, shared by the MCP tools and the CLI.

Each one reads through the workspace, calls the pure core (record, query, edit,
verification, hold) and writes through the workspace. Follow one supersede from here:
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

import bisect
import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gotchas import edit, journal, link, lookup, proposal, surface, taskref, verification
from gotchas.errors import (
    Conflict,
    GotchasError,
    HoldNotReleased,
    InvalidArgument,
    ProposalInvalid,
    RecordReadOnly,
    UnsafePath,
)
from gotchas.lesson_text import refuse_note
from gotchas.proposal import Proposal
from gotchas.record import Entry, Record
from gotchas.results import (
    ApplyResult,
    HoldView,
    ProposalResult,
    ProposalSummary,
    RecordedCheckView,
)
from gotchas.workspace import RecordChanged, Snapshot, Workspace

if TYPE_CHECKING:
    from gotchas.holds.decision import HoldAnswer


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _created() -> str:
    """A proposal's creation time, to the microsecond: proposals are applied in this order."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _load(ws: Workspace, record: str | None) -> tuple[Path, Record]:
    path = ws.record_path(record)
    return path, ws.load(path)


def _load_or_empty(ws: Workspace, record: str | None) -> tuple[Path, Record]:
    """A missing record reads as empty, so the first captured lesson can create it."""
    path = ws.writable_record(record)
    if not path.exists() and not path.is_symlink():
        return path, ws.parse(b"")
    return path, ws.load(path)


list_gotchas = lookup.list_gotchas  # the read-only tools live in ``lookup``: no edit machinery
get_gotcha = lookup.get_gotcha
verify_record = lookup.verify_record


def check_hold(ws: Workspace, *, predicate: str) -> HoldAnswer:
    from gotchas.holds.check import check_hold as evaluate

    return evaluate(predicate, ws.root, ws.config)


def propose_supersede(
    ws: Workspace,
    *,
    target_id: str,
    task: str,
    title: str,
    body: str,
    diagnostic: str,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
    red_herring_note: str | None = None,
    hold: str | None = None,
    tasks: Sequence[str] = (),
    record: str | None = None,
    root_cause: str = "confirmed",
) -> ProposalResult:
    """Plan the correction and store it; the record is not touched."""
    if root_cause != "confirmed":
        raise InvalidArgument(
            f"root_cause {root_cause!r} cannot supersede: only a confirmed cause replaces a lesson; "
            f"record a suspected cause with {surface.propose_lesson()} and supersede once it is confirmed"
        )
    refuse_note(red_herring_note)
    task_ref = taskref.normalize(task)
    path = ws.writable_record(record)
    parsed = ws.load(path)
    verification.refuse_conflict_markers(parsed)
    target = parsed.get(target_id)
    existing = _existing_successor(parsed, target, task_ref)
    if existing is not None:
        hold_answer = _hold_preview(ws, hold)
        if _marked(target, existing, task_ref):
            return _already_recorded(ws, path, parsed, target, existing, hold_answer)
        return _propose_annotation(
            ws, path, parsed, target, existing, task_ref, red_herring_note, hold, hold_answer
        )
    lesson = edit.lesson(title, body, [task_ref, *tasks], "confirmed", diagnostic, ruled_out, evidence)
    plan = edit.plan_supersede(parsed, target, task_ref, lesson, red_herring_note)
    draft, check = _on_target(ws, path, parsed, plan, "supersede", lesson, red_herring_note, hold)
    return _store(ws, draft, parsed, _hold_preview(ws, hold), check)


def propose_retire(
    ws: Workspace,
    *,
    target_id: str,
    why: str,
    evidence: str | None = None,
    recheck: bool = False,
    hold: str | None = None,
    record: str | None = None,
) -> ProposalResult:
    """Plan marking a lesson no longer true (or re-checked at the commit ``evidence``); the
    record is not touched. Reviewed, held, applied and verified like a supersede."""
    from gotchas import retire

    kind: Literal["retire", "recheck"] = "recheck" if recheck else "retire"
    path = ws.writable_record(record)
    parsed = ws.load(path)
    verification.refuse_conflict_markers(parsed)
    target = parsed.get(target_id)
    text, proof = retire.checked_why(why, evidence)
    if kind == "recheck":
        proof = _commit_of(ws, proof)
    if retire.marked(target, kind, text, proof):
        raise InvalidArgument(f"{target.id!r} already carries this {kind} mark; nothing to propose")
    plan = retire.plan_retire(parsed, target, kind, text, proof)
    lesson = edit.Lesson(
        title=target.title, body=text, tasks=target.tasks, root_cause="suspected", evidence=proof
    )
    draft, check = _pinned(
        ws,
        path,
        parsed,
        plan,
        kind=kind,
        lesson=lesson,
        target_sha256=target.sha256,
        anchor_sha256=_anchor(parsed, target),
        hold=hold,
    )
    return _store(ws, draft, parsed, _hold_preview(ws, hold), check)


def _commit_of(ws: Workspace, rev: str | None) -> str:
    """The full id of the commit a re-check names (default HEAD): the check anchors there."""
    from gotchas.check.evidence import Repository, checked_rev
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.git import Git

    try:
        return Repository(Git(ws.root)).state(checked_rev(rev or "HEAD"))[1]
    except (ValueError, SourceFailed) as exc:
        raise InvalidArgument(f"a re-check names a commit of this repository: {exc}") from None


def _on_target(
    ws: Workspace,
    path: Path,
    parsed: Record,
    plan: edit.Plan,
    kind: Literal["supersede", "annotate"],
    lesson: edit.Lesson,
    note: str | None,
    hold: str | None,
) -> tuple[Proposal, verification.EditCheck]:
    """A verified proposal for an edit of one target entry (a supersede, or its mark alone)."""
    target = parsed.get(plan.target_id or "")
    draft, check = _pinned(
        ws,
        path,
        parsed,
        plan,
        kind=kind,
        lesson=lesson,
        target_sha256=target.sha256,
        anchor_sha256=_anchor(parsed, target),
        red_herring_note=note,
        hold=hold,
    )
    return draft, check


def propose_lesson(
    ws: Workspace,
    *,
    title: str,
    body: str,
    tasks: Sequence[str],
    root_cause: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
    after: str | None = None,
    hold: str | None = None,
    record: str | None = None,
) -> ProposalResult:
    """Plan a plain new lesson (capture); confirmed lessons must carry a diagnostic."""
    path, parsed = _load_or_empty(ws, record)
    verification.refuse_conflict_markers(parsed)
    anchor = parsed.get(after) if after else None
    lesson = edit.lesson(title, body, tasks, root_cause, diagnostic, ruled_out, evidence)
    hold_answer = _hold_preview(ws, hold)
    plan = edit.plan_capture(parsed, lesson, anchor)
    place = anchor or (parsed.entries[-1] if parsed.entries else None)
    draft, check = _pinned(
        ws,
        path,
        parsed,
        plan,
        kind="capture",
        lesson=lesson,
        target_sha256=place.sha256 if place else None,
        anchor_sha256=_anchor(parsed, place) if place else None,
        after_id=place.id if place else None,
        hold=hold,
    )
    return _store(ws, draft, parsed, hold_answer, check)


def _store(
    ws: Workspace,
    draft: Proposal,
    parsed: Record,
    hold_answer: HoldAnswer | None,
    check: verification.EditCheck,
) -> ProposalResult:
    final = dataclasses.replace(draft, id=proposal.make_id(draft))
    proposal.save(ws.proposals_dir, final)
    step = (
        f"review the diff; {surface.apply(final.id)} is refused until the hold "
        f"{final.hold} is released (now: {hold_answer.state})"
        if hold_answer is not None and hold_answer.state != "released"
        else f"review the diff, then {surface.apply(final.id)}"
    )
    return ProposalResult(
        status="proposed",
        proposal_id=final.id,
        record=final.record,
        diff=final.diff,
        base_sha256=parsed.sha256,
        target_sha256=final.target_sha256,
        new_id=final.new_id,
        hold=_view(hold_answer),
        checks=check.to_view(),
        next_step=step,
    )


def _checked_predicate(hold: str | None) -> str | None:
    if not hold or not hold.strip():
        return None
    from gotchas.holds.predicate import parse_predicates

    parse_predicates(hold.strip())
    return hold.strip()


def _hold_preview(ws: Workspace, hold: str | None) -> HoldAnswer | None:
    predicate = _checked_predicate(hold)
    return check_hold(ws, predicate=predicate) if predicate else None


def _view(answer: HoldAnswer | None) -> HoldView | None:
    return None if answer is None else answer.to_view()


def _existing_successor(parsed: Record, target: Entry, task: str) -> Entry | None:
    """A confirmed entry that already supersedes ``target`` for ``task`` (or for every task)."""
    return link.successor(parsed, target, task)


def _already_recorded(
    ws: Workspace,
    path: Path,
    parsed: Record,
    target: Entry,
    successor: Entry,
    hold_answer: HoldAnswer | None,
) -> ProposalResult:
    involved = {target.id, successor.id}
    problems = [p.to_view() for p in verification.check_record(parsed) if p.entry in involved]
    errors = [p for p in problems if p["severity"] == "error"]
    checks = RecordedCheckView(
        ok=not errors,
        successor=successor.id,
        successor_lines=list(successor.lines),
        diagnostic=successor.diagnostic,
        target_marked_for=list(target.red_herring_for),
        problems=problems,
    )
    return ProposalResult(
        status="already-recorded",
        proposal_id=None,
        record=ws.name(path),
        diff="",
        base_sha256=parsed.sha256,
        target_sha256=target.sha256,
        new_id=successor.id,
        hold=_view(hold_answer),
        checks=checks,
        next_step=(
            f"nothing to write: {successor.id!r} already supersedes {target.id!r}; "
            + ("the links verify." if not errors else "fix the problems listed in checks.")
        ),
    )


def _marked(target: Entry, successor: Entry, task: str) -> bool:
    return link.marked(target, successor, task)


def _propose_annotation(
    ws: Workspace,
    path: Path,
    parsed: Record,
    target: Entry,
    successor: Entry,
    task: str,
    note: str | None,
    hold: str | None,
    hold_answer: HoldAnswer | None,
) -> ProposalResult:
    """The successor is recorded but the old entry was never marked: propose only the mark."""
    plan = edit.plan_annotate(parsed, target, task, successor, note)
    lesson = _recorded_lesson(successor, task)
    draft, check = _on_target(ws, path, parsed, plan, "annotate", lesson, note, hold)
    result = _store(ws, draft, parsed, hold_answer, check)
    result["next_step"] = (
        f"{successor.id!r} already supersedes {target.id!r}, but {target.id!r} is not marked a red "
        f"herring for {task}; this proposal adds only that mark. " + result["next_step"]
    )
    return result


def _recorded_lesson(successor: Entry, task: str) -> edit.Lesson:
    """The already recorded successor, as the lesson an annotation proposal points to."""
    return edit.Lesson(
        title=successor.title,
        body="(already recorded)",
        tasks=successor.tasks or (task,),
        root_cause="confirmed",
        diagnostic=successor.diagnostic,
    )


def _pinned(
    ws: Workspace,
    path: Path,
    parsed: Record,
    plan: edit.Plan,
    *,
    kind: Literal["supersede", "capture", "annotate", "retire", "recheck"],
    lesson: edit.Lesson,
    target_sha256: str | None,
    anchor_sha256: str | None,
    after_id: str | None = None,
    red_herring_note: str | None = None,
    hold: str | None,
) -> tuple[Proposal, verification.EditCheck]:
    """A draft proposal pinning ``plan``, once its result verifies (InvalidArgument if not)."""
    after = ws.parse(plan.data, near=parsed)
    adds = lesson if kind in ("supersede", "capture") else None
    check = verification.check_plan(parsed, after, plan, adds)
    draft = Proposal.of_plan(
        plan,
        kind=kind,
        record=ws.name(path),
        base_sha256=parsed.sha256,
        lesson=lesson,
        result_sha256=after.sha256,
        diff=edit.unified_diff(ws.name(path), parsed.data, plan.data),
        entries_digest=verification.entries_digest(after),
        created_at=_created(),
        target_sha256=target_sha256,
        anchor_sha256=anchor_sha256,
        red_herring_note=red_herring_note,
        after_id=after_id,
        hold=_checked_predicate(hold),
    )
    return draft, check


def _anchor(parsed: Record, entry: Entry) -> str:
    """Hash of the entry and the bytes up to the next entry: what an edit next to it depends on."""
    entries = parsed.entries  # in file order: the next one is found by bisection
    at = bisect.bisect_left(entries, entry.end, key=lambda e: e.start)
    end = entries[at].start if at < len(entries) else len(parsed.data)
    return _sha(parsed.data[entry.start : end])


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def list_proposals(ws: Workspace) -> list[ProposalSummary]:
    """Every stored proposal with its status and its hold now; reads only."""
    from gotchas import pending

    return pending.assess(ws)


def is_applied(current: Record, stored: Proposal) -> bool:
    """Whether ``current`` already holds this very proposal (see :func:`_is_applied`)."""
    return current.sha256 == stored.result_sha256 or _is_applied(current, stored)


def refuse_unresolved_merge(ws: Workspace, record: str | None = None) -> None:
    """``ConflictMarkers`` when the record (if it exists) holds git conflict markers: checked
    before applying every released proposal, which would otherwise be skipped one by one."""
    path = ws.record_path(record)
    if path.exists() or path.is_symlink():
        verification.refuse_conflict_markers(ws.load(path))


def replan(ws: Workspace, current: Record, stored: Proposal) -> edit.Plan:
    """The proposal's edit recomputed on ``current``, verified; GotchasError when it cannot be."""
    verification.refuse_conflict_markers(current)
    plan, _, _ = _recompute(ws, current, stored, unchanged=current.sha256 == stored.base_sha256)
    return plan


def apply(ws: Workspace, *, proposal_id: str) -> ApplyResult:
    """Apply a stored proposal under the record lock; refuse unless the hold is released.

    The stored proposal is a request, not an authority: the record it may touch is the
    configured one, and the edit is recomputed from its intent on the current bytes and
    verified before anything is written.
    """
    stored = proposal.load(ws.proposals_dir, proposal_id)
    path = ws.writable_record(stored.record)
    with ws.lock(path):
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
    creates = stored.base_sha256 == _sha(b"") and not path.exists() and not path.is_symlink()
    snapshot = ws.snapshot(path, missing_ok=creates)
    data = snapshot.data
    current = ws.parse(data)
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
            hold=_view(hold),
            verification=report.to_view() if report is not None else None,
        )
        if code is not None:
            out["code"] = code
        if warnings:
            out["warnings"] = list(warnings)
        return out

    if before_sha == stored.result_sha256 or (
        before_sha != stored.base_sha256 and _is_applied(current, stored)
    ):
        return answer("already-applied", f"{stored.new_id!r} is already in the record; nothing written")
    hold_answer = check_hold(ws, predicate=stored.hold) if stored.hold else None
    if hold_answer is not None and hold_answer.state != "released":
        return answer(
            "refused",
            f"hold {stored.hold} is {hold_answer.state}: {hold_answer.reason}",
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
            plan, planned, check = _recompute(
                ws, current, stored, unchanged=current.sha256 == stored.base_sha256
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
                current = ws.parse(current.data + fresh.data[len(expect.data) :])  # keep both
                expect = fresh
                continue
            current = ws.parse(fresh.data)
            verification.refuse_conflict_markers(current)  # a merge began meanwhile
            if _is_applied(current, stored):
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
            current = ws.parse(swap.late)
            tries = 0
        elif swap.late.startswith(expect.data):  # it held ours: keep what was added to it
            current = ws.parse(current.data + swap.late[len(expect.data) :])
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
        after = planned if written == plan.data else ws.parse(written)
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


def _is_applied(current: Record, stored: Proposal) -> bool:
    """Whether ``current`` already holds this very proposal: same task, link scope and content.

    A same id and title is not enough: a second correction of the same target with another
    task or body must not be dropped as a duplicate.
    """
    if stored.kind in ("retire", "recheck") and stored.target_id:
        from gotchas import retire

        try:
            target = current.get(stored.target_id)
        except GotchasError:
            return False
        return retire.marked(target, stored.kind, stored.lesson.body, stored.lesson.evidence)
    if stored.kind == "annotate" and stored.target_id and stored.task:
        try:
            target, successor = current.get(stored.target_id), current.get(stored.new_id)
        except GotchasError:
            return False
        return _marked(target, successor, stored.task)
    for entry in current.entries:
        if entry.id != stored.new_id or not _same_lesson(current, entry, stored.lesson):
            continue
        if stored.kind == "capture":
            return True
        return link.links_to(entry, stored.target_id, stored.task)
    return False


def _same_lesson(record: Record, entry: Entry, lesson: edit.Lesson) -> bool:
    """``entry`` carries ``lesson``: its title, tasks, cause, diagnostic and every body line."""
    first = record.data[entry.start : entry.end].split(b"\n", 1)[0].decode("utf-8", errors="replace")
    titled = edit.carries_title(entry.title, lesson.title) or edit.number_alone_carries(
        entry.title, first, lesson.title
    )
    if not titled or not set(lesson.tasks) <= set(entry.tasks):
        return False
    if (entry.root_cause or "") != lesson.root_cause or (entry.diagnostic or None) != lesson.diagnostic:
        return False
    text = " ".join(record.data[entry.start : entry.end].decode("utf-8", errors="replace").split())
    return all(" ".join(line.split()) in text for line in lesson.body.splitlines() if line.strip())


_REBASES = 8
"""How often an apply re-reads and rebases when the record changes under its write."""


def _recompute(
    ws: Workspace, current: Record, stored: Proposal, *, unchanged: bool
) -> tuple[edit.Plan, Record, verification.EditCheck]:
    """The proposal's edit, computed again from its intent on ``current``, verified; its parsed
    result and the check of it come along, so the apply does not parse or check them twice.

    Nothing the proposal file stores about the result (insertions, diff) is replayed: on
    the base bytes the recomputed result must hash to the stored ``result_sha256`` or the
    file was forged; on changed bytes the edit is rebased, or refused as a conflict.
    """
    lesson = _checked_lesson(stored)
    refuse_note(stored.red_herring_note)
    try:
        plan, after, check = _replan(ws, current, stored, lesson, unchanged=unchanged)
    except Conflict as exc:
        if unchanged:
            raise ProposalInvalid(
                f"proposal {stored.id} does not describe an edit of the record it was made on "
                f"({exc.message}); it was forged or edited: propose again"
            ) from None
        raise
    if unchanged and after.sha256 != stored.result_sha256:
        raise ProposalInvalid(
            f"proposal {stored.id} does not produce the result it claims on the bytes it was made "
            "on: it was forged, edited, or made by another version; propose again"
        )
    return plan, after, check


def _checked_lesson(stored: Proposal) -> edit.Lesson:
    """The stored lesson, validated as a propose call would have (an annotation adds none)."""
    if stored.kind in ("annotate", "retire", "recheck"):
        return stored.lesson  # a mark adds no lesson; a retire's words are checked when planned
    raw = stored.lesson
    lesson = edit.lesson(
        raw.title, raw.body, raw.tasks, raw.root_cause, raw.diagnostic, raw.ruled_out, raw.evidence
    )
    if lesson != raw:
        raise ProposalInvalid(f"proposal {stored.id} holds a lesson no propose call makes; propose again")
    return lesson


def _replan(
    ws: Workspace, current: Record, stored: Proposal, lesson: edit.Lesson, *, unchanged: bool
) -> tuple[edit.Plan, Record, verification.EditCheck]:
    """The edit the proposal asks for, on ``current``: its own bytes, rebased, or a conflict."""
    anchor_id = stored.target_id or stored.after_id
    anchor = None
    if anchor_id is not None:
        try:
            anchor = current.get(anchor_id)
        except GotchasError:
            raise Conflict(
                f"conflict: {anchor_id!r} is no longer in the record (renamed or removed); "
                "propose again against the current record"
            ) from None
        if anchor.sha256 != stored.target_sha256 or _anchor(current, anchor) != stored.anchor_sha256:
            raise Conflict(
                f"conflict: {anchor_id!r} or the lines right after it changed since the proposal; "
                "propose again against the current record"
            )
    elif not unchanged:
        raise Conflict("conflict: the record changed since the proposal; propose again")
    if stored.kind == "annotate":
        if not stored.task or anchor is None:
            raise Conflict("conflict: an annotation names no task or target")
        try:
            successor = current.get(stored.new_id)
        except GotchasError:
            raise Conflict(f"conflict: {stored.new_id!r} is no longer in the record; propose again") from None
        plan = edit.plan_annotate(current, anchor, stored.task, successor, stored.red_herring_note)
    elif stored.kind in ("retire", "recheck"):
        from gotchas import retire

        if anchor is None:
            raise Conflict(f"conflict: a {stored.kind} names no target")
        plan = retire.plan_retire(current, anchor, stored.kind, lesson.body, lesson.evidence)
    elif stored.kind == "supersede":
        if not stored.task or anchor is None or stored.target_id is None:
            raise Conflict("conflict: a supersede names no task or target")
        plan = edit.plan_supersede(current, anchor, stored.task, lesson, stored.red_herring_note)
    else:
        plan = edit.plan_capture(current, lesson, anchor)
    if plan.new_id != stored.new_id:
        raise Conflict(
            f"conflict: the id {stored.new_id!r} was taken by another entry since the proposal; propose again"
        )
    after = ws.parse(plan.data, near=current)
    try:
        check = verification.check_plan(current, after, plan, stored.adds)
    except InvalidArgument as exc:
        raise Conflict(f"conflict: on the current record, {exc.message}") from None
    return plan, after, check
