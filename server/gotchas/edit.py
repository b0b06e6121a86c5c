"""Computing an edit of the record: bytes in, bytes out, as line insertions only.

A supersede annotates the target (a ``red-herring-for:`` field line after its metadata
lines, and a visible caveat as a block of its own) and inserts the confirmed lesson
directly after it, looking like a sibling: same form, and a free number or id in the
file's scheme. A capture inserts a plain lesson the same way. What differs by kind of
entry (heading, list item, lead paragraph, ``---`` block, table row, whole document) lives
in one ``Form`` per kind (``FORMS``); a kind without one is refused before anything is
planned. No existing line is changed or removed; the only byte we may add to an existing
line is a missing final line ending when we append after it. New lines use the target's
line ending.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, overload

from gotchas import blocks, link, reading, surface, table, taskref
from gotchas.errors import InvalidArgument, UnsupportedEntry
from gotchas.fields import KNOWN, SEPARATOR, is_plain_field_line
from gotchas.lesson_text import refuse_structure
from gotchas.record import THEMATIC_BREAK, Entry, Record, common_prefix, common_suffix, slugify

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

MAX_TITLE = 200
MAX_BODY = 20_000
MAX_FIELD = 2_000
MAX_RULED_OUT = 30

RootCause = Literal["confirmed", "suspected"]
NEW_RECORD_TITLE = "# Gotchas"  # the first line of a record that a first captured lesson creates


@dataclass(frozen=True)
class Lesson:
    """A lesson to write; ``tasks`` are normal-form references."""

    title: str
    body: str
    tasks: tuple[str, ...]
    root_cause: RootCause
    diagnostic: str | None = None
    ruled_out: tuple[str, ...] = ()
    evidence: str | None = None


@dataclass(frozen=True)
class Insertion:
    """Lines to insert before 0-based line ``at`` (``at`` = line count appends)."""

    at: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """What an apply writes, and what verification expects to find afterwards."""

    data: bytes
    insertions: tuple[Insertion, ...]
    eol: bytes
    new_id: str
    new_title: str
    target_id: str | None
    task: str | None


def lesson(
    title: str,
    body: str,
    tasks: Sequence[str],
    root_cause: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
) -> Lesson:
    """Validate and normalise a lesson's parts, refusing what would make a bad entry."""
    clean_title = " ".join(title.split())
    if not clean_title:
        raise InvalidArgument("title is empty; give the lesson a one-line title")
    if "\n" in title.strip() or "\r" in title.strip():
        raise InvalidArgument("title must be one line")
    if len(clean_title) > MAX_TITLE:
        raise InvalidArgument(f"title is {len(clean_title)} characters; the limit is {MAX_TITLE}")
    if not body.strip():
        raise InvalidArgument("body is empty; say what happened and what to do")
    if len(body) > MAX_BODY:
        raise InvalidArgument(f"body is {len(body)} characters; the limit is {MAX_BODY}")
    if root_cause not in ("confirmed", "suspected"):
        raise InvalidArgument("root_cause must be 'confirmed' or 'suspected'")
    clean_diag = _one_line(diagnostic, "diagnostic")
    if root_cause == "confirmed" and not clean_diag:
        raise InvalidArgument(
            "a confirmed root cause needs a diagnostic: how to recognise this cause next time"
        )
    if len(ruled_out) > MAX_RULED_OUT:
        raise InvalidArgument(f"ruled_out has {len(ruled_out)} items; the limit is {MAX_RULED_OUT}")
    refs = [taskref.normalize(t) for t in tasks]
    if not refs:
        raise InvalidArgument("tasks is empty; name the task(s) that taught this lesson")
    items = tuple(i for i in (_one_line(x, "ruled_out item") for x in ruled_out) if i)
    refuse_structure(title, body, clean_diag, items, evidence)
    return Lesson(
        title=clean_title,
        body=body.strip("\r\n"),
        tasks=tuple(dict.fromkeys(refs)),
        root_cause="confirmed" if root_cause == "confirmed" else "suspected",
        diagnostic=clean_diag,
        ruled_out=items,
        evidence=_one_line(evidence, "evidence"),
    )


