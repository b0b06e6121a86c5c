"""Say when the reading is a guess: a runner-up reading close to the chosen one, and the pin
that would choose it.

A reading is right or wrong as a whole, and a person cannot tell which from a listing. The
signs that two readings were close are structural and cheap to see once the reading is done:
entries of several shapes (a reader chose a lesson in one section and a group in its sibling).
Each sign is one
function in ``DOUBTS``; the first that speaks gives the one-line notice.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from gotchas import aside, recording, vocabulary
from gotchas.blockmap import KIND, Block
from gotchas.quoting import toml_string
from gotchas.reading.model import (
    NONE_UNDER_LESSONS,
    ONE_BODY,
    Reading,
    Span,
    heading_runs,
    shape,
    unit_name,
)
from gotchas.reading.series import title_number
from gotchas.reading.state import State, starting_within
from gotchas.reading.text import blank_form, lead_label, title_form
from gotchas.reading.tree import Section, document, holding, walk
from gotchas.reading.units import lesson_items
from gotchas.vocabulary import words

_PINS = {"list-item": "list", "table-row": "table-row", "hr-block": "hr-block", "paragraph": "paragraph"}


def _mixed(found: Reading, state: State) -> str | None:
    """Entries of several shapes: the runner-up keeps only the most common one. No runner-up
    when it would drop only headings that call themselves a lesson (``### Backend gotcha``)."""
    if found.unit != "mixed":
        return None
    shapes = Counter(shape(s) for s in found.spans)
    (top, count), *_ = shapes.most_common(1)
    if all(
        s.kind == "heading" and vocabulary.names_one_lesson(s.title) for s in found.spans if shape(s) != top
    ):
        return None
    parts = ", ".join(f"{n} {unit_name(u)}" for u, n in shapes.most_common())
    pin = _PINS.get(top, top)
    return (
        f"the reading is a guess: chose {len(found.spans)} entries of mixed shapes ({parts}); "
        f"runner-up: the {count} {unit_name(top)} alone; "
        f'to choose it, pin entries = "{pin}" in .claude/gotchas.toml'
    )


def _sibling_units(found: Reading, state: State) -> str | None:
    """A lessons section in a progress file (ticks elsewhere) whose sibling holds items of the
    same list kind (``Known issues`` beside ``Blockers``): the runner-up reads both."""
    if found.kind != "lessons-section" or len(found.sections) != 1 or found.unit != "list-item":
        return None
    if not _ticks(state):
        return None
    chosen = found.sections[0]
    ordered = found.spans[0].marker[:1].isdigit()
    parent = holding(state.tree, chosen.start)
    for sibling in parent.children if parent is not None else ():
        if sibling.start == chosen.start or sibling.children:
            continue
        items, _ = lesson_items(state, sibling.body)
        if len(items) >= 2 and all(b.marker[:1].isdigit() == ordered for b in items):
            return (
                f"the reading is a guess: chose the list items of {chosen.title!r}; runner-up: the items of "
                f'{sibling.title!r} too; to choose it, pin entries = "list" in .claude/gotchas.toml'
            )
    return None


def _bare_lines(state: State, start: int, end: int) -> bool:
    """Short lines that end without a sentence's stop: entries that lost their list markers,
    not a closing remark."""
    lines = [line.strip() for line in state.lines[start:end] if line.strip()]
    return bool(lines) and all(
        len(line) <= 80 and not line.endswith((".", "!", "?", ":", "。")) for line in lines
    )


def _loose_paragraphs(found: Reading, state: State) -> str | None:
    """List-item lessons, the last of a list running on over paragraphs of bare short lines
    outside it: those paragraphs may be lessons of their own."""
    if found.unit != "list-item":
        return None
    starts = {s.start: s for s in found.spans}
    blocks = state.blocks
    for index, block in enumerate(blocks):
        span = starts.get(block.start)
        if span is None:
            continue
        loose = 0
        for at in range(index + 1, len(blocks)):  # each block looked at once: the walk stops at the next item
            other = blocks[at]
            if other.start >= span.end or other.kind in ("item", "heading"):
                break
            loose += (
                other.kind == "paragraph"
                and _bare_lines(state, other.start, other.end)
                and not state.is_footer(other)  # the file's closing stamp is no lesson
            )
        if loose:
            return (
                f"the reading is a guess: {loose} paragraph(s) after the list are read as part of the lesson "
                f"{span.title!r}; runner-up: lessons of their own (no pin chooses that mix; "
                f'entries = "paragraph" reads only paragraphs)'
            )
    return None


def _labelled(state: State, block: Block) -> bool:
    found = lead_label(state.first_text(block))
    return found is not None and found[1]


def _folded_bullets(found: Reading, state: State) -> str | None:
    """List-item lessons, a few labelled bullets of the same list read as the fields of the bullet
    before (``- **Fix:** …`` after a plain lesson bullet): those may be lessons of their own. Many
    such bullets are the file's field style, not a guess."""
    if found.unit != "list-item":
        return None
    by_start = {s.start: s for s in found.spans}
    lists = {b.start: b.list_id for b in state.blocks if b.kind == "item"}
    folded: list[str] = []
    current = None
    for block in state.blocks:
        if block.kind != "item":
            continue
        if block.start in by_start:
            current = by_start[block.start]
        elif (
            current is not None
            and block.start < current.end
            and lists.get(current.start) == block.list_id
            and _labelled(state, block)
            and not state.asks_to_record(block)  # a note on the file, read as nobody's field
        ):
            folded.append(current.title)
    if not folded or len(folded) * 4 > len(found.spans):
        return None
    return (
        f"the reading is a guess: {len(folded)} bullet(s) are read as fields of the lesson before "
        f"({folded[0]!r}); runner-up: lessons of their own (no pin chooses that mix; "
        f'entries = "list" reads every bullet)'
    )


def _pin_section(title: str, unit: str) -> str:
    """The section pin that reads ``title`` as ``unit``, as a line of ``[sections]``."""
    return f'pin [sections] {toml_string(" ".join(title.split()))} = "{unit}" in .claude/gotchas.toml'


def _edges_and_sample(run: list[Span]) -> tuple[list[Span], list[Span]]:
    """The two entries at each end of a run, where a part around the lessons (a summary, a
    log, how to use the file) sits, and up to 32 entries spread over the run, which say what
    its lessons share: a long run costs no more than a short one."""
    edges = run[:2] + run[-2:] if len(run) > 4 else run
    return edges, run[:: max(1, len(run) // 32)]


def _odd_title(found: Reading, state: State) -> str | None:
    """Lessons of which at least two in three share a way of writing their titles (numbered,
    dated, ``Pattern: …``), and one at either end of them written otherwise: it may be a part of
    the file around them (a summary, a verdict, how to use it), not a lesson. Headings are
    compared with their siblings, other entries with all entries of their kind."""
    for run in heading_runs(found.spans) + _unit_runs(found):
        edges, sample = _edges_and_sample(run)
        shapes = Counter(title_form(span.title) for span in sample)
        (usual, count), *_ = shapes.most_common(1)
        if usual is None or count * 3 < len(sample) * 2:
            continue
        odd = [span for span in edges if title_form(span.title) != usual]
        if odd:
            more = f" (and {len(odd) - 1} more)" if len(odd) > 1 else ""
            return (
                f"the reading is a guess: chose {len(run)} {unit_name(shape(odd[0]))}, most of them {usual}; "
                f"runner-up: {odd[0].title!r}{more}, written otherwise, is not a lesson; "
                + _leave_out(odd, run, state)
            )
    return None


def _unit_runs(found: Reading) -> list[list[Span]]:
    """The entries that are not headings, by kind (list items, lead-in paragraphs, rows), four
    or more of a kind."""
    runs: defaultdict[str, list[Span]] = defaultdict(list)
    for span in found.spans:
        if span.kind != "heading":
            runs[span.kind].append(span)
    return [run for run in runs.values() if len(run) >= 4]


def _leave_out(odd: Sequence[Span], run: Sequence[Span], state: State) -> str:
    """The pin that leaves ``odd`` out: its heading's, or the one section holding only odd
    entries (not the document's title, which holds them all); else none can."""
    if odd[0].kind == "heading":
        return "to choose it, " + _pin_section(odd[0].title, "none")
    sections = {span.section for span in odd}
    (section,) = sections if len(sections) == 1 else (None,)
    tops = state.tree.children
    if section and len(tops) == 1 and tops[0].title == section:
        section = None  # the document's title: pinning it leaves nothing out
    if section and all(span.section != section for span in run if span not in odd):
        return "to choose it, " + _pin_section(section, "none")
    return "no pin leaves out single entries"


_WORD = re.compile(r"\w+")


def _series_gap(found: Reading, state: State) -> str | None:
    """A section left out whose number is the one missing from the lessons' numbered series
    (``## 8. Naming rules`` between ``## 7.`` and ``## 9.``): its writer counted it among them,
    so it may be one of them written its own way (a table, a list of names). The pin that
    reads every heading of the series' level as a lesson takes it back."""
    gaps = [
        (note, number[0]) for note in found.left_out if (number := title_number(note.title)) and not number[1]
    ]
    if not gaps:
        return None  # most files: nothing numbered left out, so no series is asked for
    numbers: set[int] = set()
    levels: set[int] = set()
    for span in found.spans:
        number = title_number(span.title) if span.kind == "heading" else None
        if number is not None and not number[1]:
            numbers.add(number[0])
            levels.add(span.level)
    if len(numbers) < 3 or len(levels) != 1:
        return None
    for note, gap in gaps:
        if gap not in numbers and gap - 1 in numbers and gap + 1 in numbers:
            return (
                f"the reading is a guess: {note.title!r}, numbered among the {len(numbers)} numbered "
                "lessons, is read as no lesson; runner-up: it is one lesson too; to choose it, pin "
                f'entries = "h{levels.pop()}" in .claude/gotchas.toml'
            )
    return None


def _empty_lesson(found: Reading, state: State) -> str | None:
    """A heading lesson with a short title and next to nothing under it (``## Current records``
    over ``None yet.`` or a comment): a section waiting for lessons, not one."""
    for span in found.spans:
        if span.kind != "heading" or span.end - span.body > 8 or span.title.count(" ") > 6:
            continue  # a body of more than a few lines says something; a title of many words
        if words(span.title) > 3:
            continue
        said = sum(
            len(_WORD.findall(" ".join(state.lines[b.start : b.end])))
            for b in starting_within(state.blocks, span.body, span.end)
            if b.kind in ("paragraph", "item", "quote", "table", "fence")
        )
        if said < 3:
            return (
                f"the reading is a guess: {span.title!r} is read as a lesson but holds next to nothing; "
                "runner-up: it is a section waiting for lessons; to choose it, "
                + _pin_section(span.title, "none")
            )
    return None


def _one_of_many(found: Reading, state: State) -> str | None:
    """A file titled as lessons (``# Pitfalls``, ``# Mistake log``) read as one lesson: a log
    holding one lesson so far, or lessons written in a shape the reading did not see."""
    top = document(state.tree)
    if found.kind != "single-lesson" or top is None:
        return None
    title = top.title
    if not vocabulary.names_lessons(title) or vocabulary.names_one_lesson(title):
        return None
    guess = f"the reading is a guess: the file, titled {title!r}, is read as one lesson; runner-up: "
    kept = _outside_notes(top)
    if not kept:  # all of it under ``## Format`` or the like, which every pin leaves out
        return guess + "the lessons inside it (no pin reads them under a section about the file)"
    unit = _unit_within(kept, top)
    return guess + f'the lessons inside it; to choose it, pin entries = "{unit}" in .claude/gotchas.toml'


# where a section's name ends: its aside, or the subject after a colon or a dash (``Known bugs
# (updated by /spec)``, ``Lessons Learned - Kindle Parsing Bug Fix``)
_NAME_END = re.compile(r"[(（:：]|\s[-—–]\s")
# a character each of its matches holds: one search for these settles most titles at once, where
# ``_NAME_END`` tries both of its forms at every character
_NAME_END_MARK = re.compile(r"[(（:：—–-]")


def _plural(word: str) -> bool:
    """An English word in the plural, by its ending (``issues``, not ``process``)."""
    return word.endswith("s") and not word.endswith("ss")


def _lessons_name(title: str) -> bool:
    """Whether a title names lessons in a few words before its aside or subject, in the plural
    (``🐛 Known Issues``, ``Lessons Learned - Parsing Fix``); an entry's own number (``Mistake 1:
    …``) or the singular (``Known issue: …``) names one."""
    first = title.split(None, 4)
    if len(first) > 4:
        fifth = len(title) - len(first[4])
        if _NAME_END_MARK.search(title, 0, fifth) is None or _NAME_END.search(title, 0, fifth) is None:
            return False  # most lessons' titles: five words or more before any aside, a sentence
    cut = _NAME_END.search(title)
    head = title[: cut.start()] if cut is not None else title
    name = vocabulary.bare_title(head)
    if not name or name[-1:].isdigit() or words(name) > 3 or not vocabulary.names_lessons(name):
        return False
    if name.isascii() and not any(map(_plural, name.split())):
        return False  # ``Known issue: …``, ``Process mistake: …``: one, in the singular
    return not vocabulary.names_one_lesson(title)


# a lesson's own number after its name (``Mistake 1: …``, ``Lesson 12 — …``): one entry of many
_OWN_NUMBER = re.compile(r"^\W*\w+\s+#?\d+\b")


def _one_of_them(title: str) -> bool:
    """A lessons section's title naming lessons in the plural (``Section A — Test-Infrastructure
    Traps``), not one lesson (``Backend gotcha``, ``Mistake 1: …``, ``What did not go well``)."""
    bare = vocabulary.bare_title(title)
    if vocabulary.names_one_lesson(title) or _OWN_NUMBER.match(bare):
        return False
    if not title.isascii():
        return True  # a script without plural endings: its name is all there is to go by
    return any(_plural(w) and vocabulary.names_lessons(w) for w in bare.split())


def _section_of_many(found: Reading, state: State) -> str | None:
    """A heading read as one lesson whose title names lessons (``## 🐛 Known Issues``, ``#
    Lessons Learned - Parsing Fix``), or the section a guide's lessons were found in, read as
    one lesson under a plural title: a section of lessons read as one, as a file titled so can
    be. The runner-up reads the lessons inside it."""
    chosen = {s.start for s in found.sections} if found.kind == "lessons-section" else set()
    for span in found.spans:
        if span.kind != "heading":
            continue
        if not (span.start in chosen and _one_of_them(span.title)) and not _lessons_name(span.title):
            continue
        section = next((s for s in walk(state.tree) if s.start == span.start and s.heading is not None), None)
        if section is None:
            continue
        unit = _inner_unit(section)
        return (
            f"the reading is a guess: the section {span.title!r}, titled as lessons, is read as one lesson; "
            "runner-up: the lessons inside it; to choose it, " + _pin_section(span.title, unit)
        )
    return None


def _lessons_beside(found: Reading, state: State) -> str | None:
    """A guide's lessons section among siblings that may hold lessons too: one of a series
    written alike (``## 4. SFH pitfalls`` among ``## 1. Metallicity is solar-relative``, ``## 2.
    …``), or beside sections about neither the file, a report's parts nor the project's setup
    (``## [LESSON] …`` beside ``## [FIX] …``, ``## [CYCLE 4] …``). The runner-up reads the
    file whole. A record of progress is left alone: its status sections hold no lessons, nor is a
    postmortem: its other sections are the incident's own parts."""
    if found.kind != "lessons-section" or _progress_file(state) or found.reason.startswith("a postmortem:"):
        return None
    starts = {n.start for n in found.sections}
    for chosen in found.sections:
        parent = holding(state.tree, chosen.start)
        own = next((c for c in parent.children if c.start == chosen.start), None) if parent else None
        if parent is None or own is None or own.heading is None or own.level == 1:
            continue  # titles of the first level side by side are no series of one list
        others = [c for c in parent.children if c.heading is not None and c.start not in starts]
        form = title_form(own.title)
        alike = [c for c in others if form is not None and title_form(c.title) == form]
        if len(alike) >= _SERIES and len(alike) * 3 >= len(others) * 2:
            why = f"one of {len(alike) + 1} sections written alike"
        elif words(vocabulary.bare_title(own.title)) > 2 and _plain_beside(others):
            why = f"beside {len(others)} sections about neither the file nor the project"
        else:
            continue
        unit = f"h{own.level}"
        return (
            f"the reading is a guess: chose the lessons of {own.title!r}, {why}; runner-up: the file read "
            f'whole, its sections lessons too; to choose it, pin entries = "{unit}" in .claude/gotchas.toml'
        )
    return None


_SERIES = 4  # siblings at least, written as the lessons section is, to make a series of it


def _plain_beside(others: Sequence[Section]) -> bool:
    """Five sections or more beside the lessons, three in four of them not about the file, not a
    report's parts and not the project's setup: they may be lessons untitled as such."""
    plain = [c for c in others if not _kept_apart(c.title)]
    return len(plain) >= 5 and len(plain) * 4 >= len(others) * 3


def _kept_apart(title: str) -> bool:
    """A section about the file, a report's own part, or the project's setup: no lesson."""
    return aside.is_meta(title) or aside.is_report_part(title) or vocabulary.names_guide_section(title)


def _progress_file(state: State) -> bool:
    """A record of progress: titled so, or ticking steps off."""
    top = document(state.tree)
    if top is not None and vocabulary.names_progress(top.title):
        return True
    return _ticks(state)


def _ticks(state: State) -> bool:
    """Whether any item is a checkbox or a done mark: steps ticked off, as progress is kept."""
    return any(b.kind == "item" and state.is_tick(b) for b in state.blocks)


def _inner_unit(section: Section) -> str:
    """The unit of the lessons inside a section titled as lessons: its sub-sections' level, or
    the bullets when every sub-section is a list alone (``### Minor bugs`` over bugs)."""
    children = section.children
    if not children:
        return _unit_within([section], section)
    if all(not c.children and c.body and all(b.kind == "item" for b in c.body) for c in children):
        return "list"
    return f"h{children[0].level}"


def _one_body(found: Reading, state: State) -> str | None:
    """A file read as one lesson only because nothing in it takes a lesson's shape, under a title
    of three words at most (``# Day 1`` over three sentences, ``# Things I've Learned`` over a few
    tips) or under no title at all, its first line standing in for one: such a title names a
    topic, where one lesson's title says what was learned. A front matter's ``title:`` is
    weighed as a heading is; its ``name:`` (a memory's) names the one lesson, whatever its
    length. The runner-up is its bullets or paragraphs, each a lesson, or no lesson at all."""
    if found.kind != "single-lesson" or found.reason != ONE_BODY:
        return None
    if state.matter_value("name"):
        return None
    titled = bool(state.matter_value("title")) or "heading" in map(KIND, state.blocks)
    if titled and words(found.spans[0].title) > 3:
        return None
    unit, count, units = _plain_units(state)
    guess = "the reading is a guess: the file has no shape lessons take and is read as one lesson; "
    guess += "runner-up: "
    if count < 2:
        return guess + 'no lesson at all; to choose it, pin entries = "none" in .claude/gotchas.toml'
    return (
        guess + f'its {count} {units}, each a lesson; to choose it, pin entries = "{unit}" in '
        '.claude/gotchas.toml (entries = "none" reads no lesson at all)'
    )


def _none_under_lessons(found: Reading, state: State) -> str | None:
    """A file titled as lessons read as holding none, for want of any lesson's shape: its text
    may be a template or its rules, or lessons written as plain paragraphs or bullets. The
    runner-up is those, each a lesson."""
    if found.reason != NONE_UNDER_LESSONS:
        return None
    unit, count, units = _plain_units(state)
    return (
        "the reading is a guess: the file is titled as lessons but holds none in a shape lessons take; "
        f'runner-up: its {count} {units}, each a lesson; to choose it, pin entries = "{unit}" in '
        ".claude/gotchas.toml"
    )


def _plain_units(state: State) -> tuple[str, int, str]:
    """The units a file in no lesson's shape would be read as, pinned: its bullets when it has
    two or more, else its paragraphs; the pin's unit, how many, and their name."""
    kinds = Counter(b.kind for b in state.blocks if b.kind in ("item", "paragraph"))
    if kinds["item"] >= 2:
        return "list", kinds["item"], "bullets"
    return "paragraph", kinds["paragraph"], "paragraphs"


def _unit_within(sections: Sequence[Section], own: Section) -> str:
    """The unit a pin would read in ``sections`` (``own`` and its parts): the heading level
    found most under ``own``, else table rows, bullets or paragraphs."""
    levels = Counter(s.level for s in sections if s is not own)
    kinds = {b.kind for s in sections for b in s.body}
    if levels:
        return f"h{max(levels, key=lambda level: (levels[level], -level))}"
    return "table-row" if "table" in kinds else "list" if "item" in kinds else "paragraph"


# how to handle errors, a guide's practice, names no problem met (``Error Handling``, ``错误处理模式``)
_HANDLING = re.compile(
    r"(?:errors?|exceptions?)\s+handling|handling\s+(?:errors|exceptions)|bug\s+fixing|"
    r"(?:错误|异常)处理|エラー(?:処理|ハンドリング)|(?:에러|오류|예외)\s*처리",
    re.IGNORECASE,
)


def _problems_unread(found: Reading, state: State) -> str | None:
    """A file read as holding no lessons, one of whose sections is titled as problems met
    (``## Anti-Patterns``, ``## Common errors``) in words the lessons vocabulary leaves out:
    that section may hold the lessons."""
    if found.kind != "not-lessons":
        return None
    top = document(state.tree)
    for section in walk(state.tree):
        if section.heading is None or section is top:
            continue
        if (
            vocabulary.names_problems(section.title)
            and not vocabulary.names_lessons(section.title)
            and not _HANDLING.search(vocabulary.plain(section.title))
        ):
            written = [b for s in walk(section) for b in s.body if b.kind in ("item", "paragraph")]
            if written and all(blank_form(state.lines[b.start : b.end]) for b in written):
                continue  # a template's blanks (``1. **Issue**: [Issue Name]``): nothing unread
            unit = _unit_within(list(walk(section)), section)
            return (
                f"the reading is a guess: the file is read as holding no lessons, but {section.title!r} is "
                "titled as problems met; runner-up: its entries are lessons; to choose it, "
                + _pin_section(section.title, unit)
            )
    return None


def _titled_as_guide(found: Reading, state: State) -> str | None:
    """A file titled as a guide or its rules (``# Rules: Errors``, ``# Debugging Guide``), in
    words naming no lessons, read as a file of lessons: its sections may be the guide's rules,
    holding none."""
    top = document(state.tree)
    if found.kind != "lessons" or top is None:
        return None
    title = top.title
    if not vocabulary.GUIDE_TITLE.compiled.search(title) or vocabulary.names_lessons(title):
        return None
    return (
        f"the reading is a guess: the file, titled {title!r} as a guide, is read as {len(found.spans)} "
        'lessons; runner-up: its rules are no lessons learned; to choose it, pin entries = "none" '
        "in .claude/gotchas.toml"
    )


def _debugging_method(found: Reading, state: State) -> str | None:
    """A file titled as debugging (``# Debugging Protocol``, ``# Debug Diagnostics``) in words
    naming no lessons, read as lessons, none of whose sections is titled as problems met or
    lessons: it may be a method to follow or tools to use, holding no lesson learned."""
    top = document(state.tree)
    if found.kind == "not-lessons" or top is None:
        return None
    title = top.title
    if not vocabulary.DEBUGGING_TITLE.compiled.search(title) or vocabulary.names_lessons(title):
        return None
    parts = [s for s in walk(top) if s is not top]
    if any(vocabulary.names_problems(s.title) or vocabulary.names_lessons(s.title) for s in parts):
        return None
    return (
        f"the reading is a guess: the file, titled {title!r} as a way to debug, is read as "
        f"{len(found.spans)} lesson(s); runner-up: it is a method to follow, with no lesson learned; "
        'to choose it, pin entries = "none" in .claude/gotchas.toml'
    )


def _review(found: Reading, state: State) -> str | None:
    """A retrospective or a postmortem of a stretch of work (``# Sprint Retrospective``, ``#
    Phase 1 Postmortem``), not of one incident, read as lessons: what went well, what did not
    and what comes next are its parts, and readers split such a file in more ways than one.
    The runner-up is each of its sections a lesson, else each of their sub-sections or bullets,
    else the whole review as one."""
    top = document(state.tree)
    if found.kind not in ("lessons", "lessons-section") or top is None:
        return None
    if not vocabulary.REVIEW_TITLE.compiled.search(top.title) or found.reason.startswith("a postmortem:"):
        return None
    level = min((s.level for s in top.children), default=0)
    deeper = [s.level for s in walk(top) if s.level > level]
    if level and found.unit != f"h{level}":
        runner_up, unit = "its sections, each a lesson", f"h{level}"
    elif deeper:
        runner_up, unit = "its sub-sections, each a lesson", f"h{min(deeper)}"
    elif any(b.kind == "item" for s in walk(top) for b in s.body) and found.unit != "list-item":
        runner_up, unit = "its bullets, each a lesson", "list"
    else:
        runner_up, unit = "the whole review as one lesson", "single"
    return (
        f"the reading is a guess: the review {top.title!r} is read as {len(found.spans)} lessons; "
        f'runner-up: {runner_up}; to choose it, pin entries = "{unit}" in .claude/gotchas.toml'
    )


# a rule's own description in its front matter (``description: Always update BUGS.md …``)
_DESCRIPTION = re.compile(r"^(?:description|name)\s*:(.*)$")
# a Markdown file it names (``BUGS.md``, ``docs/lessons-learned.md``, ``cursor.md``)
_FILE_NAMED = re.compile(r"(?<![\w./-])[\w./-]{1,200}\.mdc?\b")


def _kept_elsewhere(found: Reading, state: State) -> str | None:
    """A rule whose front matter describes it by another Markdown file (``description: Read
    LESSONS.md before work; add a lesson after``, ``Always update BUGS.md``), read as lessons:
    it may be how to keep that file, holding none of its own."""
    if found.kind == "not-lessons" or state.matter is None:
        return None
    for line in state.lines[state.matter[0] : state.matter[1]]:
        described = _DESCRIPTION.match(line)
        named = _FILE_NAMED.search(described[1]) if described else None
        if named is not None:
            return (
                f"the reading is a guess: the file's front matter names {named[0]}; runner-up: it is "
                "a rule for keeping that file, with no lessons of its own; to choose it, pin "
                'entries = "none" in .claude/gotchas.toml'
            )
    return None


def _outside_notes(section: Section) -> list[Section]:
    """The section and its sub-sections, less those about the file (``## Format``) with theirs,
    as a pin leaves them out; none when the section holds nothing else."""
    out = [section]
    for child in section.children:
        if not recording.about_recording(child.title):
            out.extend(_outside_notes(child))
    return out if len(out) > 1 or any(b.kind != "hr" for b in section.body) else []


DOUBTS: tuple[tuple[str, Callable[[Reading, State], str | None]], ...] = (
    ("entries of mixed shapes", _mixed),
    ("a section left out, numbered in the gap of the lessons' series", _series_gap),
    ("a sibling of the lessons section holds lessons too", _sibling_units),
    ("paragraphs run on after a list of lessons", _loose_paragraphs),
    ("a few bullets read as the fields of the bullet before", _folded_bullets),
    ("a lesson at either end titled otherwise than most of its kind", _odd_title),
    ("a short-titled lesson with next to nothing in it", _empty_lesson),
    ("a file titled as lessons read as one lesson", _one_of_many),
    ("a section titled as lessons read as one lesson", _section_of_many),
    ("a guide's lessons section beside sections that may hold lessons", _lessons_beside),
    ("a file read as one lesson for want of any shape", _one_body),
    ("a file titled as lessons read as holding none, for want of any shape", _none_under_lessons),
    ("a file read as holding none, with a section titled as problems", _problems_unread),
    ("a file titled as a guide read as lessons", _titled_as_guide),
    ("a file titled as debugging read as lessons, no section titled as problems", _debugging_method),
    ("a rule described by another file", _kept_elsewhere),
    ("a review of a stretch of work read as lessons", _review),
)


def notice(found: Reading, state: State) -> str | None:
    """The one-line notice of the first doubt that speaks; none for a pinned reading."""
    if found.pinned:
        return None
    for _, doubt in DOUBTS:
        said = doubt(found, state)
        if said is not None:
            return said
    return None
