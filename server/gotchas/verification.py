"""Checking the record: its links as a whole, and one edit against what it was meant to do.

Pure functions over parsed records. ``check_record`` is the lint every team can run in CI;
``check_plan`` refuses a proposal whose result would not verify; ``check_edit`` and
``check_applied`` prove an edit touched only what it should, and ``check_written`` makes
the whole report of an apply from the bytes read back.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gotchas import link, surface
from gotchas.errors import ConflictMarkers, InvalidArgument
from gotchas.reading import Note
from gotchas.record import THEMATIC_BREAK, Entry, Record
from gotchas.results import AppliedCheckView, EditCheckView, ProblemView

if TYPE_CHECKING:  # checking an edit needs the edit module; checking a record does not
    from gotchas.edit import Lesson, Plan

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One finding; ``line`` and ``column`` (1-based) are where the field at fault is written
    (a link's target, a key), else the entry's first line."""

    code: str
    severity: Severity
    entry: str | None
    line: int | None
    message: str
    column: int | None = None

    def to_view(self) -> ProblemView:
        view: ProblemView = {
            "code": self.code,
            "severity": self.severity,
            "entry": self.entry,
            "line": self.line,
            "message": self.message,
        }
        if self.column is not None:
            view["column"] = self.column
        return view


CODES: dict[str, str] = {
    "duplicate-id": "two entries share an id",
    "dangling-supersedes": "`supersedes:` names an entry that is not in the record",
    "dangling-superseded-by": "`superseded-by:` names an entry that is not in the record",
    "one-sided-supersedes": "the superseded entry does not point back",
    "one-sided-superseded-by": "the successor does not say `supersedes:`",
    "red-herring-without-successor": "a red-herring mark with no entry superseding it",
    "supersede-cycle": "supersede links that come back to themselves",
    "confirmed-without-diagnostic": "`root-cause: confirmed` without a `diagnostic:`",
    "unassigned-text": "text after the first lesson that belongs to no entry",
    "conflict-markers": "a git conflict marker: an unresolved merge",
}
"""Every code the record lint reports, with what it means (``--select``/``--ignore`` name these)."""


def check_record(record: Record) -> list[Problem]:
    """Dangling or one-sided links, orphan red-herring marks, duplicate ids, cycles, diagnostics."""
    problems: list[Problem] = []
    by_id: dict[str, Entry] = {}
    counts = Counter(e.id for e in record.entries)
    for entry in record.entries:
        if counts[entry.id] > 1 and entry.id in by_id:
            problems.append(
                _p(
                    "duplicate-id",
                    "error",
                    entry,
                    f"id {entry.id!r} is used by {counts[entry.id]} entries",
                )
            )
        by_id.setdefault(entry.id, entry)
    for entry in record.entries:
        problems += _links_of(entry, by_id)
        if entry.root_cause == "confirmed" and not entry.diagnostic:
            severity: Severity = "error" if entry.supersedes else "warning"
            problems.append(
                _p(
                    "confirmed-without-diagnostic",
                    severity,
                    entry,
                    "root-cause: confirmed but no `diagnostic:` saying how to recognise it",
                )
            )
    problems += _cycles(record.entries, by_id)
    problems = located(record, problems, by_id)
    problems += unassigned_text(record)
    problems += conflict_markers(record)
    return problems


# --- where a problem is written --------------------------------------------------------------

_FIELD_OF = {
    "duplicate-id": "id",
    "dangling-supersedes": "supersedes",
    "one-sided-supersedes": "supersedes",
    "supersede-cycle": "supersedes",
    "dangling-superseded-by": "superseded-by",
    "one-sided-superseded-by": "superseded-by",
    "red-herring-without-successor": "red-herring-for",
    "confirmed-without-diagnostic": "root-cause",
}