def _one_line(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    text = " ".join(value.split())
    if len(text) > MAX_FIELD:
        raise InvalidArgument(f"{name} is {len(text)} characters; the limit is {MAX_FIELD}")
    return text or None


def plan_supersede(record: Record, target: Entry, task: str, new: Lesson, note: str | None = None) -> Plan:
    """Mark ``target`` a red herring for ``task`` and insert ``new`` after it, superseding it."""
    form = form_of(target)
    if new.root_cause != "confirmed":
        raise InvalidArgument(
            "only a confirmed root cause may supersede a lesson: a suspected cause is what made "
            f"the old entry wrong; record it with {surface.propose_lesson()} instead, and supersede "
            "once confirmed"
        )
    task = taskref.normalize(task)
    if task not in new.tasks:
        new = Lesson(
            new.title,
            new.body,
            (task, *new.tasks),
            new.root_cause,
            new.diagnostic,
            new.ruled_out,
            new.evidence,
        )
    new_id = _fresh_id(record, new.title)
    lines = _lines(record)
    eol = _eol_of(record, target)
    caveat = _caveat(task, new.title, new.ruled_out, new_id, note, "just below")
    marks = link.marks_line(task, new_id)
    inside = form.annotate(record, lines, target, marks, caveat)
    links = link.supersedes_line(target.id, task)
    entry_lines, shown = form.successor(record, lines, target, new, new_id, links)
    after = form.place(record, lines, target, entry_lines)
    plan = _separated([*inside, after], lines, form.blocks)
    data = _apply(record.data, lines, plan, eol)
    return Plan(data, plan, eol, new_id, shown, target.id, task)


def plan_annotate(
    record: Record, target: Entry, task: str, successor: Entry, note: str | None = None
) -> Plan:
    """Only mark ``target`` a red herring for ``task``: its successor is already recorded.

    The repair for a one-sided link, when a confirmed lesson says ``supersedes:`` but the old
    entry was never marked. Nothing but the target's inserted lines changes.
    """
    form = form_of(target)
    task = taskref.normalize(task)
    ruled_out = [
        part.strip()
        for f in successor.fields
        if f.key == "ruled-out"
        for part in f.value.split(";")
        if part.strip()
    ]
    where = "just below" if successor.start > target.start else "above"
    caveat = _caveat(task, successor.title, ruled_out, successor.id, note, where)
    marks = link.marks_line(task, successor.id)
    lines = _lines(record)
    eol = _eol_of(record, target)
    inside = _separated(form.annotate(record, lines, target, marks, caveat), lines, form.blocks)
    data = _apply(record.data, lines, inside, eol)
    return Plan(data, inside, eol, successor.id, successor.title, target.id, task)


def plan_capture(record: Record, new: Lesson, after: Entry | None) -> Plan:
    """Insert a plain lesson after ``after`` (default: the last entry), in its style."""
    anchor = after or (record.entries[-1] if record.entries else None)
    new_id = _fresh_id(record, new.title)
    lines = _lines(record)
    if anchor is None:
        entry_lines = _heading_lines(2, new.title, new, new_id, None)
        shown = new.title
        if not record.data:
            prefix: tuple[str, ...] = (NEW_RECORD_TITLE, "")
        else:
            prefix = ("",) if _bare(lines[-1]).strip() else ()
        insertion = Insertion(len(lines), (*prefix, *entry_lines))
        eol = record.eol
        blocks = True
    else:
        form = form_of(anchor)
        entry_lines, shown = form.successor(record, lines, anchor, new, new_id, None)
        insertion = form.place(record, lines, anchor, entry_lines)
        eol = _eol_of(record, anchor)
        blocks = form.blocks
    plan = _separated([insertion], lines, blocks)
    data = _apply(record.data, lines, plan, eol)
    return Plan(data, plan, eol, new_id, shown, None, None)


def _fresh_id(record: Record, title: str) -> str:
    """The new entry's id; if its slug is taken, it gets an explicit unique ``id:`` later."""
    base = slugify(title)
    taken = record.first_by_id  # every id, built once per parse
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _lines(record: Record) -> Sequence[bytes]:
    return _Lines(record.data, record.line_starts)


class _Lines(Sequence[bytes]):
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


def _bare(line: bytes) -> str:
    return line.decode("utf-8").rstrip("\r\n")


def _eol_of(record: Record, entry: Entry) -> bytes:
    first = record.data[entry.start : entry.end].splitlines(keepends=True)
    if first:
        ending = first[0][len(first[0].rstrip(b"\r\n")) :]
        if ending:
            return ending
    return record.eol


def _caveat(
    task: str, title: str, ruled_out: Sequence[str], new_id: str, note: str | None, where: str
) -> str:
    # Only what is known goes into the durable record: the task, what was ruled out *for it*
    # (the session's words, said as such) and where the confirmed cause is. Never a claim about
    # what this entry advised: the ruled-out causes need not be what it said.
    text = _one_line(note, "red_herring_note")
    if not text:
        failed = "; ".join(" ".join(cause.split()) for cause in ruled_out if cause.strip())
        text = f"Ruled out for {task}: {failed}." if failed else ""
    title = " ".join(title.split())
    said = f"{text} " if text else ""
    return (
        f"> **Red herring for {task}.** {said}The confirmed cause is in "
        f"\u201c{title}\u201d (`{new_id}`), {where}. This entry may still hold for other tasks."
    )


# --- the form of each kind of entry ----------------------------------------------------------
#
# One class per entry kind says everything an edit needs to know about that kind's form:
# how a successor is written so it looks like a sibling, where the red-herring mark and
# caveat go inside the target, and how the successor is separated from its neighbours.


class Form:
    """How entries of one kind look; subclasses fill in the three places an edit writes."""

    kind = ""
    blocks = True  # separated by blank lines: an insertion ends with one before following text

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        """The new entry's lines, in ``like``'s form, and its title as it will read."""
        raise NotImplementedError

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        """The mark and caveat, as one block of their own inside ``target``."""
        raise NotImplementedError

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        """Where the successor goes: right after ``anchor``, separated as its siblings are."""
        raise NotImplementedError


class HeadingForm(Form):
    """``## Title``: fields and caveat as paragraphs under the heading, blank-line separated."""

    kind = "heading"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        head = _bare(lines[like.start_line - 1])
        match = _ATX.match(head)
        shown = _styled_title(record, like, match["text"] if match else like.title, new.title)
        closing = _CLOSING_HASHES.search(head) if match else None
        return _heading_lines(like.level, shown, new, new_id, links, closing[0] if closing else ""), shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        return _annotate_block(lines, target, target.body_line - 1, marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        end = anchor.end_line
        gap = [_bare(lines[i]) for i in range(end, min(_next_entry_line(record, anchor), len(lines)))]
        if any(THEMATIC_BREAK.match(g) for g in gap):
            return Insertion(end, ("", "---", "", *entry_lines))
        return Insertion(end, ("", *entry_lines))


class ItemForm(Form):
    """``- **Title** — text``: fields on continuation lines, caveat as the item's own paragraph."""

    kind = "item"
    blocks = False

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        first = _bare(lines[like.start_line - 1])
        match = _ITEM_LINE.match(first)
        if match is None:
            lead, marker, gap, box, rest = "", "-", " ", "", first
        else:
            lead, marker, gap, box, rest = (
                match["lead"],
                match["marker"],
                match["gap"],
                match["box"] or "",
                match["rest"],
            )
        if marker[:-1].isdigit():
            marker = f"{_next_ordinal(record, like)}{marker[-1]}"
        if box:
            box = "[ ]" + box[3:]
        indent = " " * (len(lead) + len(marker) + len(gap))
        opening = f"{lead}{marker}{gap}{box}"
        tight = _in_tight_list(record, like.start_line - 1)
        return _lead_lines(record, like, rest, opening, indent, new, new_id, links, tight)

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        column = _content_column(_bare(lines[target.start_line - 1]))
        tight = _in_tight_list(record, target.start_line - 1)
        return _annotate_lead(lines, target, " " * column, marks, caveat, tight)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        end = anchor.end_line
        # a blank line before the new item only in a loose list: in a tight one it would
        # make every item loose
        loose = not _in_tight_list(record, anchor.start_line - 1)
        following_text = next((n for n in range(end, len(lines)) if _bare(lines[n]).strip()), None)
        if following_text is not None and entry_lines:
            after = _bare(lines[following_text])
            column = _content_column(entry_lines[0])
            indent = len(after) - len(after.lstrip(" "))
            if indent >= column:
                # text indented under the new item joins it, even after a blank line: past a
                # blank line, a wider gap after the marker moves the item's content column
                # beyond that text (CommonMark allows one to four spaces)
                widened = _widened(entry_lines, indent + 1 - column) if following_text > end else None
                if widened is None:
                    raise InvalidArgument(
                        f"line {following_text + 1} is indented under where the new item would go, "
                        f"so it would become part of that item; nothing was proposed"
                    )
                entry_lines = widened
        return Insertion(end, (*([""] if loose or _ends_outside_item(record, anchor) else []), *entry_lines))


def _widened(entry_lines: Sequence[str], extra: int) -> list[str] | None:
    """A list item's lines with its content column ``extra`` further right, or ``None`` when the
    gap after the marker would pass four spaces (the item would open with indented code)."""
    match = _MARKER.match(entry_lines[0])
    if match is None or len(match[3]) + extra > 4:
        return None
    first = f"{match[1]}{match[2]}{match[3]}{' ' * extra}{entry_lines[0][len(match[0]) :]}"
    return [first, *(f"{' ' * extra}{line}" if line.strip() else line for line in entry_lines[1:])]


def _ends_outside_item(record: Record, anchor: Entry) -> bool:
    """The entry's last text lies after its own list item (a paragraph the reading gives it):
    a list item written right after that text would be its lazy continuation, not an item."""
    last = next(
        (n for n in range(anchor.end_line - 1, anchor.start_line - 1, -1) if _bare_at(record, n).strip()),
        None,
    )
    if last is None or last == anchor.start_line - 1:
        return False
    for token in _block_tokens(record.data):
        if token.type == "list_item_open" and token.map and token.map[0] == anchor.start_line - 1:
            return last >= token.map[1]
    return False


@functools.lru_cache(maxsize=1)
def _block_tokens(data: bytes) -> tuple[Token, ...]:
    """The record's CommonMark block tokens; an edit asks several questions of one parse."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    return tuple(blocks.parser().parse(text))


def _in_tight_list(record: Record, line: int) -> bool:
    """The item on 0-based ``line`` is in a tight list: no blank line between its items or
    between the blocks of any of them. An edit keeps it tight: a blank line it added anywhere
    in the list would make every item of it loose (each paragraph rendered as a ``<p>``)."""
    tokens = _block_tokens(record.data)
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


def _bare_at(record: Record, line: int) -> str:
    start = record.line_starts[line]
    end = record.line_starts[line + 1] if line + 1 < len(record.line_starts) else len(record.data)
    return _bare(record.data[start:end])


class ParagraphForm(Form):
    """``**Title:** text`` as a paragraph of its own: a lead paragraph, blank-line separated;
    a GitHub callout (``> [!WARNING]``) read as a lesson has the callout's form (``CALLOUT``)."""

    kind = "paragraph"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        first = _bare(lines[like.start_line - 1])
        if _CALLOUT_OPENER.match(first):
            return CALLOUT.successor(record, lines, like, new, new_id, links)
        lead = first[: len(first) - len(first.lstrip(" "))]
        if _CODE_INDENT.match(first):
            lead = ""  # a block opened by indented code: the successor is a paragraph, not code
        return _lead_lines(record, like, first.lstrip(" \t"), lead, lead, new, new_id, links)

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        if _CALLOUT_OPENER.match(_bare(lines[target.start_line - 1])):
            return CALLOUT.annotate(record, lines, target, marks, caveat)
        return _annotate_lead(lines, target, "", marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", *entry_lines))


_CALLOUT_OPENER = re.compile(r"^(?P<quote> {0,3}>[ \t]?)\[![A-Za-z]+\][ \t]*$")


class CalloutForm(ParagraphForm):
    """A GitHub callout (``> [!WARNING]`` and its quoted lines) read as a lesson. The successor
    is a callout of the same kind, its lead, fields and body quoted as the target's lines are;
    the mark is a quoted paragraph closing the target's callout, and the caveat a quote nested
    in it after the mark, so it renders inside the target's callout, after all of its parts."""

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        opener = _bare(lines[like.start_line - 1])
        quote = _callout_quote(lines, like)
        second = _bare(lines[like.start_line]) if like.start_line < like.end_line else ""
        rest = second.lstrip(" ")[1:].lstrip(" \t") if second.lstrip(" ").startswith(">") else ""
        inner, shown = _lead_lines(record, like, rest, "", "", new, new_id, links)
        return [opener, *(_quoted(quote, line) for line in inner)], shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        quote = _callout_quote(lines, target)
        end = _quote_end(record, target)
        return [Insertion(end, (quote.rstrip(), quote + marks, quote.rstrip(), quote + caveat))]


def _callout_quote(lines: Sequence[bytes], entry: Entry) -> str:
    """The quote marker the callout's own lines use (``> ``), read off its opener."""
    found = _CALLOUT_OPENER.match(_bare(lines[entry.start_line - 1]))
    quote = found["quote"] if found else "> "
    return quote if quote.endswith((" ", "\t")) else quote + " "


def _quoted(quote: str, line: str) -> str:
    return quote + line if line.strip() else quote.rstrip()


def _quote_end(record: Record, entry: Entry) -> int:
    """The 0-based line after the block quote that opens ``entry`` (lazy lines included)."""
    for token in _block_tokens(record.data):
        if token.type == "blockquote_open" and token.map and token.map[0] == entry.start_line - 1:
            return min(token.map[1], entry.end_line)
    return entry.end_line


class BlockForm(Form):
    """A block between ``---`` rules: opened by a heading or a lead paragraph, ruled off as siblings are."""

    kind = "block"

    def _opening(self, lines: Sequence[bytes], entry: Entry) -> Form:
        first = _bare(lines[entry.start_line - 1])
        if _ATX.match(first):
            return HEADING
        return ITEM if _ITEM_LINE.match(first) else PARAGRAPH

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        opening = self._opening(lines, like)
        if opening is ITEM:
            match = _ITEM_LINE.match(_bare(lines[like.start_line - 1]))
            rest = match["rest"] if match else ""
            label = reading.lead_label(rest)
            if label is not None and label[1]:
                return _field_bullets(record, lines, like, new, new_id, links)
            # a block opened by a bullet that is no field: the successor is a lead paragraph in
            # its lead style, its fields on the lines after it; the reading takes a block
            # carrying this tool's own fields as a lesson
            return _lead_lines(record, like, rest, "", "", new, new_id, links)
        return opening.successor(record, lines, like, new, new_id, links)

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        if self._opening(lines, target) is HEADING:
            return _annotate_block(lines, target, target.start_line, marks, caveat)
        first = _bare(lines[target.start_line - 1])
        second = _bare(lines[target.start_line]) if target.start_line < len(lines) else ""
        opens_table = "|" in first and table.DELIMITER.match(second) is not None
        if _OPENS_BLOCK.match(first) or _CODE_INDENT.match(first) or opens_table:
            # a block opened by bullets (``- **Key:** value`` parts), a fence, code, a table or a quote: after
            # every part, as paragraphs of the block's own, never folded into a bullet, never
            # inside the fence, never between two parts
            end = target.end_line
            tail: tuple[str, ...] = ("",) if end < len(lines) and _bare(lines[end]).strip() else ()
            return [Insertion(end, ("", marks, "", caveat, *tail))]
        return _annotate_lead(lines, target, "", marks, caveat)

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", "---", "", *entry_lines))


def _field_bullets(
    record: Record, lines: Sequence[bytes], like: Entry, new: Lesson, new_id: str, links: str | None
) -> tuple[list[str], str]:
    """A block of field bullets (``- **Problem:** …``, ``- **Fix:** …``) as ``like``'s list is
    written: the first bullet the title and body in the first bullet's lead style, then one
    field bullet a field line; tight or loose as that list is, numbered on when it is ordered.
    The reading takes a block whose only lesson bullet opens it and carries this tool's fields
    as a block, like its siblings."""
    match = _ITEM_LINE.match(_bare(lines[like.start_line - 1]))
    assert match is not None  # a block opened by a list item
    lead, marker, gap = match["lead"], match["marker"], match["gap"]
    indent = " " * (len(lead) + len(marker) + len(gap))
    tight = _in_tight_list(record, like.start_line - 1)
    opening = f"{lead}{marker}{gap}"
    first, more, shown = _lead_head(record, like, match["rest"], opening, new)
    if tight:
        # no field line closes the first paragraph here: it is joined to the rest as well
        joined = _joined([first[-1][len(opening) :], *more])
        first, more = [*first[:-1], opening + joined[0]], joined[1:]
    item = [*first, *(f"{indent}{line}" if line.strip() else "" for line in more)]
    fields = [_field_line(new, new_id, links, _needs_id(shown, new, new_id))]
    if new.diagnostic:
        fields.append(f"diagnostic: {new.diagnostic}")
    fields += _tail_fields(new)
    number = int(marker[:-1]) if marker[:-1].isdigit() else None
    for index, field in enumerate(fields, start=1):
        bullet = f"{number + index}{marker[-1]}" if number is not None else marker
        item += [*([] if tight else [""]), f"{lead}{bullet}{gap}{field}"]
    return item, shown


class RowForm(Form):
    """A table row: the successor is a row of the same table right after the target's rows, with
    the table's column count and the target's cell padding, numbered in the id column when the
    table has one; fields, the mark and the caveat are continuation rows (``| ↳ | … |``) right
    after the row they belong to, their text in the table's widest text column."""

    kind = "row"
    blocks = False  # a blank line would end the table

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        shape = _TableShape.of(lines, like)
        values = [""] * shape.columns
        if shape.id_column:
            values[0] = _next_id_cell(record, shape, like)
        body = _cell_text(new.body)
        shown = ""
        for bold in (False, True):
            title = f"**{new.title}**" if bold or shape.bold_title else new.title
            if shape.text == shape.title:
                title = f"**{new.title}** — {body}"
            values[shape.title] = table.escape(title)
            if shape.text != shape.title:
                values[shape.text] = body
            row = shape.render(values)
            shown = reading.row_title(row, shape.id_column)
            if carries_title(shown, new.title) and not table.is_continuation(row):
                break
        else:
            raise InvalidArgument(
                f"title {new.title!r} does not read back whole as a row's title in this table; "
                "nothing was proposed"
            )
        fields = [_field_line(new, new_id, links, _needs_id(shown, new, new_id))]
        if new.diagnostic:
            fields.append(f"diagnostic: {new.diagnostic}")
        fields += _tail_fields(new)
        rows = [row, *(shape.continuation(table.escape(f)) for f in fields)]
        return shape.checked(rows), shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        shape = _TableShape.of(lines, target)
        rows = [shape.continuation(marks), shape.continuation(table.escape(caveat.removeprefix("> ")))]
        return [Insertion(target.end_line, tuple(shape.checked(rows)))]

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, tuple(entry_lines))


@dataclass(frozen=True)
class _TableShape:
    """What a new row of a table copies: the column count, which columns hold the id, the title
    and the text, and the target row's indentation, outer pipes and cell padding."""

    header: str
    delimiter: str
    columns: int
    id_column: bool
    title: int
    text: int
    indent: str
    outer: tuple[bool, bool]
    pads: tuple[tuple[int, int, int], ...]  # (leading spaces, width, trailing spaces) per cell
    bold_title: bool
    rows: tuple[str, ...]

    @classmethod
    def of(cls, lines: Sequence[bytes], row: Entry) -> _TableShape:
        at = row.start_line - 1
        # the table block holding the row, as the reading found it: its first line the header,
        # its second the delimiter (a body row may look like a delimiter too)
        source = b"".join(lines).decode("utf-8").removeprefix("\ufeff")
        found = next(
            (b for b in blocks.scan(source).blocks if b.kind == "table" and b.start + 2 <= at < b.end), None
        )
        if found is None:
            raise InvalidArgument(
                f"entry {row.id!r} is not a row of a table with a header; nothing was proposed"
            )
        delimiter = found.start + 1
        bare = [_bare(lines[n]) for n in range(found.start, found.end)]
        rows = tuple(bare[2 : table.rows_end(bare, 2, len(bare))])
        columns = len(table.raw_cells(_bare(lines[delimiter])))
        id_column = columns >= 2 and table.has_id_column(rows)
        title = 1 if id_column else 0
        own = [table.cells(r) for r in rows if not table.is_continuation(r)]
        widths = {c: max((len(r[c]) for r in own if c < len(r)), default=0) for c in range(columns)}
        texts = [c for c in range(columns) if c not in (0, title)]
        text = max(texts, key=lambda c: (widths[c], -c)) if texts else title
        line = _bare(lines[at])
        stripped = line.strip()
        raw = table.raw_cells(line)
        pads = tuple(_pad(cell) for cell in raw)
        written = table.cells(line)
        bold_title = title < len(written) and bool(re.fullmatch(r"(\*\*|__).+\1", written[title]))
        return cls(
            _bare(lines[delimiter - 1]),
            _bare(lines[delimiter]),
            columns,
            id_column,
            title,
            text,
            line[: min(3, len(line) - len(line.lstrip(" ")))],  # four spaces would make code
            (stripped.startswith("|") or columns == 1, stripped.endswith("|") or columns == 1),
            pads,
            bold_title,
            rows,
        )

    def render(self, values: Sequence[str]) -> str:
        cells = []
        for index, value in enumerate(values):
            lead, width, trail = self.pads[index] if index < len(self.pads) else (1, 0, 1)
            if index == 0 and not self.outer[0]:
                lead = 0
            cells.append(" " * lead + value + " " * max(width - lead - len(value), min(trail, 1)))
        return f"{self.indent}{'|' if self.outer[0] else ''}{'|'.join(cells)}{'|' if self.outer[1] else ''}"

    def continuation(self, text: str) -> str:
        values = [""] * self.columns
        if self.text == 0:
            values[0] = f"{table.CONTINUATION} {text}"
        else:
            values[0] = table.CONTINUATION
            values[self.text] = text
        return self.render(values)

    def checked(self, rows: Sequence[str]) -> list[str]:
        """``rows``, once a Markdown table parser reads them as rows of this table: a cell that
        opens like a list, a quote or a fence would end the table instead."""
        snippet = "\n".join([self.header, self.delimiter, *rows])
        tokens = _table_parser().parse(snippet)
        found = [t for t in tokens if t.type == "tr_open"]
        if len(found) != len(rows) + 1 or not any(t.type == "table_open" for t in tokens):
            raise InvalidArgument(
                "the lesson cannot be written as rows of this table (a cell would end the table); "
                "nothing was proposed"
            )
        return list(rows)


def _pad(cell: str) -> tuple[int, int, int]:
    """(leading spaces, width, trailing spaces) of a cell as written; an empty cell: one each side."""
    if not cell.strip():
        return (min(1, len(cell)), len(cell), min(1, len(cell)))
    return (len(cell) - len(cell.lstrip(" ")), len(cell), len(cell) - len(cell.rstrip(" ")))


@functools.lru_cache(maxsize=1)
def _table_parser() -> MarkdownIt:
    """CommonMark with tables, loaded only when a table row is written."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _cell_text(body: str) -> str:
    """A body as one cell: its lines joined by ``<br>`` (a blank line: two), pipes escaped. A
    code block has no form inside a cell, so a body holding one is refused."""
    lines = _body_lines(body)
    if any(line.lstrip().startswith(("```", "~~~")) for line in lines):
        raise InvalidArgument(
            "a table row holds its lesson in one cell, and the body has a fenced code block, which "
            "a cell cannot hold: write the code inline (`like this`) or in a few lines; nothing was proposed"
        )
    parts = [line.strip() for line in lines]
    parts = [p[:-1] if p.endswith("\\") and not p.endswith("\\\\") else p for p in parts]
    while parts and not parts[0]:
        parts.pop(0)
    while parts and not parts[-1]:
        parts.pop()
    return table.escape("<br>".join(parts))


def _next_id_cell(record: Record, shape: _TableShape, like: Entry) -> str:
    """The id the successor's row takes: the target's, + 1 when no row or title uses it, else the
    first free sub-number under it (the rule ``next_label`` keeps for titles)."""
    cells = table.cells(_bare_at(record, like.start_line - 1))
    own = table.id_cell(cells[0]) if cells else None
    if own is None:
        return ""
    column = {
        found.number
        for r in shape.rows
        if not table.is_continuation(r)
        and (c := table.cells(r))
        and (found := table.id_cell(c[0])) is not None
        and found.stem == own.stem
    }
    taken = frozenset(column | _taken(record, own.stem))
    following = next_label(Label(own.stem, own.number, own.widths, ""), taken)
    return dataclasses.replace(own, number=following.number).text()


class DocumentForm(Form):
    """A whole file that is one lesson (a write-up, a memory file): the caveat closes the
    document, and the successor (or a captured lesson) follows it after a ``---`` rule as a
    ``##`` section (one level below the document's own title) opening with its field line
    (``tasks: … · root-cause: …``); the reading takes such sections after a one-lesson
    document as lessons of their own."""

    kind = "document"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        levels = [len(m[1]) for m in (_ATX.match(_bare(x)) for x in lines[: like.end_line]) if m]
        level = min(max(min(levels, default=1) + 1, 2), 6)
        return _heading_lines(level, new.title, new, new_id, links), new.title

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        end = target.end_line
        tail: tuple[str, ...] = ("",) if end < len(lines) and _bare(lines[end]).strip() else ()
        return [Insertion(end, ("", marks, "", caveat, *tail))]

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", "---", "", *entry_lines))


HEADING = HeadingForm()
ITEM = ItemForm()
PARAGRAPH = ParagraphForm()
CALLOUT = CalloutForm()
FORMS: dict[str, Form] = {
    f.kind: f for f in (HEADING, ITEM, PARAGRAPH, BlockForm(), RowForm(), DocumentForm())
}


def form_of(entry: Entry) -> Form:
    """The form of ``entry``'s kind; refuses a kind no edit is defined for, before anything is written."""
    form = FORMS.get(entry.kind)
    if form is None:
        raise UnsupportedEntry(
            f"entry {entry.id!r} is a {entry.kind}; an edit of that kind of entry is not supported "
            f"yet (supported: {', '.join(FORMS)}); nothing was changed"
        )
    return form


# --- where the mark and the caveat go --------------------------------------------------------

# Keys that say something about an entry rather than being one of its parts: a caveat goes
# after these, never between ``Symptom:`` and ``Cause:``.
METADATA_KEYS = KNOWN | frozenset(
    (
        "date",
        "added",
        "updated",
        "discovered",
        "resolved",
        "fixed",
        "severity",
        "priority",
        "category",
        "tags",
        "area",
        "component",
        "owner",
        "author",
        "related",
        "refs",
        "references",
        "pr",
        "confidence",
        "frequency",
        "impact",
        "scope",
        "type",
    )
)


def _metadata_lines(target: Entry) -> frozenset[int]:
    """0-based lines whose first field is a metadata key."""
    first: dict[int, str] = {}
    for field in target.fields:
        first.setdefault(field.line - 1, field.key)
    return frozenset(line for line, key in first.items() if key in METADATA_KEYS)


_LIST_PREFIX = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+)")


def _field_prefix(line: str, plain: str) -> str:
    """The prefix a mark line takes after ``line``: a field bullet's own marker, else ``plain``."""
    match = _LIST_PREFIX.match(line)
    if not match:
        return plain
    marker = match[2]
    if marker[:-1].isdigit():
        marker = f"{int(marker[:-1]) + 1}{marker[-1]}"
    return f"{match[1]}{marker}{match[3]}"


def _marks_then_caveat(
    lines: Sequence[bytes], at: int, end: int, prefix: str, indent: str, marks: str, caveat: str
) -> Insertion:
    """The mark line, a blank line, the caveat; a blank line after it when the entry goes on."""
    tail: tuple[str, ...] = ("",) if at < end and _bare(lines[at]).strip() else ()
    return Insertion(at, (prefix + marks, "", indent + caveat, *tail))


def _annotate_block(
    lines: Sequence[bytes], target: Entry, body: int, marks: str, caveat: str
) -> list[Insertion]:
    """Under a heading: after the metadata lines the body opens with, else before the body."""
    end = target.end_line
    first = next((i for i in range(body, end) if _bare(lines[i]).strip()), None)
    if first is None:
        return [Insertion(end, ("", marks, "", caveat))]
    metadata = _metadata_lines(target)
    run = first
    while run < end and run in metadata:
        run += 1
    if run == first:
        return [Insertion(first, (marks, "", caveat, ""))]
    prefix = _field_prefix(_bare(lines[run - 1]), "")
    return [_marks_then_caveat(lines, run, end, prefix, "", marks, caveat)]


_CODE_INDENT = re.compile(r"^(?: {4}|\t| {1,3}\t)")
_OPENS_BLOCK = re.compile(r"^\s*(?:[-*+]\s|\d{1,9}[.)]\s|>|```|~~~|#{1,6}\s|<)")


def _annotate_lead(
    lines: Sequence[bytes], target: Entry, indent: str, marks: str, caveat: str, tight: bool = False
) -> list[Insertion]:
    """In a lead paragraph's entry (a list item, a bold-lead paragraph): after the metadata lines
    that follow the lead, else after the lead paragraph; the caveat a paragraph of the entry's
    own, at its content column, with a blank line before it. In a tight list the mark and the
    caveat take no blank line (one would make the list loose): the mark continues the paragraph
    above it and the quote interrupts it, after the whole paragraph when the metadata lines are
    followed by more of its text (that text would otherwise continue the quote)."""
    start, end = target.start_line - 1, target.end_line
    metadata = _metadata_lines(target)
    run = start + 1
    while run < end and run in metadata:
        run += 1
    if run > start + 1:
        prefix = _field_prefix(_bare(lines[run - 1]), indent)
        # lazy lines (indented less than the content) belong to the paragraph they follow:
        # a blank line before them would push them out of the entry
        while run < end and _is_lazy(_bare(lines[run]), indent):
            run += 1
        if tight and run < end and not _ends_quote(_bare(lines[run]), indent):
            run = _paragraph_end(lines, run, end)
            prefix = _field_prefix(_bare(lines[run - 1]), indent) if run - 1 in metadata else indent
        if tight and (run >= end or _ends_quote(_bare(lines[run]), indent)):
            return [Insertion(run, (prefix + marks, indent + caveat))]
        if tight and (closing := _closing_in_tight_item(lines, start, end, indent, marks, caveat)):
            return [closing]
        return [_marks_then_caveat(lines, run, end, prefix, indent, marks, caveat)]
    at = _paragraph_end(lines, start + 1, end)
    if tight and (at >= end or _ends_quote(_bare(lines[at]), indent)):
        return [Insertion(at, (indent + marks, indent + caveat))]
    if tight and (closing := _closing_in_tight_item(lines, start, end, indent, marks, caveat)):
        return [closing]
    return [_marks_then_caveat(lines, at, end, indent, indent, marks, caveat)]


def _closing_in_tight_item(
    lines: Sequence[bytes], start: int, end: int, indent: str, marks: str, caveat: str
) -> Insertion | None:
    """The mark and the caveat closing a tight item whose lead is followed by a quote (a
    callout), which the caveat's quote would run into: after the item's last line, the mark a
    field bullet of its own (a bullet ends the quote before it without a blank line) and the
    caveat after it. ``None`` when the line after the item would continue the caveat."""
    close = next((n + 1 for n in range(end - 1, start, -1) if _bare(lines[n]).strip()), None)
    if close is None or (close < len(lines) and not _ends_quote(_bare(lines[close]), indent)):
        return None
    return Insertion(close, (f"{indent}- {marks}", indent + caveat))


def _paragraph_end(lines: Sequence[bytes], at: int, end: int) -> int:
    """The first line from ``at`` that is blank or opens a block of its own."""
    while at < end:
        text = _bare(lines[at])
        if not text.strip() or _OPENS_BLOCK.match(text):
            break
        at += 1
    return at


# a line that can interrupt a paragraph (so it does not continue a quote lazily), once the
# item's content column is taken off; a ``>`` line would continue the quote itself
_INTERRUPTS = re.compile(r"^ {0,3}(?:[-*+][ \t]+\S|1[.)][ \t]+\S|```|~~~|#{1,6}(?:[ \t]|$))")


def _ends_quote(text: str, indent: str) -> bool:
    """``text``, right after the caveat's line, ends the quote rather than continuing it."""
    if not text.strip():
        return True
    inner = text[len(indent) :] if text.startswith(indent) else text.lstrip(" ")
    if len(text) - len(text.lstrip(" ")) < len(indent):
        # less indented than the item's content: a line of the list (another item) or after it
        return bool(_INTERRUPTS.match(text.lstrip(" ")) or _MARKER.match(text))
    return bool(_INTERRUPTS.match(inner))


def _is_lazy(text: str, indent: str) -> bool:
    stripped = text.lstrip(" ")
    return bool(stripped) and len(text) - len(stripped) < len(indent) and not _OPENS_BLOCK.match(text)


_MARKER = re.compile(r"^(\s{0,3})([-*+]|\d{1,9}[.)])(\s{1,4})")


def _content_column(first_line: str) -> int:
    match = _MARKER.match(first_line)
    return len(match[0]) if match else 2


# --- what the successor looks like -----------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*$")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_ITEM_LINE = re.compile(
    r"^(?P<lead> {0,3})(?P<marker>[-*+]|\d{1,9}[.)])(?P<gap>[ \t]{1,4})(?P<box>\[[ xX]\][ \t]+)?(?P<rest>.*)$"
)
_BOLD_LEAD = re.compile(r"^(?P<b>\*\*|__)(?P<inner>.+?)(?P=b)(?P<after>.*)$")
_STAMP_LEAD = re.compile(r"^(\[\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\])\s")
_INNER_PUNCT = re.compile(r"[:：.。]$")
_AFTER_SEP = re.compile(r"^(?:\s*[—–-]\s+|\s*[:：]\s*|\s+)")
_SENTENCE = re.compile(r"[.!?。]\s|\s[—–]\s")


