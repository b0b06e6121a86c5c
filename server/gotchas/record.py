"""The record: a lessons file read into entries with stable ids and exact byte spans.

``parse(data)`` is pure: bytes in, a ``Record`` out, no I/O. Nothing is re-rendered:
every entry is a byte range of the input, and the entries plus the bytes between them
reassemble the input exactly (``segments``). Invalid UTF-8 and binary data are refused.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import itertools
import operator
import re
import sys
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from gotchas import blocks, ids, moved, outline, scanner, status, surface, taskref
from gotchas.errors import AmbiguousEntry, EntryNotFound, RecordEncodingError, RecordUnreadable, shown
from gotchas.fields import Field, parse_line, parse_root_cause, parse_row
from gotchas.link import Link, parse_links

MAX_ID_LENGTH = ids.MAX_ID_LENGTH
slugify = ids.slugify  # the one slug, for edits
BOM = b"\xef\xbb\xbf"
MAX_RECORD_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Entry:
    """One lesson. Lines are 1-based and inclusive; ``start``/``end`` are byte offsets."""

    id: str
    explicit_id: bool
    title: str
    kind: Literal["heading", "item", "paragraph", "block", "row", "document"]
    level: int
    marker: str
    section: str | None
    start_line: int
    end_line: int
    body_line: int
    start: int
    end: int
    sha256: str
    tasks: tuple[str, ...]
    root_cause: str | None
    supersedes: tuple[Link, ...]
    superseded_by: tuple[Link, ...]
    red_herring_for: tuple[str, ...]
    diagnostic: str | None
    status: str
    fields: tuple[Field, ...]
    status_text: str | None = None  # the status as written, when the entry states one
    status_date: str | None = None  # a date written with it

    @property
    def lines(self) -> tuple[int, int]:
        return (self.start_line, self.end_line)


@dataclass(frozen=True, slots=True)
class MentionIndex:
    """Task references mentioned by task-less entries: by entry start, and entries by task."""

    by_start: dict[int, tuple[str, ...]]
    by_task: dict[str, tuple[Entry, ...]]


def _holds_range(starts: Sequence[int], entry: Entry) -> bool:
    at = bisect.bisect_left(starts, entry.start)
    return at < len(starts) and starts[at] < entry.end


@dataclass(frozen=True)
class Record:
    """A parsed lessons file. ``data`` is the file's bytes, exactly as read."""

    data: bytes
    unread: _Unread  # the entries, read when first asked for (``entries``) or skimmed by a filter
    line_starts: Sequence[int]  # an ``array('q')``: 8 bytes a line, not an int object each
    bom: bool
    front_matter: tuple[int, int] | None
    style: str
    reading: outline.Reading | None = None
    task_keys: frozenset[str] = frozenset()  # declared tracker prefixes, for ``mentions``
    block_map: blocks.BlockMap | None = dataclasses.field(default=None, repr=False, compare=False)

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry, in file order: read on first use (a one-shot filter may never need them)."""
        return self.unread.read()

    @property
    def notice(self) -> str | None:
        """Why nothing is listed, when the file holds no lessons structure; else ``None``."""
        if self.unread.count or self.reading is None:
            return None
        return f"no lessons found: {self.reading.reason}"

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def by_task(self) -> dict[str, tuple[Entry, ...]]:
        """Entries by the tasks of their ``tasks:`` field, built once per parse for fast filters."""
        index: dict[str, list[Entry]] = {}
        for entry in self.entries:
            for task in entry.tasks:
                index.setdefault(task, []).append(entry)
        return {task: tuple(found) for task, found in index.items()}

    @cached_property
    def without_tasks(self) -> tuple[Entry, ...]:
        """Entries with no ``tasks:`` field: a task filter looks at what they mention instead."""
        return tuple(e for e in self.entries if not e.tasks)

    @cached_property
    def by_status(self) -> dict[str, tuple[Entry, ...]]:
        """Entries by their normalised status, built once per parse."""
        index: dict[str, list[Entry]] = {}
        for entry in self.entries:
            index.setdefault(entry.status, []).append(entry)
        return {value: tuple(found) for value, found in index.items()}

    @cached_property
    def range_starts(self) -> tuple[int, ...]:
        """Byte offsets of ranges such as ``#372–#374``: a number inside one is never written out."""
        return tuple(m.start() for m in taskref.RANGE_BYTES.finditer(self.data))

    @cached_property
    def _filtered(self) -> list[int]:
        """How many task filters have read this parse: the second one builds the mention index."""
        return [0]

    @cached_property
    def mention_index(self) -> MentionIndex:
        """Every task-less entry's mentions, read once: a warm server's filter is then a lookup."""
        by_start: dict[int, tuple[str, ...]] = {}
        by_task: dict[str, list[Entry]] = {}
        for entry in self.without_tasks:
            found = tuple(taskref.mentions(self.text(entry), self.task_keys))
            by_start[entry.start] = found
            for task in found:
                by_task.setdefault(task, []).append(entry)
        return MentionIndex(by_start, {task: tuple(found) for task, found in by_task.items()})

    @property
    def indexed(self) -> bool:
        """Whether a filter on this parse is a lookup: its entries are read and indexed."""
        return "mention_index" in self.__dict__

    def for_tasks(self, tasks: Sequence[str]) -> list[Entry]:
        """Entries for any of ``tasks`` (the spellings of one task), in file order.

        The first filter on a parse whose entries are not read yet reads only the entries
        that can be for the task (``_Unread.candidates``) and keeps those ``for_task`` would.
        """
        if "entries" not in self.__dict__ and not self._filtered[0] and self.unread.skimmable():
            self._filtered[0] += 1
            return [e for e in self.unread.read_some(self.unread.candidates(tasks)) if self._is_for(e, tasks)]
        if len(tasks) == 1:
            return self.for_task(tasks[0])
        found = {e.start: e for task in tasks for e in self.for_task(task)}
        return [found[start] for start in sorted(found)]

    def _is_for(self, entry: Entry, tasks: Sequence[str]) -> bool:
        """``for_task``'s test on one entry: a task of its ``tasks:`` field, else a mention."""
        if entry.tasks:
            return any(task in entry.tasks for task in tasks)
        return any(
            (
                self.may_mention(entry, task)
                or (task.startswith("#") and _holds_range(self.range_starts, entry))
            )
            and task in self.mentions(entry)
            for task in tasks
        )

    def for_task(self, task: str) -> list[Entry]:
        """Entries for a normalised ``task``, in file order: its ``tasks:`` field, else a mention.

        A mention counts where the task's number or key occurs in the entry's bytes, or the
        entry holds a range. The first filter on a parse scans for that (what a one-shot
        command needs); a parse filtered again gets its mention index, and later filters
        are lookups.
        """
        tagged = self.by_task.get(task, ())
        ranges = self.range_starts if task.startswith("#") else ()
        if "mention_index" in self.__dict__ or self._filtered[0] >= 1:
            mentioning = [
                e
                for e in self.mention_index.by_task.get(task, ())
                if self.may_mention(e, task) or _holds_range(ranges, e)
            ]
        else:
            self._filtered[0] += 1
            mentioning = [
                e
                for e in self.without_tasks
                if (self.may_mention(e, task) or _holds_range(ranges, e)) and task in self.mentions(e)
            ]
        if not mentioning:
            return list(tagged)
        if not tagged:
            return mentioning
        return sorted((*tagged, *mentioning), key=lambda e: e.start)

    @property
    def final_newline(self) -> bool:
        return self.data.endswith((b"\n", b"\r"))

    @cached_property
    def eol(self) -> bytes:
        """The file's dominant line ending (LF when it has none)."""
        crlf = self.data.count(b"\r\n")
        lf = self.data.count(b"\n") - crlf
        cr = self.data.count(b"\r") - crlf
        best = max((crlf, b"\r\n"), (lf, b"\n"), (cr, b"\r"))
        return best[1] if best[0] else b"\n"

    @cached_property
    def _by_id(self) -> dict[str, list[Entry]]:
        index: dict[str, list[Entry]] = {}
        for entry in self.entries:
            index.setdefault(unicodedata.normalize("NFC", entry.id), []).append(entry)
        return index  # keyed in NFC, so an id typed decomposed or composed finds its entry

    @cached_property
    def first_by_id(self) -> dict[str, Entry]:
        """The first entry of each id, as link checks resolve a link."""
        return {e.id: e for e in reversed(self.entries)}

    @cached_property
    def linked(self) -> tuple[Entry, ...]:
        """Entries with a ``supersedes:`` link, in file order: the only ones a chain starts from."""
        return tuple(e for e in self.entries if e.supersedes)

    def get(self, entry_id: str) -> Entry:
        """The entry with this id; a clear error for none or several."""
        found = self._by_id.get(unicodedata.normalize("NFC", entry_id.strip()))
        if not found:
            close = [] if len(entry_id) > 4 * MAX_ID_LENGTH else _suggestions(entry_id, list(self._by_id))
            hint = f"; did you mean {', '.join(close)}?" if close else f"; {surface.list_ids()}"
            raise EntryNotFound(f"no entry with id {shown(entry_id)}{hint}")
        if len(found) > 1:
            where = ", ".join(f"lines {e.start_line}-{e.end_line}" for e in found)
            raise AmbiguousEntry(
                f"id {shown(entry_id)} names {len(found)} entries ({where}); "
                "give one of them a unique `id:` field"
            )
        return found[0]

    def text(self, entry: Entry) -> str:
        return self.data[entry.start : entry.end].decode("utf-8")

    def mentions(self, entry: Entry) -> tuple[str, ...]:
        """Task references in the entry's text other than its ``tasks:``; from the index once built."""
        if not entry.tasks and "mention_index" in self.__dict__:
            found = self.mention_index.by_start.get(entry.start)
            if found is not None:
                return found
        found = tuple(taskref.mentions(self.text(entry), self.task_keys))
        return tuple(t for t in found if t not in entry.tasks)

    def may_mention(self, entry: Entry, task: str) -> bool:
        """A cheap pre-check: the task's number or key occurs in the entry's bytes at all."""
        key = task.rsplit("#", 1)[-1].encode()
        return self.data.find(key, entry.start, entry.end) != -1

    def segments(self) -> Iterator[tuple[str, int, int]]:
        """("between" | entry id, start, end) byte ranges that tile the whole file in order."""
        position = 0
        for entry in self.entries:
            if entry.start > position:
                yield ("between", position, entry.start)
            yield (entry.id, entry.start, entry.end)
            position = entry.end
        if position < len(self.data):
            yield ("between", position, len(self.data))


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


