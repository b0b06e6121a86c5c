"""Proposing: a supersede or a new lesson planned on the record, verified, and stored as a
proposal file with its hold; the record itself is never written here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gotchas import edit, link, marker, proposal, surface, taskref, verification
from gotchas.errors import (
    InvalidArgument,
)
from gotchas.lesson_text import refuse_note
from gotchas.proposal import Proposal
from gotchas.record import Entry, Record
from gotchas.results import (
    ProposalResult,
    RecordedCheckView,
)
from gotchas.workspace import Workspace

if TYPE_CHECKING:
    from gotchas.holds.decision import HoldAnswer
from gotchas.holding import checked_predicate, default_hold, hold_preview, hold_view
from gotchas.replay import anchor_hash, capture_plan, marked


def _created() -> str:
    """A proposal's creation time, to the microsecond: proposals are applied in this order."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _load_or_empty(ws: Workspace, record: str | None) -> tuple[Path, Record]:
    """A missing record reads as empty, so the first captured lesson can create it."""
    path = ws.writable_record(record)
    if not path.exists() and not path.is_symlink():
        return path, ws.parse(b"")
    return path, ws.load(path)


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
    no_hold: bool = False,
    tasks: Sequence[str] = (),
    record: str | None = None,
    root_cause: str = "confirmed",
) -> ProposalResult:
    """Plan the correction and store it; the record is not touched. Held until ``task`` lands
    unless another ``hold`` is given or ``no_hold`` says otherwise."""
    if root_cause != "confirmed":
        raise InvalidArgument(
            f"root_cause {root_cause!r} cannot supersede: only a confirmed cause replaces a lesson; "
            f"record a suspected cause with {surface.propose_lesson()} and supersede once it is confirmed"
        )
    refuse_note(red_herring_note)
    task_ref = taskref.normalize(task)
    hold = default_hold(hold, tasks=[task_ref], no_hold=no_hold)
    path = ws.writable_record(record)
    parsed = ws.load(path)
    verification.refuse_conflict_markers(parsed)
    target = parsed.get(target_id)
    existing = _existing_successor(parsed, target, task_ref)
    if existing is not None:
        hold_answer = hold_preview(ws, hold=hold)
        if marked(target, successor=existing, task=task_ref):
            return _already_recorded(ws, path, parsed, target, existing, hold_answer)
        return _propose_annotation(
            ws, path, parsed, target, existing, task_ref, red_herring_note, hold, hold_answer
        )
    lesson = edit.lesson(
        title,
        body=body,
        tasks=[task_ref, *tasks],
        root_cause="confirmed",
        diagnostic=diagnostic,
        ruled_out=ruled_out,
        evidence=evidence,
    )
    plan = edit.plan_supersede(
        parsed, target=target, task=task_ref, new=lesson, note=red_herring_note, today=_created()[:10]
    )
    draft, check = _on_target(ws, path, parsed, plan, "supersede", lesson, red_herring_note, hold)
    return _store(ws, draft, parsed, hold_preview(ws, hold=hold), check)