def located(record: Record, problems: Sequence[Problem], by_id: Mapping[str, Entry]) -> list[Problem]:
    """``problems`` each moved to the field it is about: the link target that does not hold
    (the n-th problem of a code on an entry at the n-th such target, as ``link.check`` finds
    them in order), else the field's key; the entry's first line when no field says it."""
    entries = {(e.id, e.start_line): e for e in record.entries} if problems else {}
    seen: Counter[tuple[str | None, str, int | None]] = Counter()
    # an entry's faulty targets and a line's text, each found once: a hostile entry may name
    # thousands of missing targets on one long line
    targets_of: dict[tuple[str | None, str, int | None], list[str]] = {}
    texts: dict[int, str] = {}
    out = []
    for problem in problems:
        entry = entries.get((problem.entry or "", problem.line or 0))
        key = _FIELD_OF.get(problem.code)
        if entry is None or key is None:
            out.append(problem)
            continue
        which = (problem.entry, problem.code, problem.line)
        nth = seen[which]
        seen[which] += 1
        if which not in targets_of:
            targets_of[which] = _targets(entry, problem.code, by_id)
        targets = targets_of[which]
        # past the first few, a problem is placed at its field's key: finding each of thousands
        # of targets in one long line would cost the line's length each time
        target = targets[nth] if nth < min(len(targets), _PLACED_TARGETS) else None
        where = field_position(record, entry, key, target, texts)
        if where is None:
            out.append(problem)
            continue
        line, column = where
        out.append(Problem(problem.code, problem.severity, problem.entry, line, problem.message, column))
    return out


_PLACED_TARGETS = 64  # the problems of one kind on one entry placed at their own target


def _targets(entry: Entry, code: str, by_id: Mapping[str, Entry]) -> list[str]:
    """The link targets (or tasks) ``link.check`` finds at fault for ``code``, in its order."""
    if code == "dangling-supersedes":
        return [link.target for link in entry.supersedes if link.target not in by_id]
    if code == "one-sided-supersedes":
        return [
            each.target
            for each in entry.supersedes
            if (old := by_id.get(each.target)) is not None
            and (
                not any(b.target == entry.id for b in old.superseded_by)
                or not all(t in old.red_herring_for for t in each.tasks)
            )
        ]
    if code == "dangling-superseded-by":
        return [each.target for each in entry.superseded_by if each.target not in by_id]
    if code == "one-sided-superseded-by":
        return [
            each.target
            for each in entry.superseded_by
            if (new := by_id.get(each.target)) is not None
            and not any(s.target == entry.id for s in new.supersedes)
        ]
    if code == "red-herring-without-successor":
        return [
            task
            for task in entry.red_herring_for
            if not any(each.covers(task) for each in entry.superseded_by if each.target in by_id)
        ]
    return []


def field_position(
    record: Record, entry: Entry, key: str, target: str | None, texts: dict[int, str] | None = None
) -> tuple[int, int] | None:
    """(line, column) of ``target`` in the ``key`` field that names it, else of that field's key.
    ``texts`` keeps the lines already read, for a caller asking many times."""
    fields = [f for f in entry.fields if f.key == key]
    if target is not None:
        fields = sorted(fields, key=lambda f: target not in f.value)  # the one naming it first
    for field in fields:
        text = texts.get(field.line) if texts is not None else None
        if text is None:
            text = _line_text(record, field.line)
            if texts is not None:
                texts[field.line] = text
        at = text.find(field.raw_key)
        if at < 0:
            continue
        if target is not None and field.value.find(target) >= 0:
            found = _token(text, target, at + len(field.raw_key))
            if found >= 0:
                return field.line, found + 1
        return field.line, at + 1
    return None


def _token(text: str, token: str, start: int) -> int:
    """Where ``token`` stands on its own in ``text`` after ``start`` (not inside a longer id)."""
    at = text.find(token, start)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(token)] if at + len(token) < len(text) else " "
        if not (before.isalnum() or before in "-_.") and not (after.isalnum() or after in "-_"):
            return at
        at = text.find(token, at + 1)
    return -1


def _line_text(record: Record, line: int) -> str:
    """Line ``line`` (1-based) as text, without its line ending or a byte-order mark."""
    starts = record.line_starts
    raw = record.data[starts[line - 1] : starts[line]] if 0 < line < len(starts) else b""
    return raw.decode("utf-8", "replace").rstrip("\r\n").removeprefix("\ufeff")


_OPENING = b"<" * 7
_CLOSING = b">" * 7
_MARKER = re.compile(rb"(<{7}|>{7}|\|{7}|={7})(?:[ \t][^\r\n]*)?\r?\n?\Z")


