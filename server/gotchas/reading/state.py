"""What every rule reads from: a file's lines and blocks, the evidence counted over the whole
file, and the parts found so far (groups, left-out notes).

Like a block parser's state object, one ``State`` is shared by the rules of every family;
a rule asks it questions (is this item a lesson's field? a tick?) and builds spans with it.
The questions depend on file-wide counts (a label that recurs names a field), so they
live here, counted once, not in any one rule.
"""

from __future__ import annotations

import bisect
import operator
import re
from collections import Counter
from collections.abc import Sequence

from gotchas import parts, recording, status, vocabulary
from gotchas import table as table_rows
from gotchas.blockmap import Block
from gotchas.reading.model import Leaves, Note, Prior, Span, SpanKind
from gotchas.reading.text import (
    ARTICLE,
    BOLD_LABEL,
    CHECKBOX,
    CODE_OR_LINK,
    DATE,
    DONE,
    DONE_MARKS,
    ENTRY_FIELD,
    FILE_REF,
    LABELLED,
    LEDGER_REF,
    LESSON_LINK,
    LINK_ONLY,
    MARK,
    MEASURE,
    NAMED_FILE,
    NUMBER_PREFIX,
    NUMBERED_FIELD,
    OWN_FIELDS,
    SECOND_FIELD,
    blank_form,
    item_text,
    lead_label,
    opening_label,
    row_title,
    title_of,
)
from gotchas.reading.tree import HASHES, Section, folded, outline_blocks, section_tree
from gotchas.vocabulary import words

_JOINED = re.compile(r"\s+(?:&|and|\+)\s+")
_ITALIC_LINE = re.compile(r"^\s*(?:\*(?!\*)|_(?!_)).+(?<![*_])[*_]\s*$")
# a checkbox item opening with a bold name and telling it: ``- [ ] **Title.** what happens``
_TOLD_ISSUE = re.compile(CHECKBOX.pattern + r"\s+\*\*\S.*?\*\*\s*[:：.—–-]?\s*\S.{3,}")
_SENTENCE_WORDS = 8  # the mean words a cell of a column that tells, not measures


def _file_column(cells: Sequence[str]) -> bool:
    """Cells of code or links with two words beside them at most, half of them or more naming a
    file (`` `rules/db.md` ``; a skill's name in code beside them is one more place)."""
    code = CODE_OR_LINK.compiled
    if not all(code.search(c) and words(code.sub(" ", c)) <= 2 for c in cells):
        return False
    return sum(FILE_REF.compiled.search(c) is not None for c in cells) * 2 >= len(cells)


def _tells(rows: Sequence[Sequence[str]]) -> bool:
    """A column of sentences: ``_SENTENCE_WORDS`` words a cell or more, on average."""
    told = _SENTENCE_WORDS * len(rows)
    return any(sum(len(r[c].split()) for r in rows) >= told for c in range(min(len(r) for r in rows)))


