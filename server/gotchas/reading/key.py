"""A file's key: the labels it uses further on, listed before them with what each means.

A writer who opens with ``- 🔴 **CRITICAL** — blocks users`` over sections titled ``🔴
CRITICAL``, or a ``| tag | means |`` table over lessons tagged ``⭐ `adopt` ``, has explained
the file's own labels: those lines are no lessons. A key comes before what it explains and
names each label once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas import table as table_rows
from gotchas import vocabulary
from gotchas.blockmap import Block
from gotchas.reading.state import State
from gotchas.reading.text import BOLD_LABEL

# a label's words, and each line that uses them with the header of its table (none: a heading)
Sites = dict[str, list[tuple[int, tuple[str, ...]]]]
_LABEL_END = re.compile(r"\s[—–-]\s|[:：]\s")
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def label_key(text: str) -> str:
    """A label as compared across the file: its words, less emphasis, code marks and emoji."""
    return " ".join(_WORD.findall(vocabulary.plain(text).lower()))


def list_is_key(state: State, items: Sequence[Block]) -> bool:
    """A list whose items' labels (a bold lead, or the text before a dash or colon) are the
    file's own labels further on."""
    if len(items) < 3:
        return False
    labels = [_lead(state.first_text(item))[0] for item in items]
    return is_key(state, labels, items[-1].end)


def _lead(text: str) -> tuple[str, bool]:
    """An item's label: its bold lead, or the text before a dash or colon (else all of it); and
    whether it had one."""
    bold = BOLD_LABEL.match(text)
    if bold:
        return bold["label"], True
    parts = _LABEL_END.split(text, maxsplit=1)
    return parts[0], len(parts) == 2


def item_label(state: State, item: Block) -> str | None:
    """The label an item opens with (``**High:**``, ``🔴 **Blocker** —``, ``P0 -``), as compared
    across the file; None for an item with none, or one longer than a label."""
    label, found = _lead(state.first_text(item))
    key = label_key(label) if found else ""
    return key if key and key.count(" ") < _MAX_WORDS else None


def table_is_key(state: State, table: Block) -> bool:
    """A table whose first cells are the file's own labels further on. Tables with the same
    header (one lesson's ``| Item | Detail |`` each) share their labels as parts."""
    lines = state.lines
    stop = table_rows.rows_end(lines, table.start + 2, table.end)
    rows = (table_rows.cells(lines[n]) for n in range(table.start + 2, stop))
    firsts = [cells[0] for cells in rows if cells]
    return is_key(state, firsts, table.end, tuple(table_rows.cells(lines[table.start])))


def table_restates(state: State, table: Block) -> bool:
    """A table of three rows or more whose first cells each restate a heading of the file
    (``| Plaintext credentials | Critical | FIXED |`` for ``### 1. ~~Plaintext Credentials in
    Git~~ (FIXED)``), two in three of them: a tracker of the entries, not entries of its own."""
    lines = state.lines
    stop = table_rows.rows_end(lines, table.start + 2, table.end)
    firsts = [cells[0] for n in range(table.start + 2, stop) if (cells := table_rows.cells(lines[n]))]
    if len(firsts) < 3:
        return False
    titles = [set(label_key(b.title).split()) for b in state.blocks if b.kind == "heading"]
    restated = 0
    for cell in firsts:
        words = set(label_key(cell).split())
        # two words or more, two in three of them in one heading's title
        if len(words) >= 2 and any(len(words & title) * 3 >= len(words) * 2 for title in titles):
            restated += 1
    return restated * 3 >= len(firsts) * 2


def is_key(state: State, labels: Sequence[str], after: int, header: tuple[str, ...] = ()) -> bool:
    """Three labels or more of a few words, named once each, every one used after line
    ``after`` as a heading's title or a table row's first cell, or as the first words of one
    (``✅ FIXED (keep for reference)`` for ``✅ **FIXED**``)."""
    wanted = {label_key(label) for label in labels}
    wanted.discard("")
    if len(wanted) < 3 or len(wanted) < len(labels) or any(w.count(" ") >= _MAX_WORDS for w in wanted):
        return False
    sites = _sites(state)
    return all(
        any(line >= after and not (header and used == header) for line, used in sites.get(label, ()))
        for label in wanted
    )


_MAX_WORDS = 4  # a label is a few words; a longer first line is a lesson's own


def _sites(state: State) -> Sites:
    """Where the file uses each label: every heading's title and table row's first cell, and
    each of their first few words, with the line and the table's header (none for a heading).
    Found once a file, when a list or table first asks."""
    if state.label_sites is not None:
        return state.label_sites
    sites: Sites = {}
    lines = state.lines
    for block in state.blocks:
        if block.kind == "heading":
            _add(sites, label_key(block.title), block.start, ())
        elif block.kind == "paragraph":
            # a lesson's field led in bold (``**Context.** …``): a list naming those fields
            # before the lessons is the form of an entry
            bold = BOLD_LABEL.match(lines[block.start].strip())
            if bold:
                _add(sites, label_key(bold["label"]), block.start, ("bold",))
        elif block.kind == "table":
            header = tuple(table_rows.cells(lines[block.start]))
            for n in range(block.start + 2, table_rows.rows_end(lines, block.start + 2, block.end)):
                cells = table_rows.cells(lines[n])
                if cells:
                    _add(sites, label_key(cells[0]), n, header)
    state.label_sites = sites
    return sites


def _add(sites: Sites, key: str, line: int, header: tuple[str, ...]) -> None:
    words = key.split()
    for count in range(1, min(len(words), _MAX_WORDS) + 1):
        sites.setdefault(" ".join(words[:count]), []).append((line, header))
