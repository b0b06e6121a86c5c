"""Numbers and ids in titles: a title taken apart, and a successor's title in its siblings' scheme."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from gotchas.edit.lines import ATX, BOLD_LEAD, ITEM_LINE
from gotchas.record import Entry, Record

_STATUS_SYMBOLS = frozenset("✅✔☑❌✖✗✓🟢🔴🟡") | {"✔️", "☑️", "✖️"}
# a severity told by colour (``### 🔴 …``, ``### 🟡 …``, ``### 🟢 …``)
_SEVERITY = frozenset("🔴🟠🟡🟢🔵🟣⚪⚫🟤")


_WRAP = re.compile(r"^(?P<w>\*\*|__|`)(?P<text>(?:(?!(?P=w)).)+)(?P=w)$")


_DATE = re.compile(r"^((?:\d{4}-\d{2}-\d{2}|\[\d{4}-\d{2}-\d{2}\])(?:\s*[—–·:|\-，：、]\s*|\s+))(?=\S)")
# a title that is its date alone (``## 2026-02-07`` over that day's lessons, ``### [2026-01-26]``)
_DATE_ALONE = re.compile(r"\d{4}-\d{2}-\d{2}|\[\d{4}-\d{2}-\d{2}\]")


_LABEL = re.compile(
    r"^(?P<stem>\[(?:[^\W\d_]{1,12}[-_]?)?|[^\W\d_]{1,12}[-_]|"
    r"(?:[^\W\d_]{1,12} )?#|[^\W\d_]{1,12} |[A-Z]{1,4}(?=\d))?"  # ``#2 ``, ``Issue #2: ``: a count
    r"(?P<number>\d{1,6}(?:\.\d{1,6})*)"
    r"(?P<sep>\][ \t]*(?:[·—–:：|-][ \t]*)?|\.?[ \t]*[·—–:：|)][ \t]*|\.[ \t\xa0]+|[ \t]+-[ \t]+|[ \t]+)"
    r"(?=\S)"
)


# the kind of lesson a title names before its own words (``Issue: ``, ``Pattern: ``, ``Lesson: ``)
_KIND = re.compile(r"^[^\W\d_]+(?: [^\W\d_]+){0,2}[ \t]?[:：][ \t]+(?=\S)")


_LABEL_ALONE = re.compile(
    r"(?P<stem>[^\W\d_]{1,12}[-_ ]|#)?(?P<number>\d{1,6}(?:\.\d{1,6})*)(?P<sep>[.):：]?)[ \t]*"
)


def is_label_only(inner: str) -> bool:
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
    """A written title taken apart: ``outer`` wraps it all, ``inner`` wraps ``kind`` and ``core``.
    ``kind`` is the kind of lesson named before the title's own words (``Issue: ``), or ``""``."""

    outer: str
    symbol: str
    date: str
    label: Label | None
    inner: str
    core: str
    kind: str = ""


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
    if not date and _DATE_ALONE.fullmatch(text):
        # its words, when it gains some, follow a dash, as in a dated title (``2026-02-07 — …``)
        return TitleParts(outer, symbol, f"{text} — ", None, "", "")
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
        if stem.startswith("[") != sep.startswith("]"):
            pass  # an id in brackets (``[P-012] ``) is one only with both of them
        elif not spaced_only or ("." in found["number"] and not stem) or stem.endswith("#"):
            numbers = found["number"].split(".")
            label = Label(stem, tuple(int(n) for n in numbers), tuple(len(n) for n in numbers), sep)
            text = text[len(found[0]) :]
    inner = ""
    wrapped = _WRAP.match(text)
    if wrapped:
        inner, text = wrapped["w"], wrapped["text"]
    kind = _KIND.match(text)
    if kind is None:
        return TitleParts(outer, symbol, date, label, inner, text)
    return TitleParts(outer, symbol, date, label, inner, text[kind.end() :], kind[0])


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
    if planned.label is None and read.label is not None and not read.core and read.label.stem:
        # ``**PITFALL-004.1**: Title`` reads back as its id alone, as its siblings' ids do
        return bare(title).startswith(bare(read.label.text()) + " ")
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


