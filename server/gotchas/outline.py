"""Which blocks of a lessons file are entries: one heading per entry, or one list item per entry.

Works on markdown-it-py's block token stream and its source maps (line ranges); it
never renders Markdown. The rule, in order:

1. Headings are counted per level (only top-level ones: not inside lists or quotes).
   The entry level starts at the shallowest level used at least twice and descends
   while the next level is at least as frequent and its titles are not a repeated set
   of sub-section labels (``Symptom``/``Fix`` under every entry). So ``#`` title,
   ``##`` sections, ``###`` lessons picks ``###``.
2. If most sections at that level are list containers (mostly a list of two or more
   items that are not ``Key: value`` metadata), the items are the entries instead.
3. With no repeated heading level, top-level list items are the entries; failing
   that, the headings themselves.

``override`` (``"h1"``..``"h6"`` or ``"list"``) replaces the guess.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from gotchas.fields import is_plain_field_line

Kind = Literal["heading", "item"]


@dataclass(frozen=True, slots=True)
class Span:
    """An entry's place: lines ``[start, end)`` 0-based, before trailing blanks are trimmed.

    ``body`` is the first line after the title (a setext heading's title takes two lines).
    """

    kind: Kind
    start: int
    body: int
    end: int
    title: str
    level: int
    marker: str
    section: str | None


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    end: int
    level: int
    title: str


@dataclass(frozen=True, slots=True)
class Item:
    start: int
    end: int
    marker: str


@dataclass(frozen=True, slots=True)
class Outline:
    """Top-level structure of a document: headings, list items, and lines inside literal blocks."""

    headings: tuple[Heading, ...]
    items: tuple[Item, ...]
    literal_lines: frozenset[int]


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark block rules only: inline parsing is off because titles stay raw.

    Tables need no rule of their own here: a table's lines can hold neither a heading nor
    a list item, so reading them as a paragraph gives the same entries, faster.
    """
    return MarkdownIt("commonmark").disable("inline")


def scan(text: str) -> Outline:
    tokens = parser().parse(text)
    return _collect(tokens)


def _collect(tokens: Sequence[Token]) -> Outline:
    headings: list[Heading] = []
    items: list[Item] = []
    literal: set[int] = set()
    list_depth = 0
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open" and token.level == 0 and token.map:
            title = " ".join(tokens[index + 1].content.split())  # a setext title may span lines
            headings.append(Heading(token.map[0], token.map[1], int(token.tag[1]), title))
        elif kind in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif kind == "list_item_open" and token.level == 1 and list_depth == 1 and token.map:
            marker = f"{token.info}{token.markup}" if token.info else token.markup
            items.append(Item(token.map[0], token.map[1], marker))
        elif kind in ("fence", "code_block", "html_block") and token.map:
            literal.update(range(token.map[0], token.map[1]))
    return Outline(tuple(headings), tuple(items), frozenset(literal))


_LEVEL_OVERRIDE = re.compile(r"^h([1-6])$")


def entry_spans(outline: Outline, lines: Sequence[str], override: str | None = None) -> list[Span]:
    """The entries of a document, in order, as line spans."""
    headings = outline.headings
    items = _entry_items(outline.items, lines)
    if override == "list":
        return _item_spans(items, lines, headings)
    forced = _LEVEL_OVERRIDE.match(override or "")
    level = int(forced[1]) if forced else _entry_level(headings)
    total = len(lines)
    if level is None:
        if items:
            return _item_spans(items, lines, headings)
        if not headings:
            return []
        level = max(h.level for h in headings)
    sections = _sections(headings, level, total)
    if not forced and items:
        starts = [item.start for item in items]
        inside = [items[bisect_left(starts, s) : bisect_left(starts, e)] for _, s, e in sections]
        containers = [
            held
            for section, held in zip(sections, inside, strict=True)
            if _is_list_container(section, held, lines)
        ]
        if containers and len(containers) * 2 > len(sections):
            return _item_spans([item for held in containers for item in held], lines, headings)
    parents = _parent_titles(headings)
    return [
        Span("heading", start, h.end, end, h.title, h.level, "#" * h.level, parents.get(h.start))
        for h, start, end in sections
    ]


def _entry_level(headings: Sequence[Heading]) -> int | None:
    counts = Counter(h.level for h in headings)
    repeated = sorted(level for level, n in counts.items() if n >= 2)
    if not repeated:
        return None
    level = repeated[0]
    for deeper in sorted(lv for lv in counts if lv > level):
        titles = [" ".join(h.title.lower().split()) for h in headings if h.level == deeper]
        if counts[deeper] >= counts[level] and len(set(titles)) * 2 > len(titles):
            level = deeper
        else:
            break
    return level


def _sections(headings: Sequence[Heading], level: int, total: int) -> list[tuple[Heading, int, int]]:
    """Each heading of ``level`` with the lines it governs: up to the next heading at or above it."""
    out: list[tuple[Heading, int, int]] = []
    open_heading: Heading | None = None
    for heading in headings:
        if heading.level > level:
            continue
        if open_heading is not None:
            out.append((open_heading, open_heading.start, heading.start))
        open_heading = heading if heading.level == level else None
    if open_heading is not None:
        out.append((open_heading, open_heading.start, total))
    return out


def _entry_items(items: Sequence[Item], lines: Sequence[str]) -> list[Item]:
    """List items that are lessons rather than metadata.

    Metadata items are plain ``Key: value`` lines, or short bold labels that recur
    (``- **Symptom:** …`` under every entry): a label used twice names a field, not a lesson.
    """
    titles = [item_title(lines[item.start]).lower() for item in items]
    counts = Counter(titles)
    return [
        item
        for item, title in zip(items, titles, strict=True)
        if not is_plain_field_line(lines[item.start]) and not (counts[title] >= 2 and len(title.split()) <= 3)
    ]


def _is_list_container(
    section: tuple[Heading, int, int], items: Sequence[Item], lines: Sequence[str]
) -> bool:
    """Mostly a list of two or more lessons: the section is a group, its items the entries."""
    heading, _, end = section
    if len(items) < 2:
        return False
    body = sum(1 for n in range(heading.end, end) if lines[n].strip())
    covered = sum(1 for it in items for n in range(it.start, min(it.end, end)) if lines[n].strip())
    return covered >= 0.6 * body


def _item_spans(items: Sequence[Item], lines: Sequence[str], headings: Sequence[Heading]) -> list[Span]:
    spans: list[Span] = []
    for item in items:
        first = lines[item.start]
        spans.append(
            Span(
                "item",
                item.start,
                item.start + 1,
                item.end,
                item_title(first),
                0,
                item.marker,
                _enclosing_title(headings, item.start),
            )
        )
    return spans


def _parent_titles(headings: Sequence[Heading]) -> dict[int, str]:
    """Title of the nearest shallower heading, keyed by each heading's first line."""
    open_titles: dict[int, str] = {}
    parents: dict[int, str] = {}
    for heading in headings:
        shallower = [lv for lv in open_titles if lv < heading.level]
        if shallower:
            parents[heading.start] = open_titles[max(shallower)]
        open_titles = {lv: t for lv, t in open_titles.items() if lv < heading.level}
        open_titles[heading.level] = heading.title
    return parents


def _enclosing_title(headings: Sequence[Heading], line: int) -> str | None:
    title = None
    for heading in headings:
        if heading.start > line:
            break
        title = heading.title
    return title


_ITEM_MARKER = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s*(?:\[[ xX]\]\s+)?")
_BOLD_LEAD = re.compile(r"^(\*\*|__)(?P<title>.+?)\1")
_MAX_TITLE = 100
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s|\s[—–]\s")


def item_title(first_line: str) -> str:
    """A list entry's title: its bold lead-in, else its first sentence (at most 100 characters)."""
    text = _ITEM_MARKER.sub("", first_line, count=1).strip()
    bold = _BOLD_LEAD.match(text)
    if bold:
        return bold["title"].strip().rstrip(":：.").strip()
    sentence = _SENTENCE_END.split(text[: _MAX_TITLE * 2], maxsplit=1)[0]
    if len(sentence) > _MAX_TITLE:
        sentence = sentence[:_MAX_TITLE].rsplit(" ", 1)[0] + "…"
    return sentence
