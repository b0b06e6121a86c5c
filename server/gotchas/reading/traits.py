"""Section traits: what a section is before its units are read. A note on the file rather
than a lesson, a lesson's parts under one heading, a placeholder or only links where lessons
would be, this tool's own fields in its text.

``sections.Reader`` asks these of each section as it reads; they weigh the section's title
and blocks only, never how its siblings read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas import parts, recording, vocabulary
from gotchas.blockmap import KIND, Block
from gotchas.reading import key
from gotchas.reading.model import Span
from gotchas.reading.state import State
from gotchas.reading.text import (
    ENTRY_FIELD,
    LESSON_LINK,
    LINKED_FILE,
    MARK,
    MOVED_TO,
    NUMBERED_TITLE,
    blank_field,
    blank_form,
    blank_title,
    lead_label,
    unfilled,
)
from gotchas.reading.titles import names_symptom, title_evidence
from gotchas.reading.tree import Section, walk
from gotchas.reading.units import lesson_items

_KEY_ENDS = frozenset(("item", "hr", "html"))  # what a key's body closes with: its list, a rule


class Traits(State):
    """The state with the questions the section rules ask of one section."""

    def has_entry_fields(self, section: Section, marks: bool = True, successors: bool = True) -> bool:
        """A leaf section carrying this tool's own entry fields (``tasks:``, ``supersedes:``…) is a
        lesson. With ``marks=False`` a red-herring mark alone does not count: it annotates a lesson
        already there and must not change how its section reads; with ``successors=False``
        neither does a lesson this tool wrote after the first (a successor paragraph)."""
        if section.children:
            return False
        body = section.body
        if not successors:
            body = [b for n, b in enumerate(body) if n == 0 or not self.own_paragraph(b)]
        return any(
            ENTRY_FIELD.match(line) and (marks or not MARK.compiled.match(line))
            for b in body
            for line in self.lines[b.start : b.end]
        )

    def introduces(self, blocks: Sequence[Block]) -> bool:
        """Prose of one paragraph, or paragraphs that open by naming the file (``This document
        lists …``), rules and comments aside: an introduction, not a lesson."""
        content = [b for b in blocks if b.kind not in ("html", "hr")]
        if not content or any(b.kind != "paragraph" for b in content):
            return False
        return len(content) == 1 or self.names_file(content[0])

    def opens_by_naming_file(self, body: Sequence[Block]) -> bool:
        """A body whose first text is a paragraph naming the file (``This file captures …``)."""
        first = first_content(body)
        return first is not None and self.names_file(first)

    def describes_file(self, section: Section) -> bool:
        """A section of one paragraph that opens by naming the file (``This document captures
        …``): what the file is for, not a lesson. A numbered one stays one of a series."""
        if section.children:
            return False
        first = first_content(section.body)
        if first is None or first.kind != "paragraph":
            return False
        if first.start not in self.naming_lines() and not MARK.compiled.match(self.lines[first.start]):
            return False  # most sections: their first paragraph is no mark and names no file
        content = self.own_content(section)
        if len(content) != 1 or not self.names_file(content[0]):
            return False
        return not NUMBERED_TITLE.match(vocabulary.plain(section.title))

    def parts_of_one(self, children: Sequence[Section], under_heading: bool = False) -> bool:
        """At least half the sub-headings name a lesson's parts (``Problem``, ``Fix``…), or the
        first does and another too: a problem told as a report, its symptom first."""
        allowed = len(children) // 2  # the most that may not, for half or more to
        misses = 0
        opens: bool | None = None  # whether the first sub-heading names a part
        named = 0
        data = 0
        for child in children:
            if self.holds_data(child):
                data += 1
                continue  # a table of measurements: the lesson's evidence, no part named
            field = (
                self.is_field_heading(child.title)
                and not self.is_group_of_parts(child)
                and not self.told_in_field_items(child)
            )
            # whether it names a report's part counts only when the first does (``opens``)
            part = field or (
                opens is not False and not child.children and parts.names_report_part(child.title)
            )
            if opens is None:
                opens = part
            named += part
            misses += not field
            if misses > allowed and not opens:
                return False  # neither half of them nor a report opening with its parts
        if misses <= allowed:
            # under a heading a table of measurements is that lesson's evidence; at the file's
            # top it is an index beside the lessons, and names no part
            return len(children) - (0 if under_heading else data) - misses >= 1
        # a report opening with its parts (``### Symptom``, ``### Environment``), then more; under
        # a heading, the part its story opens with is enough (at the file's top, ``## Environment``
        # may name a category)
        return bool(opens) and (named >= 2 or (under_heading and parts.opens_report(children[0].title)))

    def told_in_field_items(self, section: Section) -> bool:
        """A leaf whose body opens with bullets of two fields or more (``- **Context:** …``,
        ``- **Rule:** …``): a lesson told in its fields, whatever its heading's label
        (``## DON'T: Delete files without asking``); a lesson's part holds no fields of its own."""
        if section.children:
            return False
        labels: set[str] = set()
        for block in section.body:
            if block.kind in ("html", "hr"):
                continue
            if block.kind != "item" or not self.is_field_item(block):
                break
            found = lead_label(self.first_text(block))
            if found is not None:
                labels.add(found[0])
        return len(labels) >= 2

    def is_group_of_parts(self, section: Section) -> bool:
        """A section named like a part that holds lessons: ``### Do`` / ``### Don't`` over lists
        of rules, or ``## Rules`` over a numbered series (``### 1. …``, ``### 2. …``, at any
        depth)."""
        return self.contrast_of_rules(section) or any(
            sum(1 for c in s.children if NUMBERED_TITLE.match(vocabulary.plain(c.title))) >= 2
            for s in walk(section)
        )

    def claim_over_parts(self, section: Section, children: Sequence[Section]) -> bool:
        """``## Port mapping differs between stock and OpenWrt`` over one or two sub-headings and
        no text of its own: the title states the lesson, the sub-headings are its cases. A
        category is named (``## Security``), not stated; a numbered sub-heading (``Issue 2: …``)
        is one of a series of lessons."""
        if len(children) > 2 or section.heading is None or not vocabulary.states_claim(section.title):
            return False
        if self.own_content(section):
            return False
        return not any(
            NUMBERED_TITLE.match(vocabulary.plain(c.title)) or c.children or self.has_entry_fields(c)
            for c in children
        )

    def steps_of_one(self, section: Section, children: Sequence[Section]) -> bool:
        """``## Test Failures`` over ``### Run with verbose output`` / ``### Skip test cache``: a
        problem over sub-headings most of which are steps to take is one problem, the steps its
        procedure (as bullets of steps are, in ``leaf_evidence``)."""
        if len(children) < 2 or section.heading is None:
            return False
        if self.numbered_steps(children):  # ``### Step 1: Run the diagnostic script``
            return vocabulary.names_trouble(section.title)
        if any(c.children or self.has_entry_fields(c) for c in children):
            return False
        return vocabulary.names_procedure(section.title, (c.title for c in children))

    def symptom_over_parts(self, section: Section, children: Sequence[Section]) -> bool:
        """``## Cache Not Working`` over ``### Inconsistent flags`` / ``### Clean cache``: a
        symptom met over sub-headings is one problem, the sub-headings its causes and fixes. A
        numbered series under it, or sub-sections carrying entry fields, are lessons of their own."""
        if section.heading is None or not names_symptom(section.title):
            return False
        numbered = sum(1 for c in children if NUMBERED_TITLE.match(vocabulary.plain(c.title)))
        return numbered < 2 and not any(self.has_entry_fields(c) for c in children)

    def numbered_steps(self, children: Sequence[Section]) -> bool:
        """``### Step 1: Start the backend`` / ``### Step 2: …``: sub-headings that are the
        numbered steps of one procedure, none of them a lesson."""
        return len(children) >= 2 and all(vocabulary.names_numbered_step(c.title) for c in children)

    def field_runs(self, body: Sequence[Block]) -> list[Block]:
        """``- Mistake: …`` / ``- Root cause: …`` / ``- Fix: …``, then ``- Mistake: …`` again: a
        list of fields told over and over in one order holds one lesson a run. The first bullet
        of each run; none when the fields do not come back so."""
        if "item" not in map(KIND, body):
            return []  # most bodies: no bullet
        if not self.is_field_item(next(b for b in body if b.kind == "item")):
            return []  # or a first one that is no field
        items = [b for b in body if b.kind == "item"]
        if len(items) < 4:
            return []
        listed = [b for b in items if b.list_id == items[0].list_id]
        # a lesson this tool wrote among them (a successor) is one of its own, told in its form
        own = [b for b in listed if self.writes_own(b)]
        # and its mark, a bullet of its own fields inside a run (``- red-herring-for: …``), is the run's
        items = [b for b in listed if b not in own and not ENTRY_FIELD.match(self.lines[b.start])]
        labels = []
        for block in items:
            found = lead_label(self.first_text(block)) if self.is_field_item(block) else None
            if found is None:
                return []
            labels.append(found[0])
        starts = [block for block, label in zip(items, labels, strict=True) if label == labels[0]]
        # two runs or more, each the same three fields or more in the same order: a lesson's
        # own fields may come back (``Wrong:`` / ``Correct:`` twice, ``Symptom 1`` / ``Symptom 2``)
        period = len(items) // len(starts)
        if len(starts) < 2 or period < 3 or period * len(starts) != len(items):
            return []
        if any(label != labels[n % period] for n, label in enumerate(labels)):
            return []
        return sorted([*starts, *own], key=lambda block: block.start)

    def holds_data(self, section: Section) -> bool:
        """A sub-section that is a table of measurements alone: a part (the evidence) of the
        lesson above it, as ``### Distribution by linter`` is."""
        if section.children:
            return False
        lone = _only_content(section.body)
        return lone is not None and lone.kind == "table" and self.data_table(lone)

    def contrast_of_rules(self, section: Section) -> bool:
        """``### Do`` / ``### Don't`` holding lists of rules: groups of lessons, not one lesson's
        two sides (those hold an example or a sentence each)."""
        if not vocabulary.names_contrast(section.title):
            return False
        items, _ = lesson_items(self, section.body)
        return len(items) >= 2

    def pointer_index(self, body: Sequence[Block]) -> bool:
        items = [b for b in body if b.kind == "item"]
        if len(items) < 3:
            return False
        texts = [self.first_text(b) for b in items]
        rests = sorted(
            len(LINKED_FILE.compiled.sub("", t).split()) for t in texts if LINKED_FILE.compiled.match(t)
        )
        if len(rests) * 5 < len(items) * 4 or rests[len(rests) // 2] > 8:
            return False
        self.pointer = True
        return True

    def prose_of_its_own(self, section: Section) -> bool:
        """``## Dedup across two bots`` opening with paragraphs of its own, then sub-headings:
        the heading is a lesson written in its prose, ahead of its sub-lessons. A category is
        named (``## Swift 6 Concurrency``) and one paragraph is an introduction; a code sample
        leads a lesson of its own."""
        content = self.own_content(section)
        prose = [b for b in content if b.kind == "paragraph"]
        return len(prose) >= 2 and len(prose) == len(content) and title_evidence(section.title)[0] <= 0

    def leading_parts(self, children: Sequence[Section]) -> int:
        """How many sub-headings open such a lesson as its parts: named, not stated, over a
        bare list (``### Recipe`` over numbered steps, ``### Worked examples`` over bullets)."""
        k = 0
        for child in children:
            content = [b for b in child.body if b.kind not in ("html", "hr")]
            if child.children or title_evidence(child.title)[0] <= 0 or not content:
                break
            if any(b.kind != "item" for b in content):
                break
            k += 1
        return k

    def own_paragraph(self, block: Block) -> bool:
        """A paragraph carrying this tool's field line: a lesson it wrote (a successor)."""
        return block.kind == "paragraph" and self.writes_own(block)

    def leads_like(self, kind: str, first: Block) -> bool:
        """A lone paragraph that is a lesson as its siblings' are: not one opening with a lesson's
        field (``**Symptom.**`` opens the parts of the one lesson its heading names)."""
        if kind != "paragraph":
            return True
        if first.kind != "paragraph":
            return False  # a fence, a list or a table opens no lead-in: the heading is the lesson
        found = lead_label(self.first_text(first))
        return found is None or parts.field_of(found[0]) not in parts.FIELDS

    def introduced_items(self, section: Section) -> list[Block]:
        """Lesson items after one short opening paragraph and nothing else (``These apply to…``)."""
        body = [b for b in section.body if b.kind not in ("html", "hr")]
        if len(body) < 3 or body[0].kind != "paragraph" or body[0].end - body[0].start > 2:
            return []
        if any(b.kind != "item" for b in body[1:]):
            return []
        if any(ENTRY_FIELD.match(line) for line in self.lines[body[0].start : body[0].end]):
            return []  # fields in the opening paragraph: the heading is one lesson
        items, _ = lesson_items(self, body[1:])
        return items if len(items) >= 2 else []

    def key_only(self, body: Sequence[Block]) -> bool:
        """A body that is only the file's key: a list or a table of the labels its sections or
        rows carry (``- 🔴 **CRITICAL** — blocks users`` over ``## 🔴 CRITICAL``), or a table
        restating its headings."""
        if not _PROSE.isdisjoint(map(KIND, body)):
            return False  # most bodies: prose is no key
        body = [b for b in body if not (b.kind == "hr" or self.comment(b))]
        if not body:
            return False
        if len(body) == 1 and body[0].kind == "table":
            # or a tracker of the entries: rows restating the headings (``## Tracking``)
            return key.table_is_key(self, body[0]) or key.table_restates(self, body[0])
        return all(b.kind == "item" for b in body) and key.list_is_key(self, body)

    def titled_key(self, section: Section) -> bool:
        """A leaf titled as the file's key (``## Severity Classification``, ``## Status Legend``)
        over labels told in a line or two each (``- **High:** data loss``, ``- 🔴 **Blocker** —
        …``), a line of text before them at most: what the file's labels mean, not lessons,
        wherever it stands (a key after the table it explains is one too)."""
        body = section.body
        if (
            section.children
            or not body
            or body[-1].kind not in _KEY_ENDS
            or not vocabulary.names_key(section.title)
        ):
            return False  # most leaves: sub-sections, or text after their last list
        body = [b for b in body if not (b.kind == "hr" or self.comment(b))]
        items = [b for b in body if b.kind == "item"]
        if len(items) < 2 or len(body) - len(items) > 1 or (body and body[-1].kind != "item"):
            return False
        return all(b.end - b.start <= 2 and key.item_label(self, b) is not None for b in items)

    def file_map_only(self, body: Sequence[Block]) -> bool:
        """A table of where things are (``| Types | `src/types/db.ts` |``) and a paragraph or two
        around it: references, no lesson."""
        table = None
        prose = 0
        for block in body:  # settled at the first block of another kind in most bodies
            if block.kind == "table":
                if table is not None:
                    return False
                table = block
            elif block.kind not in ("html", "hr"):
                if block.kind != "paragraph" or prose == 2:
                    return False
                prose += 1
        return table is not None and self.file_map(table)

    def links_only(self, body: Sequence[Block]) -> bool:
        """Two or more items, each only a link or opening with a file's name, and nothing else
        but rules: references. One item linking into a folder of lessons is a catalog's line
        too, and a section of those makes the file an index (``pointer``)."""
        if not _PROSE_OR_TABLE.isdisjoint(map(KIND, body)):
            return False  # most bodies: prose is no pointer list
        body = [b for b in body if not (b.kind == "hr" or self.comment(b))]
        if not body or body[0].kind != "item" or not self.is_pointer_item(body[0]):
            return False  # most bodies: the first block is no pointer
        if not all(b.kind == "item" and self.is_pointer_item(b) for b in body):
            return False
        lessons_elsewhere = all(LESSON_LINK.compiled.match(self.first_text(b)) for b in body)
        if lessons_elsewhere:
            self.pointer = True
        return len(body) >= 2 or lessons_elsewhere

    def labelled_preamble(self, section: Section, spans: Sequence[Span]) -> bool:
        """Paragraphs led by short labels above a section's sub-sections (``**What this is:**``,
        ``**Scope rule:**``, ``**Version 1.0**``): notes on the file before its lessons. Lessons
        led in bold there state their claim in the lead (``**`X=true` never disables auth.**``)."""
        if not section.children or not spans or any(s.kind != "paragraph" for s in spans):
            return False
        for span in spans:
            found = lead_label(self.lines[span.start].strip())
            if found is None or not found[0] or vocabulary.numbers_entry(found[0]):
                return False
            if vocabulary.words(found[0]) > 3:
                return False
        return True

    def commands_only(self, section: Section) -> bool:
        """A leaf titled as commands (``## Debug Commands``) whose body is code, each block at
        most led by a short label (``**Check the branch:**``): commands to run, no lesson. Over
        sub-sections, each of them is such code (``### Enable Debug Logging`` over its snippet).
        So is a leaf of code alone titled as a check or chore to run (``### Check Backend Health``)."""
        if not vocabulary.names_commands(section.title):
            if section.children or not vocabulary.names_action_to_run(section.title):
                return False
            return self._code_only(section)
        if section.children:
            return all(not c.children and self._code_only(c) for c in section.children)
        return self._code_only(section)

    def _code_only(self, section: Section) -> bool:
        """A section's own text is code, each block at most led by a short label."""
        content = self.own_content(section)
        labels = [b for b in content if b.kind == "paragraph" and b.end - b.start == 1]
        if any(not _LABEL.match(self.lines[b.start]) for b in labels):
            return False
        fences = sum(b.kind == "fence" for b in content)
        return fences > 0 and fences + len(labels) == len(content)

    def placeholder_only(self, section: Section) -> bool:
        """A leaf whose one bullet, paragraph or quote says lessons will come (``- (none yet)``,
        ``_No lessons recorded yet._``, ``> 当前为空。``)."""
        if section.children:
            return False
        lone = self._lone_text(section.body)
        if lone is None:
            return self._blank_fields(section)
        if lone.kind not in ("item", "paragraph", "quote"):
            return False
        if lone.kind == "quote":
            return recording.is_placeholder(self.first_text(lone).lstrip("> "))
        if self.empty_item(lone):
            return True  # the bullet the next lesson will fill
        text = self.first_text(lone)
        if len(text) > 120:
            return False
        if lone.kind == "paragraph" and MOVED_TO.compiled.match(text):
            return True  # ``→ `archive/mistakes.md` に移動``: its entries live in another file now
        # or one line wholly in parentheses where the lessons would be: ``- (append here as …)``
        one_line = not any(line.strip() for line in self.lines[lone.start + 1 : lone.end])
        return (
            recording.is_placeholder(text)
            or (one_line and _ASIDE.match(text) is not None)
            or self.asks_to_record(lone)
            or blank_form(self.lines[lone.start : lone.end])
        )

    def _blank_fields(self, section: Section) -> bool:
        """A list of fields, none filled in (``- Average phase duration: N/A``): a form. Asked of
        every leaf of two blocks or more: most open with prose, or with a bullet that is no
        blank field, and are settled by their first line."""
        body = section.body
        first = body[0] if body else None
        if first is None or (first.kind != "item" and first.kind not in ("html", "hr")):
            return False  # most bodies open with prose
        content = [b for b in body if b.kind not in ("html", "hr")]
        if not content or any(b.kind != "item" for b in content):
            return False
        if not blank_field(self.lines[content[0].start]):
            return False
        return blank_form(line for b in content for line in self.lines[b.start : b.end])

    def _lone_text(self, body: Sequence[Block]) -> Block | None:
        """The one block of ``body`` that is no comment or rule, if it holds just one; a closing
        note on the file (``*This file is updated when …*``, a paragraph naming the file or its
        closing stamp) is no content of the section's. Asked of every leaf: only a paragraph
        may be such a note, and only one near the file's end its stamp (``is_footer``)."""
        naming = self.naming_lines()
        last = self.content_end
        found = None
        for block in body:
            kind = block.kind
            if kind in ("html", "hr"):
                continue
            if kind == "paragraph" and (
                block.start in naming or (block.end >= last and self.is_footer(block))
            ):
                continue
            if found is not None:
                return None
            found = block
        return found

    def unfilled_form(self, section: Section) -> bool:
        """A heading written as the entries' form with its blanks left in, over fields nobody
        filled in (``## Lesson-XXX — Título`` over ``### Contexto`` / ``...``; ``### 問題:
        [問題の概要]`` over ``**症状:**`` / ``-``): the template written out, no lesson. Its
        code blocks are the form's examples."""
        if not blank_title(section.title):
            return False
        skipped = ("fence", "html", "hr")
        blocks = [b for s in walk(section) for b in s.body if b.kind not in skipped]
        return unfilled([line for b in blocks for line in self.lines[b.start : b.end]])

    def awaits_lessons(self, section: Section) -> bool:
        """A leaf titled as lessons or as the log that holds nothing, or only a comment
        (``## Lessons`` over ``<!-- No lessons yet -->``, ``## Log`` over nothing): the place
        lessons will go, none yet. A leaf of any title over comments alone (``## User
        Preferences`` over ``<!-- Template: … -->``) shows a reader nothing: it waits too. Its
        own title and body decide, never its siblings, so a lesson added beside it leaves it as
        it was."""
        if section.children or not _ASIDES.issuperset(map(KIND, section.body)):
            return False
        if any(self.comment(b) for b in section.body) and all(
            b.kind == "hr" or self.comment(b) for b in section.body
        ):
            # but a lesson told whole in its title (``### Shader batching corrupts every card:
            # setShader is the batch boundary``) over the next entry's comment is that lesson
            return title_evidence(section.title)[0] >= 0
        return vocabulary.names_many_lessons(section.title) or vocabulary.names_log_place(section.title)

    def owns_fields(self, section: Section, units: Sequence[Span] | None) -> bool:
        """Entry fields before the section's first unit, or opening it: the section is one lesson.
        Fields inside a block or lead-paragraph unit are that unit's (this tool's successor and
        mark there), so the reading stays stable after our own edits."""
        owned = units[0].start if units and units[0].kind in ("block", "paragraph") else section.end
        return any(
            ENTRY_FIELD.match(self.lines[n])
            for b in section.body
            if b.kind == "paragraph" and b.start <= owned
            for n in range(b.start, b.end if b.start < owned else b.start + 1)
        )


# the kinds the first tests of several traits ask of every section's body
_PROSE = frozenset(("paragraph", "heading", "fence", "quote"))  # blocks that are no list or table
_PROSE_OR_TABLE = _PROSE | {"table"}
_ASIDES = frozenset(("html", "hr"))  # comments and rules: nothing a reader sees as text

# a short label over a block of code: ``**Check if you're in the right place:**``, ``On Windows:``
_LABEL = re.compile(r"^\s*[*_]*[^*_\n]{1,80}[:：][*_]*\s*$")
# one line wholly in parentheses where lessons would be: ``- (append here as decisions are made)``
_ASIDE = re.compile(r"^[_*]*[(（][^()（）]*[)）][_*]*\.?$")


def first_content(body: Sequence[Block]) -> Block | None:
    """The first block of ``body`` that is no comment or rule (asked of every section)."""
    for block in body:
        if block.kind not in ("html", "hr"):
            return block
    return None


def _only_content(body: Sequence[Block]) -> Block | None:
    """The one block of ``body`` that is no comment or rule, if it holds just one (settled at
    the second)."""
    found = None
    for block in body:
        if block.kind not in ("html", "hr"):
            if found is not None:
                return None
            found = block
    return found
