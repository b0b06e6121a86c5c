"""The block map from markdown-it's block tokens: the CommonMark parser behind the line scanner.

The line scanner (``scanner``) hands a block it cannot settle to ``parser``; ``scan`` and
``scan_lines`` read a whole text with markdown-it alone (the reference the scanner is
tested against, and the path for a text parsed in chunks).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from gotchas.blockmap import Block, BlockMap, LineSet, moved

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark block rules only: inline parsing is off because titles stay raw.

    Tables need no rule of their own: a table's lines are read as one paragraph, and
    ``from_tokens`` recognises the paragraph as a table by its delimiter row.
    """
    from markdown_it import MarkdownIt  # only where the line scanner hands a block over

    return MarkdownIt("commonmark").disable("inline")


def scan(text: str, lines: Sequence[str] | None = None) -> BlockMap:
    """The block map of ``text``: the one place that knows how it was parsed.

    ``lines`` are the text's lines without endings, if the caller has them already.
    """
    if lines is None:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return from_tokens(parser().parse(text), lines)


def scan_lines(view: Sequence[str], bare: Sequence[str], chunk: int = 512) -> BlockMap:
    """``scan`` of the text whose lines are ``view`` (without endings), a chunk at a time.

    Each chunk starts on a line where a top-level block starts, and ends before the last
    top-level block it starts (which may go on past it): the next chunk starts there. Only
    one chunk's tokens exist at a time, so memory stays near the size of the text. The
    lines are markdown-it's own (split at CR, LF and CRLF); ``bare`` are the same lines
    before front matter was blanked out of ``view``.
    """
    blocks: list[Block] = []
    begin, total = 0, len(view)
    literal = bytearray(total)
    lists = 0
    size = chunk
    while begin < total:
        stop = min(total, begin + size)
        tokens = parser().parse(_text(view, begin, stop))
        window = from_tokens(tokens, bare[begin:stop])
        if stop == total:
            rejoin = stop - begin
        else:
            rejoin = max((t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map), default=0)
            if rejoin == 0:  # one block fills the chunk: take a larger one
                size *= 2
                continue
        del tokens
        used = 0
        for block in window.blocks:
            if block.start >= rejoin:
                break
            blocks.append(moved(block, begin, lists if block.list_id >= 0 else 0))
            used = max(used, block.list_id)
        part = window.literal.marks[:rejoin]
        literal[begin : begin + len(part)] = part
        lists += used
        begin += rejoin
        size = chunk
    return BlockMap(tuple(blocks), LineSet.of(literal))


_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


def from_tokens(tokens: Sequence[Token], lines: Sequence[str]) -> BlockMap:
    """Top-level blocks from markdown-it's block tokens and their source maps."""
    blocks: list[Block] = []
    literal = bytearray(len(lines))
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
            if level == 0:  # only top-level lists are numbered: a quote's lists hold no items
                list_count += 1
            continue
        if kind in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
            continue
        if not token.map:
            continue
        start, end = token.map
        if kind in ("fence", "code_block", "html_block"):
            if end > len(literal):
                literal.extend(bytes(end - len(literal)))
            literal[start:end] = b"\x01" * (end - start)
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
    return BlockMap(tuple(blocks), LineSet.of(literal))


def _text(view: Sequence[str], begin: int, stop: int) -> str:
    return "\n".join(view[begin:stop]) + "\n" if stop > begin else ""