def parse(
    data: bytes,
    entry_style: str | None = None,
    *,
    task_keys: Iterable[str] = (),
    near: Record | None = None,
    reuse: bool = True,
) -> Record:
    """Read a lessons file. ``entry_style`` is the reading pin (``reading.Pin``; else guessed);
    ``task_keys`` are the project's tracker prefixes (``ABC`` for ``ABC-123``).

    ``near`` is a parse of bytes this one was made from by an edit: only the lines around
    what differs are parsed again (``blocks.splice``); the result is the same record.
    ``reuse`` keeps how each section read, for such an edit; a process that reads once and
    exits turns it off and reads a little faster (the same record, less kept).

    """
    parsed = _parse(data, entry_style, near, reuse)
    keys = taskref.declared_keys(task_keys)
    return dataclasses.replace(parsed, task_keys=keys) if keys else parsed


def _parse(data: bytes, entry_style: str | None, near: Record | None = None, keep: bool = True) -> Record:
    text = decode(data)
    starts = _line_starts(data) if near is None else _line_starts_near(near, data)
    bare = _bare_lines(text)
    del text
    bom = data.startswith(BOM)
    matter = _front_matter(bare)
    view = bare if matter is None else _blank(bare, matter)
    spliced = _spliced(near, data, starts, view, bare, bom, matter) if near is not None else None
    block_map = spliced.map if spliced is not None else scanner.scan_lines(view, bare)
    prior = (
        outline.Prior(
            near.reading, spliced.head, spliced.tail, spliced.shift, spliced.before, _line_reader(near)
        )
        if near is not None and near.reading is not None and spliced is not None
        else None
    )
    reading, _ = outline.read_map(block_map, bare, matter, entry_style, prior, keep)
    spans = reading.spans
    style = spans[0].marker if spans and spans[0].kind == "heading" else ("list" if spans else "none")
    reuse = _Reuse.of(near, spliced, len(data)) if near is not None and spliced is not None else None
    unread = _Unread(data, starts, bare, spans, block_map.literal, matter)
    if reuse is not None:
        unread.done = tuple(_entries(data, starts, bare, spans, block_map.literal, matter, reuse))
        unread.bare = unread.literal = None
    return Record(data, unread, starts, bom, matter, style, reading, block_map=block_map)


