"""Lessons that are blocks between ``---`` rules, field-bullet blocks among them."""

from __future__ import annotations

from collections.abc import Sequence

from gotchas import reading, table
from gotchas.edit.caveat import CODE_INDENT, OPENS_BLOCK, annotate_block, annotate_lead
from gotchas.edit.form import Form
from gotchas.edit.heading import HEADING
from gotchas.edit.item import ITEM
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import ATX, ITEM_LINE, bare_line, in_tight_list
from gotchas.edit.paragraph import PARAGRAPH
from gotchas.edit.splice import Insertion
from gotchas.edit.successor import field_line, joined_paragraphs, lead_head, lead_lines, tail_fields, wants_id
from gotchas.record import Entry, Record


class BlockForm(Form):
    """A block between ``---`` rules: opened by a heading or a lead paragraph, ruled off as siblings are."""

    kind = "block"

    def _opening(self, lines: Sequence[bytes], entry: Entry) -> Form:
        first = bare_line(lines[entry.start_line - 1])
        if ATX.match(first):
            return HEADING
        return ITEM if ITEM_LINE.match(first) else PARAGRAPH

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        opening = self._opening(lines, like)
        if opening is ITEM:
            match = ITEM_LINE.match(bare_line(lines[like.start_line - 1]))
            rest = match["rest"] if match else ""
            label = reading.lead_label(rest)
            if label is not None and label[1]:
                return field_bullets(record, lines, like, new, new_id, links)
            # a block opened by a bullet that is no field: the successor is a lead paragraph in
            # its lead style, its fields on the lines after it; the reading takes a block
            # carrying this tool's own fields as a lesson
            return lead_lines(record, like, rest, "", "", new, new_id, links)
        return opening.successor(record, lines, like, new, new_id, links)

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        if self._opening(lines, target) is HEADING:
            return annotate_block(lines, target, target.start_line, marks, caveat)
        first = bare_line(lines[target.start_line - 1])
        second = bare_line(lines[target.start_line]) if target.start_line < len(lines) else ""
        opens_table = "|" in first and table.DELIMITER.compiled.match(second) is not None
        if OPENS_BLOCK.match(first) or CODE_INDENT.match(first) or opens_table:
            # a block opened by bullets (``- **Key:** value`` parts), a fence, code, a table or a quote: after
            # every part, as paragraphs of the block's own, never folded into a bullet, never
            # inside the fence, never between two parts
            end = target.end_line
            tail: tuple[str, ...] = ("",) if end < len(lines) and bare_line(lines[end]).strip() else ()
            return [Insertion(end, ("", marks, "", caveat, *tail))]
        return annotate_lead(lines, target, "", marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", "---", "", *entry_lines))


def field_bullets(
    record: Record, lines: Sequence[bytes], like: Entry, new: Lesson, new_id: str, links: str | None
) -> tuple[list[str], str]:
    """A block of field bullets (``- **Problem:** …``, ``- **Fix:** …``) as ``like``'s list is
    written: the first bullet the title and body in the first bullet's lead style, then one
    field bullet a field line; tight or loose as that list is, numbered on when it is ordered.
    The reading takes a block whose only lesson bullet opens it and carries this tool's fields
    as a block, like its siblings."""
    match = ITEM_LINE.match(bare_line(lines[like.start_line - 1]))
    assert match is not None  # a block opened by a list item
    lead, marker, gap = match["lead"], match["marker"], match["gap"]
    indent = " " * (len(lead) + len(marker) + len(gap))
    tight = in_tight_list(record, like.start_line - 1)
    opening = f"{lead}{marker}{gap}"
    first, more, shown = lead_head(record, like, match["rest"], opening, new)
    if tight:
        # no field line closes the first paragraph here: it is joined to the rest as well
        joined = joined_paragraphs([first[-1][len(opening) :], *more])
        first, more = [*first[:-1], opening + joined[0]], joined[1:]
    item = [*first, *(f"{indent}{line}" if line.strip() else "" for line in more)]
    fields = [field_line(new, new_id, links, wants_id(shown, new, new_id))]
    if new.diagnostic:
        fields.append(f"diagnostic: {new.diagnostic}")
    fields += tail_fields(new)
    number = int(marker[:-1]) if marker[:-1].isdigit() else None
    for index, field in enumerate(fields, start=1):
        bullet = f"{number + index}{marker[-1]}" if number is not None else marker
        item += [*([] if tight else [""]), f"{lead}{bullet}{gap}{field}"]
    return item, shown


BLOCK = BlockForm()
