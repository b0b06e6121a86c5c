"""The record's own word on where a new lesson goes: a comment after a lesson asking for new
ones above or below itself (``<!-- Add new lessons above this line -->``, ``<!-- New entries
are appended below this line -->``). A lesson captured without a place named goes there, in
the form of the lesson before it. Pure: a parsed record in, a marker out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gotchas import recording
from gotchas.record import Entry, Record


@dataclass(frozen=True)
class Marker:
    """A comment on 0-based lines ``[start, end)`` asking new entries to go ``above`` or
    ``below`` it, and the lesson before it, whose form they take."""

    start: int
    end: int
    side: Literal["above", "below"]
    after: Entry


def find(record: Record) -> Marker | None:
    """The first comment of a few lines after a lesson that marks where new entries go. One
    above every lesson (a log whose newest entries go on top) is not followed: an edit writes a
    new lesson after another, never before the first."""
    if record.block_map is None or not record.entries:
        return None
    first = record.entries[0].start_line - 1
    starts = record.line_starts
    for block in record.block_map.blocks:
        if block.kind != "html" or block.start < first or block.end - block.start > recording.MARKER_LINES:
            continue
        text = record.data[starts[block.start] : starts[block.end]].decode("utf-8", "replace")
        side = recording.place_asked(text)
        if side is not None:
            before = [e for e in record.entries if e.start_line - 1 < block.start]
            return Marker(block.start, block.end, side, before[-1])
    return None


def bound(marker: Marker, at: int) -> int:
    """Where a new entry that would go on line ``at``, after ``marker.after``, goes instead to
    be on the side of the marker it asks for."""
    return min(at, marker.start) if marker.side == "above" else max(at, marker.end)
