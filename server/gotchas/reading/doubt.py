"""Say when the reading is a guess: a runner-up reading close to the chosen one, and the pin
that would choose it.

A reading is right or wrong as a whole, and a person cannot tell which from a listing. The
signs that two readings were close are structural and cheap to see once the reading is done:
entries of several shapes (a reader chose a lesson in one section and a group in its sibling).
Each sign is one
function in ``DOUBTS``; the first that speaks gives the one-line notice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from gotchas.blockmap import Block
from gotchas.reading.model import Reading, shape
from gotchas.reading.state import State
from gotchas.reading.text import lead_label
from gotchas.reading.tree import Section
from gotchas.reading.units import lesson_items

_PINS = {"list-item": "list", "table-row": "table-row", "hr-block": "hr-block", "paragraph": "paragraph"}
_NAMES = {
    "list-item": "list items",
    "table-row": "table rows",
    "hr-block": "--- blocks",
    "paragraph": "lead-in paragraphs",
}


def _name(unit: str) -> str:
    return _NAMES.get(unit, f"{unit} headings")


def _mixed(found: Reading, state: State) -> str | None:
    """Entries of several shapes: the runner-up keeps only the most common one."""
    if found.unit != "mixed":
        return None
    shapes = Counter(shape(s) for s in found.spans)
    (top, count), *_ = shapes.most_common(1)
    parts = ", ".join(f"{n} {_name(u)}" for u, n in shapes.most_common())
    pin = _PINS.get(top, top)
    return (
        f"the reading is a guess: chose {len(found.spans)} entries of mixed shapes ({parts}); "
        f"runner-up: the {count} {_name(top)} alone; "
        f'to choose it, pin entries = "{pin}" in .claude/gotchas.toml'
    )


def _sibling_units(found: Reading, state: State) -> str | None:
    """A lessons section in a progress file (ticks elsewhere) whose sibling holds items of the
    same list kind (``Known issues`` beside ``Blockers``): the runner-up reads both."""
    if found.kind != "lessons-section" or len(found.sections) != 1 or found.unit != "list-item":
        return None
    if not any(b.kind == "item" and state.is_tick(b) for b in state.blocks):
        return None
    chosen = found.sections[0]
    ordered = found.spans[0].marker[:1].isdigit()
    parent = _holding(state.tree, chosen.start)
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


def _holding(section: Section, start: int) -> Section | None:
    """The section whose child starts on line ``start``."""
    for child in section.children:
        if child.start == start:
            return section
        if child.start < start < child.end:
            return _holding(child, start)
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
            loose += other.kind == "paragraph" and _bare_lines(state, other.start, other.end)
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
        ):
            folded.append(current.title)
    if not folded or len(folded) * 4 > len(found.spans):
        return None
    return (
        f"the reading is a guess: {len(folded)} bullet(s) are read as fields of the lesson before "
        f"({folded[0]!r}); runner-up: lessons of their own (no pin chooses that mix; "
        f'entries = "list" reads every bullet)'
    )


DOUBTS: tuple[tuple[str, Callable[[Reading, State], str | None]], ...] = (
    ("entries of mixed shapes", _mixed),
    ("a sibling of the lessons section holds lessons too", _sibling_units),
    ("paragraphs run on after a list of lessons", _loose_paragraphs),
    ("a few bullets read as the fields of the bullet before", _folded_bullets),
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
