"""A table row as the reading and an edit see it: its cells, its id cell, its continuation rows.

Cells are split as a GFM table splits them (markdown-it's rule): on every pipe that no
backslash escapes, the outer pipes optional. A row whose first cell opens with ``↳`` is a
continuation of the row above it: it carries that lesson's fields (``tasks:``, the
red-herring mark) and caveat, the way field lines follow a list item's lead line. An id
column is a first column of bare numbers or ids (``12``, ``L-055``, ``#7``) beside text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gotchas.pattern import LazyPattern

CONTINUATION = "↳"
DELIMITER = LazyPattern(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_ID_CELL = LazyPattern(r"^(?P<stem>[^\W\d_]{1,12}[-_]|#)?(?P<number>\d{1,6}(?:\.\d{1,6})*)\.?$")
_WRAPPER = LazyPattern(r"^(\*\*|__|`)(.+)\1$")


def raw_cells(line: str) -> list[str]:
    """The cells of a row as written (padding kept, escapes kept), outer pipes dropped."""
    text = line.strip()
    cells: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char == "|" and (index == 0 or text[index - 1] != "\\"):
            cells.append(text[start:index])
            start = index + 1
    cells.append(text[start:])
    if text.startswith("|"):
        cells = cells[1:]
    if len(cells) > 1 and text.endswith("|") and not text.endswith("\\|"):
        cells = cells[:-1]
    return cells


def cells(line: str) -> list[str]:
    """The text of each cell: stripped, escaped pipes read as pipes."""
    return [cell.strip().replace("\\|", "|") for cell in raw_cells(line)]


def escape(text: str) -> str:
    """Text that stays one cell: every pipe escaped."""
    return text.replace("|", "\\|")


def is_continuation(line: str) -> bool:
    found = raw_cells(line)
    return bool(found) and found[0].strip().startswith(CONTINUATION)


def continued(cell: str) -> str:
    """A continuation row's cell without its ``↳``."""
    return cell.removeprefix(CONTINUATION).strip()


@dataclass(frozen=True, slots=True)
class IdCell:
    """A bare number or id in a cell: ``L-055`` → stem ``L-``, number (55,), widths (3,)."""

    stem: str
    number: tuple[int, ...]
    widths: tuple[int, ...]
    wrapper: str
    dot: str

    def plain(self) -> str:
        """The id without its wrapper: ``L-055``, ``12.``."""
        parts = [str(n).zfill(w) for n, w in zip(self.number, (*self.widths, *[1] * 8), strict=False)]
        return f"{self.stem}{'.'.join(parts)}{self.dot}"

    def text(self) -> str:
        """The id as written in its cell, wrapper included."""
        return f"{self.wrapper}{self.plain()}{self.wrapper}"


def id_cell(text: str) -> IdCell | None:
    text = text.strip()
    wrapper = ""
    wrapped = _WRAPPER.compiled.match(text)
    if wrapped:
        wrapper, text = wrapped[1], wrapped[2].strip()
    found = _ID_CELL.compiled.match(text)
    if found is None:
        return None
    numbers = found["number"].split(".")
    return IdCell(
        found["stem"] or "",
        tuple(int(n) for n in numbers),
        tuple(len(n) for n in numbers),
        wrapper,
        "." if text.endswith(".") else "",
    )


_CODE_LINE = LazyPattern(r"^(?: {4}|\t| {1,3}\t)")


def rows_end(lines: Sequence[str], first: int, end: int) -> int:
    """Where a table's rows stop: at ``end``, or at a line indented four spaces or more (a GFM
    table parser reads it as code, though it continues the paragraph)."""
    return next((n for n in range(first, end) if _CODE_LINE.compiled.match(lines[n])), end)


def has_id_column(rows: Sequence[str]) -> bool:
    """Most rows, two at least, open with a bare number or id of one stem, with text beside it."""
    own = [cells(row) for row in rows if row.strip() and not is_continuation(row)]
    found = [(id_cell(c[0]), len(c)) for c in own if c]
    stems = [cell.stem for cell, width in found if cell is not None and width >= 2]
    if not stems:
        return False
    common = max(set(stems), key=stems.count)
    return stems.count(common) >= 2 and stems.count(common) * 2 > len(own)


def title_cell(row: Sequence[str], id_column: bool) -> int:
    """Which cell holds a row's title: the one after its id, else the first."""
    return 1 if id_column and len(row) >= 2 else 0
