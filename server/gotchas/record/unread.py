"""A parse's entries, read when first asked for, or only those a task filter can need."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from gotchas.record.entries import fields_of, make_entry, read_entries
from gotchas.record.ids import assign as assign_ids

if TYPE_CHECKING:
    from gotchas import blocks, outline
    from gotchas.record.model import Entry


# mark or white space can be, then a colon (``ids.explicit_id``; ``fields.normalize_key``).
_ID_FIELD_BYTES = re.compile(rb"id[ _*\s\x80-\xff]*(?::|\xef\xbc\x9a)")
# A dash after a digit and white space or ``#``, read backwards (``_dashes_after_digits``).
_DASHES_BACKWARDS = tuple(
    re.compile(re.escape(dash[::-1]) + rb"[\t\n\x0b\x0c\r\x1c-\x20#]*[0-9]")
    for dash in (b"-", "–".encode(), "—".encode())
)
_ASCII = bytes(range(128))
_WIDE_DIGIT_OR_SPACE = re.compile(r"(?![\x00-\x7f])[\d\s]")
_TRAILING_DIGITS = re.compile(r"\d+$")


def _dashes_after_digits(data: bytes) -> Iterator[int]:
    """Where a digit is followed by white space or ``#`` and a dash: a range such as ``#372–#374``
    or ``372-374`` may stand for task numbers not written out there (``taskref``). Searched in
    the reversed bytes, where each match starts with its dash: found by a fast literal search,
    not tried at every byte."""
    backwards = data[::-1]
    last = len(data) - 1
    for pattern in _DASHES_BACKWARDS:
        for match in pattern.finditer(backwards):
            yield last - (match.end() - 1)


def _wide_digits_or_spaces(data: bytes) -> Iterator[int]:
    """Where a digit or a space outside ASCII stands: ``\\d`` and ``\\s`` of the task patterns
    match those too. The characters are found among the bytes left once ASCII is dropped."""
    if data.isascii():
        return
    for char in set(data.translate(None, _ASCII).decode("utf-8", "replace")):
        if _WIDE_DIGIT_OR_SPACE.match(char):
            needle = char.encode()
            at = data.find(needle)
            while at != -1:
                yield at
                at = data.find(needle, at + 1)


class Unread:
    """What a parse needs to read its entries, kept until they are read.

    ``read`` reads them all (``Record.entries``). A filter on one task reads only the
    entries whose bytes can hold it (``candidates``), with ids as the full read assigns
    them: those depend on every title and on every ``id:`` field, and an ``id:`` field is
    looked for only where its bytes occur.
    """

    __slots__ = (
        "bare",
        "count",
        "data",
        "done",
        "firsts",
        "ids",
        "literal",
        "matter",
        "some",
        "spans",
        "starts",
    )

    def __init__(
        self,
        data: bytes,
        starts: Sequence[int],
        bare: Sequence[str] | None,
        spans: Sequence[outline.Span],
        literal: blocks.LineSet | None,
        matter: tuple[int, int] | None,
    ) -> None:
        self.data, self.starts, self.bare, self.spans = data, starts, bare, spans
        self.literal, self.matter = literal, matter
        self.count = len(spans)
        self.done: tuple[Entry, ...] | None = None
        self.ids: list[tuple[str, bool]] | None = None
        self.firsts: list[int] | None = None  # each span's first line, for a bisect
        self.some: dict[int, Entry] = {}

    @staticmethod
    def of(entries: tuple[Entry, ...]) -> Unread:
        """Entries read already (a record made from another's entries)."""
        done = Unread(b"", (), None, (), None, None)
        done.done, done.count = entries, len(entries)
        return done

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unread) and self.read() == other.read()

    def __hash__(self) -> int:
        return hash(self.read())

    def read(self) -> tuple[Entry, ...]:
        bare, literal = self.bare, self.literal
        if self.done is None and bare is not None and literal is not None:
            self.done = tuple(read_entries(self.data, self.starts, bare, self.spans, literal, self.matter))
            self.bare = self.literal = None  # what the entries were read from is no longer needed
            self.some = {}
        assert self.done is not None  # set before ``bare`` is dropped, by whichever thread read
        return self.done

    def skimmable(self) -> bool:
        """Entries not read yet, and spans in order without overlap (bytes find their entry)."""
        if self.done is not None or self.bare is None:
            return False
        spans = self.spans
        return all(a.end <= b.start for a, b in itertools.pairwise(spans))

    def candidates(self, tasks: Sequence[str]) -> list[int]:
        """Indexes of the spans that may be for one of ``tasks``: a task's number (or key digits)
        occurs in their bytes, or a range, or a digit or space outside ASCII; all, when unsure."""
        needles = []
        for task in tasks:
            digits = _TRAILING_DIGITS.search(task)
            if digits is None:
                return list(range(self.count))
            needles.append(digits[0].encode())
        data, starts = self.data, self.starts
        lines: set[int] = set()
        for needle in dict.fromkeys(needles):
            at = data.find(needle)
            while at != -1:
                lines.add(bisect.bisect_right(starts, at) - 1)
                at = data.find(needle, at + 1)
        lines.update(bisect.bisect_right(starts, at) - 1 for at in _dashes_after_digits(data))
        lines.update(bisect.bisect_right(starts, at) - 1 for at in _wide_digits_or_spaces(data))
        return self._spans_at(lines)

    def _spans_at(self, lines: Iterable[int]) -> list[int]:
        if self.firsts is None:
            self.firsts = [span.start for span in self.spans]
        firsts = self.firsts
        found = set()
        for line in lines:
            at = bisect.bisect_right(firsts, line) - 1
            if at >= 0 and line < self.spans[at].end:
                found.add(at)
        return sorted(found)

    def read_some(self, indexes: Sequence[int]) -> list[Entry]:
        """The entries at ``indexes``, each exactly as ``read`` would give it (taken from the full
        read when one has happened meanwhile: a server may filter and read in two threads)."""
        bare, literal = self.bare, self.literal
        if bare is None or literal is None:
            done = self.read()
            return [done[index] for index in indexes]
        ids = self._ids(bare, literal)
        out = []
        for index in indexes:
            entry = self.some.get(index)
            if entry is None:
                span = self.spans[index]
                end, found = fields_of(bare, literal.marks, self._skip(), span)
                entry_id, explicit = ids[index]
                entry = make_entry(
                    self.data, span, end, found, entry_id, explicit, self.starts[span.start], self.starts[end]
                )
                self.some[index] = entry
            out.append(entry)
        return out

    def _skip(self) -> int:
        return 0 if self.matter is None else self.matter[1]

    def _ids(self, bare: Sequence[str], literal: blocks.LineSet) -> list[tuple[str, bool]]:
        if self.ids is None:
            starts = self.starts
            found = _ID_FIELD_BYTES.finditer(self.data.lower())  # ``id`` first: a fast literal search
            lines = {bisect.bisect_right(starts, m.start()) - 1 for m in found}
            named = set(self._spans_at(lines))
            marks, skip = literal.marks, self._skip()
            self.ids = assign_ids(
                [
                    (span.title, fields_of(bare, marks, skip, span)[1] if index in named else ())
                    for index, span in enumerate(self.spans)
                ]
            )
        return self.ids
