"""The product's operations, shared by the MCP tools and the CLI.

Each one reads through the workspace, calls the pure core (record, query, edit,
verification, hold) and writes through the workspace. Follow one supersede from here:
``propose_supersede`` → ``edit.plan_supersede`` → ``verification.check_plan`` on the planned
bytes → ``proposal.save``; then ``apply`` → ``workspace.lock`` → ``holds.check.check_hold`` →
``edit.apply_insertions`` on the unchanged bytes (or ``edit.plan_supersede`` again, rebased) →
``workspace.write_atomic`` → ``verification.check_written`` on the bytes read back →
``journal.append``.

Every operation takes the workspace and keyword arguments only, and returns a typed result
(the TypedDicts of :mod:`gotchas.results`) that the shells hand out as they are.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gotchas import edit, journal, proposal, query, taskref, verification
from gotchas.errors import Conflict, GotchasError, HoldNotReleased, InvalidArgument
from gotchas.proposal import Proposal
from gotchas.record import Entry, Record
from gotchas.results import (
    ApplyResult,
    EntryDetail,
    HoldView,
    ListResult,
    ProposalResult,
    ProposalSummary,
    RecordedCheckView,
    VerifyResult,
)
from gotchas.workspace import Workspace

if TYPE_CHECKING:
    from gotchas.holds.decision import HoldAnswer


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _load(ws: Workspace, record: str | None) -> tuple[Path, Record]:
    path = ws.record_path(record)
    return path, ws.load(path)


def _load_or_empty(ws: Workspace, record: str | None) -> tuple[Path, Record]:
    """A missing record reads as empty, so the first captured lesson can create it."""
    path = ws.record_path(record)
    if not path.exists() and not path.is_symlink():
        return path, ws.parse(b"")
    return path, ws.load(path)


def list_gotchas(
    ws: Workspace,
    *,
    task: str | None = None,
    query_text: str | None = None,
    status: str | None = None,
    root_cause: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
    record: str | None = None,
    verbose: bool = False,
) -> ListResult:
    path, parsed = _load(ws, record)
    return query.listing(
        parsed,
        ws.name(path),
        task=task,
        query=query_text,
        status=status,
        root_cause=root_cause,
        limit=limit,
        cursor=cursor,
        verbose=verbose,
    )


def get_gotcha(ws: Workspace, *, entry_id: str, record: str | None = None) -> EntryDetail:
    _, parsed = _load(ws, record)
    return query.detail(parsed.get(entry_id), parsed)


def check_hold(ws: Workspace, *, predicate: str) -> HoldAnswer:
    from gotchas.holds.check import check_hold as evaluate

    return evaluate(predicate, ws.root, ws.config)


def verify_record(ws: Workspace, *, record: str | None = None) -> VerifyResult:
    path, parsed = _load(ws, record)
    problems = verification.check_record(parsed)
    return VerifyResult(
        ok=not any(p.severity == "error" for p in problems),
        record=ws.name(path),
        record_sha256=parsed.sha256,
        entries=len(parsed.entries),
        problems=[p.to_view() for p in problems],
    )


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
            "record a suspected cause with propose_lesson and supersede once it is confirmed"
        )
    task_ref = taskref.normalize(task)
    path, parsed = _load(ws, record)
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
        f"review the diff; apply_supersede({final.id!r}) is refused until the hold "
        f"{final.hold} is released (now: {hold_answer.state})"
        if hold_answer is not None and hold_answer.state != "released"
        else f"review the diff, then apply_supersede({final.id!r})"
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
    for entry in parsed.entries:
        if entry.root_cause != "confirmed":
            continue
        for link in entry.supersedes:
            if link.target == target.id and (task in link.tasks or not link.tasks):
                return entry
    return None


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
    return task in target.red_herring_for and any(
        link.target == successor.id for link in target.superseded_by
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
    kind: Literal["supersede", "capture", "annotate"],
    lesson: edit.Lesson,
    target_sha256: str | None,
    anchor_sha256: str | None,
    after_id: str | None = None,
    red_herring_note: str | None = None,
    hold: str | None,
) -> tuple[Proposal, verification.EditCheck]:
    """A draft proposal pinning ``plan``, once its result verifies (InvalidArgument if not)."""
    after = ws.parse(plan.data)
    check = verification.check_plan(parsed, after, plan, lesson if kind != "annotate" else None)
    draft = Proposal.of_plan(
        plan,
        kind=kind,
        record=ws.name(path),
        base_sha256=parsed.sha256,
        lesson=lesson,
        result_sha256=after.sha256,
        diff=edit.unified_diff(ws.name(path), parsed.data, plan.data),
        entries_digest=verification.entries_digest(after),
        created_at=_now(),
        target_sha256=target_sha256,
        anchor_sha256=anchor_sha256,
        red_herring_note=red_herring_note,
        after_id=after_id,
        hold=_checked_predicate(hold),
    )
    return draft, check


def _anchor(parsed: Record, entry: Entry) -> str:
    """Hash of the entry and the bytes up to the next entry: what an edit next to it depends on."""
    later = [e.start for e in parsed.entries if e.start >= entry.end]
    end = min(later) if later else len(parsed.data)
    return _sha(parsed.data[entry.start : end])


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def list_proposals(ws: Workspace) -> list[ProposalSummary]:
    return [
        ProposalSummary(
            proposal_id=p.id,
            kind=p.kind,
            record=p.record,
            target_id=p.target_id,
            task=p.task,
            new_id=p.new_id,
            title=p.lesson.title,
            hold=p.hold,
            created_at=p.created_at,
        )
        for p in proposal.stored(ws.proposals_dir)
    ]


def apply(ws: Workspace, *, proposal_id: str) -> ApplyResult:
    """Apply a stored proposal under the record lock; refuse unless the hold is released."""
    stored = proposal.load(ws.proposals_dir, proposal_id)
    path = ws.inside(stored.record)
    with ws.lock(path):
        result = _apply_locked(ws, path, stored)
        report = result["verification"]
        event = {"at": _now(), **{k: v for k, v in result.items() if k != "verification"}}
        event["verified"] = bool(report and report["ok"])
        journal.append(ws.journal_path, event)
    return result


def _apply_locked(ws: Workspace, path: Path, stored: Proposal) -> ApplyResult:
    creates = stored.base_sha256 == _sha(b"") and not path.exists() and not path.is_symlink()
    data = b"" if creates else ws.read(path)
    before_sha = _sha(data)

    def answer(
        status: Literal["applied", "already-applied", "refused"],
        reason: str,
        *,
        hold: HoldAnswer | None = None,
        code: str | None = None,
        report: verification.AppliedCheck | None = None,
        rebased: bool = False,
        after_sha256: str = before_sha,
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
        return out

    unchanged = before_sha == stored.base_sha256
    current = None if unchanged else ws.parse(data)
    if before_sha == stored.result_sha256 or (current is not None and _is_applied(current, stored)):
        return answer("already-applied", f"{stored.new_id!r} is already in the record; nothing written")
    hold_answer = check_hold(ws, predicate=stored.hold) if stored.hold else None
    if hold_answer is not None and hold_answer.state != "released":
        return answer(
            "refused",
            f"hold {stored.hold} is {hold_answer.state}: {hold_answer.reason}",
            hold=hold_answer,
            code=HoldNotReleased.code,
        )
    try:
        plan = _as_proposed(data, stored) if current is None else _replan(ws, current, stored)
    except GotchasError as exc:
        return answer("refused", str(exc), hold=hold_answer, code=exc.code)
    ws.write_atomic(path, plan.data)
    written = ws.read(path)
    after = ws.parse(written)
    report = verification.check_written(current, after, written, plan, stored.adds, stored.entries_digest)
    reason = "applied and verified" if report.ok else "applied, but verification found problems"
    if current is not None:
        reason += " (rebased: the record changed elsewhere since the proposal)"
    return answer(
        "applied",
        reason,
        rebased=current is not None,
        after_sha256=after.sha256,
        hold=hold_answer,
        report=report,
    )


def _as_proposed(data: bytes, stored: Proposal) -> edit.Plan:
    """The proposed edit on the very bytes it was planned on: no parse, same result hash."""
    new = edit.apply_insertions(data, stored.insertions, stored.eol.encode("ascii"))
    if _sha(new) != stored.result_sha256:
        raise Conflict("conflict: the edit no longer produces the proposed bytes; propose again")
    return stored.as_plan(new)


def _is_applied(current: Record, stored: Proposal) -> bool:
    if stored.kind == "annotate" and stored.target_id and stored.task:
        try:
            target, successor = current.get(stored.target_id), current.get(stored.new_id)
        except GotchasError:
            return False
        return _marked(target, successor, stored.task)
    for entry in current.entries:
        if entry.id != stored.new_id or not edit.carries_title(entry.title, stored.lesson.title):
            continue
        if stored.kind == "capture":
            return True
        return any(link.target == stored.target_id for link in entry.supersedes)
    return False


def _replan(ws: Workspace, current: Record, stored: Proposal) -> edit.Plan:
    """The same edit on a record that changed since the proposal: rebased, or a conflict."""
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
    else:
        raise Conflict("conflict: the record changed since the proposal; propose again")
    if stored.kind == "annotate" and stored.task:
        try:
            successor = current.get(stored.new_id)
        except GotchasError:
            raise Conflict(f"conflict: {stored.new_id!r} is no longer in the record; propose again") from None
        plan = edit.plan_annotate(current, anchor, stored.task, successor, stored.red_herring_note)
    elif stored.kind == "supersede" and stored.task:
        plan = edit.plan_supersede(current, anchor, stored.task, stored.lesson, stored.red_herring_note)
    else:
        plan = edit.plan_capture(current, stored.lesson, anchor)
    if plan.new_id != stored.new_id:
        raise Conflict(
            f"conflict: the id {stored.new_id!r} was taken by another entry since the proposal; propose again"
        )
    try:
        verification.check_plan(current, ws.parse(plan.data), plan, stored.adds)
    except InvalidArgument as exc:
        raise Conflict(f"conflict: rebased on the current record, {exc.message}") from None
    return plan