def conflict_marker_lines(record: Record) -> list[tuple[int, str]]:
    """(line, marker) of each git conflict marker outside code: ``<<<<<<<`` and ``>>>>>>>``
    at the start of a line, and ``|||||||`` and ``=======`` lines between them (a lone
    ``=======`` is a setext underline, which Markdown allows).

    A file without either outer marker is not scanned line by line at all. The answer is kept
    with the parse (a pure function of its bytes): apply asks again of the parse propose asked.
    """
    known: list[tuple[int, str]] | None = record.__dict__.get("_conflict_markers")
    if known is None:
        known = record.__dict__["_conflict_markers"] = _conflict_marker_lines(record)
    return list(known)


def _conflict_marker_lines(record: Record) -> list[tuple[int, str]]:
    data = record.data
    if _OPENING not in data and _CLOSING not in data:
        return []
    literal = record.block_map.literal if record.block_map is not None else ()
    starts = record.line_starts
    found: list[tuple[int, str]] = []
    inside = False
    for n in _marker_candidates(data, starts):
        line = data[starts[n] : starts[n + 1]]
        match = _MARKER.match(line)
        if match is None or n in literal:
            continue
        marker = match[1].decode()
        if marker[0] == "=" and match.end(1) < len(line.rstrip()):
            continue  # "=======" is a marker only as a whole line
        if marker[0] in "<>" or inside:
            found.append((n + 1, marker))
        inside = marker[0] == "<" or (inside and marker[0] != ">")
    return found


def _marker_candidates(data: bytes, starts: Sequence[int]) -> list[int]:
    """The lines that open with seven ``<``, ``>``, ``|`` or ``=``, in order: only they can be
    markers, so the others are never cut out of the file."""
    lines: set[int] = set()
    for marker in (_OPENING, _CLOSING, b"|" * 7, b"=" * 7):
        at = data.find(marker)
        while at != -1:
            n = bisect.bisect_right(starts, at) - 1
            if starts[n] == at:
                lines.add(n)
            at = data.find(marker, max(at + 7, starts[n + 1]))
    return sorted(lines)


def conflict_markers(record: Record) -> list[Problem]:
    """One error per git conflict marker: the record is an unresolved merge."""
    return [
        Problem(
            "conflict-markers",
            "error",
            None,
            line,
            f"git conflict marker {marker}: the merge was left unresolved; keep the right lines, "
            "delete the marker lines",
        )
        for line, marker in conflict_marker_lines(record)
    ]


def refuse_conflict_markers(record: Record) -> None:
    """Raise ``ConflictMarkers`` when ``record`` is an unresolved merge: no edit is planned on it."""
    found = conflict_marker_lines(record)
    if not found:
        return
    where = ", ".join(str(line) for line, _ in found[:5]) + (", …" if len(found) > 5 else "")
    word = "line" if len(found) == 1 else "lines"
    raise ConflictMarkers(
        f"the record holds git conflict markers ({word} {where}): resolve the merge first "
        f"(keep the right lines, delete the marker lines, check with {surface.verify()}); "
        "nothing was written"
    )


def link_errors(record: Record, ids: Iterable[str | None]) -> list[Problem]:
    """The errors ``check_record`` reports on the entries named ``ids``, in its order.

    An edit touches one or two entries; this reads only those, their link partners and the
    supersede chains (entries without links cost nothing), not every entry's text.
    """
    wanted = {i for i in ids if i is not None}
    involved = [e for e in record.entries if e.id in wanted]
    if not involved:
        return []
    counts = Counter(e.id for e in involved)
    by_id = record.first_by_id
    problems: list[Problem] = []
    seen: set[str] = set()
    for entry in involved:
        count = counts[entry.id]
        if count > 1 and entry.id in seen:
            problems.append(_p("duplicate-id", "error", entry, f"id {entry.id!r} is used by {count} entries"))
        seen.add(entry.id)
    for entry in involved:
        problems += _links_of(entry, by_id)
        if entry.root_cause == "confirmed" and not entry.diagnostic and entry.supersedes:
            problems.append(
                _p(
                    "confirmed-without-diagnostic",
                    "error",
                    entry,
                    "root-cause: confirmed but no `diagnostic:` saying how to recognise it",
                )
            )
    problems += [p for p in _cycles(record.linked, by_id) if p.entry in wanted]
    return located(record, problems, by_id)


