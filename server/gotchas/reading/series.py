"""Entry rules, registered as data: a look at the entries a file's sections gave, as a whole.

Sections are read one by one; some evidence only shows across all of them. A writer who
numbers the lessons of a report ``1.`` to ``16.`` across its sections has said which parts
are lessons: the summaries, research notes and change tables around them are not. Each rule
in ``ENTRY_RULES`` takes the entries (and the reader) and returns them, kept or narrowed.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from operator import attrgetter

from gotchas import parts, vocabulary
from gotchas.blockmap import Block
from gotchas.reading.model import LONE_SHAPE, Note, Span, heading_runs
from gotchas.reading.state import State, starting_within
from gotchas.reading.text import (
    DEFINITE_FORMS,
    ENTRY_FIELD,
    MARK,
    OWN_FIELDS,
    lead_label,
    names_superseded,
    title_form,
)
from gotchas.reading.titles import title_evidence
from gotchas.reading.tree import Section, document, holding, leaves

_ORDINAL = re.compile(r"^\s*(?:#\s*)?(\d{1,3})([a-z]|(?:\.\d{1,3})*)[.):]?\s")  # `5.1`, `9a`: sub-numbers
_MIN_SERIES = 5


# what ``vocabulary.plain`` drops or ``_ORDINAL`` passes over before the number: ASCII spaces
# (``str.split``'s, \x1c-\x1f included), emphasis markers and ``#``
_BEFORE_NUMBER = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f*_~`#"


def _number(span: Span) -> tuple[int, bool] | None:
    """A heading's number in the series, and whether it is a sub-number (``5.1``: a successor;
    ``9a``: one added later)."""
    return title_number(span.title) if span.kind == "heading" else None


def title_number(title: str) -> tuple[int, bool] | None:
    """The number a title opens with, and whether it is a sub-number; None for most titles."""
    if title.isascii() and not title.lstrip(_BEFORE_NUMBER)[:1].isdigit():
        return None  # most titles: no digit where the number would be, so no plain form to make
    found = _ORDINAL.match(vocabulary.plain(title))
    return (int(found[1]), bool(found[2])) if found else None


def numbered_series(state: State, spans: list[Span]) -> list[Span]:
    """Headings of one level numbered 1, 2, 3… once across the file, at least five of them and
    a third of the entries: those are the lessons, and an entry elsewhere (a summary's heading, a
    research note, a row of a changelog) is the report around them."""
    numbered = [(s, n) for s in spans if s.kind == "heading" and (n := title_number(s.title)) is not None]
    # a successor this tool wrote (``### 1.1. …``, ``### 6. …`` whose fields say what it
    # supersedes) was not there before the correction: it does not tip the file into a series,
    # or the lessons beside it would change; the marked target counts as it did
    ours = sum(1 for s, _ in numbered if supersedes(state, s))
    count, total = len(numbered) - ours, len(spans) - ours
    if count < _MIN_SERIES or count * 3 < total or count == total:
        return spans
    levels = {s.level for s, _ in numbered}
    numbers = [n for _, (n, sub) in numbered if not sub]
    if len(levels) != 1 or len(numbers) < _MIN_SERIES:
        return spans
    if numbers != list(range(1, len(numbers) + 1)) and not _counted_by_group(state, spans, numbered):
        return spans
    title = _document_title(state)
    counted = counted_runs(spans, lambda span: supersedes(state, span))
    kept = [
        s
        for s in spans
        if _number(s) is not None
        or _own_fields(state, s)
        or _titled_lessons(s, title)
        or _in_numbered_group(s)
        or s.start in counted
    ]
    first, last = kept[0].start, kept[-1].end
    for span in spans:
        if span.start < first or span.start >= last or span not in kept:
            state.left_out.append(
                Note(
                    span.start,
                    span.end,
                    "context",
                    span.title,
                    "outside the file's numbered series of lessons",
                )
            )
    return kept


# a heading counted on its own beside the numbered series: by a capital letter (``## A. …``,
# ``## B. …``), or by a word and a number (``### Challenge #1: …``, ``## Bug 2 — …``)
_LETTERED = re.compile(r"^([A-Z])[.):]\s")
_WORD_COUNT = re.compile(r"^([^\W\d_][\w'-]{1,20})\s*#?\s*(\d{1,3})\b(?![.,]\d)")
# a count of a document's own parts or of steps, not of lessons (``Step 2``, ``Example 3``);
# periods (``Phase 1``, ``Day 3``) are ``vocabulary.names_period``'s
_PART_WORDS = frozenset(
    ("step", "part", "section", "chapter", "appendix", "annex", "example", "option", "table")
)
_MIN_COUNTED = 3


def _count(title: str) -> tuple[str, int] | None:
    """The stem and number a heading is counted by, on its own: ``("", 2)`` for ``B. …``,
    ``("challenge", 1)`` for ``Challenge #1: …``; None for most titles."""
    found = _LETTERED.match(title.lstrip(_BEFORE_NUMBER))
    if found:
        return "", ord(found[1]) - ord("A") + 1
    plain = vocabulary.plain(title)
    found = _WORD_COUNT.match(plain)
    if found is None or found[1].lower() in _PART_WORDS or vocabulary.names_period(plain):
        return None
    return found[1].lower(), int(found[2])