def _line_starts(data: bytes) -> array[int]:
    """Byte offset of every line, and the length at the end: lines end at CR, LF or CRLF."""
    # ``bytes.splitlines`` breaks at exactly CR, LF and CRLF: the line ends, summed in C
    return array("q", itertools.accumulate(map(len, data.splitlines(keepends=True)), initial=0))


def _line_starts_near(near: Record, data: bytes) -> Sequence[int]:
    """``_line_starts(data)`` for bytes an edit made of ``near``'s: only the lines between the
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
        return _line_starts(data)
    stop = old_starts[resume] + delta
    window = list(itertools.accumulate(map(len, data[begin:stop].splitlines(keepends=True)), initial=begin))
    out = array("q", old_starts[:first])
    out.extend(window[:-1])
    out.extend(map(delta.__add__, old_starts[resume:]))
    return out


def _bare_lines(text: str) -> list[str]:
    """The lines of ``text`` without their endings, as ``bytes.splitlines`` and markdown-it see them."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


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
    return blocks.splice(near.block_map, view, bare, first, resume, shift)


def _line_reader(record: Record) -> Callable[[int], str]:
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


def _front_matter(lines: Sequence[str]) -> tuple[int, int] | None:
    """YAML front matter: ``---`` on the first line up to a closing ``---`` or ``...``; 0-based [a, b)."""
    if not lines or _strip_eol(lines[0]).rstrip() != "---":
        return None
    for index in range(1, min(len(lines), 500)):
        if _strip_eol(lines[index]).rstrip() in ("---", "..."):
            return (0, index + 1)
    return None