def unassigned_text(record: Record) -> list[Problem]:
    """Text after the first lesson that belongs to no entry: one warning per run of lines.

    Group headings and ``---`` rules are structure, not text. In a guide only its lessons
    sections are checked; the rest of the guide is not lessons by design.
    """
    reading = record.reading
    if reading is None or not record.entries or reading.kind in ("single-lesson", "not-lessons"):
        return []
    lines = record.data.splitlines()
    if reading.kind == "lessons-section":
        regions = [(n.start, n.end) for n in reading.sections]
    else:
        regions = [(record.entries[0].start_line - 1, len(lines))]
    covered = bytearray(len(lines) + 1)
    for entry in record.entries:
        covered[entry.start_line - 1 : entry.end_line] = b"\x01" * (entry.end_line - entry.start_line + 1)
    for group in reading.groups:
        covered[group.start : group.end] = b"\x01" * (group.end - group.start)
    reasons = {n: note for note in reading.left_out for n in range(note.start, note.end)}
    problems: list[Problem] = []
    for first, stop in regions:
        run: list[int] = []
        for n in range(first, min(stop, len(lines))):
            text = lines[n].strip()
            stray = not covered[n] and text and not THEMATIC_BREAK.match(lines[n].decode("utf-8", "replace"))
            if stray:
                run.append(n)
            elif run and text:
                problems.append(_unassigned(run, reasons))
                run = []
        if run:
            problems.append(_unassigned(run, reasons))
    return problems


def _unassigned(run: list[int], reasons: dict[int, Note]) -> Problem:
    note = reasons.get(run[0])
    why = f" ({note.what}: {note.reason})" if note else ""
    where = f"line {run[0] + 1}" if len(run) == 1 else f"lines {run[0] + 1}-{run[-1] + 1}"
    return Problem("unassigned-text", "warning", None, run[0] + 1, f"{where} belong to no entry{why}")


def _links_of(entry: Entry, by_id: dict[str, Entry]) -> list[Problem]:
    return [_p(found.code, "error", found.entry, found.message) for found in link.check(entry, by_id)]


def _cycles(entries: Sequence[Entry], by_id: dict[str, Entry]) -> list[Problem]:
    return [_p(found.code, "error", found.entry, found.message) for found in link.cycles(entries, by_id)]


def _p(code: str, severity: Severity, entry: Entry, message: str) -> Problem:
    return Problem(code, severity, entry.id, entry.start_line, message)


@dataclass(frozen=True)
class EditCheck:
    ok: bool
    entries_before: int
    entries_after: int
    unchanged_entries: int
    target: str | None
    new_entry: str
    problems: list[str]

    def to_view(self) -> EditCheckView:
        return {
            "ok": self.ok,
            "entries_before": self.entries_before,
            "entries_after": self.entries_after,
            "unchanged_entries": self.unchanged_entries,
            "target": self.target,
            "new_entry": self.new_entry,
            "problems": list(self.problems),
        }


def check_plan(before: Record, after: Record, plan: Plan, lesson: Lesson | None) -> EditCheck:
    """``check_edit`` on a plan's result, refusing (InvalidArgument) one that would not verify.

    ``lesson`` is None for an annotation, which adds no entry. The check is a pure function
    of immutable inputs, so the one made at propose time is reused when apply recomputes the
    same plan on the same parses (a weak reference: a parse does not keep its base alive).
    """
    memo: list[tuple[weakref.ref[Record], Plan, Lesson | None, EditCheck]]
    memo = after.__dict__.setdefault("_plan_checks", [])
    for base, planned, wanted, found in memo:
        if base() is before and planned == plan and wanted == lesson:
            check = found
            break
    else:
        check = check_edit(before, after, plan, lesson)
        memo.append((weakref.ref(before), plan, lesson, check))
        del memo[:-4]
    if not check.ok:
        # other lessons read differently once the new one is in, or the new one is read as no
        # lesson where it goes: the file's reading is not settled (a guess, most often), and a
        # pin settles it; else the body is the suspect
        others = check.entries_before - (1 if plan.target_id is not None else 0)
        unread = lesson is not None and all(e.id != plan.new_id for e in after.entries)
        hint = (
            surface.pin_reading()
            if check.unchanged_entries < others or unread
            else "is there Markdown in the body that starts a new entry or adds fields?"
        )
        raise InvalidArgument(
            "the edit would not verify, so nothing was proposed: " + "; ".join(check.problems) + f" ({hint})"
        )
    return check


