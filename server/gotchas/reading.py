"""Which blocks of a file are its lessons: a choice among candidate structures, with reasons.

A person reading a lessons file first finds where the lessons are (the whole file, or
the Gotchas / Lessons / Pitfalls section of a guide; a whole document that is one
lesson; or none at all), then, section by section, whether a heading is a lesson or a
group of lessons, and what a lesson looks like inside a group: a list item, a
paragraph with a lead-in, a block between ``---`` rules, a table row, or the group's
own heading. Each decision here weighs the same evidence (titles that read as
categories, dates or claims; recurring field labels that mark a lesson's parts; what a
section's body is made of) and records a reason a person can read.

Input is the block map (``blocks``), never parser tokens. Output: ``Reading`` — spans
for the entries plus the groups, lessons sections and left-out parts, for ``outline``.
"""

from __future__ import annotations

import bisect
import operator
import re
from collections import Counter
from collections.abc import Callable, Sequence

from gotchas import moved, status, vocabulary
from gotchas import table as table_rows
from gotchas.blocks import Block
from gotchas.fields import KNOWN
from gotchas.patterns import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Literal

    SpanKind = Literal["heading", "item", "paragraph", "block", "row", "document"]
    FileKind = Literal["lessons", "lessons-section", "single-lesson", "not-lessons"]
else:  # the same classes, without loading dataclasses; no typing at run time
    from gotchas.values import dataclass, field

    SpanKind = FileKind = str
UNITS = ("h1", "h2", "h3", "h4", "h5", "h6", "list", "paragraph", "hr-block", "table-row", "single", "none")


@dataclass(frozen=True, slots=True)
class Span:
    """An entry's place: lines ``[start, end)`` 0-based, before trailing blanks are trimmed.

    ``body`` is the first line after the title line(s).
    """

    kind: SpanKind
    start: int
    body: int
    end: int
    title: str
    level: int
    marker: str
    section: str | None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Note:
    """A part of the file that is not an entry (a group heading, preamble, a meta section), and why."""

    start: int
    end: int
    what: str
    title: str
    reason: str


@dataclass(frozen=True, slots=True)
class Pin:
    """A project's override of the reading: a unit and/or the lessons section's title; with
    the ``list`` unit, ``checkboxes=False`` leaves checkbox and done-mark items out as detection does."""

    unit: str | None = None
    section: str | None = None
    checkboxes: bool = True

    @classmethod
    def parse(cls, text: str | None) -> Pin | None:
        """``"h3"``, ``"list"``, ``"list@Gotchas"``, ``"list,no-checkboxes"``, ``"@Known issues"``."""
        if not text:
            return None
        head, _, section = text.partition("@")
        unit, *flags = head.split(",")
        return cls(unit.strip() or None, section.strip() or None, NO_CHECKBOXES not in flags)

    def render(self) -> str:
        flags = "" if self.checkboxes else f",{NO_CHECKBOXES}"
        return f"{self.unit or ''}{flags}{'@' + self.section if self.section else ''}"


NO_CHECKBOXES = "no-checkboxes"


@dataclass
class Reading:
    kind: FileKind
    spans: list[Span]
    reason: str
    sections: list[Note] = field(default_factory=list)
    groups: list[Note] = field(default_factory=list)
    left_out: list[Note] = field(default_factory=list)
    pinned: bool = False
    leaves: Leaves | None = field(default=None, compare=False, repr=False)

    @property
    def unit(self) -> str | None:
        """The entries' shape: a heading level, ``list-item``, ``paragraph``… or ``mixed``."""
        if self.kind in ("single-lesson", "not-lessons") or not self.spans:
            return None
        shapes = {_shape(s) for s in self.spans}
        return shapes.pop() if len(shapes) == 1 else "mixed"


# how a section read, by its first line: (its end, its parent's title, its spans, the groups
# and left-out parts it added, whether it found a pointer index, the answers of its
# sub-sections or None for a leaf, and how far those lie behind this one's lines), lines as
# they were in that reading
Answer = tuple[
    int,
    str | None,
    tuple[Span, ...],
    tuple[Note, ...],
    tuple[Note, ...],
    bool,
    "dict[int, Answer] | None",
    int,
]


@dataclass(frozen=True, slots=True)
class Leaves:
    """How each section read under a reading's top level (``answers``; a section's own
    sub-sections' answers hang from its answer).

    A section's reading depends only on its own lines and blocks, its parent's title and which
    lead-in labels and sub-heading titles recur in the whole file (``labels``, ``headings``).
    A section taken over whole keeps its sub-sections' answers as they were, lines and all, with
    the distance they moved, so taking it over costs the same however many sections it holds.
    """

    labels: frozenset[str]
    headings: frozenset[str]
    answers: dict[int, Answer]
    label_counts: Counter[str] | None = None  # how often each label opens a block, for the next edit


@dataclass(frozen=True, slots=True)
class Prior:
    """The reading of the text an edit was made on: its lines and blocks before ``head`` and
    from ``tail`` on are the new text's (those from ``tail`` on moved by ``shift`` lines).

    A leaf wholly in those lines, with the same parent title, under the same recurring
    labels and titles, reads as it did: its answer is taken over, not read again. With that
    text's ``blocks`` and a reader of its lines (``line``), the labels are counted again only
    between ``head`` and ``tail``.
    """

    reading: Reading
    head: int
    tail: int
    shift: int
    blocks: Sequence[Block] = ()
    line: Callable[[int], str] | None = None


def _shape(span: Span) -> str:
    if span.kind == "heading":
        return f"h{span.level}"
    return {
        "item": "list-item",
        "paragraph": "paragraph",
        "block": "hr-block",
        "row": "table-row",
        "document": "single",
    }[span.kind]


# ---------------------------------------------------------------- the section tree


@dataclass(slots=True)
class Section:
    """A heading (or the whole document) with its own blocks and its sub-sections."""

    heading: Block | None
    start: int
    end: int
    body: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    parent: str | None = None  # the title of the section holding this one, if it has one

    @property
    def title(self) -> str:
        return self.heading.title if self.heading else ""

    @property
    def level(self) -> int:
        return self.heading.level if self.heading else 0

    @property
    def body_start(self) -> int:
        return self.heading.end if self.heading else self.start

    @property
    def own_end(self) -> int:
        return self.children[0].start if self.children else self.end


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


_HASHES = tuple("#" * level for level in range(7))  # a heading's marker, by its level


def _folded(title: str) -> str:
    """A title compared as sub-headings recur: lower case, runs of white space as one."""
    return " ".join(title.lower().split())


# ---------------------------------------------------------------- evidence from text

