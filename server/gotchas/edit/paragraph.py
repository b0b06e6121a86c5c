"""Lessons that are lead paragraphs (``**Title:** text``)."""

from __future__ import annotations

from collections.abc import Sequence

from gotchas.edit.callout import CALLOUT, CALLOUT_OPENER
from gotchas.edit.caveat import CODE_INDENT, annotate_lead
from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import bare_line
from gotchas.edit.splice import Insertion
from gotchas.edit.successor import lead_lines
from gotchas.record import Entry, Record


class ParagraphForm(Form):
    """``**Title:** text`` as a paragraph of its own: a lead paragraph, blank-line separated;
    a GitHub callout (``> [!WARNING]``) read as a lesson has the callout's form (``CALLOUT``)."""

    kind = "paragraph"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        first = bare_line(lines[like.start_line - 1])
        if CALLOUT_OPENER.match(first):
            return CALLOUT.successor(record, lines, like, new, new_id, links)
        lead = first[: len(first) - len(first.lstrip(" "))]
        if CODE_INDENT.match(first):
            lead = ""  # a block opened by indented code: the successor is a paragraph, not code
        return lead_lines(record, like, first.lstrip(" \t"), lead, lead, new, new_id, links)

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        if CALLOUT_OPENER.match(bare_line(lines[target.start_line - 1])):
            return CALLOUT.annotate(record, lines, target, marks, caveat)
        return annotate_lead(lines, target, "", marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", *entry_lines))


PARAGRAPH = ParagraphForm()
