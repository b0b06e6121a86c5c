"""Which blocks of a file are its lessons: a choice among candidate structures, with reasons.

A person reading a lessons file first finds where the lessons are (the whole file, or
the Gotchas / Lessons / Pitfalls section of a guide; a whole document that is one
lesson; or none at all), then, section by section, whether a heading is a lesson or a
group of lessons, and what a lesson looks like inside a group: a list item, a
paragraph with a lead-in, a block between ``---`` rules, a table row, or the group's
own heading. Each decision weighs the same evidence and records a reason a person can read.

The rules are data, one family a module, tried in order as a block parser tries its rules:

- ``files.FILE_RULES``: what kind of file this is and where its lessons live;
- ``sections.Reader``: whether a section is a lesson, a group, or a lesson's parts,
  asking ``traits`` what one section is (a note on the file, a lesson's parts, a placeholder);
- ``units.UNIT_RULES``: what a lesson looks like inside one body, less the file's ``key``
  (the labels it uses further on, explained);
- ``titles.TITLE_RULES``: what a heading's title says about its role;
- ``pinned``: a project's pin, read literally; ``successors``: lessons appended to one.

They share one ``state.State`` (the file's lines, blocks and file-wide evidence). Input is
the block map (``blocks``), never parser tokens. Output: ``Reading`` — spans for the
entries plus the groups, lessons sections and left-out parts, for ``outline``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gotchas.blockmap import Block
from gotchas.reading.doubt import notice
from gotchas.reading.files import read_file
from gotchas.reading.model import NO_CHECKBOXES, UNITS, Leaves, Note, Pin, Prior, Reading, Span, unit_name
from gotchas.reading.sections import Reader
from gotchas.reading.successors import successors_tail, with_successors
from gotchas.reading.text import MARK, item_text, item_title, lead_label, row_title
from gotchas.reading.titles import title_evidence
from gotchas.reading.tree import Section, section_tree

__all__ = [
    "NO_CHECKBOXES",
    "UNITS",
    "Leaves",
    "Note",
    "Pin",
    "Prior",
    "Reading",
    "Section",
    "Span",
    "item_text",
    "item_title",
    "lead_label",
    "read",
    "row_title",
    "section_tree",
    "title_evidence",
    "unit_name",
]


def read(
    blocks: Sequence[Block],
    lines: Sequence[str],
    matter: tuple[int, int] | None,
    pin: Pin | None = None,
    prior: Prior | None = None,
    keep: bool = True,
    name: str | None = None,
) -> Reading:
    """The reading of a document from its block map and its lines (without line endings);
    ``name`` is its path in its repository, when known (a ``CLAUDE.md`` is a guide).

    ``prior`` is the reading of the text before an edit: leaves away from the edit, under
    the same file-wide evidence, are taken over from it; the result is the same. With
    ``keep`` off (a process that reads and exits), the reading keeps no ``leaves`` for that.
    """
    if pin is None or not pin.unit:
        tail = successors_tail(blocks, lines)
        if tail is not None:
            # the document is read as it was before its own red-herring mark was added
            unmarked = ["" if MARK.compiled.match(line) else line for line in lines[:tail]]
            head = read_file(Reader([b for b in blocks if b.end <= tail], unmarked, matter), pin, name)
            if head.kind == "single-lesson" and head.spans:
                return with_successors(head, blocks, lines, tail)
    reader = Reader(blocks, lines, matter, prior, keep)
    reader.take_over(prior)
    found = read_file(reader, pin, name)
    found.notice = notice(found, reader)
    found.leaves = reader.leaves if keep else None
    return found
