"""The block map: a document as a flat list of top-level blocks with line ranges.

Detection reads only this map, never parser tokens, so the parser behind it can change
(a line scanner for the common case) by replacing ``from_tokens`` alone. Blocks are
top-level: a list item's nested lists, paragraphs and fences belong to the item; a
quote's content belongs to the quote. Lines are 0-based, ``[start, end)``.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterator, Sequence
from functools import lru_cache

from gotchas.patterns import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Literal, NamedTuple

    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    BlockKind = Literal["heading", "paragraph", "item", "fence", "html", "hr", "table", "quote"]
else:  # the same classes, without loading dataclasses or typing
    from gotchas.values import NamedTuple, dataclass

    BlockKind = str


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


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark block rules only: inline parsing is off because titles stay raw.

    Tables need no rule of their own: a table's lines are read as one paragraph, and
    ``from_tokens`` recognises the paragraph as a table by its delimiter row.
    """
    from markdown_it import MarkdownIt  # only where the line scanner hands a block over

    return MarkdownIt("commonmark").disable("inline")


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


def scan(text: str, lines: Sequence[str] | None = None) -> BlockMap:
    """The block map of ``text``: the one place that knows how it was parsed.

    ``lines`` are the text's lines without endings, if the caller has them already.
    """
    if lines is None:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return from_tokens(parser().parse(text), lines)


def scan_lines(view: Sequence[str], bare: Sequence[str], chunk: int = 512) -> BlockMap:
    """``scan`` of the text whose lines are ``view`` (without endings), a chunk at a time.

    Each chunk starts on a line where a top-level block starts, and ends before the last
    top-level block it starts (which may go on past it): the next chunk starts there. Only
    one chunk's tokens exist at a time, so memory stays near the size of the text. The
    lines are markdown-it's own (split at CR, LF and CRLF); ``bare`` are the same lines
    before front matter was blanked out of ``view``.
    """
    blocks: list[Block] = []
    begin, total = 0, len(view)
    literal = bytearray(total)
    lists = 0
    size = chunk
    while begin < total:
        stop = min(total, begin + size)
        tokens = parser().parse(_text(view, begin, stop))
        window = from_tokens(tokens, bare[begin:stop])
        if stop == total:
            rejoin = stop - begin
        else:
            rejoin = max((t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map), default=0)
            if rejoin == 0:  # one block fills the chunk: take a larger one
                size *= 2
                continue
        del tokens
        used = 0
        for block in window.blocks:
            if block.start >= rejoin:
                break
            blocks.append(moved(block, begin, lists if block.list_id >= 0 else 0))
            used = max(used, block.list_id)
        part = window.literal.marks[:rejoin]
        literal[begin : begin + len(part)] = part
        lists += used
        begin += rejoin
        size = chunk
    return BlockMap(tuple(blocks), LineSet.of(literal))