def _field_line(new: Lesson, new_id: str, links: str | None, needs_id: bool) -> str:
    parts = []
    if needs_id:
        parts.append(f"id: {new_id}")
    parts.append(f"tasks: {', '.join(new.tasks)}")
    parts.append(f"root-cause: {new.root_cause}")
    if links:
        parts.append(links)
    return SEPARATOR.join(parts)


def _needs_id(shown: str, new: Lesson, new_id: str) -> bool:
    """An explicit ``id:`` whenever the title as written is not the lesson's own title, so the
    id never depends on how the numbering or decoration is read."""
    return shown != new.title or new_id != slugify(new.title)


def _tail_fields(new: Lesson) -> list[str]:
    out = []
    if new.ruled_out:
        out.append(f"ruled-out: {'; '.join(new.ruled_out)}")
    if new.evidence:
        out.append(f"evidence: {new.evidence}")
    return out


def _body_lines(body: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", body)


def _heading_lines(
    level: int, shown: str, new: Lesson, new_id: str, links: str | None, closing: str = ""
) -> list[str]:
    """A heading entry; ``closing`` is the target's closing sequence (`` ##``), when it has one."""
    head = [
        f"{'#' * level} {shown}{closing}",
        "",
        _field_line(new, new_id, links, _needs_id(shown, new, new_id)),
    ]
    if new.diagnostic:
        head.append(f"diagnostic: {new.diagnostic}")
    tail = _tail_fields(new)
    return [*head, "", *_body_lines(new.body), *(["", *tail] if tail else [])]


def _lead_lines(
    record: Record,
    like: Entry,
    rest: str,
    opening: str,
    indent: str,
    new: Lesson,
    new_id: str,
    links: str | None,
    tight: bool = False,
) -> tuple[list[str], str]:
    """A lead entry (list item, lead paragraph) in ``like``'s lead style: ``**Title:** text``,
    ``**Title** — text``, a bold title alone on its line, or a plain ``Title — text``. In a
    tight list the body's paragraphs are joined (see ``_joined``)."""
    first, more, shown = _lead_head(record, like, rest, opening, new)
    lines = [*first, indent + _field_line(new, new_id, links, _needs_id(shown, new, new_id))]
    if new.diagnostic:
        lines.append(f"{indent}diagnostic: {new.diagnostic}")
    if tight:
        more = _joined(more)
    lines += [f"{indent}{line}" if line.strip() else "" for line in more]
    lines += [indent + line for line in _tail_fields(new)]
    return lines, shown


def _lead_head(
    record: Record, like: Entry, rest: str, opening: str, new: Lesson
) -> tuple[list[str], list[str], str]:
    """A lead entry's first line in ``like``'s lead style (see ``_lead_lines``), the body lines
    left to follow it, and its title as it will read."""
    body = _body_lines(new.body)
    bold = _BOLD_LEAD.match(rest)
    numbered = (
        _styled_title(record, like, bold["inner"], "") if bold and _is_label_only(bold["inner"]) else ""
    )
    if bold and numbered:
        # ``**1.** Title``: the bold lead-in is the number alone; the successor's is the free
        # number after it (``**1.1.**``), its title after the number as the target's is
        after = bold["after"]
        gap = after[: len(after) - len(after.lstrip())] or " "
        shown = f"{numbered.rstrip()} {new.title}"
        first, more = [f"{opening}{bold['b']}{numbered}{bold['b']}{gap}{new.title}"], body
    elif bold:
        inner = bold["inner"]
        punct = _INNER_PUNCT.search(inner)
        mark = punct[0] if punct else ""
        shown = _styled_title(record, like, inner[: len(inner) - len(mark)], new.title)
        after = bold["after"]
        head = f"{opening}{bold['b']}{shown}{mark}{bold['b']}"
        if after.strip():
            sep = _AFTER_SEP.match(after)
            first = [f"{head}{sep[0] if sep else ' '}{body[0]}"]
            more = body[1:]
        else:
            first, more = [head], body
    elif stamp := _STAMP_LEAD.match(rest):
        # ``[2030-01-02 10:00] Title: text``: the edit has no clock, so the successor reuses the
        # target's stamp (the date its advice was recorded); `` — `` ends the title so it reads
        # back whole even when it holds a colon
        shown = f"{stamp[1]} {new.title}"
        first, more = [f"{opening}{shown} — {body[0]}"], body[1:]
    else:
        shown = _styled_title(record, like, rest, new.title)
        plain = f"{opening}{shown} — {body[0]}"
        if _SENTENCE.search(shown + " ") or is_plain_field_line(plain):
            # a plain title must read back whole: not cut at a sentence end, not taken for a field
            shown = new.title
            plain = f"{opening}**{shown}** — {body[0]}"
        first, more = [plain], body[1:]
    return first, more, shown


_HARD_BREAK_AFTER = re.compile(r"^(?! {4})(?!\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$))(?!\s*(?:>|#|```|~~~|\|))\S")


def _joined(more: Sequence[str]) -> list[str]:
    """The body's lines after the field lines with the blank lines between its paragraphs taken
    out, so they stay in one item of a tight list (a blank line there would make the list loose):
    a paragraph ends with a backslash hard break, except the one the field lines close (a field
    line keeps its own value) and one before a line that opens a block anyway. A blank line
    whose neighbours cannot be joined so (after a list line, inside a fence) is kept."""
    out: list[str] = []
    fence = ""
    pending = False  # a blank line seen since the last text line
    for line in more:
        stripped = line.strip()
        if not stripped:
            pending = pending or bool(out)
            if fence:
                out.append(line)
            continue
        if pending and not fence:
            last = out[-1]
            if _INTERRUPTS.match(line) or _ATX.match(last) or last.lstrip().startswith(("```", "~~~")):
                pass  # a block that ends on its line, or one that interrupts a paragraph
            elif _HARD_BREAK_AFTER.match(last) and not last.endswith("\\"):
                out[-1] = last + "\\"
            else:
                out.append("")
        pending = False
        opener = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if opener and not fence:
            fence = opener[1]
        elif fence and line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            fence = ""
        out.append(line)
    return out


def _next_ordinal(record: Record, like: Entry) -> int:
    """A numbered item's number: the target's + 1 when no item of its numbering has it, else one
    above every number of the numbering (a list marker can carry no sub-number)."""
    numbers = _list_numbers(record, like.start_line - 1)
    own = numbers.get(like.start_line - 1, 0)
    used = set(numbers.values())
    return own + 1 if own + 1 not in used else max(used) + 1


def _list_numbers(record: Record, line: int) -> dict[int, int]:
    """The numbers of the items of the numbering that holds the item on 0-based ``line``: its
    ordered list and the other ordered lists of the same container that continue it, being in
    the same section (a code block or a paragraph between items splits one numbering into
    several Markdown lists) or starting where the list before them stopped (``3.`` after ``2.``
    under the next group heading)."""
    lists: list[tuple[tuple[int, int], int, dict[int, int]]] = []  # (container, level), section
    opened: list[dict[int, int] | None] = []  # per open token: the numbers of an ordered list
    containers: list[int] = []  # token index of each open container
    section = 0
    for index, token in enumerate(_block_tokens(record.data)):
        if token.type == "heading_open":
            section += 1
        if token.nesting == 1:
            numbers: dict[int, int] | None = None
            if token.type == "ordered_list_open":
                numbers = {}
                lists.append(((containers[-1] if containers else -1, token.level), section, numbers))
            opened.append(numbers)
            containers.append(index)
        elif token.nesting == -1:
            opened.pop()
            containers.pop()
        if token.type == "list_item_open" and token.map and len(opened) >= 2:
            into = opened[-2]
            if into is not None:
                into[token.map[0]] = int(token.info) if token.info.isdigit() else 0
    groups: dict[tuple[int, int], tuple[int, dict[int, int]]] = {}  # the numbering going on
    found: dict[int, int] = {}
    for where, section, numbers in lists:
        current = groups.get(where)
        ordered = sorted(numbers.values())
        if current is not None and (
            current[0] == section or (ordered and current[1] and ordered[0] == max(current[1].values()) + 1)
        ):
            current[1].update(numbers)
            groups[where] = (section, current[1])
        else:
            groups[where] = (section, dict(numbers))
        if line in numbers:
            found = groups[where][1]  # the same dict takes in the lists that continue it later
    return found


def _styled_title(record: Record, like: Entry, written: str, title: str) -> str:
    """``title`` dressed as ``like``'s title is written: its date, a free number or id in its
    scheme, and the symbol or wrapper every sibling shares."""
    mine = split_title(written)
    if not (mine.symbol or mine.outer or mine.inner or mine.label):
        return f"{mine.date}{title}"  # the common case: nothing to compare with the siblings
    siblings = [split_title(_written_title(record, e)) for e in _siblings(record, like)] or [mine]
    symbol = mine.symbol if mine.symbol and all(s.symbol == mine.symbol for s in siblings) else ""
    if symbol.strip() in _STATUS_SYMBOLS:
        symbol = ""
    outer = mine.outer if all(s.outer == mine.outer for s in siblings) else ""
    inner = mine.inner if all(s.inner == mine.inner for s in siblings) else ""
    label = ""
    if mine.label is not None:
        same = [s for s in siblings if s.label is not None and s.label.stem == mine.label.stem]
        if len(same) >= 2 and len(same) * 2 > len(siblings):
            label = next_label(mine.label, _taken(record, mine.label.stem)).text()
    core = f"{inner}{title}{inner}"
    return f"{outer}{symbol}{mine.date}{label}{core}{outer}"


SIBLING_WINDOW = 100


def _siblings(record: Record, like: Entry) -> list[Entry]:
    """Entries of ``like``'s kind and level nearest to it: at most ``SIBLING_WINDOW`` each side,
    since a file's form is local and a big file must not make each edit scan every title."""
    same = [e for e in record.entries if e.kind == like.kind and e.level == like.level]
    here = next((i for i, e in enumerate(same) if e.start == like.start), 0)
    return same[max(0, here - SIBLING_WINDOW) : here + SIBLING_WINDOW + 1]


def _written_title(record: Record, entry: Entry) -> str:
    """An entry's title as written in the file: heading text, or a lead's bold text or first words."""
    cut = record.data.find(b"\n", entry.start, entry.end)
    first = record.data[entry.start : cut if cut != -1 else entry.end].decode("utf-8").rstrip("\r")
    heading = _ATX.match(first)
    if heading:
        return heading["text"]
    item = _ITEM_LINE.match(first)
    rest = item["rest"] if item else first.strip()
    bold = _BOLD_LEAD.match(rest)
    return bold["inner"] if bold else rest


# --- numbers and ids in titles ---------------------------------------------------------------

_STATUS_SYMBOLS = frozenset("✅✔☑❌✖✗✓🟢🔴🟡") | {"✔️", "☑️", "✖️"}
_WRAP = re.compile(r"^(?P<w>\*\*|__|`)(?P<text>(?:(?!(?P=w)).)+)(?P=w)$")
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2}(?:\s*[—–·:|-]\s*|\s+))(?=\S)")
_LABEL = re.compile(
    r"^(?P<stem>[^\W\d_]{1,12}[-_]|[^\W\d_]{1,12} |#)?"
    r"(?P<number>\d{1,6}(?:\.\d{1,6})*)"
    r"(?P<sep>\.?[ \t]*[·—–:：|)][ \t]*|\.[ \t]+|[ \t]+-[ \t]+|[ \t]+)(?=\S)"
)


