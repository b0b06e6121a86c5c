"""Entries an earlier parse read, taken over by a parse spliced from it (an edit's)."""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gotchas import moved
from gotchas.fields import Field
from gotchas.record.model import Entry

if TYPE_CHECKING:
    from gotchas import blocks, outline
    from gotchas.record.model import Record


@dataclass(frozen=True, slots=True)
class Reuse:
    """Entries of an earlier parse that a spliced parse takes over instead of reading again.

    A span wholly before ``head`` or from ``tail`` on lies where the block maps agree, over
    identical lines: if the reading gave it the same place, its entry is the old one (moved
    by ``lines`` and ``offset`` in the tail); only its id is assigned afresh.
    """

    by_start: dict[int, tuple[outline.Span, Entry]]
    head: int
    tail: int
    lines: int
    offset: int
    entries: tuple[Entry, ...] = ()  # the earlier parse's, in file order
    shifted: dict[int, Entry] = dataclasses.field(default_factory=dict)  # by id() of the old entry

    @staticmethod
    def of(near: Record, spliced: blocks.Splice, size: int) -> Reuse | None:
        if near.reading is None or len(near.reading.spans) != len(near.entries):
            return None
        by_start = {
            span.start: (span, entry) for span, entry in zip(near.reading.spans, near.entries, strict=True)
        }
        return Reuse(by_start, spliced.head, spliced.tail, spliced.shift, size - len(near.data), near.entries)

    def _shift_tail(self) -> None:
        """Every old entry from ``tail`` on, moved, in one bulk copy (``moved.copies``)."""
        entries, lines, offset = self.entries, self.lines, self.offset
        at = bisect.bisect_left(entries, self.tail - lines + 1, key=lambda e: e.start_line)
        tail = entries[at:]
        replace: dict[str, Sequence[object]] = {}
        if lines:
            held = list(map(_FIELDS, tail))
            fields = iter(moved.copies(Field, list(itertools.chain.from_iterable(held)), {"line": lines}))
            replace["fields"] = list(
                map(tuple, map(itertools.islice, itertools.repeat(fields), map(len, held)))
            )
        by = {"start_line": lines, "end_line": lines, "body_line": lines, "start": offset, "end": offset}
        self.shifted.update(zip(map(id, tail), moved.copies(Entry, tail, by, replace), strict=True))

    def match(self, span: outline.Span) -> Entry | None:
        if span.end <= self.head:
            found = self.by_start.get(span.start)
            return found[1] if found is not None and found[0] == span else None
        if span.start < self.tail:
            return None
        found = self.by_start.get(span.start - self.lines)
        if found is None:
            return None
        old, entry = found
        lines = self.lines
        same = (
            old.body + lines == span.body
            and old.end + lines == span.end
            and (old.kind, old.title, old.level, old.marker, old.section, old.reason)
            == (span.kind, span.title, span.level, span.marker, span.section, span.reason)
        )
        return entry if same else None

    def moved(self, span: outline.Span, entry: Entry, entry_id: str, explicit: bool) -> Entry:
        if span.end <= self.head:
            if entry.id == entry_id and entry.explicit_id == explicit:
                return entry
            return dataclasses.replace(entry, id=entry_id, explicit_id=explicit)
        if not self.shifted and self.entries:
            self._shift_tail()
        found = self.shifted.get(id(entry))
        if found is not None:
            if found.id == entry_id and found.explicit_id == explicit:
                return found
            return dataclasses.replace(found, id=entry_id, explicit_id=explicit)
        lines, offset = self.lines, self.offset
        return Entry(
            entry_id,
            explicit,
            entry.title,
            entry.kind,
            entry.level,
            entry.marker,
            entry.section,
            entry.start_line + lines,
            entry.end_line + lines,
            entry.body_line + lines,
            entry.start + offset,
            entry.end + offset,
            entry.sha256,
            entry.tasks,
            entry.root_cause,
            entry.supersedes,
            entry.superseded_by,
            entry.red_herring_for,
            entry.diagnostic,
            entry.status,
            tuple(Field(f.key, f.value, f.line + lines, f.raw_key) for f in entry.fields)
            if lines
            else entry.fields,
            entry.status_text,
            entry.status_date,
        )


_FIELDS = operator.attrgetter("fields")
