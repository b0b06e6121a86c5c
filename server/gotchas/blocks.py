"""The Markdown layer's front: scan a text into its block map, or splice an edited one.

The values live in ``blockmap``, markdown-it's reading in ``tokens``, the line scanner in
``scanner``; this module joins them (dependencies point one way: ``blockmap`` <- ``tokens``
<- ``scanner`` <- ``blocks``) and keeps their public names in one place for the reading and
the record model.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from gotchas import scanner
from gotchas.blockmap import Block, BlockMap, LineSet, moved, moved_all, restarts
from gotchas.tokens import from_tokens, parser, scan, scan_lines

__all__ = [
    "Block",
    "BlockMap",
    "LineSet",
    "Splice",
    "from_tokens",
    "moved",
    "moved_all",
    "parser",
    "restarts",
    "scan",
    "scan_lines",
    "splice",
]


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