_LABEL_ALONE = re.compile(
    r"(?P<stem>[^\W\d_]{1,12}[-_ ]|#)?(?P<number>\d{1,6}(?:\.\d{1,6})*)(?P<sep>[.):：]?)[ \t]*"
)


def _is_label_only(inner: str) -> bool:
    """A bold lead-in that holds only a number or id (``**1.**``, ``**L-05:**``)."""
    parts = split_title(inner)
    return parts.label is not None and not parts.core


@dataclass(frozen=True)
class Label:
    """A number or id that opens a title: ``L-055 · ``, ``11.4 ``, ``3. ``, ``陷阱 1：``."""

    stem: str
    number: tuple[int, ...]
    widths: tuple[int, ...]
    separator: str

    def text(self) -> str:
        parts = [
            str(n).zfill(w)
            for n, w in zip(self.number, (*self.widths, *[1] * len(self.number)), strict=False)
        ]
        return f"{self.stem}{'.'.join(parts)}{self.separator}"


@dataclass(frozen=True)
class TitleParts:
    """A written title taken apart: ``outer`` wraps it all, ``inner`` wraps ``core`` alone."""

    outer: str
    symbol: str
    date: str
    label: Label | None
    inner: str
    core: str


def _symbol(text: str) -> str:
    """Leading pictographs (an emoji, with its joiners and variation selectors) and their space."""
    index = 0
    while index < len(text) and (
        unicodedata.category(text[index]) in ("So", "Sk") or text[index] in "\u200d\ufe0f"
    ):
        index += 1
    if index == 0 or index >= len(text) or not text[index].isspace():
        return ""
    return text[: len(text[:index]) + len(text[index:]) - len(text[index:].lstrip())]


