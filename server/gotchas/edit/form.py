"""What every lesson form says: how a successor looks, where the mark goes, where the successor goes."""

from __future__ import annotations

from collections.abc import Sequence

from gotchas.edit.lesson import Lesson
from gotchas.edit.splice import Insertion
from gotchas.record import Entry, Record


class Form:
    """How entries of one kind look; subclasses fill in the three places an edit writes."""

    kind = ""
    blocks = True  # separated by blank lines: an insertion ends with one before following text

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        """The new entry's lines, in ``like``'s form, and its title as it will read."""
        raise NotImplementedError

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        """The mark and caveat, as one block of their own inside ``target``."""
        raise NotImplementedError

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        """Where the successor goes: right after ``anchor``, separated as its siblings are."""
        raise NotImplementedError
