"""Insertions: merged, separated, spliced into the bytes, and shown as a unified diff.

An edit only inserts lines: no existing line is changed or removed; the only byte added to
an existing line is a missing final line ending when a line is appended after it.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gotchas.edit.lines import Lines, bare_line
from gotchas.record import Entry, Record, common_prefix, common_suffix


@dataclass(frozen=True)
class Insertion:
    """Lines to insert before 0-based line ``at`` (``at`` = line count appends)."""

    at: int
    lines: tuple[str, ...]


def next_entry_line(record: Record, anchor: Entry) -> int:
    """The first line of the entry after ``anchor`` (entries are in file order: a bisection)."""
    entries = record.entries
    at = bisect.bisect_right(entries, anchor.end_line, key=lambda e: e.start_line)
    return entries[at].start_line - 1 if at < len(entries) else len(record.line_starts) - 1


def separated(insertions: Sequence[Insertion], lines: Sequence[bytes], blocks: bool) -> tuple[Insertion, ...]:
    """Merge insertions at the same line (in plan order) and, for blank-line separated forms, end
    each with a blank line when the next original line is not blank: otherwise that line could
    join our last paragraph (a ``---`` there would turn it into a heading)."""
    merged: dict[int, list[str]] = {}
    for insertion in insertions:
        merged.setdefault(insertion.at, []).extend(insertion.lines)
    out = []
    for at, block in sorted(merged.items()):
        follows = bare_line(lines[at]).strip() if at < len(lines) else ""
        if blocks and block and block[-1].strip() and follows:
            block.append("")
        out.append(Insertion(at, tuple(block)))
    return tuple(out)


def apply_lines(data: bytes, lines: Sequence[bytes], insertions: Sequence[Insertion], eol: bytes) -> bytes:
    """``data`` with the insertions spliced in at their lines' byte offsets (the same bytes as
    joining the lines with the new ones among them, without splitting the whole file)."""
    if not isinstance(lines, Lines):
        return b"".join(new_lines(lines, insertions, eol))
    at_line: dict[int, list[str]] = {}
    for insertion in insertions:
        at_line.setdefault(insertion.at, []).extend(insertion.lines)
    count = len(lines)
    view = memoryview(data)  # the unchanged runs are joined without being copied first
    pieces: list[bytes | memoryview] = []
    done = 0
    for at in sorted(at_line):
        offset = lines.starts[min(at, count)]
        pieces.append(view[done:offset])
        encoded = b"".join(line.encode("utf-8") + eol for line in at_line[at])
        if at >= count and count and not data.endswith((b"\n", b"\r")):
            encoded = eol + encoded[: -len(eol)]
        pieces.append(encoded)
        done = offset
    pieces.append(view[done:])
    return b"".join(pieces)


def apply_insertions(data: bytes, insertions: Sequence[Insertion], eol: bytes) -> bytes:
    """The bytes a plan writes, from the bytes it was planned on: no parse needed."""
    return apply_lines(data, data.splitlines(keepends=True), insertions, eol)


def new_lines(lines: Sequence[bytes], insertions: Sequence[Insertion], eol: bytes) -> list[bytes]:
    """Insert bottom-up; insertions at the same line keep the plan's order (caveat, then entry)."""
    at_line: dict[int, list[str]] = {}
    for insertion in insertions:
        at_line.setdefault(insertion.at, []).extend(insertion.lines)
    out = list(lines)
    for at in sorted(at_line, reverse=True):
        encoded = [line.encode("utf-8") + eol for line in at_line[at]]
        if at == len(out) and out and not out[-1].endswith((b"\n", b"\r")):
            out[-1] = out[-1] + eol
            encoded[-1] = encoded[-1][: -len(eol)]
        out[at:at] = encoded
    return out


