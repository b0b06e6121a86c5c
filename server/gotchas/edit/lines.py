"""The record's lines as an edit reads them, and the CommonMark block tokens it asks about."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, overload

from gotchas import blocks
from gotchas.record import Entry, Record

if TYPE_CHECKING:
    from markdown_it.token import Token


def lines_of(record: Record) -> Sequence[bytes]:
    return Lines(record.data, record.line_starts)


class Lines(Sequence[bytes]):
    """The record's lines with their endings, cut from its bytes by its line starts only when
    read: an edit reads a few lines near its target, not the whole file split up."""

    def __init__(self, data: bytes, starts: Sequence[int]) -> None:
        self.data = data
        self.starts = starts

    def __len__(self) -> int:
        return len(self.starts) - 1

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        if isinstance(index, slice):
            return [self[n] for n in range(*index.indices(len(self)))]
        count = len(self)
        at = index + count if index < 0 else index
        if not 0 <= at < count:
            raise IndexError("line index out of range")
        return self.data[self.starts[at] : self.starts[at + 1]]


def bare_line(line: bytes) -> str:
    return line.decode("utf-8").rstrip("\r\n")


def bare_line_at(record: Record, line: int) -> str:
    start = record.line_starts[line]
    end = record.line_starts[line + 1] if line + 1 < len(record.line_starts) else len(record.data)
    return bare_line(record.data[start:end])


def eol_of(record: Record, entry: Entry) -> bytes:
    first = record.data[entry.start : entry.end].splitlines(keepends=True)
    if first:
        ending = first[0][len(first[0].rstrip(b"\r\n")) :]
        if ending:
            return ending
    return record.eol


@functools.lru_cache(maxsize=1)
def block_tokens(data: bytes) -> tuple[Token, ...]:
    """The record's CommonMark block tokens; an edit asks several questions of one parse."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    return tuple(blocks.parser().parse(text))


def in_tight_list(record: Record, line: int) -> bool:
    """The item on 0-based ``line`` is in a tight list: no blank line between its items or
    between the blocks of any of them. An edit keeps it tight: a blank line it added anywhere
    in the list would make every item of it loose (each paragraph rendered as a ``<p>``)."""
    tokens = block_tokens(record.data)
    for index, token in enumerate(tokens):
        if token.type == "list_item_open" and token.map and token.map[0] == line:
            opened = next(
                (
                    n
                    for n in range(index - 1, -1, -1)
                    if tokens[n].level == token.level - 1 and tokens[n].nesting == 1
                ),
                None,
            )
            if opened is None:
                return False
            for inner in tokens[opened + 1 :]:
                if inner.level == token.level - 1:
                    return True  # the list's close: no paragraph of its items was shown loose
                if inner.type == "paragraph_open" and inner.level == token.level + 1:
                    return inner.hidden
            return True
    return False


ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*$")


CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")


ITEM_LINE = re.compile(
    r"^(?P<lead> {0,3})(?P<marker>[-*+]|\d{1,9}[.)])(?P<gap>[ \t]{1,4})(?P<box>\[[ xX]\][ \t]+)?(?P<rest>.*)$"
)


BOLD_LEAD = re.compile(r"^(?P<b>\*\*|__)(?P<inner>.+?)(?P=b)(?P<after>.*)$")
