"""Lessons that are headings (``## Title``)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from gotchas import blocks
from gotchas.edit.caveat import annotate_block
from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import ATX, CLOSING_HASHES, bare_line
from gotchas.edit.splice import Insertion, next_entry_line
from gotchas.edit.successor import heading_lines, setext_title
from gotchas.edit.titles import styled_title
from gotchas.record import THEMATIC_BREAK, Entry, Record


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
        underline = _setext_underline(lines, like) if match is None else ""
        if underline and not _reads_as_heading(setext_title(shown, underline), like.level):
            underline = ""  # ``1. …`` over a rule is a list item: written as ``## 1. …`` instead
        ending = closing[0] if closing else ""
        return heading_lines(like.level, shown, new, new_id, links, ending, underline), shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        return annotate_block(lines, target, target.body_line - 1, marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        end = _after_sub_lessons(record, anchor)
        if _ruled(lines, end, min(next_entry_line(record, anchor), len(lines))) and _rules_lessons(
            record, lines, anchor
        ):
            return Insertion(end, ("", "---", "", *entry_lines))
        return Insertion(end, ("", *entry_lines))


def _setext_underline(lines: Sequence[bytes], like: Entry) -> str:
    """``=`` or ``-`` when ``like`` is a setext heading (its title over a line of them), else ``""``:
    a successor is written the way its target is."""
    if like.start_line >= len(lines):
        return ""
    under = bare_line(lines[like.start_line]).strip()
    return under[0] if under and under[0] in "=-" and under == under[0] * len(under) else ""


def _reads_as_heading(title: Sequence[str], level: int) -> bool:
    """Whether ``title``'s lines read back as one heading of ``level``, as the record's parser
    reads them: a title opening a block of its own (``1. …``, ``> …``) does not."""
    found = blocks.scan("\n".join(title) + "\n").blocks
    return len(found) == 1 and found[0].kind == "heading" and found[0].level == level


def _after_sub_lessons(record: Record, anchor: Entry) -> int:
    """Where ``anchor``'s section ends when deeper headings follow its own text (``### …``
    sub-lessons under a ``## …`` lesson written in prose of its own): after them, before a
    closing rule, so that a successor is a sibling of ``anchor`` and takes none of them."""
    end = anchor.end_line
    if record.block_map is None:
        return end
    blocks = record.block_map.blocks
    deeper = False
    for block in blocks[bisect.bisect_left(blocks, end, key=lambda b: b.start) :]:
        if block.kind == "heading":
            if block.level <= anchor.level:
                break
            deeper = True
        if deeper and block.kind != "hr":
            end = max(end, block.end)
    return end


def _ruled(lines: Sequence[bytes], start: int, stop: int) -> bool:
    """A ``---`` rule on a 0-based line in ``[start, stop)``."""
    return any(THEMATIC_BREAK.match(bare_line(lines[i])) for i in range(start, stop))


def _rules_lessons(record: Record, lines: Sequence[bytes], anchor: Entry) -> bool:
    """The rule after ``anchor`` parts it from a sibling, rather than closing its category: the
    next entry is in the same section, or a rule parts ``anchor`` from the entry before it there.
    A rule that closes a category stays after the successor, which stays in the category."""
    entries = record.entries
    at = bisect.bisect_left(entries, anchor.start_line, key=lambda e: e.start_line)
    after = entries[at + 1] if at + 1 < len(entries) else None
    if after is not None and after.section == anchor.section:
        return True
    before = entries[at - 1] if at > 0 else None
    if before is None or before.section != anchor.section:
        return after is None or after.section == anchor.section
    return _ruled(lines, before.end_line, anchor.start_line - 1)


HEADING = HeadingForm()
