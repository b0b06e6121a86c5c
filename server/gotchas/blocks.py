"""The block map: a document as a flat list of top-level blocks with line ranges.

Detection reads only this map, never parser tokens, so the parser behind it can change
(a line scanner for the common case) by replacing ``from_tokens`` alone. Blocks are
top-level: a list item's nested lists, paragraphs and fences belong to the item; a
quote's content belongs to the quote. Lines are 0-based, ``[start, end)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

BlockKind = Literal["heading", "paragraph", "item", "fence", "html", "hr", "table", "quote"]


@dataclass(frozen=True, slots=True)
class Block:
    """One top-level block. ``level`` is a heading's level; ``marker`` a list item's marker.

    ``list_id`` groups the items of one list; ``title`` is a heading's text (setext
    titles joined onto one line), else empty.
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    marker: str = ""
    title: str = ""
    list_id: int = -1


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark block rules only: inline parsing is off because titles stay raw.

    Tables need no rule of their own: a table's lines are read as one paragraph, and
    ``from_tokens`` recognises the paragraph as a table by its delimiter row.
    """
    return MarkdownIt("commonmark").disable("inline")


@dataclass(frozen=True, slots=True)
class BlockMap:
    """Top-level blocks in order, and every line inside a code fence or HTML block at any depth."""

    blocks: tuple[Block, ...]
    literal: frozenset[int]


def scan(text: str, lines: Sequence[str] | None = None) -> BlockMap:
    """The block map of ``text``: the one place that knows how it was parsed.

    ``lines`` are the text's lines without endings, if the caller has them already.
    """
    if lines is None:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return from_tokens(parser().parse(text), lines)


_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


def from_tokens(tokens: Sequence[Token], lines: Sequence[str]) -> BlockMap:
    """Top-level blocks from markdown-it's block tokens and their source maps."""
    blocks: list[Block] = []
    literal: set[int] = set()
    append = blocks.append
    list_depth = 0
    list_count = 0
    for index, token in enumerate(tokens):
        kind = token.type
        level = token.level
        if kind == "list_item_open":
            if level == 1 and list_depth == 1 and token.map:
                marker = f"{token.info}{token.markup}" if token.info else token.markup
                append(Block("item", token.map[0], token.map[1], marker=marker, list_id=list_count))
            continue
        if kind in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
            if list_depth == 1:
                list_count += 1
            continue
        if kind in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
            continue
        if not token.map:
            continue
        start, end = token.map
        if kind in ("fence", "code_block", "html_block"):
            literal.update(range(start, end))
        if level != 0:
            continue
        if kind == "heading_open":
            title = " ".join(tokens[index + 1].content.split())
            append(Block("heading", start, end, level=int(token.tag[1]), title=title))
        elif kind == "paragraph_open":
            if end - start >= 2 and "|" in lines[start] and _TABLE_DELIMITER.match(lines[start + 1]):
                append(Block("table", start, end))
            else:
                append(Block("paragraph", start, end))
        elif kind in ("fence", "code_block"):
            append(Block("fence", start, end))
        elif kind == "html_block":
            append(Block("html", start, end))
        elif kind == "hr":
            append(Block("hr", start, end))
        elif kind == "blockquote_open":
            append(Block("quote", start, end))
    return BlockMap(tuple(blocks), frozenset(literal))