def taken_numbers(record: Record, stem: str) -> frozenset[tuple[int, ...]]:
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
        heading = ATX.match(line)
        item = ITEM_LINE.match(line)
        written = heading["text"] if heading else (item["rest"] if item else None)
        if written is None and line.lstrip(" ").startswith(("**", "__")):
            written = line.strip()  # a paragraph led by a bold title or number (``**2.** …``)
        if written is None:
            continue
        bold = BOLD_LEAD.match(written)
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


def styled_title(record: Record, like: Entry, written: str, title: str) -> str:
    """``title`` dressed as ``like``'s title is written: its date, a free number or id in its
    scheme, and the symbol, wrapper or kind of lesson (``Issue: ``) its siblings share."""
    mine = split_title(written)
    # a heading's title may name its kind of lesson and close as a sentence (``### Lesson: Merge
    # state deeply.``); an item's ``Problem: …`` is a field
    heading = like.kind == "heading"
    closes = (":", "：", ".", "。") if heading else (":", "：")
    closed = mine.core.rstrip().endswith(closes)
    kind = mine.kind if heading else ""
    if not (mine.symbol or mine.outer or mine.inner or mine.label or closed or kind):
        return f"{mine.date}{title}"  # the common case: nothing to compare with the siblings
    siblings = [split_title(written_title(record, e)) for e in _siblings(record, like)] or [mine]
    # kept where every sibling shares it, or opens with a pictograph of its own (``🔍 …``, ``🎮 …``)
    shared = all(s.symbol == mine.symbol for s in siblings)
    own = len(siblings) >= 2 and all(s.symbol for s in siblings)
    symbol = mine.symbol if mine.symbol and (shared or own) else ""
    if mine.symbol.strip() in _STATUS_SYMBOLS:
        # a status mark is one entry's (``## ✅ … — closed``) unless most siblings carry it:
        # then it is their form (``#### ✅ **Title**`` over a few ``#### ❌ …``); where every
        # sibling is graded by colour, the successor keeps the grade of the problem it corrects
        marked = sum(1 for s in siblings if s.symbol == mine.symbol)
        graded = all(s.symbol.strip() in _SEVERITY for s in siblings)
        held = marked * 3 >= len(siblings) * 2 or graded
        symbol = mine.symbol if len(siblings) >= 3 and held else ""
    outer = mine.outer if all(s.outer == mine.outer for s in siblings) else ""
    inner = mine.inner if all(s.inner == mine.inner for s in siblings) else ""
    label = ""
    if mine.label is not None and (
        _scheme_holds(mine.label, siblings) or _pair_holds(record, like, mine.label)
    ):
        label = next_label(mine.label, taken_numbers(record, mine.label.stem)).text()
        if title and not mine.core and not label[-1:].isspace():
            label += " "  # a title that is its number alone (``## 5``): the words follow a space
    closing = mine.core.rstrip()[-1:]
    every = len(siblings) >= 2 and all(s.core.rstrip().endswith(closing) for s in siblings)
    if closing not in closes or not every or title.rstrip().endswith(closing):
        closing = ""  # kept when every sibling's title closes with it (``#### Login fails (401):``)
    core = f"{inner}{_shared_kind(kind, siblings, title)}{title}{closing}{inner}"
    return f"{outer}{symbol}{mine.date}{label}{core}{outer}"


def _shared_kind(kind: str, siblings: list[TitleParts], title: str) -> str:
    """``kind`` where at least two in three siblings (two or more) name it before their words
    (``### Issue: …`` over every problem), and the new title names no kind of its own."""
    if not kind or len(siblings) < 2 or split_title(title).kind:
        return ""
    same = sum(1 for s in siblings if s.kind.casefold() == kind.casefold())
    return kind if same * 3 >= len(siblings) * 2 else ""


