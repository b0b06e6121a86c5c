"""Planning an edit: a supersede, the repair of a one-sided link, a capture."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gotchas import link, surface, taskref
from gotchas.edit.caveat import caveat_text
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import bare_line, eol_of, lines_of
from gotchas.edit.registry import form_of
from gotchas.edit.splice import Insertion, apply_lines, separated
from gotchas.edit.successor import heading_lines
from gotchas.errors import InvalidArgument
from gotchas.marker import Marker, bound
from gotchas.record import Entry, Record, slugify

NEW_RECORD_TITLE = "# Gotchas"  # the first line of a record that a first captured lesson creates


@dataclass(frozen=True)
class Plan:
    """What an apply writes, and what verification expects to find afterwards."""

    data: bytes
    insertions: tuple[Insertion, ...]
    eol: bytes
    new_id: str
    new_title: str
    target_id: str | None
    task: str | None


def plan_supersede(
    record: Record,
    *,
    target: Entry,
    task: str,
    new: Lesson,
    note: str | None = None,
    today: str | None = None,
) -> Plan:
    """Mark ``target`` a red herring for ``task`` and insert ``new`` after it, superseding it.

    ``today`` (``YYYY-MM-DD``) is the day of the change: a successor dated as its siblings are
    carries it instead of the target's date. Without it the target's date is kept."""
    form = form_of(target)
    if new.root_cause != "confirmed":
        raise InvalidArgument(
            "only a confirmed root cause may supersede a lesson: a suspected cause is what made "
            f"the old entry wrong; record it with {surface.propose_lesson()} instead, and supersede "
            "once confirmed"
        )
    task = taskref.normalize(task)
    if task not in new.tasks:
        new = Lesson(
            new.title,
            new.body,
            (task, *new.tasks),
            new.root_cause,
            new.diagnostic,
            new.ruled_out,
            new.evidence,
        )
    new_id = _fresh_id(record, new.title)
    lines = lines_of(record)
    eol = eol_of(record, target)
    caveat = caveat_text(task, new.title, new.ruled_out, new_id, note, "just below")
    marks = link.marks_line(task, new_id)
    inside = form.annotate(record, lines, target, marks, caveat)
    links = link.supersedes_line(target.id, task)
    entry_lines, shown = form.successor(record, lines, target, new, new_id, links)
    entry_lines, shown = _dated(entry_lines, shown, bare_line(lines[target.start_line - 1]), new, today)
    after = form.place(record, lines, target, entry_lines)
    plan = separated([*inside, after], lines, form.blocks)
    data = apply_lines(record.data, lines, plan, eol)
    return Plan(data, plan, eol, new_id, shown, target.id, task)


def plan_annotate(
    record: Record, *, target: Entry, task: str, successor: Entry, note: str | None = None
) -> Plan:
    """Only mark ``target`` a red herring for ``task``: its successor is already recorded.

    The repair for a one-sided link, when a confirmed lesson says ``supersedes:`` but the old
    entry was never marked. Nothing but the target's inserted lines changes.
    """
    form = form_of(target)
    task = taskref.normalize(task)
    ruled_out = [
        part.strip()
        for f in successor.fields
        if f.key == "ruled-out"
        for part in f.value.split(";")
        if part.strip()
    ]
    where = "just below" if successor.start > target.start else "above"
    caveat = caveat_text(task, successor.title, ruled_out, successor.id, note, where)
    marks = link.marks_line(task, successor.id)
    lines = lines_of(record)
    eol = eol_of(record, target)
    inside = separated(form.annotate(record, lines, target, marks, caveat), lines, form.blocks)
    data = apply_lines(record.data, lines, inside, eol)
    return Plan(data, inside, eol, successor.id, successor.title, target.id, task)


def plan_capture(
    record: Record,
    *,
    new: Lesson,
    after: Entry | None,
    today: str | None = None,
    marker: Marker | None = None,
) -> Plan:
    """Insert a plain lesson after ``after`` (default: the last entry), in its style; dated
    ``today`` when its siblings are dated (see ``plan_supersede``). After the lesson before the
    record's own ``marker`` (``<!-- Add new lessons above this line -->``), it goes on the side
    the marker asks for."""
    anchor = after or (record.entries[-1] if record.entries else None)
    new_id = _fresh_id(record, new.title)
    lines = lines_of(record)
    if anchor is None:
        entry_lines = heading_lines(2, new.title, new, new_id, None)
        shown = new.title
        if not record.data:
            prefix: tuple[str, ...] = (NEW_RECORD_TITLE, "")
        else:
            prefix = ("",) if bare_line(lines[-1]).strip() else ()
        insertion = Insertion(len(lines), (*prefix, *entry_lines))
        eol = record.eol
        blocks = True
    else:
        form = form_of(anchor)
        entry_lines, shown = form.successor(record, lines, anchor, new, new_id, None)
        entry_lines, shown = _dated(entry_lines, shown, bare_line(lines[anchor.start_line - 1]), new, today)
        insertion = form.place(record, lines, anchor, entry_lines)
        if marker is not None and marker.after == anchor:
            insertion = Insertion(bound(marker, insertion.at), insertion.lines)
        eol = eol_of(record, anchor)
        blocks = form.blocks
    plan = separated([insertion], lines, blocks)
    data = apply_lines(record.data, lines, plan, eol)
    return Plan(data, plan, eol, new_id, shown, None, None)


def _fresh_id(record: Record, title: str) -> str:
    """The new entry's id; if its slug is taken, it gets an explicit unique ``id:`` later."""
    base = slugify(title)
    taken = record.first_by_id  # every id, built once per parse
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


_DATED = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?(?!\d)")


def _dated(
    entry_lines: list[str], shown: str, like_first: str, new: Lesson, today: str | None
) -> tuple[list[str], str]:
    """The successor's first line and title with the date it copied from its sibling's first
    line (and a time after it: there is no clock time to give) made ``today``."""
    found = _DATED.search(like_first)
    if today is None or found is None or not entry_lines or found[1] in new.title:
        return entry_lines, shown
    copied = found[0]
    if copied not in entry_lines[0]:
        return entry_lines, shown
    return [entry_lines[0].replace(copied, today, 1), *entry_lines[1:]], shown.replace(copied, today, 1)
