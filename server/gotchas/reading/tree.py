"""The section tree: each heading with its own blocks and its sub-sections, as a reader
sees the outline of a file before deciding what any part of it is."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from gotchas.blockmap import Block
from gotchas.reading.text import TIMESTAMP_LEAD


@dataclass(slots=True)
class Section:
    """A heading (or the whole document) with its own blocks and its sub-sections."""

    heading: Block | None
    start: int
    end: int
    body: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    parent: str | None = None  # the title of the section holding this one, if it has one
    # the heading's text, kept once: every rule asks it of every section
    title: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.title = self.heading.title if self.heading else ""

    @property
    def level(self) -> int:
        return self.heading.level if self.heading else 0

    @property
    def body_start(self) -> int:
        return self.heading.end if self.heading else self.start

    @property
    def own_end(self) -> int:
        return self.children[0].start if self.children else self.end


def outline_blocks(blocks: Sequence[Block], lines: Sequence[str]) -> Sequence[Block]:
    """The blocks as a reader outlines them: a heading line indented inside a field's text
    (``  # Safe zone implementation`` under ``### **Solution**``), where the file's other
    headings start at the margin, is that text's line, not a section of the file; a log of one
    dated line an entry, with no blank line between them, is that many paragraphs."""
    blocks = _dated_lines(blocks, lines)
    indented = [b for b in blocks if b.kind == "heading" and lines[b.start][:1] == " "]
    if not indented:
        return blocks  # most files: every heading at the margin, the others not counted
    if len(indented) * 10 > sum(1 for b in blocks if b.kind == "heading"):
        return blocks
    starts = {b.start for b in indented}
    return [
        Block("paragraph", b.start, b.end) if b.kind == "heading" and b.start in starts else b for b in blocks
    ]


def _dated_lines(blocks: Sequence[Block], lines: Sequence[str]) -> Sequence[Block]:
    """``2026-05-14 — Maximize the viewport …`` on each line of one paragraph: each dated line
    opens a paragraph of its own, as the file's readers see them (a line without a date stays
    with the one above it)."""
    dated = TIMESTAMP_LEAD.compiled.match
    out: list[Block] | None = None  # made only when a paragraph splits: most files have none
    for index, block in enumerate(blocks):
        starts = []
        if block.kind == "paragraph" and block.end - block.start >= 2 and dated(lines[block.start]):
            starts = [n for n in range(block.start, block.end) if dated(lines[n])]
        if len(starts) < 2:
            if out is not None:
                out.append(block)
            continue
        if out is None:
            out = list(blocks[:index])
        out.extend(Block("paragraph", a, b) for a, b in zip(starts, [*starts[1:], block.end], strict=True))
    return blocks if out is None else out


def section_tree(blocks: Sequence[Block], total: int) -> Section:
    root = Section(None, 0, total, [], [])
    stack = [root]
    levels = [0]  # the open sections' heading levels: the root's is below every heading's
    titles: list[str | None] = [None]  # the open sections' titles, as their children's parent
    add = root.body.append
    for block in blocks:
        if block.kind != "heading":
            add(block)
            continue
        level = block.level
        while levels[-1] >= level:
            levels.pop()
            titles.pop()
            stack.pop().end = block.start
        section = Section(block, block.start, total, [], [], titles[-1])
        stack[-1].children.append(section)
        stack.append(section)
        levels.append(level)
        titles.append(block.title or None)
        add = section.body.append
    return root


HASHES = tuple("#" * level for level in range(7))  # a heading's marker, by its level


def folded(title: str) -> str:
    """A title compared as sub-headings recur: lower case, runs of white space as one."""
    return " ".join(title.lower().split())


def document(root: Section) -> Section | None:
    """The section whose heading holds every other (the file's title), when there is one."""
    tops = root.children
    return tops[0] if len(tops) == 1 and tops[0].heading is not None else None


def holding(section: Section, start: int) -> Section | None:
    """The section whose child starts on line ``start``."""
    for child in section.children:
        if child.start == start:
            return section
        if child.start < start < child.end:
            return holding(child, start)
    return None


def walk(section: Section) -> Iterator[Section]:
    """The section and every section below it, in file order, from one stack (as ``leaves``):
    a generator a level would pass each section up through every level above it."""
    stack = [section]
    while stack:
        current = stack.pop()
        yield current
        if current.children:
            stack.extend(reversed(current.children))  # the first child on top


def leaves(section: Section) -> Iterator[Section]:
    """The sections without sub-sections, in file order, found as they are asked for (from one
    stack, not a generator a section)."""
    stack = [section]
    while stack:
        current = stack.pop()
        if current.children:
            stack.extend(reversed(current.children))  # the first child on top
        else:
            yield current
