"""``parse``: bytes in, a :class:`~gotchas.record.model.Record` out, no I/O.

A parse near an earlier one (an edit's) splits and scans again only the lines around what
differs, and takes over the entries the edit did not touch.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from array import array
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from gotchas import outline, scanner, taskref
from gotchas.record.entries import read_entries
from gotchas.record.lines import (
    BOM,
    bare_lines,
    blank,
    common_prefix,
    common_suffix,
    decode,
    front_matter,
    line_reader,
    line_starts,
)
from gotchas.record.model import Record
from gotchas.record.unread import Unread

if TYPE_CHECKING:
    from gotchas import blocks


def parse(
    data: bytes,
    entry_style: str | None = None,
    *,
    task_keys: Iterable[str] = (),
    near: Record | None = None,
    reuse: bool = True,
    name: str | None = None,
) -> Record:
    """Read a lessons file. ``entry_style`` is the reading pin (``reading.Pin``; else guessed);
    ``task_keys`` are the project's tracker prefixes (``ABC`` for ``ABC-123``).

    ``near`` is a parse of bytes this one was made from by an edit: only the lines around
    what differs are parsed again (``blocks.splice``); the result is the same record.
    ``reuse`` keeps how each section read, for such an edit; a process that reads once and
    exits turns it off and reads a little faster (the same record, less kept).

    ``name`` is the file's path in its repository: a reader knows a ``CLAUDE.md`` is an agent's
    guide before reading it. A parse ``near`` another is of the same file and keeps its name.
    """
    if name is None and near is not None:
        name = near.name
    parsed = _parse(data, entry_style, near, reuse, name)
    keys = taskref.declared_keys(task_keys)
    return dataclasses.replace(parsed, task_keys=keys) if keys else parsed


def _parse(
    data: bytes,
    entry_style: str | None,
    near: Record | None = None,
    keep: bool = True,
    name: str | None = None,
) -> Record:
    text = decode(data)
    starts = line_starts(data) if near is None else _line_starts_near(near, data)
    bare = bare_lines(text)
    del text
    bom = data.startswith(BOM)
    matter = front_matter(bare)
    view = bare if matter is None else blank(bare, matter)
    spliced = _spliced(near, data, starts, view, bare, bom, matter) if near is not None else None
    block_map = spliced.map if spliced is not None else scanner.scan_lines(view, bare)
    prior = (
        outline.Prior(
            near.reading, spliced.head, spliced.tail, spliced.shift, spliced.before, line_reader(near)
        )
        if near is not None and near.reading is not None and spliced is not None
        else None
    )
    reading, _ = outline.read_map(block_map, bare, matter, entry_style, prior, keep, name)
    spans = reading.spans
    style = spans[0].marker if spans and spans[0].kind == "heading" else ("list" if spans else "none")
    reuse = None
    if near is not None and spliced is not None:
        from gotchas.record.reuse import Reuse  # an edit's parse only: not a one-shot read's

        reuse = Reuse.of(near, spliced, len(data))
    unread = Unread(data, starts, bare, spans, block_map.literal, matter)
    if reuse is not None:
        unread.done = tuple(read_entries(data, starts, bare, spans, block_map.literal, matter, reuse))
        unread.bare = unread.literal = None
    return Record(data, unread, starts, bom, matter, style, reading, block_map=block_map, name=name)


def _line_starts_near(near: Record, data: bytes) -> Sequence[int]:
    """``line_starts(data)`` for bytes an edit made of ``near``'s: only the lines between the
    bytes both share at the start and at the end are split again; those after move along.

    A line starts at a byte by that byte and the one before it, so starts before the first
    byte that differs are ``near``'s, and starts whose byte and the one before lie in the
    shared end are ``near``'s moved by the change in length.
    """
    old, old_starts = near.data, near.line_starts
    same_head = common_prefix(old, data)
    same_tail = min(common_suffix(old, data), min(len(old), len(data)) - same_head)
    first = max(bisect.bisect_left(old_starts, same_head) - 1, 0)
    begin = old_starts[first]
    resume = bisect.bisect_left(old_starts, len(old) - same_tail + 1)
    delta = len(data) - len(old)
    if resume >= len(old_starts) or old_starts[resume] + delta < begin:
        return line_starts(data)
    stop = old_starts[resume] + delta
    window = list(itertools.accumulate(map(len, data[begin:stop].splitlines(keepends=True)), initial=begin))
    out = array("q", old_starts[:first])
    out.extend(window[:-1])
    out.extend(map(delta.__add__, old_starts[resume:]))
    return out


def _spliced(
    near: Record,
    data: bytes,
    starts: Sequence[int],
    view: Sequence[str],
    bare: Sequence[str],
    bom: bool,
    matter: tuple[int, int] | None,
) -> blocks.Splice | None:
    """The block map of ``data`` from ``near``'s, parsing only around the lines that differ."""
    old = near.data
    if near.block_map is None or near.bom != bom or near.front_matter != matter:
        return None
    same_head = common_prefix(old, data)
    room = min(len(old), len(data)) - same_head
    same_tail = min(common_suffix(old, data), room)
    old_starts = near.line_starts
    # lines before ``first`` are identical, line breaks included (one line of margin: a
    # last line without a break may have gained one)
    first = max(0, bisect.bisect_right(old_starts, same_head) - 2)
    if matter is not None and first < matter[1]:
        return None
    # old lines from ``resume`` on, with the line break before them, reappear unchanged
    old_lines = len(old_starts) - 1
    resume = min(old_lines, bisect.bisect_left(old_starts, len(old) - same_tail + 1) + 1)
    shift = (len(starts) - 1) - old_lines
    from gotchas import blocks  # an edit's parse only: not a one-shot read's

    return blocks.splice(near.block_map, view, bare, first, resume, shift)