def _blank(lines: Sequence[str], span: tuple[int, int]) -> list[str]:
    blanked = list(lines)
    for index in range(*span):
        blanked[index] = ""
    return blanked


THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")


def _content_end(bare: Sequence[str], span: outline.Span) -> int:
    """Exclusive end after dropping trailing blank lines and a trailing ``---`` separator."""
    end = span.end
    while end > span.body and (not bare[end - 1].strip() or THEMATIC_BREAK.match(bare[end - 1])):
        end -= 1
    return max(end, span.body)


@dataclass(frozen=True, slots=True)
class _Reuse:
    """Entries of an earlier parse that a spliced parse takes over instead of reading again.

    A span wholly before ``head`` or from ``tail`` on lies where the block maps agree, over
    identical lines: if the reading gave it the same place, its entry is the old one (moved
    by ``lines`` and ``offset`` in the tail); only its id is assigned afresh.
    """

    by_start: dict[int, tuple[outline.Span, Entry]]
    head: int
    tail: int
    lines: int
    offset: int
    entries: tuple[Entry, ...] = ()  # the earlier parse's, in file order
    shifted: dict[int, Entry] = dataclasses.field(default_factory=dict)  # by id() of the old entry

    @staticmethod
    def of(near: Record, spliced: blocks.Splice, size: int) -> _Reuse | None:
        if near.reading is None or len(near.reading.spans) != len(near.entries):
            return None
        by_start = {
            span.start: (span, entry) for span, entry in zip(near.reading.spans, near.entries, strict=True)
        }
        return _Reuse(
            by_start, spliced.head, spliced.tail, spliced.shift, size - len(near.data), near.entries
        )

    def _shift_tail(self) -> None:
        """Every old entry from ``tail`` on, moved, in one bulk copy (``moved.copies``)."""
        entries, lines, offset = self.entries, self.lines, self.offset
        at = bisect.bisect_left(entries, self.tail - lines + 1, key=lambda e: e.start_line)
        tail = entries[at:]
        replace: dict[str, Sequence[object]] = {}
        if lines:
            held = list(map(_FIELDS, tail))
            fields = iter(moved.copies(Field, list(itertools.chain.from_iterable(held)), {"line": lines}))
            replace["fields"] = list(
                map(tuple, map(itertools.islice, itertools.repeat(fields), map(len, held)))
            )
        by = {"start_line": lines, "end_line": lines, "body_line": lines, "start": offset, "end": offset}
        self.shifted.update(zip(map(id, tail), moved.copies(Entry, tail, by, replace), strict=True))

    def match(self, span: outline.Span) -> Entry | None:
        if span.end <= self.head:
            found = self.by_start.get(span.start)
            return found[1] if found is not None and found[0] == span else None
        if span.start < self.tail:
            return None
        found = self.by_start.get(span.start - self.lines)
        if found is None:
            return None
        old, entry = found
        lines = self.lines
        same = (
            old.body + lines == span.body
            and old.end + lines == span.end
            and (old.kind, old.title, old.level, old.marker, old.section, old.reason)
            == (span.kind, span.title, span.level, span.marker, span.section, span.reason)
        )
        return entry if same else None

    def moved(self, span: outline.Span, entry: Entry, entry_id: str, explicit: bool) -> Entry:
        if span.end <= self.head:
            if entry.id == entry_id and entry.explicit_id == explicit:
                return entry
            return dataclasses.replace(entry, id=entry_id, explicit_id=explicit)
        if not self.shifted and self.entries:
            self._shift_tail()
        found = self.shifted.get(id(entry))
        if found is not None:
            if found.id == entry_id and found.explicit_id == explicit:
                return found
            return dataclasses.replace(found, id=entry_id, explicit_id=explicit)
        lines, offset = self.lines, self.offset
        return Entry(
            entry_id,
            explicit,
            entry.title,
            entry.kind,
            entry.level,
            entry.marker,
            entry.section,
            entry.start_line + lines,
            entry.end_line + lines,
            entry.body_line + lines,
            entry.start + offset,
            entry.end + offset,
            entry.sha256,
            entry.tasks,
            entry.root_cause,
            entry.supersedes,
            entry.superseded_by,
            entry.red_herring_for,
            entry.diagnostic,
            entry.status,
            tuple(Field(f.key, f.value, f.line + lines, f.raw_key) for f in entry.fields)
            if lines
            else entry.fields,
            entry.status_text,
            entry.status_date,
        )