def counted_runs(spans: Sequence[Span], ours: Callable[[Span], bool]) -> set[int]:
    """The starts of heading entries in runs counted on their own: three or more of one level
    in a row, counted 1, 2, 3… by one stem, and titled as lessons rather than as a report's
    parts (``A. Background``). A writer who counts a second run beside the numbered series
    (``## A.`` to ``## K.`` over ``### 1.`` to ``### 6.``) has said those are lessons too. A
    successor this tool wrote (``ours``) sits inside a run without ending it."""
    runs: list[list[Span]] = []
    last: tuple[int, str, int] | None = None
    for span in spans:
        if span.kind == "heading" and ours(span):
            continue
        count = _count(span.title) if span.kind == "heading" else None
        key = (span.level, *count) if count is not None else None
        if key is not None and last is not None and key[:2] == last[:2] and key[2] == last[2] + 1:
            runs[-1].append(span)
        elif key is not None and key[2] == 1:
            runs.append([span])
        else:
            key = None  # a number out of turn starts no run
        last = key
    return {
        s.start
        for run in runs
        if len(run) >= _MIN_COUNTED and sum(title_evidence(s.title)[0] for s in run) < len(run) / 2
        for s in run
    }


def _counted_by_group(
    state: State, spans: Sequence[Span], numbered: Sequence[tuple[Span, tuple[int, bool]]]
) -> bool:
    """Headings numbered again from 1 in each group they sit in (``### 关键教训`` over ``#### 1.``
    … ``#### 6.`` on one day, ``#### 1.`` … ``#### 4.`` on the next), and no other heading of
    their level among the entries: one series, counted by group."""
    level = numbered[0][0].level
    if any(s.kind == "heading" and s.level == level and _number(s) is None for s in spans):
        return False
    expected, groups = 1, set()
    for span, (number, sub) in numbered:
        if sub:
            continue
        group = holding(state.tree, span.start)
        parent = group.start if group is not None else None
        if number == 1 and parent not in groups:
            expected = 1
            groups.add(parent)
        if number != expected:
            return False
        expected += 1
    return len(groups) > 1


def _in_numbered_group(span: Span) -> bool:
    """A bullet or paragraph lesson in a group numbered as the series is (``## 8. Small things
    that wasted time`` over its bullets): the group is one of the series, its lessons with it.
    Sub-headings are left to the rule: under a numbered heading they are its parts."""
    group = span.section
    if span.kind == "heading" or group is None or not group.lstrip(_BEFORE_NUMBER)[:1].isdigit():
        return False
    return _ORDINAL.match(vocabulary.plain(group)) is not None


def _document_title(state: State) -> str | None:
    """The title over the whole file, when one heading holds every other."""
    found = document(state.tree)
    return found.title if found is not None else None


def _titled_lessons(span: Span, title: str | None) -> bool:
    """An entry in a section titled as lessons (``## Other gotchas``) stays beside the series;
    the document's title (``# Known issues``) holds the series itself, so it says nothing."""
    return span.section is not None and span.section != title and vocabulary.names_lessons(span.section)


def _field_lines(state: State, span: Span) -> list[str]:
    """This tool's field lines opening an entry's body (``tasks: … · supersedes: …``)."""
    return [line for line in state.lines[span.body : min(span.end, span.body + 4)] if ENTRY_FIELD.match(line)]


def _own_fields(state: State, span: Span) -> bool:
    """An entry carrying this tool's field lines (a successor it wrote) stays, numbered or not."""
    return bool(_field_lines(state, span))


