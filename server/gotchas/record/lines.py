"""Lines of a record: its text decoded and checked, where each line starts, lines without
their endings, front matter, and where an entry's content ends."""

from __future__ import annotations

import itertools
import re
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gotchas.errors import RecordEncodingError, RecordUnreadable

if TYPE_CHECKING:
    from gotchas import outline
    from gotchas.record.model import Record

BOM = b"\xef\xbb\xbf"
MAX_RECORD_BYTES = 16 * 1024 * 1024


def decode(data: bytes) -> str:
    """The text of a record, BOM removed; refuses binary data and invalid UTF-8 with its position."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordUnreadable(
            f"the record is {len(data):,} bytes; the limit is {MAX_RECORD_BYTES:,} (16 MiB)"
        )
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise RecordUnreadable(f"the record looks binary: a NUL byte at offset {offset}")
    body = data[len(BOM) :] if data.startswith(BOM) else data
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(data) - len(body))
        line = data.count(b"\n", 0, offset) + 1
        raise RecordEncodingError(
            f"the record is not valid UTF-8: byte 0x{data[offset]:02x} at offset {offset} "
            f"(line {line}); fix the encoding, nothing was changed"
        ) from None


def line_starts(data: bytes) -> array[int]:
    """Byte offset of every line, and the length at the end: lines end at CR, LF or CRLF."""
    # ``bytes.splitlines`` breaks at exactly CR, LF and CRLF: the line ends, summed in C; an
    # array made from a list is sized once, from an iterator it grows item by item
    return array("q", list(itertools.accumulate(map(len, data.splitlines(keepends=True)), initial=0)))


def bare_lines(text: str) -> list[str]:
    """The lines of ``text`` without their endings, as ``bytes.splitlines`` and markdown-it see them."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def line_reader(record: Record) -> Callable[[int], str]:
    """Line ``n`` of ``record`` as the parse saw it (no line ending, no BOM), decoded when asked."""
    data, starts = record.data, record.line_starts

    def line(n: int) -> str:
        text = data[starts[n] : starts[n + 1]].decode("utf-8").rstrip("\r\n")
        return text[1:] if n == 0 and text.startswith("\ufeff") and record.bom else text

    return line


def common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix, by halving (each probe one C-level compare)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def common_suffix(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low


def _strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


_YAML_LINE = re.compile(r"^(?:\s*$|\s|-\s|[\w.-]+\s*:)")  # a key, a nested or listed value


def front_matter(lines: Sequence[str]) -> tuple[int, int] | None:
    """YAML front matter: ``---`` on the first line up to a closing ``---`` or ``...``; 0-based [a, b).

    A second block of keys written right after the first (editors that add their own front
    matter above an existing one leave two) belongs to it: read as text, its closing ``---``
    would make its keys a heading."""
    if not lines or _strip_eol(lines[0]).rstrip() != "---":
        return None
    end = _closing(lines, 1)
    if end is None:
        return None
    while end < len(lines) and _strip_eol(lines[end]).rstrip() == "---":
        more = _closing(lines, end + 1)
        if more is None or not all(_YAML_LINE.match(_strip_eol(line)) for line in lines[end + 1 : more - 1]):
            break
        end = more
    return (0, end)


def _closing(lines: Sequence[str], start: int) -> int | None:
    """The line after the ``---`` or ``...`` closing a block of front matter opened before ``start``."""
    for index in range(start, min(len(lines), start + 499)):
        if _strip_eol(lines[index]).rstrip() in ("---", "..."):
            return index + 1
    return None


def blank(lines: Sequence[str], span: tuple[int, int]) -> list[str]:
    blanked = list(lines)
    for index in range(*span):
        blanked[index] = ""
    return blanked


THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")


def content_end(bare: Sequence[str], span: outline.Span) -> int:
    """Exclusive end after dropping trailing blank lines and a trailing ``---`` separator."""
    end = span.end
    while end > span.body and (not bare[end - 1].strip() or THEMATIC_BREAK.match(bare[end - 1])):
        end -= 1
    return max(end, span.body)