_FIELDS = operator.attrgetter("fields")


def _entries(
    data: bytes,
    starts: Sequence[int],
    bare: Sequence[str],
    spans: Sequence[outline.Span],
    literal: blocks.LineSet,
    matter: tuple[int, int] | None,
    reuse: _Reuse | None = None,
) -> list[Entry]:
    drafts: list[tuple[outline.Span, int, tuple[Field, ...], Entry | None]] = []
    marks = literal.marks  # a byte a line: read inline, the hot loop of a parse
    skip = 0 if matter is None else matter[1]
    for span in spans:
        old = reuse.match(span) if reuse is not None else None
        if old is not None:
            drafts.append((span, 0, old.fields, old))
            continue
        end, found = _fields(bare, marks, skip, span)
        drafts.append((span, end, found, None))
    assigned = ids.assign([(span.title, fields) for span, _, fields, _ in drafts])
    entries = []
    for (span, end, fields, old), (entry_id, explicit) in zip(drafts, assigned, strict=True):
        if old is not None and reuse is not None:
            entries.append(reuse.moved(span, old, entry_id, explicit))
            continue
        start_byte, end_byte = starts[span.start], starts[end]
        entries.append(_entry(data, span, end, fields, entry_id, explicit, start_byte, end_byte))
    return entries


