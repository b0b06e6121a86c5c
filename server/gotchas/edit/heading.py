"""Lessons that are headings (``## Title``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gotchas.edit.caveat import annotate_block
from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import ATX, CLOSING_HASHES, bare_line
from gotchas.edit.splice import Insertion, next_entry_line
from gotchas.edit.successor import heading_lines
from gotchas.edit.titles import styled_title
from gotchas.record import THEMATIC_BREAK, Entry, Record

if TYPE_CHECKING:
    pass


class HeadingForm(Form):
    """``## Title``: fields and caveat as paragraphs under the heading, blank-line separated."""

    kind = "heading"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        head = bare_line(lines[like.start_line - 1])
        match = ATX.match(head)
        shown = styled_title(record, like, match["text"] if match else like.title, new.title)
        closing = CLOSING_HASHES.search(head) if match else None
        return heading_lines(like.level, shown, new, new_id, links, closing[0] if closing else ""), shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        return annotate_block(lines, target, target.body_line - 1, marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        end = anchor.end_line
        gap = [bare_line(lines[i]) for i in range(end, min(next_entry_line(record, anchor), len(lines)))]
        if any(THEMATIC_BREAK.match(g) for g in gap):
            return Insertion(end, ("", "---", "", *entry_lines))
        return Insertion(end, ("", *entry_lines))


HEADING = HeadingForm()
