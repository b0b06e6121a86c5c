"""Sibling rules: sections of one shape under one heading play one role.

A reader who has seen four ``## Topic`` sections each holding a list of lessons reads the
fifth, also a heading over nothing but a list, as a fifth group, whatever its title says
(``## Askama 0.14``, ``## Column names`` with one ``**Fix:**`` bullet among plain facts);
and among headings over a few fact bullets read as lessons, one more such heading is a
lesson too; headings over the same kind of table alone are groups of its rows alike; and
headings numbered in one series are lessons alike, sub-headings or not. The
title and the bullets' labels weigh one section at a time; the siblings' shape weighs the
file. ``SIBLING_RULES`` holds the rules as (name, rule) rows; each gets the children as read
with the notes each added, and returns them read again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from gotchas import vocabulary
from gotchas.blockmap import KIND, Block
from gotchas.reading.leaf import marked, unmarked_role
from gotchas.reading.model import Note, Span
from gotchas.reading.series import supersedes, title_number
from gotchas.reading.state import State
from gotchas.reading.text import MARK, own_field_line
from gotchas.reading.titles import names_date_alone
from gotchas.reading.tree import Section
from gotchas.reading.units import unit_spans

Read = list[tuple[Section, list[Span]]]
# for each child, the groups and left-out notes it added: [g0, g1) and [l0, l1)
Added = list[tuple[int, int, int, int]]
SiblingRule = Callable[[State, Read, Added], tuple[Read, Added]]


def _list_only(state: State, section: Section) -> bool:
    """A leaf whose body is a list and nothing else, a red-herring mark and its quote aside
    (marking a lesson must not change how its siblings read)."""
    if section.children or "item" not in map(KIND, section.body):
        return False  # most bodies hold no list: told in C, before any block is looked at
    found = False
    for b in section.body:  # most others open with prose: settled at their first block
        if b.kind == "item":
            found = True
        elif b.kind not in ("html", "hr"):
            if b.kind != "paragraph" or not MARK.compiled.match(state.lines[b.start]):
                return False  # prose of its own, not this tool's mark
            content = state.own_content(section)
            return bool(content) and all(c.kind == "item" for c in content)
    return found


def _own_fields(state: State, section: Section) -> bool:
    """This tool's entry fields (``tasks:``, ``supersedes:``) in a section's own text: a lesson,
    whatever its siblings are; a red-herring mark alone does not count, nor the fields of a
    list item (a bullet lesson added to a group carries its own)."""
    return any(
        own_field_line(line)
        for b in section.body
        if b.kind != "item"
        for line in state.lines[b.start : b.end]
    )


def _role(section: Section, spans: Sequence[Span]) -> str | None:
    if len(spans) == 1 and spans[0].kind == "heading" and spans[0].start == section.start:
        return "lesson"
    if spans and all(s.kind == "item" and s.start > section.start for s in spans):
        return "group"
    return None


def _list_sections_agree(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    """Among three or more sibling headings over a list alone, at least two thirds read one
    way (groups of bullet lessons, or lessons of fact bullets): the others read that way too,
    unless one carries this tool's entry fields or opens with a red-herring mark."""
    roles = [
        # a leaf this tool marked weighs as it read before the mark, which made it one lesson
        (i, unmarked_role(state, child) if marked(state, child) else _role(child, spans))
        for i, (child, spans) in enumerate(read)
        if _list_only(state, child)
    ]
    roles = [(i, role) for i, role in roles if role is not None]
    if len(roles) < 3:
        return read, added
    (major, count), *_ = Counter(role for _, role in roles).most_common(1)
    if count * 3 < len(roles) * 2 or count == len(roles):
        return read, added
    flips: dict[int, tuple[list[Span], list[Note]]] = {}
    for i, role in roles:
        if role == major:
            continue
        child, _ = read[i]
        first = next(b for b in child.body if b.kind not in ("html", "hr"))
        if _own_fields(state, child) or MARK.compiled.match(state.lines[first.start]):
            continue
        if major == "lesson":
            if names_date_alone(child.title):
                continue  # ``## 2026-06-27`` over its bullets: a day's lessons, whatever its siblings
            why = f"a lesson: {count} of its {len(roles)} sibling headings over a list alone are lessons"
            flips[i] = ([state.heading_span(child, why)], [])
            continue
        units = unit_spans(state, child, child.body, child.end, "") or []
        if not units or any(s.kind != "item" for s in units):
            continue
        why = f"a group: {count} of its {len(roles)} sibling headings over a list alone are groups"
        note = Note(child.start, child.body_start, "group", child.title, why)
        spans = [
            Span(
                s.kind,
                s.start,
                s.body,
                s.end,
                s.title,
                s.level,
                s.marker,
                child.title,
                f"a lesson in the group {child.title!r}",
            )
            for s in units
        ]
        flips[i] = (spans, [note])
    if not flips:
        return read, added
    return _replace(state, read, added, flips)