def own_entry(state: State, span: Span) -> bool:
    """An entry this tool wrote, a successor or a capture, as ``_written_here`` asks of a leaf:
    its field lines give its root cause or what it supersedes. A target it marked a red herring
    gains field lines of another kind (``red-herring-for: …``) and stays what it was."""
    return any(OWN_FIELDS.search(line) for line in _field_lines(state, span))


def supersedes(state: State, span: Span) -> bool:
    """An entry whose own field lines say what it supersedes: a successor this tool wrote.
    Asked of many headings of a run: the word is looked for before any pattern is tried, in
    the lines joined (it holds no line break, so it is found in one line of them or none)."""
    head = "\n".join(state.lines[span.body : min(span.end, span.body + 4)])
    if "upersedes" not in head and "UPERSEDES" not in head:
        return False  # most headings: no such field
    return names_superseded(_field_lines(state, span))


_MAX_FLIPPED_ITEMS = 4
_MAX_FACT_WORDS = 12  # a bullet this short states a fact of one lesson, not a lesson of its own


def _words(state: State, block: Block) -> int:
    """An item's words, less its marker and this tool's red-herring mark with what follows it."""
    count = 0
    for line in state.lines[block.start : block.end]:
        if MARK.compiled.match(line):
            break
        count += len(line.split())
    return count - 1


def _successor(state: State, block: Block) -> bool:
    """A bullet lesson this tool added (its fields line: ``tasks: … · supersedes: …``)."""
    return state.writes_own(block)


def _written_here(state: State, leaf: Section) -> bool:
    """A heading lesson whose field line sits right under its title, as this tool writes one."""
    body = leaf.body
    return (
        bool(body)
        and body[0].kind == "paragraph"
        and ":" in state.lines[body[0].start]  # a field line has its colon
        and state.writes_own(body[0])
    )


def _leads_in(block: Block) -> bool:
    """A one-line paragraph (``Created `icons.js` with:``, ``**Rule**: never ask twice``): the
    lead-in of the list below it."""
    return block.kind == "paragraph" and block.end - block.start == 1


def cousins_agree(state: State, spans: list[Span]) -> list[Span]:
    """Headings of one level read as lessons across the file, at least two and half of that
    level's leaves: a leaf of that level read as a group of a few bullets alone, or under a
    one-line lead-in (``### When debugging`` over four steps; ``## Canonical repo`` over three
    facts) is a lesson too, its bullets its facts. Bullets of a sentence or more each are
    lessons of a group; a section titled as lessons, or carrying entry fields, keeps its
    bullets."""
    starts = {s.start: s for s in spans}
    ordered = sorted(spans, key=lambda s: s.start)
    positions = [s.start for s in ordered]  # in line order: the spans inside a leaf by bisection
    read: list[Section] = []  # leaves read as one heading lesson, counted only if a group asks
    groups: dict[int, list[Section]] = {}
    for leaf in leaves(state.tree):
        if leaf.heading is None:
            continue
        first = starts.get(leaf.start)
        if first is not None and first.kind == "heading":
            read.append(leaf)
            continue
        # the leaf as it read before this tool marked a bullet of it and added its successor:
        # a correction must not change how the leaf's siblings read
        content = [b for b in leaf.body if b.kind not in ("html", "hr")]
        added = {b.start for b in content if b.kind == "item" and _successor(state, b)}
        content = [b for b in content if b.start not in added]
        if len(content) > 1 and _leads_in(content[0]):
            content = content[1:]  # ``Distinguish between:`` over the facts: their lead-in
        inside = [
            s
            for s in ordered[bisect_right(positions, leaf.start) : bisect_left(positions, leaf.end)]
            if s.start not in added
        ]
        if (
            2 <= len(inside) <= _MAX_FLIPPED_ITEMS
            and all(s.kind == "item" for s in inside)
            and content
            and all(b.kind == "item" for b in content)
            and all(_words(state, b) <= _MAX_FACT_WORDS for b in content)
            and not vocabulary.names_lessons(leaf.title)
        ):
            groups.setdefault(leaf.level, []).append(leaf)
    if not groups:
        return spans
    # a successor this tool wrote (its field line right under its title) was not there before
    # the correction: it counts for none
    lessons = Counter(leaf.level for leaf in read if leaf.level in groups and not _written_here(state, leaf))
    flipped: dict[int, Section] = {}
    for level, found in groups.items():
        count = lessons[level]
        if count >= 2 and count * 2 >= count + len(found):
            for leaf in found:  # a leaf carrying entry fields keeps its bullets
                if not any(ENTRY_FIELD.match(line) for line in state.lines[leaf.start : leaf.end]):
                    flipped[leaf.start] = leaf
    if not flipped:
        return spans
    ranges = sorted((leaf.start, leaf.end) for leaf in flipped.values())
    state.groups[:] = [g for g in state.groups if g.start not in flipped]
    out: list[Span] = []
    for span in spans:
        at = bisect_right(ranges, (span.start,)) - 1  # the last flipped leaf starting before it
        if at >= 0 and ranges[at][0] < span.start < ranges[at][1]:
            continue
        out.append(span)
    for leaf in flipped.values():
        why = "a lesson: most headings of its level are lessons; its few bullets are its facts"
        out.append(state.heading_span(leaf, why))
    out.sort(key=lambda s: s.start)
    return out


