"""Sibling rules: sections of one shape under one heading play one role.

A reader who has seen four ``## Topic`` sections each holding a list of lessons reads the
fifth, also a heading over nothing but a list, as a fifth group, whatever its title says
(``## Askama 0.14``, ``## Column names`` with one ``**Fix:**`` bullet among plain facts);
and among headings over a few fact bullets read as lessons, one more such heading is a
lesson too. The title and the bullets' labels weigh one section at a time; the siblings'
shape weighs the file. ``SIBLING_RULES`` holds the rules as (name, rule) rows; each gets the
children as read with the notes each added, and returns them read again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from gotchas.reading.model import Note, Span
from gotchas.reading.state import State
from gotchas.reading.text import ENTRY_FIELD, MARK
from gotchas.reading.titles import title_evidence
from gotchas.reading.tree import Section
from gotchas.reading.units import unit_spans

Read = list[tuple[Section, list[Span]]]
# for each child, the groups and left-out notes it added: [g0, g1) and [l0, l1)
Added = list[tuple[int, int, int, int]]
SiblingRule = Callable[[State, Read, Added], tuple[Read, Added]]


def _list_only(section: Section) -> bool:
    """A leaf whose body is a list and nothing else, or one table and nothing else."""
    if section.children:
        return False
    content = [b for b in section.body if b.kind not in ("html", "hr")]
    if len(content) == 1 and content[0].kind == "table":
        return True
    return bool(content) and all(b.kind == "item" for b in content)


def _own_fields(state: State, section: Section) -> bool:
    """This tool's entry fields (``tasks:``, ``supersedes:``) in a section: a lesson, whatever its
    siblings are; a red-herring mark alone does not count."""
    return any(
        ENTRY_FIELD.match(line) and not MARK.compiled.match(line)
        for b in section.body
        for line in state.lines[b.start : b.end]
    )


def _role(section: Section, spans: Sequence[Span]) -> str | None:
    if len(spans) == 1 and spans[0].kind == "heading" and spans[0].start == section.start:
        return "lesson"
    if spans and all(s.kind in ("item", "row") and s.start > section.start for s in spans):
        return "group"
    return None


def _list_sections_agree(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    """Among three or more sibling headings over a list (or a table) alone, at least two thirds read one
    way (groups of bullet lessons, or lessons of fact bullets): the others read that way too,
    unless one carries this tool's entry fields or opens with a red-herring mark."""
    roles = [(i, _role(child, spans)) for i, (child, spans) in enumerate(read) if _list_only(child)]
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
            why = f"a lesson: {count} of its {len(roles)} sibling headings over a list alone are lessons"
            flips[i] = ([state.heading_span(child, why)], [])
            continue
        units = unit_spans(state, child, child.body, child.end, "") or []
        if not units or any(s.kind not in ("item", "row") for s in units):
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


def _lessons_agree(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    """Among four or more sibling headings, at least two in three read as lessons: a sibling read
    as a group of lead-in paragraphs, table rows or blocks is a lesson too, those its parts
    (``**Formula:**`` over a code block, a table of values); so is one whose sub-headings only
    name its parts (``### Staging tables``), none numbered, quoting code or stating a claim. A
    title reading as a category twice over (a short name and a date) keeps its group, and so do
    lead-ins that state lessons rather than label parts."""
    if len(read) < 4:
        return read, added
    roles = [_role(child, spans) for child, spans in read]
    candidates = [i for i, role in enumerate(roles) if role != "lesson" and _may_flip(state, read, i)]
    if not candidates:
        return read, added
    # a lesson this tool added (a heading with its own fields) is not counted: an edit must not
    # change the vote
    voters = [
        role
        for (child, _), role in zip(read, roles, strict=True)
        if not (role == "lesson" and _own_fields(state, child))
    ]
    lessons = voters.count("lesson")
    if len(voters) < 4 or lessons * 3 < len(voters) * 2:
        return read, added
    why = f"a lesson: {lessons} of its {len(voters)} sibling headings are lessons; its units its parts"
    flips: dict[int, tuple[list[Span], list[Note]]] = {
        i: ([state.heading_span(read[i][0], why)], []) for i in candidates
    }
    return _replace(state, read, added, flips)


def _may_flip(state: State, read: Read, i: int) -> bool:
    """A sibling not read as a lesson whose units or sub-headings may be a lesson's parts."""
    child, spans = read[i]
    if not spans or title_evidence(child.title)[0] >= 2:
        return False
    if child.children:
        if any(title_evidence(c.title)[0] < 0 or c.children for c in child.children):
            return False
        if any(s.kind == "heading" and s.level == child.level for s in spans):
            return False
        marks = {mark_of(c.title) for c, _ in read} - {""}
        if any(mark_of(c.title) in marks for c in child.children):
            return False  # a sub-heading opening with its siblings' mark is a lesson too
    elif any(s.kind not in ("paragraph", "row", "block") or s.start <= child.start for s in spans):
        return False
    elif spans[0].kind == "paragraph" and not _labels(state, spans):
        return False  # lead-ins that say something (``**Service root = discovery.** …``) are lessons
    return not _own_fields(state, child)


def _labels(state: State, spans: Sequence[Span]) -> bool:
    """Half or more of the lead-in paragraphs are a label alone (``**Formula:**``) over a code
    block, a table or a list: the parts of one lesson."""
    blocks = {b.start: b for b in state.blocks}
    bare = sum(1 for s in spans if s.start in blocks and state.is_label_paragraph(blocks[s.start]))
    return bare * 2 >= len(spans)


def mark_of(title: str) -> str:
    """The symbol a title opens with (``⚠️``, ``✅``, ``🔴``), or ``""``."""
    head = title.lstrip()[:1]
    return head if head and not head.isalnum() and head not in "`*_[(\"'#" else ""


# (name, rule), each applied in turn to the children as the previous one left them
SIBLING_RULES: tuple[tuple[str, SiblingRule], ...] = (
    ("list sections agree", _list_sections_agree),
    ("lessons agree", _lessons_agree),
)


def share_roles(state: State, read: Read, added: Added) -> tuple[Read, Added]:
    for _name, rule in SIBLING_RULES:
        read, added = rule(state, read, added)
    return read, added