def _on_target(
    ws: Workspace,
    path: Path,
    parsed: Record,
    plan: edit.Plan,
    kind: Literal["supersede", "annotate", "retire", "recheck"],
    lesson: edit.Lesson,
    note: str | None,
    hold: str | None,
) -> tuple[Proposal, verification.EditCheck]:
    """A verified proposal for an edit of one target entry (a supersede, its mark alone, or a
    retire/re-check mark)."""
    target = parsed.get(plan.target_id or "")
    draft, check = _pinned(
        ws,
        path,
        parsed,
        plan,
        kind=kind,
        lesson=lesson,
        target_sha256=target.sha256,
        anchor_sha256=anchor_hash(parsed, entry=target),
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
    no_hold: bool = False,
    record: str | None = None,
) -> ProposalResult:
    """Plan a plain new lesson (capture); confirmed lessons must carry a diagnostic. Held until
    every one of its tasks lands unless another ``hold`` is given or ``no_hold`` says otherwise.
    Without ``after`` it goes at the end of the section it fits (:mod:`gotchas.placement`)."""
    path, parsed = _load_or_empty(ws, record)
    verification.refuse_conflict_markers(parsed)
    lesson = edit.lesson(
        title,
        body=body,
        tasks=tasks,
        root_cause=root_cause,
        diagnostic=diagnostic,
        ruled_out=ruled_out,
        evidence=evidence,
    )
    asked = marker.find(parsed)
    if after:
        anchor: Entry | None = parsed.get(after)
    elif asked is not None:  # where the file's own marker asks
        anchor = asked.after
    else:  # the end of the section it fits, or NeedsPlacement: never wherever the file ends
        from gotchas.placement import after as placed

        anchor = placed(parsed, title=lesson.title, body=lesson.body, tasks=lesson.tasks)
    hold = default_hold(hold, tasks=lesson.tasks, no_hold=no_hold)
    hold_answer = hold_preview(ws, hold=hold)
    plan = capture_plan(ws, record=parsed, lesson=lesson, anchor=anchor, today=_created()[:10], asked=asked)
    place = anchor or (parsed.entries[-1] if parsed.entries else None)
    draft, check = _pinned(
        ws,
        path,
        parsed,
        plan,
        kind="capture",
        lesson=lesson,
        target_sha256=place.sha256 if place else None,
        anchor_sha256=anchor_hash(parsed, entry=place) if place else None,
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
    from gotchas.withdraw import fresh

    final = fresh(ws, draft)  # a proposal withdrawn before is asked again under a new id
    proposal.save(ws.proposals_dir, final)
    renews = f"{final.renews} was withdrawn, so this is a new proposal; " if final.renews else ""
    step = renews + (
        f"review the diff; {surface.apply(final.id)} is refused until the hold "
        f"{final.hold} is released (now: {hold_answer.state}"
        + (f"; {hold_answer.ways_out})" if hold_answer.ways_out else ")")
        if hold_answer is not None and hold_answer.state != "released"
        else f"review the diff, then {surface.apply(final.id)}"
    )
    if parsed.reading is not None and parsed.reading.notice:  # a guessed reading: look before editing
        step = f"{parsed.reading.notice}; check the outline first, then {step}"
    return ProposalResult(
        status="proposed",
        proposal_id=final.id,
        record=final.record,
        diff=final.diff,
        base_sha256=parsed.sha256,
        target_sha256=final.target_sha256,
        new_id=final.new_id,
        hold=hold_view(hold_answer),
        checks=check.to_view(),
        next_step=step,
    )


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
        hold=hold_view(hold_answer),
        checks=checks,
        next_step=(
            f"nothing to write: {successor.id!r} already supersedes {target.id!r}; "
            + ("the links verify." if not errors else "fix the problems listed in checks.")
        ),
    )


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
    plan = edit.plan_annotate(parsed, target=target, task=task, successor=successor, note=note)
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
    adds = lesson if kind in ("supersede", "capture") else None  # a mark adds no entry
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
        hold=checked_predicate(hold),
    )
    return draft, check


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
    record is not touched. Reviewed, held, applied and verified like a supersede; held only
    when ``hold`` is given (a retire names no task to wait for)."""
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
    draft, check = _on_target(ws, path, parsed, plan, kind, lesson, None, hold)
    return _store(ws, draft, parsed, hold_preview(ws, hold=hold), check)


def _commit_of(ws: Workspace, rev: str | None) -> str:
    """The full id of the commit a re-check names (default HEAD): the check anchors there."""
    from gotchas.check.evidence import Repository, checked_rev
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.git import Git

    try:
        return Repository(Git(ws.root)).state(checked_rev(rev or "HEAD"))[1]
    except (ValueError, SourceFailed) as exc:
        raise InvalidArgument(f"a re-check names a commit of this repository: {exc}") from None