class State:
    """A file's lines and blocks with the evidence counted over all of it; and the sinks
    (``groups``, ``left_out``, ``pointer``) the rules add to as they read."""

    def __init__(
        self,
        blocks: Sequence[Block],
        lines: Sequence[str],
        matter: tuple[int, int] | None,
        prior: Prior | None = None,
    ):
        self.blocks = blocks
        self.lines = lines
        self.matter = matter
        self.total = len(lines)
        self.outline = outline_blocks(blocks, lines)  # the blocks every section's body is made of
        self.tree = section_tree(self.outline, self.total)
        self.labels = self._label_counts_near(prior) if prior is not None else self._label_counts()
        self.headings = self._repeated_parts()
        self.groups: list[Note] = []
        self.left_out: list[Note] = []
        self.pointer = False
        self.leaves = Leaves(
            frozenset(k for k, n in self.labels.items() if n >= 2),
            frozenset(k for k, n in self.headings.items() if n >= 2),
            {},
            self.labels,
        )
        self._first_texts: dict[int, str] = {}  # a block's first line without its marker, by line
        self._naming: frozenset[int] | None = None  # where the outline's paragraphs name the file
        self._file_maps: dict[int, bool] = {}  # whether a table maps to files, by line
        # whether ``spans_from`` titles list items now: off while a leaf only weighs its units
        # (``sections.Reader.read_leaf``), which titles them once they are its entries
        self.item_titles = True
        # the line after the file's last line of text: a block ending before it is no closing stamp
        self.content_end = _text_end(lines)
        # where the file uses each label (``key``): found when a list or table first asks
        self.label_sites: dict[str, list[tuple[int, tuple[str, ...]]]] | None = None
        self._ledgers: frozenset[int] | None = None
        self._topic_runs: frozenset[int] | None = None
        # the body ``units.lesson_items`` read last, and its answer (the body held, so never reused)
        self.last_items: tuple[Sequence[Block], tuple[list[Block], list[Block]]] | None = None
        # where comments ask for new lessons (``<!-- Add new lessons above this line -->``)
        self.markers = [
            b.start
            for b in blocks
            if b.kind == "html" and b.end - b.start <= recording.MARKER_LINES and self._marks_place(b)
        ]

    # -- file-wide counts

    def _repeated_parts(self) -> Counter[str]:
        """How many different sections hold a sub-heading of each title (``Fix`` under every lesson).
        Only titles short enough to name a part are counted (``is_field_heading``)."""
        counts: Counter[str] = Counter()
        stack = [self.tree]
        while stack:
            section = stack.pop()
            if section.children:
                counts.update(
                    {
                        folded(title)
                        for title in (child.title for child in section.children)
                        if len(title) <= 48 and title.count(" ") <= 6
                    }
                )
                stack.extend(section.children)
        return counts

    def _label_counts(self) -> Counter[str]:
        """How often each lead-in label opens an item or paragraph: a recurring label names a field."""
        counts: Counter[str] = Counter()
        lines = self.lines
        for block in self.blocks:
            kind = block.kind
            # a paragraph opens with a label only after ``**`` or ``__`` (``opening_label``):
            # the many that do not are passed over here, without a call
            if kind == "item" or (
                kind == "paragraph" and lines[block.start].lstrip().startswith(("**", "__"))
            ):
                label = opening_label(block, lines[block.start])
                if label is not None:
                    counts[label] += 1
        return counts

    def _label_counts_near(self, prior: Prior) -> Counter[str]:
        """``_label_counts`` from the prior reading's: the blocks outside ``[head, tail)`` are
        the prior text's, so only those between are counted out (as they were) and in (as now)."""
        leaves, line = prior.reading.leaves, prior.line
        if leaves is None or leaves.label_counts is None or line is None:
            return self._label_counts()
        counts = Counter(leaves.label_counts)
        for block in starting_within(prior.blocks, prior.head, prior.tail - prior.shift):
            label = opening_label(block, line(block.start)) if block.kind in LABELLED else None
            if label is not None:
                counts[label] -= 1
        for block in starting_within(self.blocks, prior.head, prior.tail):
            label = opening_label(block, self.lines[block.start]) if block.kind in LABELLED else None
            if label is not None:
                counts[label] += 1
        return +counts

    # -- questions about one block or title

    def is_field_label(self, label: str, as_field: bool) -> bool:
        if not as_field or not label:
            return False
        return (
            label in parts.FIELDS
            or label in vocabulary.ENTRY_FIELD_KEYS
            or (self.labels[label] >= 2 and len(label.split()) <= 4)
        )

    def is_field_heading(self, title: str) -> bool:
        """``Problem``, ``### **Solution**``, ``Solution 2: …``, or a short title under every lesson."""
        long = len(title) > 48 or title.count(" ") > 6
        if long and ":" not in title and "：" not in title:
            return False  # no short contrast label (``Wrong: …``) opens it
        if vocabulary.names_contrast(title):
            return True
        if long and not NUMBERED_FIELD.compiled.match(vocabulary.plain(title)):
            return False  # but ``Attempt 2: <what was tried>`` is one of a lesson's parts
        first = title.lower().lstrip("#*_ 0123456789.)").split(maxsplit=1)
        if first and not first[0][:1].isalnum():  # ``🛠️ Fix``: the part's name after its symbol
            first = parts.field_base(title).split(maxsplit=1)
        repeated = self.headings[folded(title)] >= 2
        if not repeated and (not first or not parts.may_open_field(first[0].rstrip(":：.*_"))):
            return False
        if repeated and DATE.search(title) is not None and words(DATE.sub("", title)) <= 1:
            return False  # ``### [2026-01-26]``: an entry of a dated log, however often its day recurs
        if (
            vocabulary.names_lessons(title)
            and not vocabulary.names_one_lesson(title)
            and not vocabulary.names_hindsight(title)  # ``#### What we learned``: a part
        ):
            return False  # a section titled as lessons holds lessons, whatever repeats its title
        if vocabulary.numbers_entry(title.partition(":")[0].partition("：")[0]):
            return False  # `Bug 1: …`, `Issue 2: …`: one of a numbered series of lessons
        base = parts.field_base(title)
        text = vocabulary.plain(title)
        if text[:1] and not text[:1].isalnum():
            text = parts.SYMBOL_LEAD.sub("", text)  # ``🛠️ Fix``: the part's name
        text = NUMBER_PREFIX.compiled.sub("", text).rstrip(":：. ")
        text = ARTICLE.compiled.sub("", text)
        if text.endswith(")") and " (" in text:  # an aside on the part: ``Fix (applied)``
            text = text[: text.rindex(" (")]
        whole = text == base or NUMBERED_FIELD.compiled.match(text) is not None
        if whole:
            qualifier, _, rest = base.partition(" ")
            part = rest if qualifier in parts.PART_QUALIFIERS and rest else base
            # two parts under one heading: ``Root Causes & Fixes``, ``Problem and solution``
            if all(map(parts.is_part, _JOINED.split(part))):
                return True
        return self.headings[folded(title)] >= 2 and words(title) <= 4

    def matter_value(self, *keys: str) -> str:
        """The first value the front matter gives one of ``keys`` (``title: Known issues``), or ``""``."""
        if self.matter is not None:
            for n in range(self.matter[0] + 1, self.matter[1] - 1):
                key, _, value = self.lines[n].partition(":")
                if key.strip().lower() in keys and value.strip():
                    return value.strip().strip("'\"")
        return ""

    def first_text(self, block: Block) -> str:
        found = self._first_texts.get(block.start)
        if found is None:
            line = self.lines[block.start]
            # a list marker opens only an item: a paragraph's ``**Problem**:`` keeps its stars
            found = self._first_texts[block.start] = item_text(line) if block.kind == "item" else line.strip()
        return found

    def writes_own(self, block: Block) -> bool:
        """A block carrying this tool's own field line: a lesson it wrote (a successor). In an
        item the line sits at the item's content column, four spaces in after ``10. ``."""
        lines = self.lines[block.start : block.end]
        # both patterns end at a colon: a line without one is passed over unmatched
        return any(
            ":" in line and ENTRY_FIELD.match(line.lstrip(" ")) and OWN_FIELDS.search(line) for line in lines
        )

    def asks_to_record(self, block: Block) -> bool:
        """A short block telling the reader to add lessons here (``- After every correction: add
        one line here.``): a note on the file, not a lesson."""
        if block.end - block.start > 3:
            return False
        text = " ".join(map(str.strip, self.lines[block.start : block.end]))
        return recording.asks_to_record(text)

    def names_file(self, block: Block) -> bool:
        """A paragraph of the outline that opens by naming the file it is in (``This document
        catalogs …``)."""
        return block.kind == "paragraph" and block.start in self.naming_lines()

    def naming_lines(self) -> frozenset[int]:
        """Where the outline's paragraphs that name the file start (``names_file``)."""
        if self._naming is None:  # asked of every paragraph by several rules: all found at once
            paragraphs = (b.start for b in self.outline if b.kind == "paragraph")
            self._naming = vocabulary.lines_naming_file(self.lines, paragraphs)
        return self._naming

    def empty_item(self, block: Block) -> bool:
        """``- `` alone, no text on any of its lines: the bullet the next lesson will fill."""
        return (
            block.kind == "item"
            and not self.first_text(block)
            and not any(map(str.strip, self.lines[block.start + 1 : block.end]))
        )

    def blank_item(self, block: Block) -> bool:
        """``- **Pattern:** [Describe a recurring pattern]`` over ``- **Date:** [YYYY-MM-DD]``:
        the entries' form left in the list, every field a bracketed blank; the first lesson
        written after it is the first the list holds."""
        return "[" in self.lines[block.start] and blank_form(self.lines[block.start : block.end])

    def is_footer(self, block: Block) -> bool:
        """The file's closing line about itself, not prose of the section it happens to close: a
        stamp of when it was updated (``*Last updated: 2026-05-06*``), or a line wholly in italics
        after a ``---`` rule (``*Captured 2026-05-08, build session for the demo.*``)."""
        if block.end < self.content_end or block.kind != "paragraph" or block.end - block.start > 3:
            return False  # most blocks: text follows them, settled by one comparison
        line = self.lines[block.start]
        if block.end - block.start == 1 and vocabulary.UPDATED_STAMP.compiled.match(line) is not None:
            return True
        # or a few such lines, each wholly in italics (``*Last distilled: —*`` / ``*Source: —*``)
        if any(_ITALIC_LINE.match(self.lines[n]) is None for n in range(block.start, block.end)):
            return False
        at = bisect.bisect_left(self.blocks, block.start, key=_BLOCK_START)
        return at > 0 and self.blocks[at - 1].kind == "hr"  # the block above it is a ``---`` rule

    def closing_stamp(self, body: Sequence[Block], end: int) -> int:
        """Where the file's closing stamp in ``body`` begins, with the ``---`` rule above it
        (``---`` / ``*Last updated: 2026-02. Add entries as they occur.*``); else ``end``."""
        last = body[-1] if body else None
        if last is None or last.kind != "paragraph" or not self.is_footer(last):
            return end  # most bodies: their last block is no stamp
        above = [b for b in body[:-1] if b.kind != "html"]
        return above[-1].start if above and above[-1].kind == "hr" else last.start

    def is_tick(self, block: Block) -> bool:
        """A checkbox or a done mark: progress, not a lesson; but a checkbox naming an issue in
        bold and telling it is the issue."""
        line = self.lines[block.start]
        if "[" in line and CHECKBOX.match(line):  # a checkbox is bracketed
            # ``- [ ] **No cascade deletion** — orphans tasks …``: an issue named in bold and
            # told, as lessons are; a task to tick is its words alone
            return not _TOLD_ISSUE.match(line)
        if line.isascii() or not any(mark in line for mark in DONE_MARKS):
            return False  # no done mark anywhere on the line (none is ASCII): none opens its text
        text = self.first_text(block)
        if not DONE.match(text) or len(text.split()) > 12:
            return False
        if LEDGER_REF.compiled.match(text) or block.list_id in self.ledgers():
            return False  # `- ✅ #12 …` beside `- ❌ …`: a ledger of what worked and what did not
        # `✅ Fixed: …`, `✅ Resolved — …`: a lesson marked done with, not a ticked task
        return status.from_title(text) is None

    def ledgers(self) -> frozenset[int]:
        """The lists whose items open with both done and failed marks (``✅`` and ``❌``)."""
        if self._ledgers is None:
            done: set[int] = set()
            failed: set[int] = set()
            for block in self.blocks:
                if block.kind == "item":
                    text = self.first_text(block)
                    if DONE.match(text):
                        done.add(block.list_id)
                    elif text.startswith(("❌", "✗", "✘")):
                        failed.add(block.list_id)
            self._ledgers = frozenset(done & failed)
        return self._ledgers

    def is_link_item(self, block: Block) -> bool:
        """An item that is only a link (``- [Setup guide](docs/setup.md)``), with nested items
        that are only links too (a table of contents): a pointer, not a lesson of its own."""
        return all(
            LINK_ONLY.compiled.match(item_text(line)) is not None
            for line in self.lines[block.start : block.end]
            if line.strip()
        )

    def comment(self, block: Block) -> bool:
        """An HTML comment (``<!-- generated index -->``): a note to whoever edits the file."""
        return block.kind == "html" and self.lines[block.start].lstrip().startswith("<!--")

    def is_pointer_item(self, block: Block) -> bool:
        """A bare link (``is_link_item``), an item opening with a file's own name (``- `deploy.md`
        — the release steps``) or with a link into a folder of lessons (``- [Cache keys](lessons/
        cache-keys.md) — …``): a line of an index, not a lesson."""
        text = self.first_text(block)
        return (
            self.is_link_item(block)
            or NAMED_FILE.compiled.match(text) is not None
            or LESSON_LINK.compiled.match(text) is not None
        )

    def is_field_item(self, block: Block) -> bool:
        """A field of a lesson (``- Cause: …``); not a one-line lesson that names two of its
        parts (``- Problem: … Fix: …``), nor one of a run of lessons sharing a topic."""
        text = self.first_text(block)
        found = lead_label(text)
        if found is None or not self.is_field_label(*found):
            return False
        if block.start in self.topic_runs and (found[0] not in parts.FIELDS or self.tells_fields(block)):
            return False
        return not SECOND_FIELD.compiled.search(text, len(found[0]) + 1)

    def tells_fields(self, block: Block) -> bool:
        """An item whose own lines go on with other fields (``1. Context: …`` over ``Mistake: …``
        and ``Rule: …``): a lesson told in its fields, not one field of a lesson."""
        for line in self.lines[block.start + 1 : block.end]:
            found = lead_label(line.strip())
            if found is not None and found[1] and found[0] in parts.FIELDS:
                return True
        return False

    @property
    def topic_runs(self) -> frozenset[int]:
        """Items whose label is the next or last item's of the same list (``- Bot : …`` twice
        in a row): a topic the lessons share, where a lesson's fields differ one to the next."""
        if self._topic_runs is None:
            runs: set[int] = set()
            last: tuple[Block, str | None, int] | None = None
            for block in self.blocks:
                if block.kind != "item":
                    continue
                label = opening_label(block, self.lines[block.start])
                if last is not None and last[1] is not None and self.writes_own(block):
                    # a lesson this tool wrote between two of a run leaves the run as it was,
                    # titled in the run's bold lead-in or not
                    continue
                if last is not None and label is not None and last[1:] == (label, block.list_id):
                    runs.update((last[0].start, block.start))
                last = (block, label, block.list_id)
            self._topic_runs = frozenset(runs)
        return self._topic_runs

    def is_label_paragraph(self, block: Block) -> bool:
        """A paragraph that is only a label (``**Symptoms:**``): the list after it is that field."""
        if block.kind != "paragraph" or block.end - block.start > 2:
            return False
        text = self.lines[block.start].strip()
        bold = BOLD_LABEL.match(text)
        if bold and (not bold["after"].strip() or bold["after"].strip() in (":", "：")):
            return words(bold["label"]) <= 6
        return text.endswith((":", "：")) and words(text) <= 3

    def title_only(self, block: Block) -> bool:
        """An item that is only a bold title: its body follows as the next item or paragraph."""
        bold = BOLD_LABEL.match(self.first_text(block))
        if not bold or bold["after"].strip(" :："):
            return False
        # a red-herring mark and the quote under it are no body: a marked title stays one
        marked = False
        for n in range(block.start + 1, block.end):
            line = self.lines[n].strip()
            if MARK.compiled.match(line):
                marked = True
            elif line and not (marked and line.startswith(">")):
                return False
        return True

    def fenced(self, block: Block) -> bool:
        """A fenced code block with a line inside: its title is that line, not the fence."""
        if block.kind != "fence" or block.end - block.start <= 2:
            return False
        return self.lines[block.start].lstrip(" ").startswith(("```", "~~~"))

    # -- spans

    def own_content(self, section: Section) -> list[Block]:
        """The section's own blocks but comments, rules and a red-herring mark with the quote
        that explains it: marking a lesson must not change how its section reads."""
        out: list[Block] = []
        marked = False
        for block in section.body:
            if block.kind in ("html", "hr"):
                continue
            if block.kind == "paragraph" and MARK.compiled.match(self.lines[block.start]):
                marked = True
                continue
            if marked and block.kind == "quote":
                marked = False
                continue
            marked = False
            out.append(block)
        return out

    def heading_span(self, section: Section, reason: str, end: int | None = None) -> Span:
        """A lesson that is a heading, up to ``end`` (its section's end); the file's last one ends
        before the file's closing stamp, so an edit after it goes above the stamp."""
        heading = section.heading
        assert heading is not None
        level = heading.level
        stop = section.end if end is None else end
        if stop >= self.content_end:
            stop = self.closing_stamp(starting_within(self.blocks, heading.end, stop), stop)
        if self.markers:  # most files: no comment asks for new lessons
            stop = self._before_marker(heading.end, stop)
        return Span(
            "heading",
            section.start,
            heading.end,
            stop,
            heading.title,
            level,
            HASHES[level],
            section.parent,
            reason,
        )

    def _before_marker(self, start: int, stop: int) -> int:
        """Where a lesson on lines ``[start, stop)`` ends when a comment in it asks for new
        lessons above or below itself (``<!-- Add new lessons above this line -->``): before the
        comment, which is the file's, not the lesson's, and stays so once one is added below it;
        else ``stop``."""
        at = bisect.bisect_left(self.markers, start)
        return self.markers[at] if at < len(self.markers) and self.markers[at] < stop else stop

    def _marks_place(self, block: Block) -> bool:
        """Whether a comment asks for new lessons above or below itself."""
        return recording.place_asked("\n".join(self.lines[block.start : block.end])) is not None

    def spans_from(
        self,
        kind: SpanKind,
        starts: Sequence[Block],
        end: int,
        section: Section,
        why: str,
        body: Sequence[Block] = (),
    ) -> list[Span]:
        """One span per unit, up to the next unit; a list item's also stops at a comment, a rule or
        the file's closing stamp, and a ``---`` block at the rule that opens the next one (a
        comment after that rule belongs to the next block)."""
        if kind == "item":  # the file's closing stamp too: an edit goes before it
            cuts = [b.start for b in body if b.kind in ("html", "hr") or self.is_footer(b)]
        else:
            cuts = [b.start for b in body if b.kind == "hr"] if kind == "block" else []
            if end >= self.content_end:  # the file's last units alone: the stamp closes the file
                end = self.closing_stamp(body or section.body, end)  # the last lesson ends before it
        stops = unit_stops([b.start for b in starts], [b.end for b in starts], cuts, end, kind == "item")
        out = []
        for block, stop in zip(starts, stops, strict=True):
            if kind == "item" and not self.item_titles:
                title = ""
            else:
                first = self.lines[block.start + 1] if self.fenced(block) else self.lines[block.start]
                title = title_of(kind, first)
            marker = block.marker if kind == "item" else ("---" if kind == "block" else "")
            out.append(
                Span(kind, block.start, block.start + 1, stop, title, 0, marker, section.title or None, why)
            )
        return out

    def data_table(self, table: Block) -> bool:
        """A table of measurements (``| errcheck | 314 | Low |``): a column past the first that
        is a number in every row. A lessons table says things in words: a column of sentences
        (``**Legal RAG stores vectors pickled.** Atlas cannot …``) tells lessons, and a number
        beside it (a phase, a count) is one of their fields."""
        rows = self.table_rows(table)
        if len(rows) < 2:
            return False
        width = min(len(r) for r in rows)
        measured = any(all(MEASURE.compiled.match(r[c].strip()) for r in rows) for c in range(1, width))
        return measured and not _tells(rows)

    def file_map(self, table: Block) -> bool:
        """A table of where things are (``| DB schema | `scripts/init.sql` |``): a column that
        names a file in every row and little else, and no column of sentences. A lessons table
        may name files too, inside what it tells. Asked of one table by several rules."""
        found = self._file_maps.get(table.start)
        if found is None:
            first = self.lines[table.start + 2] if table.start + 2 < table.end else ""
            # most tables: one row under the header (a column is two rows or more), or no file
            # in the first row
            if table.end - table.start < 4 or ("`" not in first and "](" not in first):
                found = self._file_maps[table.start] = False
                return found
            rows = self.table_rows(table)
            width = min((len(r) for r in rows), default=0)
            mapped = len(rows) >= 2 and any(_file_column([r[c] for r in rows]) for c in range(width))
            found = self._file_maps[table.start] = mapped and not _tells(rows)
        return found

    def table_rows(self, table: Block) -> list[list[str]]:
        """The cells of each row under the header, up to where the table's rows stop."""
        lines = self.lines
        stop = table_rows.rows_end(lines, table.start + 2, table.end)
        return [table_rows.cells(lines[n]) for n in range(table.start + 2, stop) if lines[n].strip()]

    def parts_header(self, table: Block) -> bool:
        """A header row of which two cells or more name a lesson or its parts (``Gotcha``,
        ``Root cause``, ``Evidence and fix``): each row below is one lesson told in those parts."""
        named = 0
        for cell in table_rows.cells(self.lines[table.start]):
            if parts.names_part(cell) or vocabulary.names_one_lesson(cell):
                named += 1
        return named >= 2

    def row_spans(self, table: Block, section: Section, why: str) -> list[Span]:
        """One entry per row; a continuation row (``↳ …``) belongs to the row above it. A line
        indented four spaces or more ends the table (a GFM table parser reads it as code)."""
        stop = table_rows.rows_end(self.lines, table.start + 2, table.end)
        rows = range(table.start + 2, stop)
        id_column = table_rows.has_id_column([self.lines[n] for n in rows])
        starts = [n for n in rows if self.lines[n].strip() and not table_rows.is_continuation(self.lines[n])]
        out = []
        for index, n in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else stop
            title = row_title(self.lines[n], id_column)
            out.append(Span("row", n, n + 1, end, title, 0, "|", section.title or None, why))
        return out


