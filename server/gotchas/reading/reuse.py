"""What an edit takes over from the reading before it: each section's answer, kept by line.

A section's reading depends only on its own lines and blocks, its parent's title and the
file-wide evidence (``Leaves``). After an edit, a section wholly before or after the changed
lines, under the same evidence, reads as it did: its answer is moved by the lines the edit
added, not computed again. This keeps a propose on a large record from reading it all.
"""

from __future__ import annotations

from collections.abc import Sequence

from gotchas import moved
from gotchas.reading.model import Answer, Leaves, Note, Prior, Span


class Memo:
    """Where the answers of the sections being read go (``answers``), and where the prior
    reading's answers for them are, with how far behind the prior's lines theirs lie (``lookup``)."""

    def __init__(self, leaves: Leaves):
        self.prior: Prior | None = None
        self.answers: dict[int, Answer] = leaves.answers
        self.lookup: tuple[dict[int, Answer], int] | None = None

    def take_over(self, prior: Prior | None, leaves: Leaves) -> None:
        """Look answers up in ``prior`` when the file-wide evidence they rest on is the same."""
        before = prior.reading.leaves if prior is not None else None
        if before is not None and (before.labels, before.headings) == (leaves.labels, leaves.headings):
            self.prior = prior
            self.lookup = (before.answers, 0)

    def shift(self, start: int, end: int) -> int | None:
        """How far lines ``[start, end)`` moved since the prior reading, if they did not change."""
        prior = self.prior
        if prior is None:
            return None
        if end <= prior.head:
            return 0
        if start >= prior.tail:
            return prior.shift
        return None

    def known(self, start: int, end: int, parent: str | None) -> Answer | None:
        """The prior answer for the section at ``start``, moved to where it is now, and kept."""
        lookup = self.lookup
        shift = self.shift(start, end) if lookup is not None else None
        if lookup is None or shift is None:
            return None
        answers, behind = lookup
        found = answers.get(start - shift - behind)
        lines = shift + behind
        if found is None or found[0] + lines != end or found[1] != parent:
            return None
        _, _, spans, groups, left_out, pointer, inner, inner_behind = found
        if lines:
            spans = moved_spans(spans, lines)
            groups = tuple(moved_note(n, lines) for n in groups)
            left_out = tuple(moved_note(n, lines) for n in left_out)
        answer = (end, parent, spans, groups, left_out, pointer, inner, inner_behind + lines)
        self.answers[start] = answer
        return answer

    def inner_lookup(self, start: int) -> tuple[dict[int, Answer], int] | None:
        """Where the sub-sections of the section at ``start`` (read again) find their prior answers."""
        lookup = self.lookup
        shift = self.shift(start, start + 1) if lookup is not None else None
        if lookup is None or shift is None:
            return None
        answers, behind = lookup
        found = answers.get(start - shift - behind)
        if found is None or found[6] is None:
            return None
        return found[6], behind + found[7]


def moved_span(span: Span, lines: int) -> Span:
    return Span(
        span.kind,
        span.start + lines,
        span.body + lines,
        span.end + lines,
        span.title,
        span.level,
        span.marker,
        span.section,
        span.reason,
    )


def moved_spans(spans: Sequence[Span], lines: int) -> tuple[Span, ...]:
    if len(spans) < 16:
        return tuple(moved_span(s, lines) for s in spans)
    return tuple(moved.copies(Span, spans, {"start": lines, "body": lines, "end": lines}))


def moved_note(note: Note, lines: int) -> Note:
    return Note(note.start + lines, note.end + lines, note.what, note.title, note.reason)
