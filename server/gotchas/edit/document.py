"""A whole file that is one lesson (a write-up, a memory file)."""

from __future__ import annotations

from collections.abc import Sequence

from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import ATX, bare_line
from gotchas.edit.splice import Insertion
from gotchas.edit.successor import heading_lines
from gotchas.record import Entry, Record


class DocumentForm(Form):
    """A whole file that is one lesson (a write-up, a memory file): the caveat closes the
    document, and the successor (or a captured lesson) follows it after a ``---`` rule as a
    ``##`` section (one level below the document's own title) opening with its field line
    (``tasks: … · root-cause: …``); the reading takes such sections after a one-lesson
    document as lessons of their own."""

    kind = "document"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        levels = [len(m[1]) for m in (ATX.match(bare_line(x)) for x in lines[: like.end_line]) if m]
        level = min(max(min(levels, default=1) + 1, 2), 6)
        return heading_lines(level, new.title, new, new_id, links), new.title

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        end = target.end_line
        tail: tuple[str, ...] = ("",) if end < len(lines) and bare_line(lines[end]).strip() else ()
        return [Insertion(end, ("", marks, "", caveat, *tail))]

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", "---", "", *entry_lines))


DOCUMENT = DocumentForm()