def _replace(
    state: State, read: Read, added: Added, flips: dict[int, tuple[list[Span], list[Note]]]
) -> tuple[Read, Added]:
    """The children with ``flips`` applied: a flipped child's spans and group notes replaced,
    its left-out notes (a group's introduction) dropped; the notes' places counted again."""
    groups, left = state.groups, state.left_out
    first_g = added[0][0] if added else len(groups)
    first_l = added[0][2] if added else len(left)
    new_groups, new_left = groups[:first_g], left[:first_l]
    out_read: Read = []
    out_added: Added = []
    for i, ((child, spans), (g0, g1, l0, l1)) in enumerate(zip(read, added, strict=True)):
        g_start, l_start = len(new_groups), len(new_left)
        if i in flips:
            now, notes = flips[i]
            new_groups.extend(notes)
        else:
            now = spans
            new_groups.extend(groups[g0:g1])
            new_left.extend(left[l0:l1])
        out_read.append((child, now))
        out_added.append((g_start, len(new_groups), l_start, len(new_left)))
    last_g = added[-1][1] if added else len(groups)
    last_l = added[-1][3] if added else len(left)
    new_groups.extend(groups[last_g:])
    new_left.extend(left[last_l:])
    state.groups[:] = new_groups
    state.left_out[:] = new_left
    return out_read, out_added


def _lone_table(state: State, section: Section) -> Block | None:
    """The table a leaf's body is, and nothing else (rules, comments and a red-herring mark
    aside); else None."""
    if section.children or "table" not in map(KIND, section.body):
        return None  # most bodies hold no table: told in C, before a list of their blocks is made
    blocks = [b for b in section.body if b.kind not in ("html", "hr")]
    if len(blocks) == 3 and blocks[1].kind == "quote" and blocks[2].kind == "table":
        blocks = state.own_content(section)  # a mark and its quote above the table, perhaps
    return blocks[0] if len(blocks) == 1 and blocks[0].kind == "table" else None


def _table_role(section: Section, spans: Sequence[Span]) -> str | None:
    """``group`` for a leaf read as its table's rows, else as ``_role`` reads it."""
    if spans and all(s.kind == "row" for s in spans):
        return "group"
    return _role(section, spans)


def _table_sections_agree(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    """Sibling headings over a table alone, at least as many of them read as groups of row
    lessons as read as one lesson: the others are groups of their rows too (``## Git
    operations — preserving work`` over the same Issue | Solution table as its sibling). A
    heading over measurements (a number in every row) is a lesson of its own kind, not counted."""
    tables = [
        (i, child, spans, table)
        for i, (child, spans) in enumerate(read)
        if (table := _lone_table(state, child)) is not None
        and not (state.data_table(table) or state.file_map(table))
    ]
    # a leaf this tool marked weighs as it read before the mark, and keeps its reading
    roles = [
        (i, child, table, unmarked_role(state, child) if marked(state, child) else _table_role(child, spans))
        for i, child, spans, table in tables
    ]
    groups = [i for i, _, _, role in roles if role == "group"]
    lessons = [(i, child, table) for i, child, table, role in roles if role == "lesson"]
    if not groups or not lessons or len(groups) < len(lessons):
        return read, added
    why = f"a group: {len(groups)} of its sibling headings over a table alone are groups of rows"
    flips: dict[int, tuple[list[Span], list[Note]]] = {}
    for i, child, table in lessons:
        if _own_fields(state, child) or marked(state, child):
            continue
        rows = state.row_spans(table, child, f"a lesson in the group {child.title!r}")
        if rows:
            flips[i] = (rows, [Note(child.start, child.body_start, "group", child.title, why)])
    if not flips:
        return read, added
    return _replace(state, read, added, flips)


def _numbered(section: Section) -> bool:
    """A heading numbered in a series (``## 10. …``), not with a sub-number (``### 3.1 …``)."""
    found = title_number(section.title)
    return found is not None and not found[1]


def _numbered_sections_agree(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    """Headings numbered in one series are one kind of thing. Where more of them read as
    lessons than as groups, one read as a group of its sub-sections is a lesson too, its
    sub-headings its parts (``## 10. Models`` over ``### Current`` and ``### Retired`` among
    nine numbered lessons). One titled as lessons, or over numbered sub-headings or sub-headings
    titled as lessons, stays a group; a successor this tool wrote does not count."""
    if not any(child.children for child, _ in read):
        return read, added  # most siblings are leaves: none is a group to read again
    numbered = [(i, child, spans) for i, (child, spans) in enumerate(read) if _numbered(child)]
    if len(numbered) < 3:
        return read, added  # most sections: no series of numbered siblings
    lessons = 0
    groups: list[int] = []
    for i, child, spans in numbered:
        if _role(child, spans) == "lesson":
            lessons += not supersedes(state, spans[0])
        elif (
            child.children
            and spans
            and all(s.start > child.start for s in spans)
            and not vocabulary.names_lessons(child.title)
            and not any(_numbered(c) or vocabulary.names_lessons(c.title) for c in child.children)
        ):
            groups.append(i)
    if not groups or lessons <= len(groups):
        return read, added
    why = f"a lesson: {lessons} of its {len(numbered)} numbered sibling headings are lessons"
    flips: dict[int, tuple[list[Span], list[Note]]] = {
        i: ([state.heading_span(read[i][0], why)], []) for i in groups
    }
    return _replace(state, read, added, flips)


# (name, rule), each applied in turn to the children as the previous one left them
SIBLING_RULES: tuple[tuple[str, SiblingRule], ...] = (
    ("list sections agree", _list_sections_agree),
    ("table sections agree", _table_sections_agree),
    ("numbered sections agree", _numbered_sections_agree),
)


def share_roles(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    for _name, rule in SIBLING_RULES:
        read, added = rule(state, read, added)
    return read, added
