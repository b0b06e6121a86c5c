"""Entries read from the spans of a reading: their fields, links, tasks, status and id."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gotchas import status, taskref
from gotchas.fields import Field, parse_line, parse_root_cause, parse_row
from gotchas.link import Link, parse_links
from gotchas.record.ids import assign as assign_ids
from gotchas.record.lines import content_end
from gotchas.record.model import Entry

if TYPE_CHECKING:
    from gotchas import blocks, outline
    from gotchas.record.reuse import Reuse


def read_entries(
    data: bytes,
    starts: Sequence[int],
    bare: Sequence[str],
    spans: Sequence[outline.Span],
    literal: blocks.LineSet,
    matter: tuple[int, int] | None,
    reuse: Reuse | None = None,
) -> list[Entry]:
    drafts: list[tuple[outline.Span, int, tuple[Field, ...], Entry | None]] = []
    marks = literal.marks  # a byte a line: read inline, the hot loop of a parse
    skip = 0 if matter is None else matter[1]
    for span in spans:
        old = reuse.match(span) if reuse is not None else None
        if old is not None:
            drafts.append((span, 0, old.fields, old))
            continue
        end, found = fields_of(bare, marks, skip, span)
        drafts.append((span, end, found, None))
    assigned = assign_ids([(span.title, fields) for span, _, fields, _ in drafts])
    entries = []
    for (span, end, fields, old), (entry_id, explicit) in zip(drafts, assigned, strict=True):
        if old is not None and reuse is not None:
            entries.append(reuse.moved(span, old, entry_id, explicit))
            continue
        start_byte, end_byte = starts[span.start], starts[end]
        entries.append(make_entry(data, span, end, fields, entry_id, explicit, start_byte, end_byte))
    return entries


def fields_of(
    bare: Sequence[str], marks: bytes | bytearray, skip: int, span: outline.Span
) -> tuple[int, tuple[Field, ...]]:
    """Where the entry's content ends, and the fields of its lines outside code."""
    end = content_end(bare, span)
    found: list[Field] = []
    parse = parse_row if span.kind == "row" else parse_line
    for index in range(max(span.body, skip), end):
        if index >= len(marks) or not marks[index]:
            found.extend(parse(bare[index], index + 1))
    return end, tuple(found)


# Bytes that can make an ``id:`` field, in lower case: ``id``, then only what a key's tail, a bold


def make_entry(
    data: bytes,
    span: outline.Span,
    end: int,
    fields: tuple[Field, ...],
    entry_id: str,
    explicit: bool,
    start_byte: int,
    end_byte: int,
) -> Entry:
    tasks: list[str] = []
    red_herring: list[str] = []
    supersedes: list[Link] = []
    superseded_by: list[Link] = []
    root_cause = diagnostic = None
    stated: status.Status | None = None
    for field in fields:
        if field.key == "tasks":
            tasks.extend(taskref.parse_list(field.value))
        elif field.key == "red-herring-for":
            red_herring.extend(taskref.parse_list(field.value))
        elif field.key == "supersedes":
            supersedes.extend(parse_links(field.value))
        elif field.key == "superseded-by":
            superseded_by.extend(parse_links(field.value))
        elif field.key == "root-cause" and root_cause is None:
            cause = parse_root_cause(field.value)
            root_cause = sys.intern(cause) if cause else None
        elif field.key == "diagnostic" and diagnostic is None:
            diagnostic = field.value
        elif stated is None:
            stated = _stated(field)
    task_list = tuple(dict.fromkeys(map(sys.intern, tasks)))  # task names repeat across entries
    if stated is None:
        stated = status.from_title(span.title) or _bold_status(data, start_byte, end_byte)
    if stated is None and (
        span.kind == "row" or (span.kind in ("item", "paragraph") and data[start_byte] != 35)
    ):
        stated = _lead_status(data, start_byte)
    if stated is None and any(not link.tasks for link in superseded_by):
        stated = status.Status(status.SUPERSEDED, "superseded-by")
    state = stated.value if stated else "active"
    if red_herring:
        state = "red-herring"
    return Entry(
        id=entry_id,
        explicit_id=explicit,
        title=span.title,
        kind=span.kind,
        level=span.level,
        marker=span.marker,
        section=span.section,
        start_line=span.start + 1,
        end_line=end,
        body_line=span.body + 1,
        start=start_byte,
        end=end_byte,
        sha256=hashlib.sha256(data[start_byte:end_byte]).hexdigest(),
        tasks=task_list,
        root_cause=root_cause,
        supersedes=tuple(supersedes),
        superseded_by=tuple(superseded_by),
        red_herring_for=tuple(dict.fromkeys(red_herring)),
        diagnostic=diagnostic,
        status=state,
        fields=fields,
        status_text=stated.text if stated else None,
        status_date=stated.date if stated else None,
    )


def _stated(field: Field) -> status.Status | None:
    """A status from a field: ``status:`` in any of its spellings, or ``fixed: <date>``."""
    if field.key == "status":
        return status.from_field(field.value)
    if field.key in status.STATUS_KEYS:
        found = status.from_field(field.value)
        return found if found.value in status.STATUSES else None
    return status.from_word_field(field.key, field.value)


def _lead_status(data: bytes, start: int) -> status.Status | None:
    """A status on the first line outside the title: ``**Title** (Resolved)``, a table cell."""
    stop = data.find(b"\n", start)
    line = data[start : len(data) if stop == -1 else stop]
    if data[start : start + 1] != b"|" and b"**" not in line and b"__" not in line:
        return None
    return status.from_lead_line(line.decode("utf-8"))


def _bold_status(data: bytes, start: int, end: int) -> status.Status | None:
    """``**Status: Fixed**`` bolded whole; looked for only where the bytes hold ``tatus``."""
    if data.find(b"tatus", start, end) == -1 and data.find(b"TATUS", start, end) == -1:
        return None
    return status.from_bold_line(data[start:end].decode("utf-8"))
