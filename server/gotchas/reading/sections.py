"""Section rules: whether a heading is a lesson, a group of lessons, or a lesson's parts.

A reader goes section by section: a section whose sub-headings name a lesson's parts
(``Problem``, ``Fix``) is one lesson; one whose sub-sections are lessons is a group; a leaf
is a lesson or a group of the units in its body (``units``), weighed by what its title reads
as (``titles``) and what its body is made of. Siblings share a shape. Each section's answer
is kept (``reuse``) so an edit reads again only the sections it touched.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gotchas import aside, vocabulary
from gotchas.blockmap import Block
from gotchas.reading.leaf import GROUP, leaf_evidence, unmarked_units
from gotchas.reading.model import Answer, Note, Prior, Reading, Span, SpanKind
from gotchas.reading.reuse import Memo
from gotchas.reading.siblings import share_roles
from gotchas.reading.text import (
    ENTRY_FIELD,
    MARK,
    MD_REFERENCE,
    item_title,
    title_of,
)
from gotchas.reading.titles import reads_as_date_group, title_evidence
from gotchas.reading.traits import Traits
from gotchas.reading.tree import Section
from gotchas.reading.units import lead_paragraphs, plural, unit_spans

if TYPE_CHECKING:
    from typing import Protocol

    class SectionPinsLike(Protocol):
        """What the section rules ask of a project's section pins (``pinned.SectionPins``)."""

        def unit_of(self, section: Section) -> str | None: ...

        def read(self, section: Section) -> list[Span] | None: ...

        def note_left_out(self, root: Section, left_out: list[Note]) -> None: ...