def split_title(written: str) -> TitleParts:
    """Take a title as written apart into its decoration, date, label and own words."""
    text = written.strip()
    outer = ""
    wrapped = _WRAP.match(text)
    if wrapped and wrapped["w"] != "`":
        outer, text = wrapped["w"], wrapped["text"].strip()
    symbol = _symbol(text)
    text = text[len(symbol) :]
    date_match = _DATE.match(text)
    date = date_match[1] if date_match else ""
    text = text[len(date) :]
    label = None
    found = _LABEL.match(text)
    alone = None if found else _LABEL_ALONE.fullmatch(text)
    if alone and (alone["stem"] or "." in alone["number"] or len(alone["number"]) <= 3):
        # a title that is nothing but its number (``**2.**`` leading a paragraph); not a year
        numbers = alone["number"].split(".")
        number = tuple(int(n) for n in numbers)
        widths = tuple(len(n) for n in numbers)
        return TitleParts(
            outer, symbol, date, Label(alone["stem"] or "", number, widths, alone["sep"]), "", ""
        )
    if found:
        stem, sep = found["stem"] or "", found["sep"]
        # after a plain space only a bare dotted number is a label (``11.4 Title``): with a
        # stem it is a name or a version (``CUDA-12 builds``, ``Node 20.11 broke``); an id
        # scheme puts a separator after its ids (``L-055 · ``, ``ADR-012: ``, ``G-7 — ``)
        spaced_only = not sep.strip(" \t")
        if not spaced_only or ("." in found["number"] and not stem):
            numbers = found["number"].split(".")
            label = Label(stem, tuple(int(n) for n in numbers), tuple(len(n) for n in numbers), sep)
            text = text[len(found[0]) :]
    inner = ""
    wrapped = _WRAP.match(text)
    if wrapped:
        inner, text = wrapped["w"], wrapped["text"]
    return TitleParts(outer, symbol, date, label, inner, text)