_ITEM_MARKER = lazy(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s*")
# a list marker opening a block: followed by a space, so ``**bold**`` keeps its first star
_BLOCK_MARKER = lazy(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+")
_CHECKBOX = lazy(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\[[ xX]\]")
_DONE = lazy(r"^(?:✅|✔️?|☑️?|✓)")
_BOLD_LABEL = lazy(r"^(?:\*\*|__)(?P<label>[^*_]{1,80}?)(?:\*\*|__)\s*(?P<after>.*)$")
_PLAIN_LABEL = lazy(r"^(?P<label>[^\W\d][\w .'/()&-]{0,40}?)\s*[:：]\s+(?P<after>\S.*)$")
_LINKED_FILE = lazy(r"^(?:`[^`]+\.(?:md|mdc|txt)`|\[[^\]]+\]\([^)]+\.(?:md|mdc)\))")
_SENTENCE_BREAK = lazy(r"[.!?]\s+\S")
_MD_REFERENCE = lazy(r"[\w./-]+\.mdc?\b")
_TIMESTAMP_LEAD = lazy(r"^\[?\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\]?\s*[:—–-]?\s*\S")
_DATE = lazy(r"\d{4}-\d{2}-\d{2}|\d{1,2}\.\d{1,2}\.\d{4}|\d{4}/\d{2}/\d{2}")
_CODE_SPAN = lazy(r"`[^`]+`")
_NUMBERED_TITLE = lazy(r"^\s*(?:\d+(?:\.\d+)*[.):]?\s|[^\W\d]{1,12}\s*\d+\s*[:：.]|[A-Z]{1,6}-\d+\b)")
_CLAUSE = lazy(r"\S\s+[—–]\s+\S|\S[:：]\s*\S|\S\s+-\s+\S")
_DISCOVERED = lazy(
    r"\([^)]*(?:\b(?:19|20)\d{2}\b|\b\d{1,2}\.\s*(?:jan|feb|mar|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[sc])\w*)[^)]*\)",
    re.IGNORECASE,
)
_ENTRY_FIELD = lazy(
    r"^\s{0,3}(?:[-*+]\s+|\d{1,9}[.)]\s+)?(?:id|tasks|root-cause|supersedes|superseded-by|red-herring-for)\s*:",
    re.IGNORECASE,
)
_ARTICLE = lazy(r"^(?:the|a|an)\s+")
_NUMBERED_FIELD = lazy(r"^[^\W\d]+(?:\s+[^\W\d]+)?\s+(?:\d+|[a-z])\s*[:：]")
_CHECKBOX_LEAD = lazy(r"^\[[ xX]\]\s+")
_SECOND_FIELD = lazy(
    r"[.;,!?)]\s+(?:\*\*|__)?(?:fix|solution|workaround|cause|root cause|resolution|lösung|solution|"
    r"solución|solução|решение|解决)(?:\*\*|__)?\s*[:：]",
    re.IGNORECASE,
)
_TEMPLATE = lazy(r"YYYY|<[\w -]{1,30}>|\bshort title\b", re.IGNORECASE)
_NUMBER_PREFIX = lazy(r"^\s*\d+(?:\.\d+)*[.)]?\s+")
_CJK = lazy(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def item_text(first_line: str) -> str:
    return _ITEM_MARKER.sub("", first_line, count=1).strip()


def lead_label(text: str) -> tuple[str, bool] | None:
    """A lead-in label and whether it is written as a field (ending in a colon or period).

    ``**Symptom:** …`` → ("symptom", True); ``**Title** — …`` → ("title", False);
    ``Context: …`` → ("context", True).
    """
    bold = _BOLD_LABEL.match(text)
    if bold:
        label = bold["label"].strip()
        after = bold["after"]
        if vocabulary.numbers_entry(label):
            return vocabulary.plain(label).strip(" :：."), False  # `**Lesson 1:**` numbers the entry
        as_field = label.endswith((":", "：", ".")) or after.startswith((":", "："))
        return vocabulary.field_name(label), as_field
    if ":" not in text and "：" not in text:
        return None  # no colon: no plain label (the pattern would try every length of one first)
    plain = _PLAIN_LABEL.match(text)
    if plain and len(plain["label"].split()) <= 3 and "`" not in plain["label"]:
        return vocabulary.field_name(plain["label"]), True
    return None


def _words(title: str) -> int:
    text = vocabulary.plain(title)
    if text.isascii() or max(text) < "\u3040":  # below every range of _CJK: no pattern needed
        return len(text.split())
    cjk = len(_CJK.findall(text))
    return len(_CJK.sub(" ", text).split()) + (cjk + 3) // 4


# ---------------------------------------------------------------- title rules

TitleRule = tuple[str, Callable[[str], bool], float]

# Evidence that a heading names a group of lessons (+) or one lesson (-); summed.
TITLE_RULES: tuple[TitleRule, ...] = (
    ("is numbered or carries an id", lambda t: bool(_NUMBERED_TITLE.match(vocabulary.plain(t))), -1.0),
    ("quotes code", lambda t: bool(_CODE_SPAN.search(t)), -1.0),
    ("reads as a sentence (over seven words)", lambda t: _words(t) > 7, -1.0),
    ("states a claim after a colon or dash", lambda t: bool(_CLAUSE.search(vocabulary.plain(t))), -1.0),
    ("records when it was found", lambda t: bool(_DISCOVERED.search(t)), -1.0),
    ("carries a status mark", lambda t: "~~" in t or "✅" in t or "❌" in t, -1.0),
    (
        "reads as a category (a short name)",
        lambda t: _words(t) <= 5 and not _CODE_SPAN.search(t) and not t.rstrip().endswith((".", "!", "?")),
        1.0,
    ),
    ("reads as a date group", lambda t: bool(_DATE.search(t)) and _words(_DATE.sub("", t)) <= 3, 1.0),
    ("names a phase, sprint, release or period", vocabulary.names_period, 1.0),
)


def title_evidence(title: str) -> tuple[float, list[str]]:
    score = 0.0
    reasons = []
    for reason, test, weight in TITLE_RULES:
        if test(title):
            score += weight
            reasons.append(reason)
    return score, reasons


# ---------------------------------------------------------------- the reader


class _Reader:
    def __init__(
        self,
        blocks: Sequence[Block],
        lines: Sequence[str],
        matter: tuple[int, int] | None,
        prior: Prior | None = None,
        keep: bool = True,
    ):
        self.blocks = blocks
        self.keep = keep  # whether each section's answer is kept for an edit to take over
        self.lines = lines
        self.matter = matter
        self.total = len(lines)
        self.tree = section_tree(blocks, self.total)
        self.labels = self._label_counts_near(prior) if prior is not None else self._label_counts()
        self.headings = self._repeated_parts()
        self.spans: list[Span] = []
        self.groups: list[Note] = []
        self.left_out: list[Note] = []
        self.pointer = False
        self.leaves = Leaves(
            frozenset(k for k, n in self.labels.items() if n >= 2),
            frozenset(k for k, n in self.headings.items() if n >= 2),
            {},
            self.labels,
        )
        self.prior: Prior | None = None
        self._first_texts: dict[int, str] = {}  # a block's first line without its marker, by line
        # where the answers of the sections being read go, and where the prior reading's
        # answers for them are (with how far behind the prior's lines their lines lie)
        self._answers = self.leaves.answers
        self._lookup: tuple[dict[int, Answer], int] | None = None

    def take_over(self, prior: Prior | None) -> None:
        """Reuse ``prior``'s answers when the file-wide evidence they rest on is the same."""
        leaves = prior.reading.leaves if prior is not None else None
        if leaves is not None and (leaves.labels, leaves.headings) == (
            self.leaves.labels,
            self.leaves.headings,
        ):
            self.prior = prior
            self._lookup = (leaves.answers, 0)

    # -- evidence

    def _repeated_parts(self) -> Counter[str]:
        """How many different sections hold a sub-heading of each title (``Fix`` under every lesson)."""
        counts: Counter[str] = Counter()
        stack = [self.tree]
        while stack:
            section = stack.pop()
            if section.children:
                counts.update({_folded(child.title) for child in section.children})
                stack.extend(section.children)
        return counts

    def _label_counts(self) -> Counter[str]:
        """How often each lead-in label opens an item or paragraph: a recurring label names a field."""
        counts: Counter[str] = Counter()
        lines = self.lines
        for block in self.blocks:
            kind = block.kind
            # a paragraph opens with a label only after ``**`` or ``__`` (``_opening_label``):
            # the many that do not are passed over here, without a call
            if kind == "item" or (
                kind == "paragraph" and lines[block.start].lstrip().startswith(("**", "__"))
            ):
                label = _opening_label(block, lines[block.start])
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
        for block in _starting_within(prior.blocks, prior.head, prior.tail - prior.shift):
            label = _opening_label(block, line(block.start)) if block.kind in _LABELLED else None
            if label is not None:
                counts[label] -= 1
        for block in _starting_within(self.blocks, prior.head, prior.tail):
            label = _opening_label(block, self.lines[block.start]) if block.kind in _LABELLED else None
            if label is not None:
                counts[label] += 1
        return +counts

    def is_field_label(self, label: str, as_field: bool) -> bool:
        if not as_field or not label:
            return False
        return (
            label in vocabulary.FIELDS
            or label in KNOWN
            or (self.labels[label] >= 2 and len(label.split()) <= 4)
        )

    def is_field_heading(self, title: str) -> bool:
        """``Problem``, ``### **Solution**``, ``Solution 2: …``, or a short title under every lesson."""
        if len(title) > 48 or title.count(" ") > 6:
            return False
        words = title.lower().lstrip("#*_ 0123456789.)").split(maxsplit=1)
        repeated = self.headings[_folded(title)] >= 2
        if not repeated and (not words or words[0].rstrip(":：.*_") not in vocabulary.FIELD_FIRST_WORDS):
            return False
        if vocabulary.names_lessons(title) and not vocabulary.names_one_lesson(title):
            return False  # a section titled as lessons holds lessons, whatever repeats its title
        name = vocabulary.field_name(title)
        text = _NUMBER_PREFIX.sub("", vocabulary.plain(title)).rstrip(":：. ")
        text = _ARTICLE.sub("", text)
        whole = text == name or _NUMBERED_FIELD.match(text) is not None
        if name in vocabulary.FIELDS and whole:
            return True
        return self.headings[_folded(title)] >= 2 and _words(title) <= 4

    def first_text(self, block: Block) -> str:
        found = self._first_texts.get(block.start)
        if found is None:
            found = self._first_texts[block.start] = item_text(self.lines[block.start])
        return found

    def is_tick(self, block: Block) -> bool:
        """A checkbox or a done mark: progress, not a lesson."""
        line = self.lines[block.start]
        if _CHECKBOX.match(line):
            return True
        text = self.first_text(block)
        if not _DONE.match(text) or len(text.split()) > 12:
            return False
        # `✅ Fixed: …`, `✅ Resolved — …`: a lesson marked done with, not a ticked task
        return status.from_title(text) is None

    def is_field_item(self, block: Block) -> bool:
        """A field of a lesson (``- Cause: …``); not a one-line lesson that names two of its
        parts (``- Problem: … Fix: …``)."""
        text = self.first_text(block)
        found = lead_label(text)
        if found is None or not self.is_field_label(*found):
            return False
        return not _SECOND_FIELD.search(text, len(found[0]) + 1)

    def is_label_paragraph(self, block: Block) -> bool:
        """A paragraph that is only a label (``**Symptoms:**``): the list after it is that field."""
        if block.kind != "paragraph" or block.end - block.start > 2:
            return False
        text = self.lines[block.start].strip()
        bold = _BOLD_LABEL.match(text)
        if bold and (not bold["after"].strip() or bold["after"].strip() in (":", "：")):
            return _words(bold["label"]) <= 6
        return text.endswith((":", "：")) and _words(text) <= 3

    def title_only(self, block: Block) -> bool:
        """An item that is only a bold title: its body follows as the next item or paragraph."""
        bold = _BOLD_LABEL.match(self.first_text(block))
        if not bold or bold["after"].strip(" :："):
            return False
        return all(not self.lines[n].strip() for n in range(block.start + 1, block.end))

    # -- units inside one body

    def lesson_items(self, body: Sequence[Block]) -> tuple[list[Block], list[Block]]:
        """(lesson items, other content blocks) of a body, in order."""
        lessons: list[Block] = []
        others: list[Block] = []
        after_label = False
        open_title = False
        for block in body:
            if block.kind != "item":
                if block.kind in ("paragraph", "fence", "table", "quote"):
                    if open_title:
                        continue  # the detached body of a title-only item
                    after_label = self.is_label_paragraph(block)
                    others.append(block)
                continue
            if after_label or self.is_tick(block) or self.is_field_item(block):
                continue
            if open_title and not _BOLD_LABEL.match(self.first_text(block)):
                continue  # the body of the title-only item before it
            lessons.append(block)
            open_title = self.title_only(block)
        return lessons, others

    def lead_paragraphs(self, body: Sequence[Block], pinned: bool = False) -> list[Block]:
        """Paragraphs opening with a lead-in, when most paragraphs do (``pinned``: whenever any does)."""
        paragraphs = [b for b in body if b.kind == "paragraph"]
        leads: list[Block] = []
        if len(paragraphs) < 2 and not pinned:
            return leads
        # a lead carrying this tool's own fields (a successor) owns the body paragraphs after
        # it, and a paragraph only of those fields is a mark: neither counts against the share
        owned = 0
        ours = False
        lines = self.lines
        for block in paragraphs:
            text = lines[block.start].strip()
            if _ENTRY_FIELD.match(text):
                owned += 1
                continue
            lead = self._is_lead(text)
            if ours and not lead:
                owned += 1
                continue
            ours = False
            if lead:
                leads.append(block)
                ours = any(_ENTRY_FIELD.match(lines[n]) for n in range(block.start, block.end))
        if pinned:
            return leads
        rest = len(paragraphs) - owned
        # four in five paragraphs open with a lead-in; from three leads on, two in three (a lesson
        # may run on into a paragraph of its own)
        if len(leads) >= 2 and (
            len(leads) * 5 >= rest * 4 or (len(leads) >= 3 and len(leads) * 3 >= rest * 2)
        ):
            return leads
        return []

    def _is_lead(self, text: str) -> bool:
        """A timestamp lead (``[2030-01-02] Title: …``) or a bold lead-in that is no field label."""
        if not text or text[0] not in "[*_0123456789":
            return False
        if _TIMESTAMP_LEAD.match(text):
            return True
        found = lead_label(text)
        return bool(found and _BOLD_LABEL.match(text) and not self.is_field_label(*found) and found[0])

    def hr_blocks(self, body: Sequence[Block]) -> list[Block]:
        """The first block of each run between ``---`` rules, when there are two runs or more."""
        firsts: list[Block] = []
        fresh = True
        has_rule = False
        for block in body:
            if block.kind == "hr":
                fresh = True
                has_rule = True
            elif block.kind != "html":
                if fresh:
                    firsts.append(block)
                fresh = False
        return firsts if has_rule and len(firsts) >= 2 else []

    def table_rows(self, body: Sequence[Block]) -> Block | None:
        tables = [b for b in body if b.kind == "table"]
        rest = [b for b in body if b.kind not in ("table", "html", "hr")]
        if len(tables) == 1 and tables[0].end - tables[0].start >= 4 and len(rest) <= 1:
            return tables[0]
        return None

    # -- spans

    def heading_span(self, section: Section, reason: str, end: int | None = None) -> Span:
        heading = section.heading
        assert heading is not None
        level = heading.level
        return Span(
            "heading",
            section.start,
            heading.end,
            section.end if end is None else end,
            heading.title,
            level,
            _HASHES[level],
            section.parent,
            reason,
        )

    def parent_title(self, section: Section) -> str | None:
        return section.parent

    def unit_spans(self, section: Section, body: Sequence[Block], end: int, reason: str) -> list[Span] | None:
        """Entries made of the body's own units, by the first unit rule that finds any."""
        kinds = {b.kind for b in body}
        for needs, rule in UNIT_RULES:
            if needs in kinds:
                spans = rule(self, section, body, end, reason)
                if spans:
                    return spans
        return None

    def _spans_from(
        self,
        kind: SpanKind,
        starts: Sequence[Block],
        end: int,
        section: Section,
        why: str,
        body: Sequence[Block] = (),
    ) -> list[Span]:
        """One span per unit, up to the next unit; a list item's also stops at a comment or a rule,
        and a ``---`` block at the rule that opens the next one (a comment after that rule belongs
        to the next block)."""
        out = []
        breaks = [b.start for b in body if b.kind in ("html", "hr")] if kind == "item" else []
        rules = [b.start for b in body if b.kind == "hr"] if kind == "block" else []
        for index, block in enumerate(starts):
            stop = starts[index + 1].start if index + 1 < len(starts) else end
            if breaks:
                stop = min([stop, *(s for s in breaks if block.end <= s < stop)])
            if rules and index + 1 < len(starts):
                stop = min([stop, *(s for s in rules if block.end <= s < stop)])
            first = self.lines[block.start]
            if self.fenced(block):
                first = self.lines[block.start + 1]
            title = _title_of(kind, first)
            marker = block.marker if kind == "item" else ("---" if kind == "block" else "")
            out.append(
                Span(kind, block.start, block.start + 1, stop, title, 0, marker, section.title or None, why)
            )
        return out

    def own_blocks_after(self, body: Sequence[Block], item: Block) -> bool:
        """A ``---`` block after ``item`` opens with a lesson carrying this tool's field line (a
        successor or a captured lesson written after a one-bullet block)."""
        firsts = self.hr_blocks(body)
        return any(
            b.start > item.start
            and b.kind == "paragraph"
            and any(
                _ENTRY_FIELD.match(line) and _OWN_FIELDS.search(line) for line in self.lines[b.start : b.end]
            )
            for b in firsts
        )

    def own_field_bullet_blocks(self, body: Sequence[Block], items: Sequence[Block]) -> bool:
        """Every lesson bullet opens a ``---`` block of field bullets and carries this tool's field
        line in its list (a successor written in the form of blocks like ``- **Problem:** …``,
        ``- **Fix:** …``), and other blocks are there: the body is a body of blocks."""
        firsts = self.hr_blocks(body)
        if len(firsts) <= len(items):
            return False
        opening = {b.start for b in firsts}
        starts = {b.start: n for n, b in enumerate(body) if b.start in opening}
        return all(
            item.start in starts
            and any(
                _ENTRY_FIELD.match(line) and _OWN_FIELDS.search(line)
                for line in self.lines[item.start : _list_end(body, starts[item.start])]
            )
            for item in items
        )

    def fenced(self, block: Block) -> bool:
        """A fenced code block with a line inside: its title is that line, not the fence."""
        if block.kind != "fence" or block.end - block.start <= 2:
            return False
        return self.lines[block.start].lstrip(" ").startswith(("```", "~~~"))

    # -- decisions

    def read(self, pin: Pin | None) -> Reading:
        root, title_note = self.title_section()
        if pin and pin.unit and pin.unit not in ("auto",):
            return self.read_pinned(pin, root)
        if pin and pin.section:
            found = self.find_sections(
                root, lambda t: vocabulary.plain(pin.section or "") in vocabulary.plain(t)
            )
            return self.read_scopes(found, "pinned lessons section", pinned=True)
        title = root.title
        if root.heading is not None and vocabulary.names_no_lessons(title):
            if title_note:
                self.left_out.append(title_note)
            return Reading(
                "not-lessons",
                [],
                f"the title {title!r} names a record of changes, plans, tasks, terms or a decision",
                [],
                [],
                self.left_out,
            )
        if (
            root.heading is not None
            and self.has_entry_fields(root)
            and not any(b.kind == "item" for b in root.body)
            and self.owns_fields(root, self.unit_spans(root, root.body, root.own_end, ""))
        ):
            span = self.heading_span(root, "its one heading carries entry fields (id:, tasks:…)")
            return Reading("lessons", [span], "a file of one lesson with entry fields")
        if (
            root.heading is not None
            and vocabulary.names_one_lesson(title)
            and not vocabulary.names_lessons(title.replace("Lesson", "").replace("lesson", ""))
        ):
            return self.single(f"the title {title!r} names one lesson")
        if root.heading is None or not vocabulary.names_lessons(title):
            sections = self.find_sections(root, vocabulary.names_lessons)
            if (
                sections
                and all(vocabulary.names_one_lesson(s.title) for s in sections)
                and self.parts_of_one(root.children)
            ):
                return self.single("its sections, its one Lesson among them, are the parts of one lesson")
            if sections:
                # a lesson added beside the lessons section carries this tool's entry fields
                sections = self.find_sections(root, vocabulary.names_lessons, self.has_entry_fields)
                return self.read_scopes(sections, "a guide whose lessons live in its lessons section")
            if self.is_guide(root):
                return Reading(
                    "not-lessons",
                    [],
                    "a guide: its sections are about the project, none is titled as lessons",
                )
            why = (
                "the file has no title; it is read as a whole"
                if root.heading is None
                else (f"the title {title!r} does not name its contents; the whole file is read")
            )
        else:
            why = f"the title {title!r} names a lessons file"
        if title_note:
            self.left_out.append(title_note)
        entries = self.container(root, top=True)
        if entries is None:
            return self.single("the whole file explains one lesson: its sections are that lesson's parts")
        if not entries:
            if self.checklist():
                return Reading(
                    "not-lessons",
                    [],
                    "a checklist: its items are progress, not lessons",
                    [],
                    [],
                    self.left_out,
                )
            if self.substantial(root) and not self.pointer and not self.template_only(root):
                return self.single("no lesson structure, but one body of text: the file is one lesson")
            return Reading(
                "not-lessons",
                [],
                "nothing in the file reads as a lesson",
                [],
                self.groups,
                self.left_out,
            )
        return Reading("lessons", entries, why, [], self.groups, self.left_out)

    def title_section(self) -> tuple[Section, Note | None]:
        """The document's title heading, when one heading sits above all others."""
        root = self.tree
        if len(root.children) == 1 and not [b for b in root.body if b.kind not in ("html", "hr")]:
            top = root.children[0]
            note = Note(
                top.start,
                top.heading.end if top.heading else top.start,
                "title",
                top.title,
                "the document's title",
            )
            return top, note
        return root, None

    def has_entry_fields(self, section: Section, marks: bool = True) -> bool:
        """A leaf section carrying this tool's own entry fields (``tasks:``, ``supersedes:``…) is a
        lesson. With ``marks=False`` a red-herring mark alone does not count: it annotates a lesson
        already there and must not change how its section reads."""
        if section.children:
            return False
        return any(
            _ENTRY_FIELD.match(line) and (marks or not _MARK.match(line))
            for b in section.body
            for line in self.lines[b.start : b.end]
        )

    def find_sections(
        self, root: Section, test: Callable[[str], bool], also: Callable[[Section], bool] | None = None
    ) -> list[Section]:
        out: list[Section] = []

        def walk(section: Section) -> None:
            for child in section.children:
                if (test(child.title) or (also is not None and also(child))) and not vocabulary.is_meta(
                    child.title
                ):
                    out.append(child)
                else:
                    walk(child)

        walk(root)
        return out

    def is_guide(self, root: Section) -> bool:
        tops = root.children
        if not tops:
            return False
        guide = sum(1 for s in tops if vocabulary.GUIDE_WORDS.search(s.title))
        titled = root.heading is not None and bool(vocabulary.GUIDE_TITLE.search(root.title))
        return guide >= 2 and (guide * 3 >= len(tops) or titled)

    def template_only(self, root: Section) -> bool:
        """Instructions and an entry template (``YYYY-MM-DD``, ``<title>``) in code: no lesson yet."""
        content = [b for b in root.body if b.kind not in ("html", "hr")]
        fences = [b for b in content if b.kind == "fence"]
        if (
            not fences
            or len(content) - len(fences) > 2
            or any(b.kind != "paragraph" for b in content if b.kind != "fence")
        ):
            return False
        return all(_TEMPLATE.search("\n".join(self.lines[b.start : b.end])) for b in fences)

    def checklist(self) -> bool:
        """Every list item is a checkbox or a done mark."""
        items = [b for b in self.blocks if b.kind == "item"]
        return bool(items) and all(self.is_tick(b) for b in items)

    def substantial(self, root: Section) -> bool:
        content = [b for b in self.blocks if b.kind not in ("html", "hr")]
        lines = sum(1 for n in range(root.start, root.end) if self.lines[n].strip())
        return self.matter is not None or len(content) >= 3 or lines >= 4

    def single(self, reason: str) -> Reading:
        title = self.document_title()
        span = Span("document", 0, 1, self.total, title, 0, "", None, reason)
        return Reading("single-lesson", [span] if self.total else [], reason)

    def document_title(self) -> str:
        if self.matter is not None:
            for n in range(self.matter[0] + 1, self.matter[1] - 1):
                key, _, value = self.lines[n].partition(":")
                if key.strip().lower() in ("name", "title") and value.strip():
                    return value.strip().strip("'\"")
        for block in self.blocks:
            if block.kind == "heading":
                return block.title
        for block in self.blocks:
            return _title_of("block", self.lines[block.start])
        return "lesson"

    def read_scopes(self, scopes: Sequence[Section], why: str, pinned: bool = False) -> Reading:
        spans: list[Span] = []
        notes = []
        for scope in scopes:
            notes.append(Note(scope.start, scope.end, "lessons-section", scope.title, why))
            if vocabulary.names_one_lesson(scope.title) and not scope.children:
                spans.append(self.heading_span(scope, f"the section {scope.title!r} is one lesson"))
                continue
            found = self.container(scope, top=False)
            if found is None:
                spans.append(self.heading_span(scope, "its sub-sections are the parts of one lesson"))
            else:
                spans.extend(found)
        if self.tree.children or self.tree.body:
            first = scopes[0].start if scopes else self.total
            if first > 0:
                self.left_out.append(Note(0, first, "guide", "", "guide text outside the lessons section"))
        if not spans:
            return Reading(
                "not-lessons",
                [],
                "the lessons section holds no lesson of its own (it points elsewhere)",
                notes,
                self.groups,
                self.left_out,
                pinned,
            )
        return Reading("lessons-section", spans, why, notes, self.groups, self.left_out, pinned)

    def container(self, section: Section, top: bool) -> list[Span] | None:
        """A section known to hold lessons. ``None``: its sub-sections are one lesson's parts."""
        children = [c for c in section.children if not self.skip_meta(c)]
        if children and self.parts_of_one(children):
            return None
        body = section.body
        end = section.own_end
        prose_only = all(b.kind in ("paragraph", "quote", "html", "hr") for b in body)
        if not children and prose_only and not top and len(body) <= 4:
            prose = " ".join(self.lines[n] for b in body for n in range(b.start, b.end))
            if _MD_REFERENCE.search(prose):
                self.left_out.append(
                    Note(
                        section.start,
                        section.end,
                        "pointer",
                        section.title,
                        "points to another file for its lessons",
                    )
                )
                return []
        spans = self.own_units(section, body, end, top=top, container=True)
        spans.extend(self.read_children(children))
        content = [b for b in body if b.kind not in ("html", "hr")]
        if (
            not spans
            and not top
            and not children
            and section.heading is not None
            and content
            and not self.pointer
        ):
            return [self.heading_span(section, "a lessons section written as one lesson")]
        return spans

    def skip_meta(self, section: Section) -> bool:
        if vocabulary.is_meta(section.title):
            self.left_out.append(
                Note(
                    section.start,
                    section.end,
                    "meta",
                    section.title,
                    "about the file itself (how to add, a template, references)",
                )
            )
            return True
        return False

    def parts_of_one(self, children: Sequence[Section]) -> bool:
        """At least half the sub-headings name a lesson's parts (``Problem``, ``Fix``…): looked
        at until more than half do not."""
        allowed = len(children) // 2  # the most that may not, for half or more to
        misses = 0
        for child in children:
            if not self.is_field_heading(child.title):
                misses += 1
                if misses > allowed:
                    return False
        return len(children) - misses >= 1

    def own_units(
        self, section: Section, body: Sequence[Block], end: int, top: bool, container: bool
    ) -> list[Span]:
        """Lessons written directly in a section, before any sub-section."""
        if self.pointer_index(body):
            self.left_out.append(
                Note(
                    section.body_start,
                    end,
                    "index",
                    section.title,
                    "a pointer index: each bullet only names another file",
                )
            )
            return []
        found = self.unit_spans(section, body, end, "a lesson written directly in its section")
        if found:
            return found
        if top or (container and not section.children):
            return []
        content = [b for b in body if b.kind not in ("html", "hr")]
        if not content or (len(content) == 1 and content[0].kind == "paragraph"):
            if content:
                self.left_out.append(
                    Note(content[0].start, content[0].end, "intro", section.title, "the group's introduction")
                )
            return []
        return [
            Span(
                "block",
                content[0].start,
                content[0].start + 1,
                end,
                _title_of("block", self.lines[content[0].start + self.fenced(content[0])]),
                0,
                "",
                section.title or None,
                "a group's own lesson before its sub-lessons",
            )
        ]

    def pointer_index(self, body: Sequence[Block]) -> bool:
        items = [b for b in body if b.kind == "item"]
        if len(items) < 3:
            return False
        texts = [self.first_text(b) for b in items]
        rests = sorted(len(_LINKED_FILE.sub("", t).split()) for t in texts if _LINKED_FILE.match(t))
        if len(rests) * 5 < len(items) * 4 or rests[len(rests) // 2] > 8:
            return False
        self.pointer = True
        return True

    def read_section(self, section: Section) -> list[Span]:
        """``_read_section``, or the answer the prior reading gave this section where nothing
        changed; a section read again looks its sub-sections up in its prior answer. A reader
        that keeps no answers (nothing will edit what it reads) reads the section alone."""
        if not self.keep:
            return self._read_section(section)
        start, end, parent = section.start, section.end, self.parent_title(section)
        known = self._known(start, end, parent)
        if known is not None:
            return known
        groups_before, left_before, pointer_before = len(self.groups), len(self.left_out), self.pointer
        outer, lookup = self._answers, self._lookup
        inner: dict[int, Answer] | None = {} if section.children else None
        if inner is not None:
            self._answers, self._lookup = inner, self._inner_lookup(start)
        self.pointer = False  # nothing in a section reads it: whether this section sets it
        try:
            spans = self._read_section(section)
        finally:
            self._answers, self._lookup = outer, lookup
        found = self.pointer
        self.pointer = pointer_before or found
        outer[start] = (
            end,
            parent,
            tuple(spans),
            tuple(self.groups[groups_before:]),
            tuple(self.left_out[left_before:]),
            found,
            inner,
            0,
        )
        return spans

    def _read_section(self, section: Section) -> list[Span]:
        if not section.children:
            return self.read_leaf(section)
        children = [c for c in section.children if not self.skip_meta(c)]
        if children:
            if self.parts_of_one(children):
                return [self.heading_span(section, "its sub-headings are this lesson's parts")]
            self.groups.append(
                Note(
                    section.start, section.body_start, "group", section.title, "its sub-sections are lessons"
                )
            )
            spans = self.own_units(section, section.body, section.own_end, top=False, container=False)
            spans.extend(self.read_children(children))
            return spans
        return self.read_leaf(section)

    def _shift(self, start: int, end: int) -> int | None:
        """How far lines ``[start, end)`` moved since the prior reading, if they did not change."""
        prior = self.prior
        if prior is None:
            return None
        if end <= prior.head:
            return 0
        if start >= prior.tail:
            return prior.shift
        return None

    def _known(self, start: int, end: int, parent: str | None) -> list[Span] | None:
        lookup = self._lookup
        shift = self._shift(start, end) if lookup is not None else None
        if lookup is None or shift is None:
            return None
        answers, behind = lookup
        found = answers.get(start - shift - behind)
        moved = shift + behind
        if found is None or found[0] + moved != end or found[1] != parent:
            return None
        _, _, spans, groups, left_out, pointer, inner, inner_behind = found
        if moved:
            spans = _moved_spans(spans, moved)
            groups = tuple(_moved_note(n, moved) for n in groups)
            left_out = tuple(_moved_note(n, moved) for n in left_out)
        self.groups.extend(groups)
        self.left_out.extend(left_out)
        self.pointer = self.pointer or pointer
        self._answers[start] = (end, parent, spans, groups, left_out, pointer, inner, inner_behind + moved)
        return list(spans)

    def _inner_lookup(self, start: int) -> tuple[dict[int, Answer], int] | None:
        """Where the sub-sections of the section at ``start`` (read again) find their prior answers."""
        lookup = self._lookup
        shift = self._shift(start, start + 1) if lookup is not None else None
        if lookup is None or shift is None:
            return None
        answers, behind = lookup
        found = answers.get(start - shift - behind)
        if found is None or found[6] is None:
            return None
        return found[6], behind + found[7]

    def read_children(self, children: Sequence[Section]) -> list[Span]:
        """Sub-sections in order; siblings share a shape: a category heading among groups of
        blocks or lead-in paragraphs holding just one of them is a group of one."""
        read = [(child, self.read_section(child)) for child in children]
        shapes = Counter(
            spans[0].kind
            for child, spans in read
            if spans and not child.children and spans[0].kind in ("block", "paragraph")
        )
        item_groups = sum(
            1 for child, spans in read if not child.children and spans and spans[0].kind == "item"
        )
        out: list[Span] = []
        for child, spans in read:
            lone = len(spans) == 1 and spans[0].kind == "heading" and not child.children
            if lone and item_groups and title_evidence(child.title)[0] > 0:
                items = self.introduced_items(child)
                if items:
                    why = (
                        f"a lesson in the group {child.title!r}: an introduction, then its siblings' lessons"
                    )
                    self.groups.append(Note(child.start, child.body_start, "group", child.title, why))
                    self.left_out.append(
                        Note(
                            child.body[0].start,
                            child.body[0].end,
                            "intro",
                            child.title,
                            "the group's introduction",
                        )
                    )
                    out.extend(self._spans_from("item", items, child.end, child, why, child.body))
                    continue
            if (
                shapes
                and lone
                and title_evidence(child.title)[0] > 0
                and not self.has_entry_fields(child, False)
            ):
                kind = shapes.most_common(1)[0][0]
                first = next((b for b in child.body if b.kind not in ("html", "hr")), None)
                # a heading whose body opens with a red-herring mark was itself the lesson
                if first is not None and not _MARK.match(self.lines[first.start]):
                    why = f"a lesson in the group {child.title!r}: its siblings are groups of {_plural(kind)}"
                    self.groups.append(Note(child.start, child.body_start, "group", child.title, why))
                    out.extend(self._spans_from(kind, [first], child.end, child, why))
                    continue
            out.extend(spans)
        return out

    def introduced_items(self, section: Section) -> list[Block]:
        """Lesson items after one short opening paragraph and nothing else (``These apply to…``)."""
        body = [b for b in section.body if b.kind not in ("html", "hr")]
        if len(body) < 3 or body[0].kind != "paragraph" or body[0].end - body[0].start > 2:
            return []
        if any(b.kind != "item" for b in body[1:]):
            return []
        if any(_ENTRY_FIELD.match(line) for line in self.lines[body[0].start : body[0].end]):
            return []  # fields in the opening paragraph: the heading is one lesson
        items, _ = self.lesson_items(body[1:])
        return items if len(items) >= 2 else []

    def read_leaf(self, section: Section) -> list[Span]:
        body = section.body
        ticks_only = (
            bool(body)  # an empty body holds no checkbox either; most open with neither rule nor item
            and body[0].kind in ("hr", "item")
            and all(b.kind == "hr" or (b.kind == "item" and self.is_tick(b)) for b in body)
        )
        if ticks_only and any(b.kind == "item" for b in body):
            self.left_out.append(
                Note(
                    section.start, section.end, "empty", section.title, "only checkboxes: progress, no lesson"
                )
            )
            return []
        units = self.unit_spans(section, body, section.end, "")
        if not units:
            return [self.heading_span(section, "a lesson: a heading with text of its own")]
        if self.owns_fields(section, units):
            return [
                self.heading_span(
                    section, "a lesson: its own text carries entry fields (tasks:, root-cause:…)"
                )
            ]
        score, reasons = title_evidence(section.title)
        if units:
            kind = units[0].kind
            if kind == "item":
                _, others = self.lesson_items(body)
                if others:
                    score -= 1.0
                    reasons.append("its list follows or precedes prose of its own")
                elif len(units) >= 2:
                    score += 1.0
                    reasons.append(f"its body is only a list of {len(units)} lessons")
                else:
                    score += 0.5
                    reasons.append("its body is one lesson bullet")
            else:
                score += 1.0
                reasons.append(f"its body is {len(units)} {_plural(kind)}")
        if units and score >= 1.5:
            why = "a group: " + "; ".join(reasons)
            self.groups.append(Note(section.start, section.body_start, "group", section.title, why))
            return [
                Span(
                    s.kind,
                    s.start,
                    s.body,
                    s.end,
                    s.title,
                    s.level,
                    s.marker,
                    section.title,
                    f"a lesson in the group {section.title!r}",
                )
                for s in units
            ]
        why = "a lesson: " + ("; ".join(reasons) if reasons else "a heading with its own text")
        return [self.heading_span(section, why)]

    def owns_fields(self, section: Section, units: Sequence[Span] | None) -> bool:
        """Entry fields before the section's first unit, or opening it: the section is one lesson.
        Fields inside a block or lead-paragraph unit are that unit's (this tool's successor and
        mark there), so the reading stays stable after our own edits."""
        owned = units[0].start if units and units[0].kind in ("block", "paragraph") else section.end
        return any(
            _ENTRY_FIELD.match(self.lines[n])
            for b in section.body
            if b.kind == "paragraph" and b.start <= owned
            for n in range(b.start, b.end if b.start < owned else b.start + 1)
        )

    def read_pinned(self, pin: Pin, root: Section) -> Reading:
        unit = pin.unit or ""
        scopes = [root]
        if pin.section:
            scopes = (
                self.find_sections(root, lambda t: vocabulary.plain(pin.section or "") in vocabulary.plain(t))
                or []
            )
        if unit == "none":
            return Reading("not-lessons", [], "pinned: the file holds no lessons", pinned=True)
        if unit == "single":
            reading = self.single("pinned: the whole file is one lesson")
            reading.pinned = True
            return reading
        spans: list[Span] = []
        for scope in scopes:
            spans.extend(self.pinned_units(scope, unit, pin.checkboxes))
        kind: FileKind = "lessons-section" if pin.section else "lessons"
        return Reading(kind, spans, f"pinned: entries = {pin.render()!r}", [], [], [], True)

    def pinned_items(self, body: Sequence[Block], checkboxes: bool) -> list[Block]:
        """The list items a ``list`` pin takes: every item but a lesson's field bullets and the
        plain bullets that are the body of a bold title-only item (as detection reads them);
        checkbox and done-mark items too unless ``checkboxes`` is off."""
        items: list[Block] = []
        open_title = False
        for block in body:
            if block.kind != "item" or self.is_field_item(block):
                continue
            if not checkboxes and self.is_tick(block):
                continue
            if open_title and not _BOLD_LABEL.match(self.first_text(block)):
                continue  # the body of the title-only item before it
            items.append(block)
            open_title = self.title_only(block)
        return items

    def pinned_units(self, scope: Section, unit: str, checkboxes: bool = True) -> list[Span]:
        sections = self.walk_lessons(scope)
        level = int(unit[1]) if re.fullmatch(r"h[1-6]", unit) else None
        spans: list[Span] = []
        for section in sections:
            if level is not None:
                if section.heading is not None and section.level == level:
                    spans.append(
                        self.heading_span(section, "pinned heading level", end=_section_end(section, level))
                    )
                continue
            body, end = section.body, section.own_end
            why = f"pinned unit {unit}"
            if unit == "list":
                items = self.pinned_items(body, checkboxes)
                spans.extend(self._spans_from("item", items, end, section, why))
            elif unit == "paragraph":
                # warning callouts are paragraph-shaped lessons; beside them, other paragraphs are intros
                callouts = _callout_unit(self, section, body, end, why)
                # with lead-ins, a paragraph without one continues the lesson before it
                paragraphs = self.lead_paragraphs(body, pinned=True) or [
                    b for b in body if b.kind == "paragraph"
                ]
                spans.extend(callouts or self._spans_from("paragraph", paragraphs, end, section, why))
            elif unit == "hr-block":
                spans.extend(
                    self._spans_from("block", self.hr_blocks(body) or body[:1], end, section, why, body)
                )
            elif unit == "table-row":
                for table in [b for b in body if b.kind == "table"]:
                    spans.extend(self.row_spans(table, section, why))
        return sorted(spans, key=lambda s: s.start)

    def walk_lessons(self, section: Section) -> list[Section]:
        """The section and its sub-sections, without those about the file itself (a table of
        contents, how to add an entry, a template, an appendix): a pin keeps them out too."""
        out = [section]
        for child in section.children:
            if not self.skip_meta(child):
                out.extend(self.walk_lessons(child))
        return out

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
            out.append(
                Span(
                    "row",
                    n,
                    n + 1,
                    end,
                    row_title(self.lines[n], id_column),
                    0,
                    "|",
                    section.title or None,
                    why,
                )
            )
        return out


_LABELLED = ("item", "paragraph")


def _opening_label(block: Block, first: str) -> str | None:
    """The field label an item or paragraph opens with (``first`` is its first line), if any."""
    head = first[:60]
    if block.kind == "paragraph" and not head.lstrip().startswith(("**", "__")):
        return None
    if "**" not in head and "__" not in head and ":" not in head and "：" not in head:
        return None
    found = lead_label(item_text(first))
    return found[0] if found and found[1] else None


def _starting_within(blocks: Sequence[Block], start: int, stop: int) -> Sequence[Block]:
    """The blocks (in line order) that start in lines ``[start, stop)``."""
    low = bisect.bisect_left(blocks, start, key=_BLOCK_START)
    return blocks[low : bisect.bisect_left(blocks, stop, lo=low, key=_BLOCK_START)]


_BLOCK_START = operator.itemgetter(1)


def _list_end(body: Sequence[Block], at: int) -> int:
    """The line after the run of items (the list) that opens with ``body[at]``."""
    end = body[at].end
    for block in body[at + 1 :]:
        if block.kind != "item" or block.list_id != body[at].list_id:
            break
        end = block.end
    return end


def _moved_span(span: Span, lines: int) -> Span:
    return Span(
        span.kind,
        span.start + lines,
        span.body + lines,
        span.end + lines,
        span.title,
        span.level,
        span.marker,
        span.section,
        span.reason,
    )


def _moved_spans(spans: Sequence[Span], lines: int) -> tuple[Span, ...]:
    if len(spans) < 16:
        return tuple(_moved_span(s, lines) for s in spans)
    return tuple(moved.copies(Span, spans, {"start": lines, "body": lines, "end": lines}))


def _moved_note(note: Note, lines: int) -> Note:
    return Note(note.start + lines, note.end + lines, note.what, note.title, note.reason)


def _section_end(section: Section, level: int) -> int:
    return section.end


def _plural(kind: str) -> str:
    return {"paragraph": "lead-in paragraphs", "block": "blocks between --- rules", "row": "table rows"}.get(
        kind, kind
    )


# ---------------------------------------------------------------- unit rules (as data)

UnitRule = Callable[[_Reader, Section, Sequence[Block], int, str], "list[Span] | None"]


def _table_unit(
    reader: _Reader, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    table = reader.table_rows(body)
    if table is None:
        return None
    return reader.row_spans(table, section, why or "a row of the lessons table")


def _item_unit(
    reader: _Reader, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    items, _ = reader.lesson_items(body)
    if len(items) == 1 and reader.own_blocks_after(body, items[0]):
        return None  # one bullet, then lessons this tool added after --- rules: a body of blocks
    if items and reader.own_field_bullet_blocks(body, items):
        return None  # blocks of field bullets, the only lesson bullets those this tool wrote
    return reader._spans_from("item", items, end, section, why or "a list item", body) if items else None


def _hr_unit(
    reader: _Reader, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    firsts = reader.hr_blocks(body)
    return (
        reader._spans_from("block", firsts, end, section, why or "a block between --- rules", body)
        if firsts
        else None
    )


def _paragraph_unit(
    reader: _Reader, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    leads = reader.lead_paragraphs(body)
    return (
        reader._spans_from("paragraph", leads, end, section, why or "a paragraph with a lead-in")
        if leads
        else None
    )


_CALLOUT = lazy(r"^\s{0,3}>\s*\[!(?:warning|caution|important)\]\s*$", re.IGNORECASE)


def _callout_unit(
    reader: _Reader, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    """GitHub warning callouts (``> [!WARNING]``), two or more: each one is a lesson."""
    callouts = [b for b in body if b.kind == "quote" and _CALLOUT.match(reader.lines[b.start])]
    if len(callouts) < 2:
        return None
    out = []
    for index, block in enumerate(callouts):
        stop = callouts[index + 1].start if index + 1 < len(callouts) else end
        text = reader.lines[block.start + 1] if block.end > block.start + 1 else ""
        title = _lead_title(text.lstrip(" >").strip()) or vocabulary.plain(reader.lines[block.start]).strip(
            "> "
        )
        reason = why or "a warning callout (> [!WARNING])"
        out.append(
            Span("paragraph", block.start, block.start + 1, stop, title, 0, "", section.title or None, reason)
        )
    return out


# (the block kind a rule needs in the body, the rule), in order of preference
UNIT_RULES: tuple[tuple[str, UnitRule], ...] = (
    ("table", _table_unit),
    ("item", _item_unit),
    ("hr", _hr_unit),
    ("quote", _callout_unit),
    ("paragraph", _paragraph_unit),
)


# ---------------------------------------------------------------- titles

_MAX_TITLE = 100
_SENTENCE_END = lazy(r"(?<=[.!?。])\s|\s[—–]\s")
_BOLD_LEAD = lazy(r"^(\*\*|__)(?P<title>.+?)\1")
_LINK_LEAD = lazy(r"^\[(?P<title>[^\]]+)\]\([^)]*\)")


def item_title(first_line: str) -> str:
    """A list entry's title: its bold lead-in or link text, else its first sentence (≤ 100 characters)."""
    text = _ITEM_MARKER.sub("", first_line, count=1).strip()
    text = _CHECKBOX_LEAD.sub("", text)
    return _lead_title(text)


def _lead_title(text: str) -> str:
    bold = _BOLD_LEAD.match(text)
    if bold:
        return bold["title"].strip().rstrip(":：.").strip()
    link = _LINK_LEAD.match(text)
    if link:
        return link["title"].strip()
    sentence = _SENTENCE_END.split(text[: _MAX_TITLE * 2], maxsplit=1)[0]
    if len(sentence) > _MAX_TITLE:
        sentence = sentence[:_MAX_TITLE].rsplit(" ", 1)[0] + "…"
    return sentence


def _title_of(kind: SpanKind, first_line: str) -> str:
    if kind == "item":
        return item_title(first_line)
    if kind == "row":
        return row_title(first_line, False)
    text = _BLOCK_MARKER.sub("", first_line, count=1).strip() if kind == "block" else first_line.strip()
    return _lead_title(text.strip("`> "))


def row_title(line: str, id_column: bool) -> str:
    """A row's title: its title cell's lead, after the row's id when the table has an id column
    (``| L-055 | Pin the tokenizer | … |`` → ``L-055 · Pin the tokenizer``; ``| 3. | … |`` → ``3. …``)."""
    cells = table_rows.cells(line)
    if not cells:
        return line.strip()
    at = table_rows.title_cell(cells, id_column)
    title = _lead_title(cells[at])
    found = table_rows.id_cell(cells[0]) if at == 1 else None
    if found is None:
        return title
    if not title:
        return found.plain()
    return f"{found.plain()} {title}" if found.dot else f"{found.plain()} · {title}"


def read(
    blocks: Sequence[Block],
    lines: Sequence[str],
    matter: tuple[int, int] | None,
    pin: Pin | None = None,
    prior: Prior | None = None,
    keep: bool = True,
) -> Reading:
    """The reading of a document from its block map and its lines (without line endings).

    ``prior`` is the reading of the text before an edit: leaves away from the edit, under
    the same file-wide evidence, are taken over from it; the result is the same. With
    ``keep`` off (a process that reads and exits), the reading keeps no ``leaves`` for that.
    """
    if pin is None or not pin.unit:
        tail = _successors_tail(blocks, lines)
        if tail is not None:
            # the document is read as it was before its own red-herring mark was added
            unmarked = ["" if _MARK.match(line) else line for line in lines[:tail]]
            head = _Reader([b for b in blocks if b.end <= tail], unmarked, matter).read(pin)
            if head.kind == "single-lesson" and head.spans:
                return _with_successors(head, blocks, lines, tail)
    reader = _Reader(blocks, lines, matter, prior, keep)
    reader.take_over(prior)
    found = reader.read(pin)
    found.leaves = reader.leaves if keep else None
    return found


_MARK = lazy(r"^\s{0,3}(?:[-*+]\s+)?(?:red-herring-for|superseded-by)\s*:", re.IGNORECASE)


_OWN_FIELDS = lazy(r"\b(?:supersedes|root-cause)\s*:", re.IGNORECASE)


def _successors_tail(blocks: Sequence[Block], lines: Sequence[str]) -> int | None:
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
        if first is not None and _ENTRY_FIELD.match(lines[first]) and _OWN_FIELDS.search(lines[first]):
            return rule.start
    return None


def _with_successors(head: Reading, blocks: Sequence[Block], lines: Sequence[str], tail: int) -> Reading:
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