def _fields(
    bare: Sequence[str], marks: bytes | bytearray, skip: int, span: outline.Span
) -> tuple[int, tuple[Field, ...]]:
    """Where the entry's content ends, and the fields of its lines outside code."""
    end = _content_end(bare, span)
    found: list[Field] = []
    parse = parse_row if span.kind == "row" else parse_line
    for index in range(max(span.body, skip), end):
        if index >= len(marks) or not marks[index]:
            found.extend(parse(bare[index], index + 1))
    return end, tuple(found)


# Bytes that can make an ``id:`` field, in lower case: ``id``, then only what a key's tail, a bold
# mark or white space can be, then a colon (``ids.explicit_id``; ``fields.normalize_key``).
_ID_FIELD_BYTES = re.compile(rb"id[ _*\s\x80-\xff]*(?::|\xef\xbc\x9a)")
# A dash after a digit and white space or ``#``, read backwards (``_dashes_after_digits``).
_DASHES_BACKWARDS = tuple(
    re.compile(re.escape(dash[::-1]) + rb"[\t\n\x0b\x0c\r\x1c-\x20#]*[0-9]")
    for dash in (b"-", "–".encode(), "—".encode())
)
_ASCII = bytes(range(128))
_WIDE_DIGIT_OR_SPACE = re.compile(r"(?![\x00-\x7f])[\d\s]")
_TRAILING_DIGITS = re.compile(r"\d+$")


def _dashes_after_digits(data: bytes) -> Iterator[int]:
    """Where a digit is followed by white space or ``#`` and a dash: a range such as ``#372–#374``
    or ``372-374`` may stand for task numbers not written out there (``taskref``). Searched in
    the reversed bytes, where each match starts with its dash: found by a fast literal search,
    not tried at every byte."""
    backwards = data[::-1]
    last = len(data) - 1
    for pattern in _DASHES_BACKWARDS:
        for match in pattern.finditer(backwards):
            yield last - (match.end() - 1)


def _wide_digits_or_spaces(data: bytes) -> Iterator[int]:
    """Where a digit or a space outside ASCII stands: ``\\d`` and ``\\s`` of the task patterns
    match those too. The characters are found among the bytes left once ASCII is dropped."""
    if data.isascii():
        return
    for char in set(data.translate(None, _ASCII).decode("utf-8", "replace")):
        if _WIDE_DIGIT_OR_SPACE.match(char):
            needle = char.encode()
            at = data.find(needle)
            while at != -1:
                yield at
                at = data.find(needle, at + 1)


