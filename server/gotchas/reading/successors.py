"""Lessons appended after a one-lesson document: the document stays one lesson, and each
heading after a ``---`` rule that opens with this tool's field line is a lesson of its own.

A single-lesson file corrected by this tool grows successors below a rule; read whole, the
new headings would turn the document into a group of parts. Here it is read as it was, then
the successors are added after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from gotchas.blockmap import Block
from gotchas.reading.model import Reading, Span
from gotchas.reading.text import ENTRY_FIELD, OWN_FIELDS


def successors_tail(blocks: Sequence[Block], lines: Sequence[str]) -> int | None:
    """Where lessons appended after a one-lesson document start: a ``---`` rule, then a heading
    whose first line of text is this tool's field line (it supersedes something, or states a
    root cause: a captured lesson); else ``None``."""
    kinds = [block.kind for block in blocks]
    index = -1
    while True:  # a rule found by a search in C, not a step of Python per block
        try:
            index = kinds.index("hr", index + 1)
        except ValueError:
            break
        if index + 1 >= len(blocks):
            break
        rule, heading = blocks[index], blocks[index + 1]
        if heading.kind != "heading" or rule.start == 0:
            continue
        first = next((n for n in range(heading.end, len(lines)) if lines[n].strip()), None)
        if first is not None and ENTRY_FIELD.match(lines[first]) and OWN_FIELDS.search(lines[first]):
            return rule.start
    return None


def with_successors(head: Reading, blocks: Sequence[Block], lines: Sequence[str], tail: int) -> Reading:
    """The document lesson up to ``tail``, then each heading after it at the first one's level."""
    headings = [b for b in blocks if b.kind == "heading" and b.start > tail]
    level = headings[0].level
    own = [b for b in headings if b.level <= level]
    document = head.spans[0]
    spans = [Span(document.kind, 0, 1, tail, document.title, 0, "", None, document.reason)]
    why = "a lesson appended after a one-lesson document"
    for block, following in zip(own, [*own[1:], None], strict=True):
        end = following.start if following is not None else len(lines)
        spans.append(
            Span(
                "heading", block.start, block.end, end, block.title, block.level, "#" * block.level, None, why
            )
        )
    return Reading("lessons", spans, f"{head.reason}; lessons appended after it follow it")
