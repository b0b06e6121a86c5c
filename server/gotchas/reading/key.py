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
    labels = []
    for item in items:
        text = state.first_text(item)
        bold = BOLD_LABEL.match(text)
        labels.append(bold["label"] if bold else _LABEL_END.split(text, maxsplit=1)[0])
    return is_key(state.lines, labels, Block("item", items[0].start, items[-1].end))


def table_is_key(state: State, table: Block) -> bool:
    """A table whose first cells are the file's own labels further on. Tables with the same
    header (one lesson's ``| Item | Detail |`` each) share their labels as parts."""
    lines = state.lines
    stop = table_rows.rows_end(lines, table.start + 2, table.end)
    rows = (table_rows.cells(lines[n]) for n in range(table.start + 2, stop))
    firsts = [cells[0] for cells in rows if cells]
    return is_key(lines, firsts, table, table_rows.cells(lines[table.start]))


def is_key(lines: Sequence[str], labels: Sequence[str], block: Block, header: Sequence[str] = ()) -> bool:
    """Three labels or more, named once each, every one used after ``block`` as a heading's
    title or a table row's first cell (``✅ FIXED (keep for reference)`` for ``✅ **FIXED**``)."""
    wanted = {label_key(label) for label in labels}
    wanted.discard("")
    if len(wanted) < 3 or len(wanted) < len(labels):
        return False
    same_header = False  # inside a table whose header is the key's own
    for n in range(block.end, len(lines)):
        line = lines[n]
        stripped = line.lstrip()
        if stripped.startswith("#"):
            site = label_key(stripped.lstrip("#"))
        elif stripped.startswith("|"):
            cells = table_rows.cells(line)
            if n + 1 < len(lines) and table_rows.DELIMITER.compiled.match(lines[n + 1]):
                same_header = bool(header) and cells == list(header)
                continue
            site = label_key(cells[0]) if cells and not same_header else ""
        else:
            continue
        if site:
            wanted -= {label for label in wanted if site == label or site.startswith(label + " ")}
        if not wanted:
            return True
    return False