_MIN_RUN = 4
_MAX_EDGE = 2


def odd_edges(state: State, spans: list[Span]) -> list[Span]:
    """Sibling heading lessons (one level under one section, four or more) of which two in
    three are written in one definite form (numbered, an id, dated): a heading at either end
    written otherwise (``## Verdict`` after ``## 12. …``, ``## How to maintain`` before
    ``## #1 [2026-05-28] …``) is a part of the file around them, not a lesson."""
    dropped: set[int] = set()
    for run in heading_runs(spans, _MIN_RUN):
        usual = _usual_form(state, run)
        if usual is None:
            continue
        for edge in (run[:_MAX_EDGE], run[::-1][:_MAX_EDGE]):
            for span in edge:
                if title_form(span.title) == usual or _own_fields(state, span):
                    break
                dropped.add(span.start)
                why = f"written otherwise than the {usual} lessons beside it"
                state.left_out.append(Note(span.start, span.end, "context", span.title, why))
    return [s for s in spans if s.start not in dropped] if dropped else spans


def _usual_form(state: State, run: Sequence[Span]) -> str | None:
    """The definite form two in three of ``run``'s titles are written in, if one is. A
    successor this tool wrote was not there before the correction: it neither lengthens the
    run nor sways its form, or its plain sibling would stop being a lesson. Most runs are
    settled once a third of them is written otherwise, before the rest is looked at."""
    forms: Counter[str | None] = Counter()
    otherwise = 0
    for span in run:
        if supersedes(state, span):
            continue
        form = title_form(span.title)
        forms[form] += 1
        if form not in DEFINITE_FORMS:
            otherwise += 1
            if otherwise * 3 > len(run):
                return None  # a third of the run written otherwise: no form can make two in three
    theirs = sum(forms.values())
    if theirs < _MIN_RUN:
        return None
    (usual, count), *_ = forms.most_common(1)
    return usual if usual in DEFINITE_FORMS and count * 3 >= theirs * 2 else None


def tables_beside_headings(state: State, spans: list[Span]) -> list[Span]:
    """Lessons written as headings, three or more, and rows of a table beside them whose header
    names no lesson or its parts (``| Category | Violations |``, ``| Decision | Why it matters |``)
    under a title that names none: the table is a summary, a comparison or data around the
    lessons. A table of ``| Issue | Solution |`` beside them holds lessons of its own."""
    if all(s.kind != "row" for s in spans):
        return spans  # most files: no row among their entries
    # a lesson this tool wrote (a successor, a capture) does not tip the count, or an edit would
    # drop the rows; a target it marked still counts
    headings = sum(1 for s in spans if s.kind == "heading" and not own_entry(state, s))
    if headings < 3:
        return spans
    tables = [b for b in state.blocks if b.kind == "table"]
    dropped: set[int] = set()
    for table in tables:
        rows = [s for s in spans if s.kind == "row" and table.start < s.start < table.end]
        if not rows or state.parts_header(table):
            continue
        title = rows[0].section or ""
        if vocabulary.names_lessons(title) or vocabulary.names_problems(title):
            continue
        why = "a table beside lessons written as headings, its header naming no lesson: around them"
        state.left_out.append(Note(table.start, table.end, "context", title, why))
        dropped.update(s.start for s in rows)
    return [s for s in spans if s.start not in dropped] if dropped else spans