def title_label(title: str) -> Label | None:
    """The number or id a title opens with, if any."""
    return split_title(title).label


def carries_title(shown: str, title: str) -> bool:
    """``shown`` (a title as read back) is ``title`` as written, perhaps numbered or decorated."""

    def bare(text: str) -> str:
        return " ".join(text.split()).rstrip(":：.。").strip()

    if bare(shown) == bare(title):
        return True
    read, planned = split_title(shown), split_title(title)
    if bare(read.core) == bare(title):
        return True
    if planned.label is None or not bare(planned.core):
        return False
    if read.label is None:
        return bare(shown) == bare(planned.core)  # the number was read as a lead-in of its own
    same = (read.label.stem, read.label.number) == (planned.label.stem, planned.label.number)
    # ``**1.1.** Title`` may read back as its number alone, the title being the text after it
    return same and (not read.core or bare(read.core) == bare(planned.core))


def number_alone_carries(title_read: str, first_line: str, title: str) -> bool:
    """An entry whose title reads as its number alone (``**1.1.** Title`` reads ``1.1``) carries
    ``title`` when its first line goes on with it."""
    parts = split_title(title_read)
    if parts.label is None or parts.core:
        return False
    return " ".join(title.split()) in " ".join(first_line.split())


def _taken(record: Record, stem: str) -> frozenset[tuple[int, ...]]:
    """Every number written with ``stem`` anywhere in the file (a bare number: in any heading,
    list item or bold lead-in of a paragraph)."""
    text = record.data.decode("utf-8", errors="replace")
    if stem and stem != "#":
        # the stem first, so the scan runs on its literal; a letter before it makes another word
        pattern = re.compile(rf"{re.escape(stem)}(\d{{1,6}}(?:\.\d{{1,6}})*)(?!\d)")
        return frozenset(
            tuple(int(n) for n in m[1].split("."))
            for m in pattern.finditer(text)
            if m.start() == 0 or not text[m.start() - 1].isalnum()
        )
    taken = set()
    for line in text.splitlines():
        heading = _ATX.match(line)
        item = _ITEM_LINE.match(line)
        written = heading["text"] if heading else (item["rest"] if item else None)
        if written is None and line.lstrip(" ").startswith(("**", "__")):
            written = line.strip()  # a paragraph led by a bold title or number (``**2.** …``)
        if written is None:
            continue
        bold = _BOLD_LEAD.match(written)
        label = split_title(bold["inner"] if bold else written).label
        if label is not None and label.stem == stem:
            taken.add(label.number)
    return frozenset(taken)