class Reader(Traits):
    """The state with the section rules; ``keep``: whether each section's answer is kept for
    an edit to take over (off for a process that reads once and exits)."""

    def __init__(
        self,
        blocks: Sequence[Block],
        lines: Sequence[str],
        matter: tuple[int, int] | None,
        prior: Prior | None = None,
        keep: bool = True,
    ):
        super().__init__(blocks, lines, matter, prior)
        self.keep = keep
        self.memo = Memo(self.leaves)
        # a project's pin for single sections (``pinned.SectionPins``), set by the file rules
        self.section_pins: SectionPinsLike | None = None

    def take_over(self, prior: Prior | None) -> None:
        """Reuse ``prior``'s answers when the file-wide evidence they rest on is the same."""
        self.memo.take_over(prior, self.leaves)

    def find_sections(
        self, root: Section, test: Callable[[str], bool], also: Callable[[Section], bool] | None = None
    ) -> list[Section]:
        out: list[Section] = []

        def walk(section: Section) -> None:
            for child in section.children:
                if (test(child.title) or (also is not None and also(child))) and not aside.is_meta(
                    child.title
                ):
                    out.append(child)
                else:
                    walk(child)

        walk(root)
        return out

    def single(self, reason: str) -> Reading:
        """The whole file as one lesson, up to the file's closing stamp: the stamp stays last
        when a correction adds its mark and a new lesson."""
        title = self.document_title()
        end = self.closing_stamp(self.blocks[-3:], self.total)
        span = Span("document", 0, 1, end, title, 0, "", None, reason)
        return Reading("single-lesson", [span] if self.total else [], reason)

    def matter_title(self) -> str:
        """The title the front matter gives the file, or ``""``."""
        return self.matter_value("title")

    def document_title(self) -> str:
        named = self.matter_value("name", "title")
        if named:
            return named
        for block in self.blocks:
            if block.kind == "heading":
                return block.title
        for block in self.blocks:
            return title_of("block", self.lines[block.start])
        return "lesson"

    def container(self, section: Section, top: bool) -> list[Span] | None:
        """A section known to hold lessons. ``None``: its sub-sections are one lesson's parts."""
        children = [c for c in section.children if not self.skip_meta(c, report=top)]
        # a file titled as many lessons (``# Pitfalls``, ``# Anti-Patterns``) is no one lesson,
        # whatever its sections' titles; ``# Troubleshooting — <one failure>`` may be
        title = section.title if top and section.heading is not None else ""
        plural = vocabulary.names_many_lessons(title) or vocabulary.names_anti_patterns_only(title)
        if children and not plural and self.parts_of_one(children):
            return None
        body = section.body
        end = section.own_end
        prose_only = all(b.kind in ("paragraph", "quote", "html", "hr") for b in body)
        if not children and prose_only and not top and len(body) <= 4:
            prose = " ".join(self.lines[n] for b in body for n in range(b.start, b.end))
            # lessons led in bold may name a file in passing (``details in deploy.md``)
            if MD_REFERENCE.compiled.search(prose) and not lead_paragraphs(self, body):
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
        if not children and not top and self.placeholder_only(section):
            self.left_out.append(Note(section.start, section.end, "empty", section.title, _PLACEHOLDER))
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
            return self.one_lesson(section, "a lessons section written as one lesson")
        return spans

    def skip_meta(self, section: Section, report: bool = False) -> bool:
        """A section about the file itself, left out; with ``report``, also a report's own part
        (its summary, test matrix, next steps): a top-level section around the lessons. A
        section the project pinned is read as pinned instead."""
        if self.section_pins is not None and self.section_pins.unit_of(section) is not None:
            return False
        if report and aside.is_report_part(section.title):
            why = "a part of the report around the lessons (its summary, tests, next steps)"
            self.left_out.append(Note(section.start, section.end, "report", section.title, why))
            return True
        # in a file of issues (``# Known Issues``, ``# Troubleshooting``), not of lessons learned;
        # the parent's title is asked last, of a title naming decisions (every child shares it)
        if (
            report
            and aside.names_decisions(section.title)
            and not vocabulary.names_many_lessons(section.parent or "")
        ):
            why = "the decisions taken, beside the issues: a record of its own, not lessons"
            self.left_out.append(Note(section.start, section.end, "report", section.title, why))
            return True
        if self.commands_only(section):
            why = "commands to run, kept beside the lessons"
            self.left_out.append(Note(section.start, section.end, "reference", section.title, why))
            return True
        if self.unfilled_form(section):
            why = "the entries' form written out: its title and fields are blanks, no lesson"
            self.left_out.append(Note(section.start, section.end, "template", section.title, why))
            return True
        if aside.is_meta(section.title) or self.describes_file(section):
            self.left_out.append(
                Note(
                    section.start,
                    section.end,
                    "meta",
                    section.title,
                    "about the file itself (how to add, a template, references) or a plan (next steps)",
                )
            )
            return True
        return False

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
        if section.children and self.links_only(body):
            # ``- [Troubleshooting](#troubleshooting)`` above the sections it links: contents
            why = "only links or files' names: a pointer to where things are written, no lesson"
            self.left_out.append(Note(section.body_start, end, "references", section.title, why))
            return []
        if section.children and self.opens_by_naming_file(body):
            # ``This page lists common problems …`` over ``The general rule is: 1. … 2. …``:
            # how to use the file, above the sections that hold its lessons
            why = "the introduction: it opens by naming the file, above the sections of lessons"
            self.left_out.append(Note(section.body_start, end, "intro", section.title, why))
            return []
        found = unit_spans(self, section, body, end, "a lesson written directly in its section")
        if found and self.labelled_preamble(section, found):
            why = "notes on the file under short labels, above the sections of lessons"
            self.left_out.append(Note(section.body_start, end, "intro", section.title, why))
            return []
        if found:
            return found
        if top or (container and not section.children):
            return []
        content = [b for b in body if b.kind not in ("html", "hr")]
        # text above a group's sub-sections (paragraphs, a table, a quote) introduces them, as a
        # reader takes it; code there, shown before any sub-section, is the group's own lesson
        if not content or content[0].kind != "fence":
            if content:
                why = "the group's introduction"
                self.left_out.append(Note(content[0].start, content[-1].end, "intro", section.title, why))
            return []
        return [
            Span(
                "block",
                content[0].start,
                content[0].start + 1,
                end,
                title_of("block", self.lines[content[0].start + self.fenced(content[0])]),
                0,
                "",
                section.title or None,
                "a group's own lesson before its sub-lessons",
            )
        ]

    def read_section(self, section: Section) -> list[Span]:
        """``_read_section``, or the answer the prior reading gave this section where nothing
        changed; a section read again looks its sub-sections up in its prior answer. A reader
        that keeps no answers (nothing will edit what it reads) reads the section alone."""
        if self.section_pins is not None:
            pinned = self.section_pins.read(section)
            if pinned is not None:
                return pinned
        if not self.keep:
            return self._read_section(section)
        start, end, parent = section.start, section.end, section.parent
        memo = self.memo
        known = memo.known(start, end, parent)
        if known is not None:
            _, _, done, groups, left_out, pointer, _, _ = known
            self.groups.extend(groups)
            self.left_out.extend(left_out)
            self.pointer = self.pointer or pointer
            return list(done)
        groups_before, left_before, pointer_before = len(self.groups), len(self.left_out), self.pointer
        outer, lookup = memo.answers, memo.lookup
        inner: dict[int, Answer] | None = {} if section.children else None
        if inner is not None:
            memo.answers, memo.lookup = inner, memo.inner_lookup(start)
        self.pointer = False  # nothing in a section reads it: whether this section sets it
        try:
            spans = self._read_section(section)
        finally:
            memo.answers, memo.lookup = outer, lookup
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
            if (
                self.parts_of_one(children, under_heading=True)
                and not _lessons_within(children)
                and not vocabulary.names_part_by_word(section.title)
            ):
                return [self.heading_span(section, "its sub-headings are this lesson's parts")]
            if self.symptom_over_parts(section, children):
                return [self.heading_span(section, "a problem: its sub-headings are its causes and fixes")]
            if self.steps_of_one(section, children):
                return [self.heading_span(section, "a problem: its sub-headings are steps to take")]
            if self.numbered_steps(children):
                # ``## How to Test the Room Page`` over ``### Step 1: Start Backend``: how-to
                why = "a procedure: its sub-headings are numbered steps to take, no lesson"
                self.left_out.append(Note(section.start, section.end, "procedure", section.title, why))
                return []
            if self.claim_over_parts(section, children):
                why = "a lesson: its title states a claim over a sub-heading or two, its parts"
                return [self.heading_span(section, why)]
            if self.prose_of_its_own(section):
                k = self.leading_parts(children)
                end = children[k].start if k < len(children) else section.end
                why = "a lesson: prose of its own before its sub-lessons"
                return [self.heading_span(section, why, end), *self.read_children(children[k:])]
            self.groups.append(
                Note(
                    section.start, section.body_start, "group", section.title, "its sub-sections are lessons"
                )
            )
            spans = self.own_units(section, section.body, section.own_end, top=False, container=False)
            spans.extend(self.read_children(children))
            return spans
        if not self.own_content(section):
            # only notes beneath it (``## Future Reference`` over ``### Debug Commands``): a note too
            why = "its sub-sections are notes beside the lessons"
            self.left_out.append(Note(section.start, section.body_start, "group", section.title, why))
            return []
        return self.read_leaf(section)

    def _shape(self, leaf: Section, spans: Sequence[Span]) -> SpanKind | None:
        """The kind of unit a leaf's entries are; a leaf this tool marked (its mark and quote
        open its text) counts as it read before the mark, so a correction leaves its siblings'
        reading as it was."""
        if not spans:
            return None
        body = leaf.body
        if (
            len(spans) == 1
            and len(body) >= 2
            and body[1].kind == "quote"  # the mark's quote: most leaves are settled here
            and body[0].kind == "paragraph"
            and spans[0].kind == "heading"
            and MARK.compiled.match(self.lines[body[0].start])
        ):
            units = unmarked_units(self, leaf)
            return units[0].kind if units else "heading"
        return spans[0].kind

    def read_children(self, children: Sequence[Section]) -> list[Span]:
        """Sub-sections in order; siblings share a shape: a category heading among groups of
        blocks or lead-in paragraphs holding just one of them is a group of one."""
        read: list[tuple[Section, list[Span]]] = []
        notes: list[tuple[int, int, int, int]] = []  # the groups and left-out notes each child added
        for child in children:
            groups, left = len(self.groups), len(self.left_out)
            read.append((child, self.read_section(child)))
            notes.append((groups, len(self.groups), left, len(self.left_out)))
        read, notes = share_roles(self, read, notes)
        read = self.odd_groups(read, notes)
        kinds = [self._shape(child, spans) for child, spans in read if not child.children]
        shapes = Counter(kind for kind in kinds if kind in ("block", "paragraph"))
        item_groups = kinds.count("item")
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
                    out.extend(self.spans_from("item", items, child.end, child, why, child.body))
                    continue
            if (
                shapes
                and lone
                and title_evidence(child.title)[0] > 0
                and not self.has_entry_fields(child, False, successors=False)
            ):
                kind = shapes.most_common(1)[0][0]
                first = next((b for b in child.body if b.kind not in ("html", "hr")), None)
                # a heading whose body opens with a red-herring mark was itself the lesson
                lead = first is not None and not MARK.compiled.match(self.lines[first.start])
                if first is not None and lead and self.leads_like(kind, first):
                    why = f"a lesson in the group {child.title!r}: its siblings are groups of {plural(kind)}"
                    self.groups.append(Note(child.start, child.body_start, "group", child.title, why))
                    # with a lesson this tool wrote after it (a successor), whatever its lead-in
                    written = [b for b in child.body if b.start > first.start and self.own_paragraph(b)]
                    out.extend(self.spans_from(kind, [first, *written], child.end, child, why))
                    continue
            out.extend(spans)
        return out

    def odd_groups(
        self, read: list[tuple[Section, list[Span]]], notes: Sequence[tuple[int, int, int, int]]
    ) -> list[tuple[Section, list[Span]]]:
        """Siblings share a role: among headings read as lessons, one with a sub-heading or two
        and text of its own (``## Pattern: X`` holding ``### Lesson: …``) is a lesson too, its
        sub-headings its parts, unless its title reads as a category."""
        if not any(c.children for c, _ in read):
            return read  # only a child with sub-headings is read again: most siblings are leaves
        lone = sum(
            1 for c, spans in read if not c.children and len(spans) == 1 and spans[0].kind == "heading"
        )
        if len(read) < 3 or lone * 3 < (len(read) - 1) * 2:
            return read
        marks = {_mark(c.title) for c, _ in read} - {""}  # the marks siblings open with
        out = []
        dropped: list[tuple[int, int, int, int]] = []
        for (child, spans), added in zip(read, notes, strict=True):
            if (
                child.children
                and len(child.children) <= 2
                and any(b.kind not in ("html", "hr") for b in child.body)  # text of its own
                and spans
                and all(s.start > child.start for s in spans)
                and title_evidence(child.title)[0] <= 0
                # a sub-heading opening with the mark its parent's siblings open with is a lesson too
                and not any(_mark(c.title) in marks for c in child.children)
            ):
                dropped.append(added)
                why = "a lesson among lessons: its sub-headings are its parts"
                out.append((child, [self.heading_span(child, why)]))
            else:
                out.append((child, spans))
        for g0, g1, l0, l1 in reversed(dropped):
            del self.groups[g0:g1]
            del self.left_out[l0:l1]
        return out

    def read_leaf(self, section: Section) -> list[Span]:
        body = section.body
        ticks_only = (
            bool(body)  # an empty body holds no checkbox either; most open with neither rule nor item
            and body[0].kind in ("hr", "item")
            and (body[0].kind == "hr" or self.is_tick(body[0]))  # a successor is never the first
            # a lesson this tool wrote among ticked items (a successor) stands for itself
            and all(
                b.kind == "hr" or (b.kind == "item" and (self.is_tick(b) or self.writes_own(b))) for b in body
            )
            and any(b.kind == "item" and self.is_tick(b) for b in body)
        )
        if self.placeholder_only(section) or self.awaits_lessons(section):
            self.left_out.append(Note(section.start, section.end, "empty", section.title, _PLACEHOLDER))
            return []
        if ticks_only and vocabulary.names_resolved(section.title):
            # ``### Crash-on-use (HIGH) — fixed`` over ``- ✅ `tail` crashed every call``: in a file
            # of issues, each ticked item is one issue fixed, not a step of progress
            why = "a group of issues fixed: each ticked item is one"
            self.groups.append(Note(section.start, section.body_start, "group", section.title, why))
            items = [b for b in body if b.kind == "item"]
            return self.spans_from("item", items, section.own_end, section, why, body)
        if ticks_only:
            self.left_out.append(
                Note(
                    section.start, section.end, "empty", section.title, "only checkboxes: progress, no lesson"
                )
            )
            return []
        if self.key_only(body) or self.titled_key(section):
            why = "the file's key (the labels its sections or rows carry) or a tracker of them, no lesson"
            self.left_out.append(Note(section.start, section.end, "references", section.title, why))
            return []
        if self.links_only(body):
            why = "only links or files' names: a pointer to where things are written, no lesson"
            self.left_out.append(Note(section.start, section.end, "references", section.title, why))
            return []
        if self.file_map_only(body):
            why = "a table of where things are: a column of files' names, no lesson"
            self.left_out.append(Note(section.start, section.end, "references", section.title, why))
            return []
        # under a date or where a log's entries go (``## Entries``): under a title of its own the
        # fields are that lesson's, told again
        runs = self.field_runs(body)  # most bodies hold no four field bullets: none, at once
        if runs and (reads_as_date_group(section.title) or vocabulary.names_log_place(section.title)):
            return self.runs_of_fields(section, runs)
        self.item_titles = False  # most leaves are one lesson: their items need no titles
        try:
            # a leaf's sub-sections left out (``### Backlog`` under a list of lessons) are no
            # part of its last unit
            units = unit_spans(self, section, body, section.own_end, "")
        finally:
            self.item_titles = True
        if not units:
            return self.one_lesson(section, "a lesson: a heading with text of its own")
        if self.owns_fields(section, units):
            return [
                self.heading_span(
                    section, "a lesson: its own text carries entry fields (tasks:, root-cause:…)"
                )
            ]
        score, reasons = leaf_evidence(self, section, body, units)
        if score >= GROUP:
            why = "a group: " + "; ".join(reasons)
            self.groups.append(Note(section.start, section.body_start, "group", section.title, why))
            return [
                Span(
                    s.kind,
                    s.start,
                    s.body,
                    s.end,
                    item_title(self.lines[s.start]) if s.kind == "item" else s.title,
                    s.level,
                    s.marker,
                    section.title,
                    f"a lesson in the group {section.title!r}",
                )
                for s in units
            ]
        why = "a lesson: " + ("; ".join(reasons) if reasons else "a heading with its own text")
        return self.one_lesson(section, why)

    def runs_of_fields(self, section: Section, runs: Sequence[Block]) -> list[Span]:
        """``## 2026-02-07`` over ``- Mistake: …`` / ``- Root cause: …`` / ``- Mistake: …``: one
        lesson a run of fields, the last ending with the list (a note after it is not its field)."""
        why = f"a lesson in the group {section.title!r}: its fields come back in one order"
        note = "a group: its fields come back in one order, one lesson a run"
        self.groups.append(Note(section.start, section.body_start, "group", section.title, note))
        listed = [b for b in section.body if b.kind == "item" and b.list_id == runs[0].list_id]
        return self.spans_from("item", runs, listed[-1].end, section, why)

    def one_lesson(self, section: Section, why: str) -> list[Span]:
        """A leaf that is one lesson: its heading, or, under a title that only names a lesson
        (``## Initial lesson`` over ``Ownership must be decided before …``), the paragraph
        saying it: the heading names the lesson, the paragraph is the entry."""
        if not vocabulary.names_lesson_alone(section.title):
            return [self.heading_span(section, why)]  # most titles: the heading is the lesson's
        content = [b for b in section.body if b.kind not in ("html", "hr")]
        first = content[0] if content else None
        # a heading whose text opens with the record's fields (``tasks: #1``) or a red-herring
        # mark is the entry those belong to
        opening = self.lines[first.start] if first is not None else ""
        if (
            first is None
            or first.kind != "paragraph"
            or ENTRY_FIELD.match(opening)
            or MARK.compiled.match(opening)
        ):
            return [self.heading_span(section, why)]
        why = "a heading naming a lesson over the paragraph that says it"
        self.groups.append(Note(section.start, section.body_start, "group", section.title, why))
        # with a lesson this tool wrote after it (a successor): an entry of its own
        written = [b for b in content if b.start > first.start and self.own_paragraph(b)]
        return self.spans_from("paragraph", [first, *written], section.own_end, section, why)

    def read_scopes(self, scopes: Sequence[Section], why: str, pinned: bool = False) -> Reading:
        spans: list[Span] = []
        notes = []
        for scope in scopes:
            notes.append(Note(scope.start, scope.end, "lessons-section", scope.title, why))
            pinned_here = self.section_pins.read(scope) if self.section_pins is not None else None
            if pinned_here is not None:
                spans.extend(pinned_here)
                continue
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


_PLACEHOLDER = "only a placeholder: no lesson yet"


def _mark(title: str) -> str:
    """The symbol a title opens with (``⚠️``, ``✅``, ``🔴``), or ``""``."""
    head = title.lstrip()[:1]
    return head if head and not head.isalnum() and head not in "`*_[(\"'#" else ""


def _lessons_within(children: Sequence[Section]) -> bool:
    """A sub-section titled as lessons over two sub-headings or more of its own (``### 关键教训``
    over ``#### 1. …``, ``#### 2. …``): lessons, never one lesson's part, whatever its siblings."""
    return any(len(c.children) >= 2 and vocabulary.names_lessons(c.title) for c in children)