_TABLE_DELIMITER = lazy(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


def from_tokens(tokens: Sequence[Token], lines: Sequence[str]) -> BlockMap:
    """Top-level blocks from markdown-it's block tokens and their source maps."""
    blocks: list[Block] = []
    literal = bytearray(len(lines))
    append = blocks.append
    list_depth = 0
    list_count = 0
    for index, token in enumerate(tokens):
        kind = token.type
        level = token.level
        if kind == "list_item_open":
            if level == 1 and list_depth == 1 and token.map:
                marker = f"{token.info}{token.markup}" if token.info else token.markup
                append(Block("item", token.map[0], token.map[1], marker=marker, list_id=list_count))
            continue
        if kind in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
            if level == 0:  # only top-level lists are numbered: a quote's lists hold no items
                list_count += 1
            continue
        if kind in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
            continue
        if not token.map:
            continue
        start, end = token.map
        if kind in ("fence", "code_block", "html_block"):
            if end > len(literal):
                literal.extend(bytes(end - len(literal)))
            literal[start:end] = b"\x01" * (end - start)
        if level != 0:
            continue
        if kind == "heading_open":
            title = " ".join(tokens[index + 1].content.split())
            append(Block("heading", start, end, level=int(token.tag[1]), title=title))
        elif kind == "paragraph_open":
            if end - start >= 2 and "|" in lines[start] and _TABLE_DELIMITER.match(lines[start + 1]):
                append(Block("table", start, end))
            else:
                append(Block("paragraph", start, end))
        elif kind in ("fence", "code_block"):
            append(Block("fence", start, end))
        elif kind == "html_block":
            append(Block("html", start, end))
        elif kind == "hr":
            append(Block("hr", start, end))
        elif kind == "blockquote_open":
            append(Block("quote", start, end))
    return BlockMap(tuple(blocks), LineSet.of(literal))


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


def _text(view: Sequence[str], begin: int, stop: int) -> str:
    return "\n".join(view[begin:stop]) + "\n" if stop > begin else ""


def splice(
    before: BlockMap,
    view: Sequence[str],
    bare: Sequence[str],
    first: int,
    resume: int,
    shift: int,
) -> Splice | None:
    """The block map of a text that differs from ``before``'s only in lines ``[first, resume)``.

    ``view`` and ``bare`` are the new text's lines (as ``scan_lines`` takes them); old line
    ``resume`` and every line after it reappear ``shift`` lines later, unchanged. The text
    is parsed again only from a restart line before the change up to a restart line after
    it at which the new parse starts a top-level block too: from there on the new blocks
    are the old ones, shifted. ``None`` when no such line is found (parse it all instead).
    The lines in between are read by the line scanner (markdown-it where it hands over).
    """
    starts = restarts(before)
    old = before.blocks
    at = bisect.bisect_left(starts, first) - 2  # one restart more than needed, for margin
    begin = starts[at] if at >= 0 else 0
    after_at = bisect.bisect_left(starts, resume)
    candidates: list[int | None] = [*starts[after_at : after_at + 4]] or [None]
    from gotchas import scanner  # the scanner reads blocks; this module defines them

    for candidate in candidates:
        stop = len(view) if candidate is None else min(len(view), candidate + shift + _TAIL)
        window = scanner.scan_lines(view[begin:stop], bare[begin:stop])
        if candidate is None:
            joined = _joined(old, before.literal, window, begin, len(view), None, 0)
            return Splice(joined, begin, len(view), shift, old)
        rejoin = candidate + shift - begin
        if rejoin in restarts(window):  # markdown-it starts a top-level token there too
            joined = _joined(old, before.literal, window, begin, rejoin + begin, candidate, shift)
            return Splice(joined, begin, rejoin + begin, shift, old)
    return None


@dataclass(frozen=True, slots=True)
class Splice:
    """A spliced block map: new lines before ``head`` and from ``tail`` on have the old blocks
    (those from ``tail`` on moved by ``shift`` lines), literal lines included."""

    map: BlockMap
    head: int
    tail: int
    shift: int
    before: Sequence[Block] = ()  # the old map's blocks


_TAIL = 64
"""Lines parsed past the expected rejoin line, so the block starting there is seen whole."""


def _joined(
    old: Sequence[Block],
    old_literal: LineSet,
    window: BlockMap,
    begin: int,
    rejoin: int,
    resume: int | None,
    shift: int,
) -> BlockMap:
    """Old blocks before ``begin``, the window's up to ``rejoin``, old ones from ``resume`` shifted."""
    old_starts = list(map(_START, old))
    head = list(old[: bisect.bisect_left(old_starts, begin)])
    lists_before = max(0, max(map(_LIST_ID, head), default=0))
    out = list(head)
    used = 0
    for block in window.blocks:
        if block.start + begin >= rejoin:
            break
        out.append(moved(block, begin, lists_before if block.list_id >= 0 else 0))
        used = max(used, block.list_id)
    literal = bytearray(old_literal.marks[:begin])
    literal.extend(bytes(begin - len(literal)))
    part = window.literal.marks[: rejoin - begin]
    literal += part + bytes(rejoin - begin - len(part))
    if resume is not None:
        tail_from = bisect.bisect_left(old_starts, resume)
        old_lists = max(0, max(map(_LIST_ID, old[:tail_from]), default=0))
        renumber = lists_before + used - old_lists
        out.extend(moved_all(old[tail_from:], shift, renumber))
        literal += old_literal.marks[resume:]
    return BlockMap(tuple(out), LineSet.of(literal))


_START = operator.itemgetter(1)
_LIST_ID = operator.itemgetter(6)


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
