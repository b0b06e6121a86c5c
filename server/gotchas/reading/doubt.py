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

from gotchas.reading.model import Reading, shape
from gotchas.reading.state import State

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


DOUBTS: tuple[tuple[str, Callable[[Reading, State], str | None]], ...] = (
    ("entries of mixed shapes", _mixed),
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
