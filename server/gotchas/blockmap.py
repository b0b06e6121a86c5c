"""The block map's values: a document as a flat list of top-level blocks with line ranges.

Detection reads only these, never parser tokens, so the parsers behind them (the line
scanner, markdown-it in ``tokens``) can change without the reading knowing. Blocks are
top-level: a list item's nested lists, paragraphs and fences belong to the item; a
quote's content belongs to the quote. Lines are 0-based, ``[start, end)``. This module
is the bottom of the Markdown layer: it imports nothing of the package but ``values``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Literal, NamedTuple

BlockKind = Literal["heading", "paragraph", "item", "fence", "html", "hr", "table", "quote"]


class Block(NamedTuple):
    """One top-level block. ``level`` is a heading's level; ``marker`` a list item's marker.

    ``list_id`` groups the items of one list; ``title`` is a heading's text (setext
    titles joined onto one line), else empty. A named tuple: a parse makes one a line or
    so, and a tuple is built at a third of a frozen dataclass's cost.
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    marker: str = ""
    title: str = ""
    list_id: int = -1


# a block's kind as a function: a body's kinds are read in one ``map`` (``"item" in map(KIND, body)``),
# not by a generator a section, where the reading asks it of every section
KIND = attrgetter("kind")


@dataclass(frozen=True, slots=True)
class LineSet:
    """A set of line numbers as one byte a line (a set of ints costs some 60 bytes a line)."""

    marks: bytes  # marks[n] == 1 for a line in the set; no trailing zeros, so equal sets are equal

    @staticmethod
    def of(lines: bytes | bytearray) -> LineSet:
        return LineSet(bytes(lines).rstrip(b"\x00"))

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and 0 <= line < len(self.marks) and self.marks[line] == 1

    def __iter__(self) -> Iterator[int]:
        marks = self.marks
        return (n for n in range(len(marks)) if marks[n])

    def __len__(self) -> int:
        return self.marks.count(1)


@dataclass(frozen=True, slots=True)
class BlockMap:
    """Top-level blocks in order, and every line inside a code fence or HTML block at any depth."""

    blocks: tuple[Block, ...]
    literal: LineSet


def restarts(found: BlockMap) -> list[int]:
    """Lines where markdown-it starts a top-level block: every block but a list's later items.

    Parsing resumes from such a line as if the document began there, so the text from
    one of them on parses alone to the same blocks (``splice`` relies on it).
    """
    out: list[int] = []
    last_list = -1
    for block in found.blocks:
        if block.kind != "item" or block.list_id != last_list:
            out.append(block.start)
        last_list = block.list_id if block.kind == "item" else -1
    return out


def moved_all(found: Sequence[Block], lines: int, lists: int) -> Sequence[Block]:
    """``moved`` over every block, column by column in C (a block is a tuple)."""
    if not found or (not lines and not lists):
        return found
    kinds, starts, ends, levels, markers, titles, list_ids = zip(*found, strict=True)
    if lists:
        list_ids = tuple(n + lists if n >= 0 else n for n in list_ids)
    columns = zip(
        kinds,
        map(lines.__add__, starts),
        map(lines.__add__, ends),
        levels,
        markers,
        titles,
        list_ids,
        strict=True,
    )
    return list(map(tuple.__new__, itertools.repeat(Block), columns))


def moved(block: Block, lines: int, lists: int) -> Block:
    """``block`` shifted down by ``lines`` lines, its list numbered ``lists`` further on."""
    if not lines and not lists:
        return block
    return Block(
        block.kind,
        block.start + lines,
        block.end + lines,
        block.level,
        block.marker,
        block.title,
        block.list_id + lists,
    )
