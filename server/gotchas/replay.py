"""A stored proposal against the record as it is now: already in it, or its edit recomputed
from the proposal's intent (never replayed from what the file claims) and verified.
"""

from __future__ import annotations

import bisect
import hashlib
from typing import TYPE_CHECKING

from gotchas import edit, link, marker, verification
from gotchas.errors import (
    Conflict,
    GotchasError,
    InvalidArgument,
    ProposalInvalid,
)
from gotchas.lesson_text import refuse_note
from gotchas.proposal import Proposal
from gotchas.record import Entry, Record
from gotchas.workspace import Workspace

if TYPE_CHECKING:
    pass


def marked(target: Entry, *, successor: Entry, task: str) -> bool:
    return link.marked(target, successor, task)


def anchor_hash(parsed: Record, *, entry: Entry) -> str:
    """Hash of the entry and the bytes up to the next entry: what an edit next to it depends on."""
    entries = parsed.entries  # in file order: the next one is found by bisection
    at = bisect.bisect_left(entries, entry.end, key=lambda e: e.start)
    end = entries[at].start if at < len(entries) else len(parsed.data)
    return sha(parsed.data[entry.start : end])


def capture_plan(
    ws: Workspace,
    *,
    record: Record,
    lesson: edit.Lesson,
    anchor: Entry | None,
    today: str | None,
    asked: marker.Marker | None,
) -> edit.Plan:
    """A capture after ``anchor``, on the side of the record's own marker (``asked``, from
    ``marker.find``) that it asks for when the result reads as it should (a marker inside a
    lesson's text, or one a misreading put after the lesson before it, does not); else just
    after ``anchor``. Propose and apply plan it the same way, so both make the same choice."""
    plan = edit.plan_capture(record, new=lesson, after=anchor, today=today, marker=asked)
    if asked is None or asked.after != (anchor or record.entries[-1]):
        return plan  # most records: no marker beside the anchor, so nothing to choose
    if verification.check_edit(record, ws.parse(plan.data, near=record), plan, lesson).ok:
        return plan
    return edit.plan_capture(record, new=lesson, after=anchor, today=today)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_applied(current: Record, *, stored: Proposal) -> bool:
    """Whether ``current`` already holds this very proposal (see :func:`carries_proposal`)."""
    return current.sha256 == stored.result_sha256 or carries_proposal(current, stored=stored)


def carries_proposal(current: Record, *, stored: Proposal) -> bool:
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
        return marked(target, successor=successor, task=stored.task)
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


def refuse_unresolved_merge(ws: Workspace, *, record: str | None = None) -> None:
    """``ConflictMarkers`` when the record (if it exists) holds git conflict markers: checked
    before applying every released proposal, which would otherwise be skipped one by one."""
    path = ws.record_path(record)
    if path.exists() or path.is_symlink():
        verification.refuse_conflict_markers(ws.load(path))


def replan(ws: Workspace, *, current: Record, stored: Proposal) -> edit.Plan:
    """The proposal's edit recomputed on ``current``, verified; GotchasError when it cannot be."""
    verification.refuse_conflict_markers(current)
    unchanged = current.sha256 == stored.base_sha256
    plan, _, _ = recompute(ws, current=current, stored=stored, unchanged=unchanged)
    return plan


def recompute(
    ws: Workspace, *, current: Record, stored: Proposal, unchanged: bool
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
        raw.title,
        body=raw.body,
        tasks=raw.tasks,
        root_cause=raw.root_cause,
        diagnostic=raw.diagnostic,
        ruled_out=raw.ruled_out,
        evidence=raw.evidence,
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
        moved = anchor_hash(current, entry=anchor) != stored.anchor_sha256
        if anchor.sha256 != stored.target_sha256 or moved:
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
        plan = edit.plan_annotate(
            current, target=anchor, task=stored.task, successor=successor, note=stored.red_herring_note
        )
    elif stored.kind in ("retire", "recheck"):
        from gotchas import retire

        if anchor is None:
            raise Conflict(f"conflict: a {stored.kind} names no target")
        plan = retire.plan_retire(current, anchor, stored.kind, lesson.body, lesson.evidence)
    elif stored.kind == "supersede":
        if not stored.task or anchor is None or stored.target_id is None:
            raise Conflict("conflict: a supersede names no task or target")
        plan = edit.plan_supersede(
            current,
            target=anchor,
            task=stored.task,
            new=lesson,
            note=stored.red_herring_note,
            today=_day_of(stored),
        )
    else:
        asked = marker.find(current)
        plan = capture_plan(
            ws, record=current, lesson=lesson, anchor=anchor, today=_day_of(stored), asked=asked
        )
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


def _day_of(stored: Proposal) -> str | None:
    """The day a proposal was made: a successor dated as its siblings are carries it, so the
    edit recomputed at apply is the one proposed."""
    return stored.created_at[:10] or None