class _Unread:
    """What a parse needs to read its entries, kept until they are read.

    ``read`` reads them all (``Record.entries``). A filter on one task reads only the
    entries whose bytes can hold it (``candidates``), with ids as the full read assigns
    them: those depend on every title and on every ``id:`` field, and an ``id:`` field is
    looked for only where its bytes occur.
    """

    __slots__ = (
        "bare",
        "count",
        "data",
        "done",
        "firsts",
        "ids",
        "literal",
        "matter",
        "some",
        "spans",
        "starts",
    )

    def __init__(
        self,
        data: bytes,
        starts: Sequence[int],
        bare: Sequence[str] | None,
        spans: Sequence[outline.Span],
        literal: blocks.LineSet | None,
        matter: tuple[int, int] | None,
    ) -> None:
        self.data, self.starts, self.bare, self.spans = data, starts, bare, spans
        self.literal, self.matter = literal, matter
        self.count = len(spans)
        self.done: tuple[Entry, ...] | None = None
        self.ids: list[tuple[str, bool]] | None = None
        self.firsts: list[int] | None = None  # each span's first line, for a bisect
        self.some: dict[int, Entry] = {}

    @staticmethod
    def of(entries: tuple[Entry, ...]) -> _Unread:
        """Entries read already (a record made from another's entries)."""
        done = _Unread(b"", (), None, (), None, None)
        done.done, done.count = entries, len(entries)
        return done

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unread) and self.read() == other.read()

    def __hash__(self) -> int:
        return hash(self.read())

    def read(self) -> tuple[Entry, ...]:
        bare, literal = self.bare, self.literal
        if self.done is None and bare is not None and literal is not None:
            self.done = tuple(_entries(self.data, self.starts, bare, self.spans, literal, self.matter))
            self.bare = self.literal = None  # what the entries were read from is no longer needed
            self.some = {}
        assert self.done is not None  # set before ``bare`` is dropped, by whichever thread read
        return self.done

    def skimmable(self) -> bool:
        """Entries not read yet, and spans in order without overlap (bytes find their entry)."""
        if self.done is not None or self.bare is None:
            return False
        spans = self.spans
        return all(a.end <= b.start for a, b in itertools.pairwise(spans))

    def candidates(self, tasks: Sequence[str]) -> list[int]:
        """Indexes of the spans that may be for one of ``tasks``: a task's number (or key digits)
        occurs in their bytes, or a range, or a digit or space outside ASCII; all, when unsure."""
        needles = []
        for task in tasks:
            digits = _TRAILING_DIGITS.search(task)
            if digits is None:
                return list(range(self.count))
            needles.append(digits[0].encode())
        data, starts = self.data, self.starts
        lines: set[int] = set()
        for needle in dict.fromkeys(needles):
            at = data.find(needle)
            while at != -1:
                lines.add(bisect.bisect_right(starts, at) - 1)
                at = data.find(needle, at + 1)
        lines.update(bisect.bisect_right(starts, at) - 1 for at in _dashes_after_digits(data))
        lines.update(bisect.bisect_right(starts, at) - 1 for at in _wide_digits_or_spaces(data))
        return self._spans_at(lines)

    def _spans_at(self, lines: Iterable[int]) -> list[int]:
        if self.firsts is None:
            self.firsts = [span.start for span in self.spans]
        firsts = self.firsts
        found = set()
        for line in lines:
            at = bisect.bisect_right(firsts, line) - 1
            if at >= 0 and line < self.spans[at].end:
                found.add(at)
        return sorted(found)

    def read_some(self, indexes: Sequence[int]) -> list[Entry]:
        """The entries at ``indexes``, each exactly as ``read`` would give it (taken from the full
        read when one has happened meanwhile: a server may filter and read in two threads)."""
        bare, literal = self.bare, self.literal
        if bare is None or literal is None:
            done = self.read()
            return [done[index] for index in indexes]
        ids = self._ids(bare, literal)
        out = []
        for index in indexes:
            entry = self.some.get(index)
            if entry is None:
                span = self.spans[index]
                end, found = _fields(bare, literal.marks, self._skip(), span)
                entry_id, explicit = ids[index]
                entry = _entry(
                    self.data, span, end, found, entry_id, explicit, self.starts[span.start], self.starts[end]
                )
                self.some[index] = entry
            out.append(entry)
        return out

    def _skip(self) -> int:
        return 0 if self.matter is None else self.matter[1]

    def _ids(self, bare: Sequence[str], literal: blocks.LineSet) -> list[tuple[str, bool]]:
        if self.ids is None:
            starts = self.starts
            found = _ID_FIELD_BYTES.finditer(self.data.lower())  # ``id`` first: a fast literal search
            lines = {bisect.bisect_right(starts, m.start()) - 1 for m in found}
            named = set(self._spans_at(lines))
            marks, skip = literal.marks, self._skip()
            self.ids = ids.assign(
                [
                    (span.title, _fields(bare, marks, skip, span)[1] if index in named else ())
                    for index, span in enumerate(self.spans)
                ]
            )
        return self.ids


