"""Lessons that are list items, bulleted or numbered (``- **Title** — text``, ``3. Title``)."""

from __future__ import annotations

from collections.abc import Sequence

from gotchas.edit.caveat import MARKER, annotate_lead, content_column
from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import ITEM_LINE, bare_line, bare_line_at, block_tokens, in_tight_list
from gotchas.edit.splice import Insertion
from gotchas.edit.successor import lead_lines, next_ordinal
from gotchas.errors import InvalidArgument
from gotchas.record import Entry, Record


class ItemForm(Form):
    """``- **Title** — text``: fields on continuation lines, caveat as the item's own paragraph."""

    kind = "item"
    blocks = False

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
        match = ITEM_LINE.match(first)
        if match is None:
            lead, marker, gap, box, rest = "", "-", " ", "", first
        else:
            lead, marker, gap, box, rest = (
                match["lead"],
                match["marker"],
                match["gap"],
                match["box"] or "",
                match["rest"],
            )
        if marker[:-1].isdigit():
            marker = f"{next_ordinal(record, like)}{marker[-1]}"
        if box:
            box = "[ ]" + box[3:]
        indent = " " * (len(lead) + len(marker) + len(gap))
        opening = f"{lead}{marker}{gap}{box}"
        tight = in_tight_list(record, like.start_line - 1)
        return lead_lines(record, like, rest, opening, indent, new, new_id, links, tight)

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        column = content_column(bare_line(lines[target.start_line - 1]))
        tight = in_tight_list(record, target.start_line - 1)
        return annotate_lead(lines, target, " " * column, marks, caveat, tight)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        end = anchor.end_line
        # a blank line before the new item only in a loose list: in a tight one it would
        # make every item loose
        loose = not in_tight_list(record, anchor.start_line - 1)
        following_text = next((n for n in range(end, len(lines)) if bare_line(lines[n]).strip()), None)
        if following_text is not None and entry_lines:
            after = bare_line(lines[following_text])
            column = content_column(entry_lines[0])
            indent = len(after) - len(after.lstrip(" "))
            if indent >= column:
                # text indented under the new item joins it, even after a blank line: past a
                # blank line, a wider gap after the marker moves the item's content column
                # beyond that text (CommonMark allows one to four spaces)
                widened = _widened(entry_lines, indent + 1 - column) if following_text > end else None
                if widened is None:
                    raise InvalidArgument(
                        f"line {following_text + 1} is indented under where the new item would go, "
                        f"so it would become part of that item; nothing was proposed"
                    )
                entry_lines = widened
        outside = _ends_outside_item(record, anchor)
        if (
            outside
            and not loose
            and following_text is not None
            and _joins(lines, following_text, entry_lines)
        ):
            # the entry's last text (a fence at the margin) closed its list, and the next item
            # opens a tight one: the new item goes right before that item, past the blank line,
            # so it joins that list as a tight item instead of making it loose
            return Insertion(following_text, tuple(entry_lines))
        return Insertion(end, (*([""] if loose or outside else []), *entry_lines))


def _joins(lines: Sequence[bytes], at: int, entry_lines: Sequence[str]) -> bool:
    """The line ``at`` opens an item of the list the new item would continue: the same bullet
    at the same indent. The new item is tight (no blank line of its own), so written right
    before that item it joins that list and keeps it tight."""
    after = ITEM_LINE.match(bare_line(lines[at]))
    new = ITEM_LINE.match(entry_lines[0]) if entry_lines else None
    if after is None or new is None or after["lead"] != new["lead"]:
        return False
    # bullets only: a numbered item joining the next list would renumber every item after it
    return new["marker"] == after["marker"] and new["marker"] in "-*+" and "" not in entry_lines


def _widened(entry_lines: Sequence[str], extra: int) -> list[str] | None:
    """A list item's lines with its content column ``extra`` further right, or ``None`` when the
    gap after the marker would pass four spaces (the item would open with indented code)."""
    match = MARKER.match(entry_lines[0])
    if match is None or len(match[3]) + extra > 4:
        return None
    first = f"{match[1]}{match[2]}{match[3]}{' ' * extra}{entry_lines[0][len(match[0]) :]}"
    return [first, *(f"{' ' * extra}{line}" if line.strip() else line for line in entry_lines[1:])]


def _ends_outside_item(record: Record, anchor: Entry) -> bool:
    """The entry's last text lies after its own list item (a paragraph the reading gives it):
    a list item written right after that text would be its lazy continuation, not an item."""
    last = next(
        (n for n in range(anchor.end_line - 1, anchor.start_line - 1, -1) if bare_line_at(record, n).strip()),
        None,
    )
    if last is None or last == anchor.start_line - 1:
        return False
    items = [t for t in block_tokens(record.data) if t.type == "list_item_open" and t.map]
    own = next((t for t in items if t.map and t.map[0] == anchor.start_line - 1), None)
    if own is None or own.map is None or last < own.map[1]:
        return False
    # a later item of the same list that the reading gives the entry (``- **Fix:** …``): an
    # item written after it is the list's next item
    return not any(t.level == own.level and t.map and t.map[0] <= last < t.map[1] for t in items)


ITEM = ItemForm()