def unified_diff(name: str, before: bytes, after: bytes) -> str:
    """A unified diff of exactly the bytes that change, computed only around the change.

    The unchanged head and tail are found by comparing bytes (C-level halving), not lines,
    and snapped to a line start both sides share; only the changed lines and three lines of
    context either side are split and handed to difflib.
    """
    head = _shared_line_start(before, after, common_prefix(before, after))
    tail_old, tail_new = _shared_tail_start(before, after, head)
    start = _lines_back(before, head, 3)
    offset = before.count(b"\n", 0, start) + before.count(b"\r", 0, start) - before.count(b"\r\n", 0, start)
    old_part = [_show(x) for x in before[start : _lines_on(before, tail_old, 3)].splitlines(keepends=True)]
    new_part = [_show(x) for x in after[start : _lines_on(after, tail_new, 3)].splitlines(keepends=True)]
    out = [f"--- a/{name}\n", f"+++ b/{name}\n"]
    for line in difflib.unified_diff(old_part, new_part, n=3, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        shown = _shift_hunk(line, offset) if line.startswith("@@") else line
        out.append(shown if shown.endswith("\n") else shown + "\n")
    return "".join(out)


def _starts_line(data: bytes, at: int) -> bool:
    """Whether a line of ``data`` starts at byte ``at`` (a CR directly before an LF ends nothing)."""
    if at == 0 or at == len(data):
        return True
    before = data[at - 1]
    return before == 0x0A or (before == 0x0D and data[at] != 0x0A)


def _shared_line_start(old: bytes, new: bytes, same: int) -> int:
    """The last line start at or before ``same`` (a common prefix's length) of both ``old`` and ``new``.

    Only ``same`` itself can be a line start in one and not the other (the bytes after it
    differ); any earlier line start lies inside the shared bytes.
    """
    if _starts_line(old, same) and _starts_line(new, same) and (same == 0 or old[same - 1] in b"\r\n"):
        return same
    return _last_line_end(old, same - 1)  # the line ``same`` falls in starts after the line before


def _shared_tail_start(old: bytes, new: bytes, head: int) -> tuple[int, int]:
    """Where the unchanged tail's first whole line starts in ``old`` and in ``new``, after ``head``.

    The tail is the longest common suffix of what follows ``head`` in both, moved forward to
    the first line start both share; any line start after its first byte is shared.
    """
    same = min(common_suffix(old, new), len(old) - head, len(new) - head)
    at_old, at_new = len(old) - same, len(new) - same
    if _starts_line(old, at_old) and _starts_line(new, at_new):
        return at_old, at_new
    step = _line_end(old, at_old) - at_old
    return at_old + step, at_new + step


def _line_end(data: bytes, at: int) -> int:
    """The start of the line after the one holding byte ``at`` (or the end of ``data``)."""
    newline = data.find(b"\n", at)
    bound = len(data) if newline < 0 else newline
    ret = data.find(b"\r", at, bound)
    if newline < 0 and ret < 0:
        return len(data)
    end = (newline if ret < 0 else ret) + 1
    return end + 1 if data[end - 1] == 0x0D and data[end : end + 1] == b"\n" else end


def _lines_on(data: bytes, at: int, count: int) -> int:
    """The line start ``count`` lines after the line start ``at`` (or the end of ``data``)."""
    for _ in range(count):
        if at == len(data):
            break
        at = _line_end(data, at)
    return at


def _lines_back(data: bytes, at: int, count: int) -> int:
    """The line start ``count`` lines before the line start ``at`` (or 0)."""
    for _ in range(count):
        if at == 0:
            break
        text_end = at - 2 if data[at - 2 : at] == b"\r\n" else at - 1
        at = _last_line_end(data, text_end)
    return at


def _last_line_end(data: bytes, before: int) -> int:
    """Where the last line end strictly before byte ``before`` ends (0 if there is none)."""
    newline = data.rfind(b"\n", 0, before)
    return max(newline, data.rfind(b"\r", newline + 1, before)) + 1


def _show(line: bytes) -> str:
    text = line.decode("utf-8")
    return text if text.endswith(("\n", "\r")) else text + "\n\\ No newline at end of file\n"


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(header: str, offset: int) -> str:
    match = _HUNK.match(header)
    if not match:
        return header + "\n"
    old_start = int(match[1]) + offset
    new_start = int(match[3]) + offset
    return f"@@ -{old_start}{match[2] or ''} +{new_start}{match[4] or ''} @@\n"