def unit_stops(
    starts: Sequence[int], ends: Sequence[int], cuts: Sequence[int], end: int, cut_last: bool
) -> list[int]:
    """Where each unit stops: at the next unit's start (the last at ``end``), or before that at
    the first cut (a rule, a comment) after the unit's own first block. ``cut_last``: the last
    unit stops at a cut too. One pass over the cuts, whatever their number: units and cuts both
    come in line order, so the search for a unit's cut starts where the one before it ended."""
    out: list[int] = []
    count = len(starts)
    at, total = 0, len(cuts)
    for index in range(count):
        stop = starts[index + 1] if index + 1 < count else end
        if total and (index + 1 < count or cut_last):
            own_end = ends[index]
            while at < total:
                cut = cuts[at]
                if cut >= own_end:
                    stop = min(stop, cut)
                    break
                at += 1
        out.append(stop)
    return out


def _text_end(lines: Sequence[str]) -> int:
    """The line after the last line of ``lines`` with text on it."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return end


def starting_within(blocks: Sequence[Block], start: int, stop: int) -> Sequence[Block]:
    """The blocks (in line order) that start in lines ``[start, stop)``."""
    low = bisect.bisect_left(blocks, start, key=_BLOCK_START)
    return blocks[low : bisect.bisect_left(blocks, stop, lo=low, key=_BLOCK_START)]


_BLOCK_START = operator.itemgetter(1)
