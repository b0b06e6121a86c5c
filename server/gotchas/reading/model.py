"""The reading's values: where entries are (``Span``), the parts that are not (``Note``), a
project's override (``Pin``), the decision (``Reading``) and what an edit can take over
(``Leaves``, ``Prior``). Plain values: every rule module and the record model share them.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from gotchas.blockmap import Block

SpanKind = Literal["heading", "item", "paragraph", "block", "row", "document"]
FileKind = Literal["lessons", "lessons-section", "single-lesson", "not-lessons"]


UNITS = ("h1", "h2", "h3", "h4", "h5", "h6", "list", "paragraph", "hr-block", "table-row", "single", "none")


class Span(NamedTuple):
    """An entry's place: lines ``[start, end)`` 0-based, before trailing blanks are trimmed.

    ``body`` is the first line after the title line(s). A named tuple, as ``Block`` is: a
    reading makes one an entry, and a tuple is built at a fifth of a frozen dataclass's cost.
    """

    kind: SpanKind
    start: int
    body: int
    end: int
    title: str
    level: int
    marker: str
    section: str | None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Note:
    """A part of the file that is not an entry (a group heading, preamble, a meta section), and why."""

    start: int
    end: int
    what: str
    title: str
    reason: str


@dataclass(frozen=True, slots=True)
class Pin:
    """A project's override of the reading: a unit and/or the lessons section's title; with
    the ``list`` unit, ``checkboxes=False`` leaves checkbox and done-mark items out as detection does.
    ``sections`` pins single sections by title (``("What went wrong", "h3")``; ``none`` leaves
    one out, ``auto`` reads it by detection): the rest of the file is read as the unit says."""

    unit: str | None = None
    section: str | None = None
    checkboxes: bool = True
    sections: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str | None) -> Pin | None:
        """``"h3"``, ``"list"``, ``"list@Gotchas"``, ``"list,no-checkboxes"``, ``"@Known issues"``;
        then one line ``title<TAB>unit`` per pinned section."""
        if not text:
            return None
        first, *rows = text.split("\n")
        head, _, section = first.partition("@")
        unit, *flags = head.split(",")
        pinned = tuple(
            (title.strip(), kind.strip()) for title, _, kind in (r.partition("\t") for r in rows) if title
        )
        return cls(unit.strip() or None, section.strip() or None, NO_CHECKBOXES not in flags, pinned)

    def render(self) -> str:
        flags = "" if self.checkboxes else f",{NO_CHECKBOXES}"
        shown = f"{self.unit or ''}{flags}{'@' + self.section if self.section else ''}"
        return shown + "".join(f"; {title!r} = {kind}" for title, kind in self.sections)


NO_CHECKBOXES = "no-checkboxes"


# the last file rule's fallback: text with none of the shapes lessons take, read as one lesson
ONE_BODY = "no lesson structure, but one body of text: the file is one lesson"
NONE_UNDER_LESSONS = "no lesson read: the title names lessons, but nothing under it takes a lesson's shape"
LONE_SHAPE = "a heading of another shape than the lessons beside it: a part of the file around them"


@dataclass
class Reading:
    kind: FileKind
    spans: list[Span]
    reason: str
    sections: list[Note] = field(default_factory=list)
    groups: list[Note] = field(default_factory=list)
    left_out: list[Note] = field(default_factory=list)
    pinned: bool = False
    notice: str | None = None  # the reading is a guess: what was chosen, the runner-up, the pin
    leaves: Leaves | None = field(default=None, compare=False, repr=False)

    @property
    def unit(self) -> str | None:
        """The entries' shape: a heading level, ``list-item``, ``paragraph``… or ``mixed``."""
        if self.kind in ("single-lesson", "not-lessons") or not self.spans:
            return None
        # the shape of each different (kind, level): a few, however many spans
        shapes = {_shape(kind, level) for kind, level in set(map(_KIND_AND_LEVEL, self.spans))}
        return shapes.pop() if len(shapes) == 1 else "mixed"


# how a section read, by its first line: (its end, its parent's title, its spans, the groups
# and left-out parts it added, whether it found a pointer index, the answers of its
# sub-sections or None for a leaf, and how far those lie behind this one's lines), lines as
# they were in that reading
Answer = tuple[
    int,
    str | None,
    tuple[Span, ...],
    tuple[Note, ...],
    tuple[Note, ...],
    bool,
    "dict[int, Answer] | None",
    int,
]


@dataclass(frozen=True, slots=True)
class Leaves:
    """How each section read under a reading's top level (``answers``; a section's own
    sub-sections' answers hang from its answer).

    A section's reading depends only on its own lines and blocks, its parent's title and which
    lead-in labels and sub-heading titles recur in the whole file (``labels``, ``headings``).
    A section taken over whole keeps its sub-sections' answers as they were, lines and all, with
    the distance they moved, so taking it over costs the same however many sections it holds.
    """

    labels: frozenset[str]
    headings: frozenset[str]
    answers: dict[int, Answer]
    label_counts: Counter[str] | None = None  # how often each label opens a block, for the next edit


@dataclass(frozen=True, slots=True)
class Prior:
    """The reading of the text an edit was made on: its lines and blocks before ``head`` and
    from ``tail`` on are the new text's (those from ``tail`` on moved by ``shift`` lines).

    A leaf wholly in those lines, with the same parent title, under the same recurring
    labels and titles, reads as it did: its answer is taken over, not read again. With that
    text's ``blocks`` and a reader of its lines (``line``), the labels are counted again only
    between ``head`` and ``tail``.
    """

    reading: Reading
    head: int
    tail: int
    shift: int
    blocks: Sequence[Block] = ()
    line: Callable[[int], str] | None = None


def heading_runs(spans: Sequence[Span], least: int = 4) -> list[list[Span]]:
    """Heading entries side by side: one level under one section, ``least`` or more, in order."""
    runs: dict[tuple[str | None, int], list[Span]] = {}
    for span in spans:
        if span.kind == "heading":
            runs.setdefault((span.section, span.level), []).append(span)
    return [run for run in runs.values() if len(run) >= least]


def shape(span: Span) -> str:
    """An entry's shape as a pin names it: ``h3``, ``list-item``, ``table-row``…"""
    return _shape(span.kind, span.level)


def unit_name(unit: str) -> str:
    """A unit as a person counts it: ``h3 headings``, ``list items``, ``table rows``…"""
    return _UNIT_NAMES.get(unit, f"{unit} headings")


_UNIT_NAMES = {
    "list-item": "list items",
    "table-row": "table rows",
    "hr-block": "--- blocks",
    "paragraph": "lead-in paragraphs",
    "mixed": "entries of mixed shapes",
}


def _shape(kind: str, level: int) -> str:
    if kind == "heading":
        return f"h{level}"
    return {
        "item": "list-item",
        "paragraph": "paragraph",
        "block": "hr-block",
        "row": "table-row",
        "document": "single",
    }[kind]


_KIND_AND_LEVEL = operator.attrgetter("kind", "level")