@dataclass(frozen=True)
class AppliedCheck:
    """The report of an apply, made from the bytes read back after writing."""

    edit: EditCheck
    problems: list[str]
    link_problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems and not self.link_problems

    def to_view(self) -> AppliedCheckView:
        return {
            **self.edit.to_view(),
            "ok": self.ok,
            "problems": list(self.problems),
            "link_problems": [p.to_view() for p in self.link_problems],
        }


def check_written(
    before: Record | None,
    after: Record,
    written: bytes,
    plan: Plan,
    lesson: Lesson | None,
    expected_digest: str,
    *,
    edit: EditCheck | None = None,
) -> AppliedCheck:
    """Everything an apply proves about the record it wrote.

    ``before`` is None when the edit went onto the very bytes it was planned on (then the
    entries digest verified at propose time stands in for ``check_edit``); ``written`` is
    what was read back, which must be the planned bytes; the links of the target and the
    new entry must verify on both sides. ``edit`` is ``check_edit(before, after, …)`` when
    the caller made it already on this very ``after``.
    """
    if edit is not None:
        pass
    elif before is None:
        edit = check_applied(after, expected_digest, plan, lesson)
    else:
        edit = check_edit(before, after, plan, lesson)
    problems = list(edit.problems)
    if written != plan.data:
        problems.append("the file read back is not the bytes that were written")
    return AppliedCheck(edit, problems, link_errors(after, (plan.new_id, plan.target_id)))


def check_edit(before: Record, after: Record, plan: Plan, lesson: Lesson | None) -> EditCheck:
    """Everything but the target is byte-identical, the target kept its lines, the new entry is right.

    ``lesson`` is None for an annotation, which marks the target and adds no entry.
    """
    problems: list[str] = []
    after_by_id = {e.id: e for e in after.entries}
    unchanged = 0
    for old in before.entries:
        if old.id == plan.target_id:
            continue
        now = after_by_id.get(old.id)
        if now is None:
            problems.append(f"entry {old.id!r} is missing after the edit")
        elif not _same_entry(before, old, after, now):
            problems.append(f"entry {old.id!r} changed (lines {now.start_line}-{now.end_line})")
        else:
            unchanged += 1
    expected = len(before.entries) + (1 if lesson is not None else 0)
    if len(after.entries) != expected:
        problems.append(f"expected {expected} entries after the edit, found {len(after.entries)}")
    if lesson is not None:
        new = after_by_id.get(plan.new_id)
        if new is None:
            problems.append(f"the new entry {plan.new_id!r} does not parse as an entry")
        else:
            problems += _check_new(new, plan, lesson)
            problems += check_unique_label(after, new)
    if plan.target_id is not None:
        problems += _check_target(before, after, plan)
    return EditCheck(
        ok=not problems,
        entries_before=len(before.entries),
        entries_after=len(after.entries),
        unchanged_entries=unchanged,
        target=plan.target_id,
        new_entry=plan.new_id,
        problems=problems,
    )


def _same_entry(before: Record, old: Entry, after: Record, now: Entry) -> bool:
    """Byte-identical, or the file's last line that only gained the line ending an append needs."""
    if now.sha256 == old.sha256:
        return True
    was = before.data[old.start : old.end]
    is_now = after.data[now.start : now.end]
    return (
        not was.endswith((b"\n", b"\r"))
        and is_now[: len(was)] == was
        and is_now[len(was) :] in (b"\n", b"\r\n", b"\r")
    )