def next_label(label: Label, taken: frozenset[tuple[int, ...]]) -> Label:
    """The free label that sorts right after ``label``: its last number + 1 when no title in the
    file uses it, else the first free ``.1``, ``.2``… under it (``11.4`` → ``11.4.1``)."""
    following = (*label.number[:-1], label.number[-1] + 1)
    if following not in taken:
        return Label(label.stem, following, label.widths, label.separator)
    sub = 1
    while (*label.number, sub) in taken:
        sub += 1
    return Label(label.stem, (*label.number, sub), label.widths, label.separator)


# --- placing and merging insertions ----------------------------------------------------------


def _next_entry_line(record: Record, anchor: Entry) -> int:
    """The first line of the entry after ``anchor`` (entries are in file order: a bisection)."""
    entries = record.entries
    at = bisect.bisect_right(entries, anchor.end_line, key=lambda e: e.start_line)
    return entries[at].start_line - 1 if at < len(entries) else len(record.line_starts) - 1


def _separated(
    insertions: Sequence[Insertion], lines: Sequence[bytes], blocks: bool
) -> tuple[Insertion, ...]:
    """Merge insertions at the same line (in plan order) and, for blank-line separated forms, end
    each with a blank line when the next original line is not blank: otherwise that line could
    join our last paragraph (a ``---`` there would turn it into a heading)."""
    merged: dict[int, list[str]] = {}
    for insertion in insertions:
        merged.setdefault(insertion.at, []).extend(insertion.lines)
    out = []
    for at, block in sorted(merged.items()):
        follows = _bare(lines[at]).strip() if at < len(lines) else ""
        if blocks and block and block[-1].strip() and follows:
            block.append("")
        out.append(Insertion(at, tuple(block)))
    return tuple(out)


def _apply(data: bytes, lines: Sequence[bytes], insertions: Sequence[Insertion], eol: bytes) -> bytes:
    """``data`` with the insertions spliced in at their lines' byte offsets (the same bytes as
    joining the lines with the new ones among them, without splitting the whole file)."""
    if not isinstance(lines, _Lines):
        return b"".join(_new_lines(lines, insertions, eol))
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
    return _apply(data, data.splitlines(keepends=True), insertions, eol)


def _new_lines(lines: Sequence[bytes], insertions: Sequence[Insertion], eol: bytes) -> list[bytes]:
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