def intro_before_headings(state: State, spans: list[Span]) -> list[Span]:
    """Lessons written as headings under the file's title, and bullets or rows in the title's
    own text before them (``- Format: see …``, ``- One ``###`` entry per mistake``): that text
    introduces the file, says how it is kept or where its parts live; it is no lesson."""
    title = _document_title(state)
    if title is None or all(s.kind == "heading" for s in spans):
        return spans  # most files: lessons of one kind, or no title over them all
    headings = [s for s in spans if s.kind == "heading" and not own_entry(state, s)]  # as above
    if len(headings) < 2:
        return spans
    first = headings[0].start
    intro = [s for s in spans if s.kind != "heading" and s.start < first and s.section == title]
    if not intro:
        return spans
    state.left_out.append(
        Note(intro[0].start, intro[-1].end, "context", title, "the file's introduction, before its lessons")
    )
    dropped = {s.start for s in intro}
    return [s for s in spans if s.start not in dropped]


EntryRule = Callable[[State, list[Span]], list[Span]]

_LONE_AMONG = 5  # lessons of one shape around which a heading written otherwise is no lesson
_LONE_MOST = 2  # headings written otherwise, at most, that are notes around them
_KIND_LEVEL = attrgetter("kind", "level")


def lone_shape(state: State, spans: list[Span]) -> list[Span]:
    """Lessons of one shape, five or more (``###`` headings, bullets, rows), and one or two
    headings before or after them written otherwise: a level above theirs (``## Logging``
    after the ``###`` lessons of its groups), or headings beside bullets. A file writes its
    lessons one way; those headings are the file's notes, rules or summary around them, unless
    one sits among the lessons, its title states a lesson (``## 2026-10-02 — php-fpm cannot
    reach the app``) or its text names a lesson's field. A lesson this tool wrote neither
    counts nor is left out, and a section pinned to be one lesson stays one."""
    if len(set(map(_KIND_LEVEL, spans))) not in (2, 3):
        return spans  # most files: their lessons in one shape, or in many; told before any field is read
    shapes = Counter((s.kind, s.level) for s in spans if not own_entry(state, s))
    if len(shapes) != 2:
        return spans
    (usual, count), (other, lone) = shapes.most_common(2)
    if lone > _LONE_MOST or count < _LONE_AMONG or other[0] != "heading":
        return spans
    if usual[0] == "heading" and usual[1] <= other[1]:
        return spans  # a heading a level below the lessons' may be one of a group's own
    odd = [s for s in spans if (s.kind, s.level) == other and not own_entry(state, s)]
    kept = [s for s in spans if s not in odd]
    if any(kept[0].start < span.start < kept[-1].start for span in odd):
        return spans  # among the lessons, not around them: one of them, written its own way
    if any(_lesson_of_its_own(state, span) for span in odd):
        return spans
    for span in odd:
        state.left_out.append(Note(span.start, span.end, "context", span.title, LONE_SHAPE))
    return kept


def _lesson_of_its_own(state: State, span: Span) -> bool:
    """A heading written otherwise that is a lesson still: pinned as one, titled as a lesson
    states itself, or naming a lesson's field in its text."""
    if span.reason.startswith("pinned") or title_evidence(span.title)[0] < -1.0:
        return True
    return _tells_fields(state, span)


def _tells_fields(state: State, span: Span) -> bool:
    """A lesson's field named in the span's text (``**Lesson**: …``, ``- **Why:** …``): it tells
    one lesson, in another shape than its siblings."""
    for block in starting_within(state.blocks, span.body, span.end):
        if block.kind in ("paragraph", "item"):
            found = lead_label(state.first_text(block))
            if found is not None and found[0] in parts.FIELDS:
                return True
    return False


ENTRY_RULES: Sequence[tuple[str, EntryRule]] = (
    ("a numbered series of lessons", numbered_series),
    ("headings of one level share a role", cousins_agree),
    ("a heading at either end of a series written otherwise", odd_edges),
    ("a table beside lessons written as headings", tables_beside_headings),
    ("the title's own text before lessons written as headings", intro_before_headings),
    ("a heading or two written otherwise around lessons of one shape", lone_shape),
)


def settle(state: State, spans: list[Span]) -> list[Span]:
    """The entries after every entry rule."""
    for _, rule in ENTRY_RULES:
        spans = rule(state, spans)
    return spans
