"""Computing an edit of the record: bytes in, bytes out, as line insertions only.

A supersede annotates the target (a ``red-herring-for:`` field line and a visible
caveat, inserted after its field lines) and inserts the confirmed lesson directly
after it, in the target's style. A capture inserts a plain lesson. No existing line is
changed or removed; the only byte we may add to an existing line is a missing final
line ending when we append after it. New lines use the target's line ending.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gotchas import taskref
from gotchas.errors import InvalidArgument
from gotchas.fields import SEPARATOR
from gotchas.record import THEMATIC_BREAK, Entry, Record, slugify

MAX_TITLE = 200
MAX_BODY = 20_000
MAX_FIELD = 2_000
MAX_RULED_OUT = 30

RootCause = Literal["confirmed", "suspected"]
NEW_RECORD_TITLE = "# Gotchas"  # the first line of a record that a first captured lesson creates


@dataclass(frozen=True)
class Lesson:
    """A lesson to write; ``tasks`` are normal-form references."""

    title: str
    body: str
    tasks: tuple[str, ...]
    root_cause: RootCause
    diagnostic: str | None = None
    ruled_out: tuple[str, ...] = ()
    evidence: str | None = None


@dataclass(frozen=True)
class Insertion:
    """Lines to insert before 0-based line ``at`` (``at`` = line count appends)."""

    at: int
    lines: tuple[str, ...]


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


def lesson(
    title: str,
    body: str,
    tasks: Sequence[str],
    root_cause: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
) -> Lesson:
    """Validate and normalise a lesson's parts, refusing what would make a bad entry."""
    clean_title = " ".join(title.split())
    if not clean_title:
        raise InvalidArgument("title is empty; give the lesson a one-line title")
    if "\n" in title.strip() or "\r" in title.strip():
        raise InvalidArgument("title must be one line")
    if len(clean_title) > MAX_TITLE:
        raise InvalidArgument(f"title is {len(clean_title)} characters; the limit is {MAX_TITLE}")
    if not body.strip():
        raise InvalidArgument("body is empty; say what happened and what to do")
    if len(body) > MAX_BODY:
        raise InvalidArgument(f"body is {len(body)} characters; the limit is {MAX_BODY}")
    if root_cause not in ("confirmed", "suspected"):
        raise InvalidArgument("root_cause must be 'confirmed' or 'suspected'")
    clean_diag = _one_line(diagnostic, "diagnostic")
    if root_cause == "confirmed" and not clean_diag:
        raise InvalidArgument(
            "a confirmed root cause needs a diagnostic: how to recognise this cause next time"
        )
    if len(ruled_out) > MAX_RULED_OUT:
        raise InvalidArgument(f"ruled_out has {len(ruled_out)} items; the limit is {MAX_RULED_OUT}")
    refs = [taskref.normalize(t) for t in tasks]
    if not refs:
        raise InvalidArgument("tasks is empty; name the task(s) that taught this lesson")
    items = tuple(i for i in (_one_line(x, "ruled_out item") for x in ruled_out) if i)
    return Lesson(
        title=clean_title,
        body=body.strip("\r\n"),
        tasks=tuple(dict.fromkeys(refs)),
        root_cause="confirmed" if root_cause == "confirmed" else "suspected",
        diagnostic=clean_diag,
        ruled_out=items,
        evidence=_one_line(evidence, "evidence"),
    )