def _scheme_holds(label: Label, siblings: list[TitleParts]) -> bool:
    """Whether a successor goes on with ``label``'s scheme: most siblings share its stem, or
    every sibling carries an id of some stem (``A-001 · …`` beside ``W-001 · …``), or the
    entry has no sibling to say otherwise (one ``## KI-1 — …`` alone goes on as ``KI-2``). An id
    names one entry: a stem and number three siblings carry (``[SEV-1]``) name a class, no id."""
    if label.stem.endswith("#"):
        # ``#7``, ``Issue #7``: an ordinal where the siblings count up with it (``#1``, ``#2``…),
        # else a task's or an issue's own number, which no successor takes the next of
        return _counts_up(label, siblings)
    if label.stem:
        stems = (s.label for s in siblings if s.label is not None)
        numbers = Counter(other.number for other in stems if other.stem == label.stem)
        if numbers and max(numbers.values()) >= 3:
            return False
    if len(siblings) <= 1:
        return True
    same = sum(1 for s in siblings if s.label is not None and s.label.stem == label.stem)
    if same >= 2 and same * 2 > len(siblings):
        return True
    return bool(label.stem) and all(s.label is not None and s.label.stem for s in siblings)


def _counts_up(label: Label, siblings: list[TitleParts]) -> bool:
    """Most siblings carry ``label``'s stem and their numbers run close together, as a count
    does (``#1`` … ``#7``), not scattered as tasks' numbers are (``#601``, ``#664``)."""
    counts = [s.label.number[0] for s in siblings if s.label is not None and s.label.stem == label.stem]
    if len(counts) < 2 or len(counts) * 3 < len(siblings) * 2:
        return False
    firsts = set(counts)
    return max(firsts) - min(firsts) < 2 * len(firsts)


SIBLING_WINDOW = 100


def _siblings(record: Record, like: Entry) -> list[Entry]:
    """Entries of ``like``'s kind and level nearest to it: at most ``SIBLING_WINDOW`` each side,
    since a file's form is local and a big file must not make each edit scan every title."""
    same = [e for e in record.entries if e.kind == like.kind and e.level == like.level]
    # a group of its own (``### Bug 1: …`` under one heading, ``### 1. …`` under others) sets the form
    local = _group(record, like)
    if 3 <= len(local) < len(same):
        same = local
    here = next((i for i, e in enumerate(same) if e.start == like.start), 0)
    return same[max(0, here - SIBLING_WINDOW) : here + SIBLING_WINDOW + 1]


def _pair_holds(record: Record, like: Entry, label: Label) -> bool:
    """Two lessons under their own heading (``### Bug 1 — …``, ``### Bug 2 — …``) keep their
    scheme among unnumbered headings of the same level elsewhere."""
    group = _group(record, like)
    return len(group) >= 2 and _scheme_holds(label, [split_title(written_title(record, e)) for e in group])


def _group(record: Record, like: Entry) -> list[Entry]:
    """Entries of ``like``'s kind and level under its own heading; none outside any."""
    if like.section is None:
        return []
    return [
        e
        for e in record.entries
        if e.kind == like.kind and e.level == like.level and e.section == like.section
    ]


def shared_mark(record: Record, like: Entry, mark: str) -> bool:
    """Whether the mark before ``like``'s bold lead-in (``⛔ **Title.**``) is its siblings'
    form, two thirds of them opening with it, rather than this entry's own status."""
    siblings = _siblings(record, like)
    opening = sum(1 for e in siblings if _lead_text(record, e)[0].startswith(mark))
    return len(siblings) >= 3 and opening * 3 >= len(siblings) * 2


def _lead_text(record: Record, entry: Entry) -> tuple[str, bool]:
    """An entry's first line, less a heading's hashes or an item's marker, and whether it is a
    heading's."""
    cut = record.data.find(b"\n", entry.start, entry.end)
    first = record.data[entry.start : cut if cut != -1 else entry.end].decode("utf-8").rstrip("\r")
    heading = ATX.match(first)
    if heading:
        return str(heading["text"]), True
    item = ITEM_LINE.match(first)
    return (str(item["rest"]) if item else first.strip()), False


def written_title(record: Record, entry: Entry) -> str:
    """An entry's title as written in the file: heading text, or a lead's bold text or first words."""
    rest, heading = _lead_text(record, entry)
    if heading:
        return rest
    bold = BOLD_LEAD.match(rest)
    if bold:
        return bold["inner"]
    return rest[2:] if wraps_bold(rest) else rest


def wraps_bold(rest: str) -> bool:
    """A bold lead-in that opens on this line and closes on a later one (``**L-014: A null is``)."""
    return rest[:2] in ("**", "__") and rest[:2] not in rest[2:]