def entries_digest(record: Record) -> str:
    """One hash over every entry's id and bytes, in order: equal digests, identical entries."""
    lines = "\n".join(f"{e.id}\0{e.sha256}" for e in record.entries)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def check_applied(after: Record, expected_digest: str, plan: Plan, lesson: Lesson | None) -> EditCheck:
    """The record read back holds exactly the entries verified when the edit was proposed.

    Used when the edit was applied to the very bytes it was planned on: ``check_edit`` ran
    then, on the planned result; equal entry digests prove the file now holds that result.
    """
    problems: list[str] = []
    if entries_digest(after) != expected_digest:
        problems.append("the entries read back differ from those verified when the edit was proposed")
    by_id = {e.id: e for e in after.entries}
    new = by_id.get(plan.new_id)
    if new is None:
        problems.append(f"the new entry {plan.new_id!r} does not parse as an entry")
    elif lesson is not None:
        problems += _check_new(new, plan, lesson)
    target = by_id.get(plan.target_id) if plan.target_id else None
    if plan.target_id is not None:
        if target is None:
            problems.append(f"the target {plan.target_id!r} is missing after the edit")
        else:
            problems += _marks(target, plan)
    touched = (2 if plan.target_id else 1) if lesson is not None else 1
    added = 1 if lesson is not None else 0
    return EditCheck(
        ok=not problems,
        entries_before=len(after.entries) - added,
        entries_after=len(after.entries),
        unchanged_entries=max(0, len(after.entries) - touched),
        target=plan.target_id,
        new_entry=plan.new_id,
        problems=problems,
    )


def _marks(target: Entry, plan: Plan) -> list[str]:
    from gotchas import retire

    if retire.is_mark(plan):
        return retire.mark_problems(target)
    return link.plan_problems(target, plan.new_id, plan.task)


def _check_new(new: Entry, plan: Plan, lesson: Lesson) -> list[str]:
    from gotchas.edit import carries_title

    out = []
    if not carries_title(new.title, plan.new_title):
        out.append(f"the new entry's title reads {new.title!r}, not {plan.new_title!r}")
    if set(new.tasks) != set(lesson.tasks):
        out.append(f"the new entry's tasks are {list(new.tasks)}, expected {list(lesson.tasks)}")
    if new.root_cause != lesson.root_cause:
        out.append(f"the new entry's root-cause is {new.root_cause}, expected {lesson.root_cause}")
    if (new.diagnostic or None) != lesson.diagnostic:
        out.append("the new entry's diagnostic does not read back as written")
    wanted = [(plan.target_id, (plan.task,))] if plan.target_id and plan.task else []
    found = [(each.target, each.tasks) for each in new.supersedes]
    if found != wanted:
        out.append(f"the new entry's supersedes links are {found}, expected {wanted}")
    if new.red_herring_for or new.superseded_by:
        out.append("the new entry's body adds red-herring or superseded-by fields of its own")
    return out


def check_unique_label(record: Record, entry: Entry) -> list[str]:
    """The number or id ``entry``'s title opens with (``L-056 ·``, ``11.4.1``) is no other entry's."""
    from gotchas.edit import title_label

    label = title_label(entry.title)
    if label is None:
        return []
    clash = [
        e.id
        for e in record.entries
        if e.id != entry.id
        and (other := title_label(e.title)) is not None
        and (other.stem, other.number) == (label.stem, label.number)
    ]
    if not clash:
        return []
    return [f"the new entry's number {label.text().strip()!r} is already used by {', '.join(clash)}"]


def _check_target(before: Record, after: Record, plan: Plan) -> list[str]:
    out = []
    old = next(e for e in before.entries if e.id == plan.target_id)
    now = next((e for e in after.entries if e.id == plan.target_id), None)
    if now is None:
        return [f"the target {plan.target_id!r} is missing after the edit"]
    if not _keeps_lines(before.text(old), after.text(now)):
        out.append("the target entry lost or changed some of its original lines")
    out += _marks(now, plan)
    if now.tasks != old.tasks or now.root_cause != old.root_cause:
        out.append("the target's own tasks or root-cause changed")
    return out


def _keeps_lines(old: str, new: str) -> bool:
    """Every original line is still there, in order (new lines may sit between them)."""
    remaining = iter(new.splitlines())
    return all(any(line == candidate for candidate in remaining) for line in old.splitlines())
