"""The record model: ``Entry`` (one lesson, a byte range of the file) and ``Record`` (a parsed
lessons file, with the indexes the filters use). Built by :mod:`gotchas.record.parsing`.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Literal, Protocol

from gotchas import surface, taskref
from gotchas.errors import AmbiguousEntry, EntryNotFound, shown
from gotchas.record.ids import MAX_ID_LENGTH

if TYPE_CHECKING:
    from gotchas import blocks, outline
    from gotchas.fields import Field
    from gotchas.link import Link


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


class EntrySource(Protocol):
    """Where a record's entries come from: read all at once, or skimmed for a filter
    (:class:`gotchas.record.unread.Unread`)."""

    count: int
    some: dict[int, Entry]  # the entries a filter read, by index

    def read(self) -> tuple[Entry, ...]: ...

    def skimmable(self) -> bool: ...

    def candidates(self, tasks: Sequence[str]) -> list[int]: ...

    def read_some(self, indexes: Sequence[int]) -> list[Entry]: ...


@dataclass(frozen=True)
class Record:
    """A parsed lessons file. ``data`` is the file's bytes, exactly as read."""

    data: bytes
    unread: EntrySource  # the entries, read when first asked for (``entries``) or skimmed by a filter
    line_starts: Sequence[int]  # an ``array('q')``: 8 bytes a line, not an int object each
    bom: bool
    front_matter: tuple[int, int] | None
    style: str
    reading: outline.Reading | None = None
    task_keys: frozenset[str] = frozenset()  # declared tracker prefixes, for ``mentions``
    block_map: blocks.BlockMap | None = dataclasses.field(default=None, repr=False, compare=False)
    name: str | None = None  # the file's path in its repository, when the reader was told it

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry, in file order: read on first use (a one-shot filter may never need them)."""
        return self.unread.read()

    @property
    def notice(self) -> str | None:
        """Why nothing is listed, when the file holds no lessons structure; else the reading's
        own notice when it is a guess (``reading.Reading.notice``), or ``None``."""
        if self.reading is None:
            return None
        if self.unread.count:
            return self.reading.notice
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
        that can be for the task (``Unread.candidates``) and keeps those ``for_task`` would.
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


def _suggestions(given: str, ids: list[str]) -> list[str]:
    """Ids the reader may have meant: those that start with what was typed (an id prefix,
    any case), then those that contain it, then the closest spellings; at most five."""
    typed = unicodedata.normalize("NFC", given.strip()).casefold()
    starting = [i for i in ids if typed and i.casefold().startswith(typed)]
    within = [i for i in ids if len(typed) >= 3 and typed in i.casefold()]
    import difflib  # suggestions for an id not found: not on the reading path

    close = difflib.get_close_matches(given, ids, n=3, cutoff=0.5)
    return list(dict.fromkeys([*starting[:5], *within[:5], *close]))[:5]