def _entry(
    data: bytes,
    span: outline.Span,
    end: int,
    fields: tuple[Field, ...],
    entry_id: str,
    explicit: bool,
    start_byte: int,
    end_byte: int,
) -> Entry:
    tasks: list[str] = []
    red_herring: list[str] = []
    supersedes: list[Link] = []
    superseded_by: list[Link] = []
    root_cause = diagnostic = None
    stated: status.Status | None = None
    for field in fields:
        if field.key == "tasks":
            tasks.extend(taskref.parse_list(field.value))
        elif field.key == "red-herring-for":
            red_herring.extend(taskref.parse_list(field.value))
        elif field.key == "supersedes":
            supersedes.extend(parse_links(field.value))
        elif field.key == "superseded-by":
            superseded_by.extend(parse_links(field.value))
        elif field.key == "root-cause" and root_cause is None:
            cause = parse_root_cause(field.value)
            root_cause = sys.intern(cause) if cause else None
        elif field.key == "diagnostic" and diagnostic is None:
            diagnostic = field.value
        elif stated is None:
            stated = _stated(field)
    task_list = tuple(dict.fromkeys(map(sys.intern, tasks)))  # task names repeat across entries
    if stated is None:
        stated = status.from_title(span.title) or _bold_status(data, start_byte, end_byte)
    if stated is None and (
        span.kind == "row" or (span.kind in ("item", "paragraph") and data[start_byte] != 35)
    ):
        stated = _lead_status(data, start_byte)
    if stated is None and any(not link.tasks for link in superseded_by):
        stated = status.Status(status.SUPERSEDED, "superseded-by")
    state = stated.value if stated else "active"
    if red_herring:
        state = "red-herring"
    return Entry(
        id=entry_id,
        explicit_id=explicit,
        title=span.title,
        kind=span.kind,
        level=span.level,
        marker=span.marker,
        section=span.section,
        start_line=span.start + 1,
        end_line=end,
        body_line=span.body + 1,
        start=start_byte,
        end=end_byte,
        sha256=hashlib.sha256(data[start_byte:end_byte]).hexdigest(),
        tasks=task_list,
        root_cause=root_cause,
        supersedes=tuple(supersedes),
        superseded_by=tuple(superseded_by),
        red_herring_for=tuple(dict.fromkeys(red_herring)),
        diagnostic=diagnostic,
        status=state,
        fields=fields,
        status_text=stated.text if stated else None,
        status_date=stated.date if stated else None,
    )


def _stated(field: Field) -> status.Status | None:
    """A status from a field: ``status:`` in any of its spellings, or ``fixed: <date>``."""
    if field.key == "status":
        return status.from_field(field.value)
    if field.key in status.STATUS_KEYS:
        found = status.from_field(field.value)
        return found if found.value in status.STATUSES else None
    return status.from_word_field(field.key, field.value)


def _lead_status(data: bytes, start: int) -> status.Status | None:
    """A status on the first line outside the title: ``**Title** (Resolved)``, a table cell."""
    stop = data.find(b"\n", start)
    line = data[start : len(data) if stop == -1 else stop]
    if data[start : start + 1] != b"|" and b"**" not in line and b"__" not in line:
        return None
    return status.from_lead_line(line.decode("utf-8"))


def _bold_status(data: bytes, start: int, end: int) -> status.Status | None:
    """``**Status: Fixed**`` bolded whole; looked for only where the bytes hold ``tatus``."""
    if data.find(b"tatus", start, end) == -1 and data.find(b"TATUS", start, end) == -1:
        return None
    return status.from_bold_line(data[start:end].decode("utf-8"))


def _suggestions(given: str, ids: list[str]) -> list[str]:
    """Ids the reader may have meant: those that start with what was typed (an id prefix,
    any case), then those that contain it, then the closest spellings; at most five."""
    typed = unicodedata.normalize("NFC", given.strip()).casefold()
    starting = [i for i in ids if typed and i.casefold().startswith(typed)]
    within = [i for i in ids if len(typed) >= 3 and typed in i.casefold()]
    import difflib  # suggestions for an id not found: not on the reading path

    close = difflib.get_close_matches(given, ids, n=3, cutoff=0.5)
    return list(dict.fromkeys([*starting[:5], *within[:5], *close]))[:5]