def _one_line(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    text = " ".join(value.split())
    if len(text) > MAX_FIELD:
        raise InvalidArgument(f"{name} is {len(text)} characters; the limit is {MAX_FIELD}")
    return text or None


def plan_supersede(record: Record, target: Entry, task: str, new: Lesson, note: str | None = None) -> Plan:
    """Mark ``target`` a red herring for ``task`` and insert ``new`` after it, superseding it."""
    if new.root_cause != "confirmed":
        raise InvalidArgument(
            "only a confirmed root cause may supersede a lesson: a suspected cause is what made "
            "the old entry wrong; record it with propose_lesson instead, and supersede once confirmed"
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
    lines = _lines(record)
    eol = _eol_of(record, target)
    caveat = _caveat(task, new.title, new.ruled_out, new_id, note, "just below")
    marks = f"red-herring-for: {task}{SEPARATOR}superseded-by: {new_id} (for {task})"
    inside = _annotate(lines, target, marks, caveat)
    links = f"supersedes: {target.id} (for {task})"
    entry_lines = _render(record, target, new, new_id, links)
    after = _insertion_after(record, lines, target, entry_lines)
    plan = _separated([*inside, after], lines, target.kind == "heading")
    data = _apply(record.data, lines, plan, eol)
    return Plan(data, plan, eol, new_id, new.title, target.id, task)


def plan_annotate(
    record: Record, target: Entry, task: str, successor: Entry, note: str | None = None
) -> Plan:
    """Only mark ``target`` a red herring for ``task``: its successor is already recorded.

    The repair for a one-sided link, when a confirmed lesson says ``supersedes:`` but the old
    entry was never marked. Nothing but the target's inserted lines changes.
    """
    task = taskref.normalize(task)
    ruled_out = [
        part.strip()
        for f in successor.fields
        if f.key == "ruled-out"
        for part in f.value.split(";")
        if part.strip()
    ]
    where = "just below" if successor.start > target.start else "above"
    caveat = _caveat(task, successor.title, ruled_out, successor.id, note, where)
    marks = f"red-herring-for: {task}{SEPARATOR}superseded-by: {successor.id} (for {task})"
    lines = _lines(record)
    eol = _eol_of(record, target)
    inside = _separated(_annotate(lines, target, marks, caveat), lines, target.kind == "heading")
    data = _apply(record.data, lines, inside, eol)
    return Plan(data, inside, eol, successor.id, successor.title, target.id, task)


def plan_capture(record: Record, new: Lesson, after: Entry | None) -> Plan:
    """Insert a plain lesson after ``after`` (default: the last entry), in its style."""
    anchor = after or (record.entries[-1] if record.entries else None)
    new_id = _fresh_id(record, new.title)
    lines = _lines(record)
    if anchor is None:
        entry_lines = _render_heading(2, new, new_id, None)
        if not record.data:
            prefix: tuple[str, ...] = (NEW_RECORD_TITLE, "")
        else:
            prefix = ("",) if _bare(lines[-1]).strip() else ()
        insertion = Insertion(len(lines), (*prefix, *entry_lines))
        eol = record.eol
    else:
        entry_lines = _render(record, anchor, new, new_id, None)
        insertion = _insertion_after(record, lines, anchor, entry_lines)
        eol = _eol_of(record, anchor)
    plan = _separated([insertion], lines, anchor is None or anchor.kind == "heading")
    data = _apply(record.data, lines, plan, eol)
    return Plan(data, plan, eol, new_id, new.title, None, None)


def _fresh_id(record: Record, title: str) -> str:
    """The new entry's id; if its slug is taken, it gets an explicit unique ``id:`` later."""
    base = slugify(title)
    taken = {e.id for e in record.entries}
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _lines(record: Record) -> list[bytes]:
    return record.data.splitlines(keepends=True)


def _bare(line: bytes) -> str:
    return line.decode("utf-8").rstrip("\r\n")


def _eol_of(record: Record, entry: Entry) -> bytes:
    first = record.data[entry.start : entry.end].splitlines(keepends=True)
    if first:
        ending = first[0][len(first[0].rstrip(b"\r\n")) :]
        if ending:
            return ending
    return record.eol


def _caveat(
    task: str, title: str, ruled_out: Sequence[str], new_id: str, note: str | None, where: str
) -> str:
    text = _one_line(note, "red_herring_note")
    if not text:
        failed = "; ".join(ruled_out)
        text = (
            f"What this entry advises failed there ({failed})."
            if failed
            else ("Its advice did not fix that task.")
        )
    title = " ".join(title.split())
    return (
        f"> **Red herring for {task}.** {text} The confirmed cause is in "
        f"\u201c{title}\u201d (`{new_id}`), {where}. This entry may still hold for other tasks."
    )


def _annotate(lines: Sequence[bytes], target: Entry, marks: str, caveat: str) -> list[Insertion]:
    """Insert the red-herring field line and caveat after the target's first field block."""
    body = target.body_line - 1
    end = target.end_line
    if target.kind == "item":
        indent = " " * _content_column(_bare(lines[target.start_line - 1]))
        return [Insertion(end, (indent + marks, indent + caveat))]
    block_end = _field_block_end(target, body, end)
    if block_end is not None:
        following_blank = block_end >= end or not _bare(lines[block_end]).strip()
        tail: tuple[str, ...] = () if following_blank else ("",)
        return [Insertion(block_end, (marks, "", caveat, *tail))]
    at = body
    if at < end and not _bare(lines[at]).strip():
        at += 1
    if at >= end:
        return [Insertion(end, ("", marks, "", caveat))]
    return [Insertion(at, (marks, "", caveat, ""))]


def _field_block_end(target: Entry, body: int, end: int) -> int | None:
    """0-based line after the run of field lines that opens the entry's body, if any."""
    field_lines = sorted({f.line - 1 for f in target.fields})
    if not field_lines:
        return None
    first = field_lines[0]
    if first > body + 1:
        return None
    block_end = first + 1
    while block_end in field_lines and block_end < end:
        block_end += 1
    return block_end


_MARKER = re.compile(r"^(\s{0,3})([-*+]|\d{1,9}[.)])(\s{1,4})")


def _content_column(first_line: str) -> int:
    match = _MARKER.match(first_line)
    return len(match[0]) if match else 2


def _render(record: Record, like: Entry, new: Lesson, new_id: str, links: str | None) -> list[str]:
    if like.kind == "heading" and like.marker.startswith("#"):
        return _render_heading(like.level, new, new_id, links, needs_id=new_id != slugify(new.title))
    return _render_item(record, like, new, new_id, links)


def _field_line(new: Lesson, new_id: str, links: str | None, needs_id: bool) -> str:
    parts = []
    if needs_id:
        parts.append(f"id: {new_id}")
    parts.append(f"tasks: {', '.join(new.tasks)}")
    parts.append(f"root-cause: {new.root_cause}")
    if links:
        parts.append(links)
    return SEPARATOR.join(parts)


def _tail_fields(new: Lesson) -> list[str]:
    out = []
    if new.ruled_out:
        out.append(f"ruled-out: {'; '.join(new.ruled_out)}")
    if new.evidence:
        out.append(f"evidence: {new.evidence}")
    return out


def _body_lines(body: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", body)


def _render_heading(
    level: int, new: Lesson, new_id: str, links: str | None, needs_id: bool = False
) -> list[str]:
    head = [f"{'#' * level} {new.title}", "", _field_line(new, new_id, links, needs_id)]
    if new.diagnostic:
        head.append(f"diagnostic: {new.diagnostic}")
    tail = _tail_fields(new)
    return [*head, "", *_body_lines(new.body), *(["", *tail] if tail else [])]


def _render_item(record: Record, like: Entry, new: Lesson, new_id: str, links: str | None) -> list[str]:
    first = record.data[like.start : like.end].splitlines()[0].decode("utf-8")
    match = _MARKER.match(first)
    lead, marker, gap = (match[1], match[2], match[3]) if match else ("", "-", " ")
    if marker[:-1].isdigit():
        marker = f"{int(marker[:-1]) + 1}{marker[-1]}"
    indent = " " * (len(lead) + len(marker) + len(gap))
    body = _body_lines(new.body)
    lines = [f"{lead}{marker}{gap}**{new.title}** — {body[0]}"]
    lines.append(indent + _field_line(new, new_id, links, new_id != slugify(new.title)))
    if new.diagnostic:
        lines.append(f"{indent}diagnostic: {new.diagnostic}")
    lines += [f"{indent}{line}" if line.strip() else "" for line in body[1:]]
    lines += [indent + line for line in _tail_fields(new)]
    return lines


def _insertion_after(
    record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
) -> Insertion:
    """Where the new entry goes: right after ``anchor``'s content, keeping its separators."""
    end = anchor.end_line
    following = _next_entry_line(record, anchor)
    gap = [_bare(lines[i]) for i in range(end, min(following, len(lines)))]
    if anchor.kind == "item":
        loose = (
            bool(gap) and not gap[0].strip() and following < len(lines) and all(not g.strip() for g in gap)
        )
        return Insertion(end, (*([""] if loose else []), *entry_lines))
    if any(THEMATIC_BREAK.match(g) for g in gap):
        return Insertion(end, ("", "---", "", *entry_lines))
    return Insertion(end, ("", *entry_lines))


def _next_entry_line(record: Record, anchor: Entry) -> int:
    later = [e.start_line - 1 for e in record.entries if e.start_line > anchor.end_line]
    return min(later) if later else len(record.line_starts) - 1


def _separated(
    insertions: Sequence[Insertion], lines: Sequence[bytes], blocks: bool
) -> tuple[Insertion, ...]:
    """Merge insertions at the same line (in plan order) and, for heading-style blocks, end
    each with a blank line when the next original line is not blank: otherwise that line could
    join our last paragraph (a ``---`` there would turn it into a heading)."""
    merged: dict[int, list[str]] = {}
    for insertion in insertions:
        merged.setdefault(insertion.at, []).extend(insertion.lines)
    out = []
    for at, block in sorted(merged.items()):
        follows = _bare(lines[at]).strip() if at < len(lines) else ""
        if blocks and block and block[-1].strip() and follows:
            block.append("")
        out.append(Insertion(at, tuple(block)))
    return tuple(out)


def _apply(data: bytes, lines: Sequence[bytes], insertions: Sequence[Insertion], eol: bytes) -> bytes:
    return b"".join(_new_lines(lines, insertions, eol))


def apply_insertions(data: bytes, insertions: Sequence[Insertion], eol: bytes) -> bytes:
    """The bytes a plan writes, from the bytes it was planned on: no parse needed."""
    return _apply(data, data.splitlines(keepends=True), insertions, eol)


def _new_lines(lines: Sequence[bytes], insertions: Sequence[Insertion], eol: bytes) -> list[bytes]:
    """Insert bottom-up; insertions at the same line keep the plan's order (caveat, then entry)."""
    at_line: dict[int, list[str]] = {}
    for insertion in insertions:
        at_line.setdefault(insertion.at, []).extend(insertion.lines)
    out = list(lines)
    for at in sorted(at_line, reverse=True):
        encoded = [line.encode("utf-8") + eol for line in at_line[at]]
        if at == len(out) and out and not out[-1].endswith((b"\n", b"\r")):
            out[-1] = out[-1] + eol
            encoded[-1] = encoded[-1][: -len(eol)]
        out[at:at] = encoded
    return out


def unified_diff(name: str, before: bytes, after: bytes) -> str:
    """A unified diff of exactly the bytes that change, computed only around the change."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    start = max(0, head - 3)
    old_part = [_show(x) for x in old[start : len(old) - max(0, tail - 3)]]
    new_part = [_show(x) for x in new[start : len(new) - max(0, tail - 3)]]
    out = [f"--- a/{name}\n", f"+++ b/{name}\n"]
    for line in difflib.unified_diff(old_part, new_part, n=3, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        shown = _shift_hunk(line, start) if line.startswith("@@") else line
        out.append(shown if shown.endswith("\n") else shown + "\n")
    return "".join(out)


def _show(line: bytes) -> str:
    text = line.decode("utf-8")
    return text if text.endswith(("\n", "\r")) else text + "\n\\ No newline at end of file\n"


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(header: str, offset: int) -> str:
    match = _HUNK.match(header)
    if not match:
        return header + "\n"
    old_start = int(match[1]) + offset
    new_start = int(match[3]) + offset
    return f"@@ -{old_start}{match[2] or ''} +{new_start}{match[4] or ''} @@\n"
