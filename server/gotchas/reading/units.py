"""Unit rules, registered as data: what a lesson looks like inside one section's body.

A body holds lessons as list items, lead-in paragraphs, blocks between ``---`` rules,
table rows or warning callouts. ``UNIT_RULES`` lists them in order of preference, each
with the block kind it needs in the body (so a body of paragraphs never asks the table
rule); ``unit_spans`` takes the first that finds any. A new lesson form is one function
and one row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from gotchas import aside, parts, recording, vocabulary
from gotchas.blockmap import Block
from gotchas.reading import key
from gotchas.reading.model import Span
from gotchas.reading.state import State
from gotchas.reading.text import (
    BOLD_LABEL,
    ENTRY_FIELD,
    ID_LEAD,
    OWN_FIELDS,
    TIMESTAMP_LEAD,
    lead_label,
    lead_title,
    names_superseded,
    opens_wrapped_bold,
    own_field_line,
)
from gotchas.reading.tree import Section

_CALLOUT = re.compile(r"^\s{0,3}>\s*\[!(?:warning|caution|important)\]\s*$", re.IGNORECASE)


# ---------------------------------------------------------------- finding the units of a body


def lesson_items(state: State, body: Sequence[Block]) -> tuple[list[Block], list[Block]]:
    """(lesson items, other content blocks) of a body, in order. A leaf asks twice of its body
    (its units, then its score): the last body's answer is kept on the state."""
    last = state.last_items
    if last is not None and last[0] is body:
        return last[1]
    lessons: list[Block] = []
    others: list[Block] = []
    after_label = False
    open_title = False
    under = (0, 0)  # the indents of bullets under the item before, short of its text: [from, to)
    for block in body:
        if block.kind != "item":
            if block.kind in ("paragraph", "fence", "table", "quote"):
                if open_title or state.is_footer(block):
                    continue  # the detached body of a title-only item; the file's closing stamp
                after_label = state.is_label_paragraph(block)
                others.append(block)
                under = (0, 0)
            continue
        line = state.lines[block.start]
        indent = 0 if line[:1] != " " else len(line) - len(line.lstrip(" "))  # most: at the margin
        if under[0] <= indent < under[1]:
            # ``15. **Title**`` over ``   - Impact: …``: indented under it, though short of the
            # four columns that would nest it; a reader sees the item's own fields
            continue
        under = (indent + 1, indent + len(block.marker) + 1)
        # a lesson this tool wrote among ticked items (a successor carrying their mark) stands for itself
        ticked = state.is_tick(block) and not state.writes_own(block)
        if after_label or ticked or state.is_field_item(block) or state.asks_to_record(block):
            continue
        if state.empty_item(block) or state.blank_item(block):
            continue  # the bullet the next lesson will fill, or the form it follows
        if open_title and not BOLD_LABEL.match(state.first_text(block)):
            continue  # the body of the title-only item before it
        lessons.append(block)
        open_title = state.title_only(block)
    state.last_items = (body, (lessons, others))
    return lessons, others


def lead_paragraphs(state: State, body: Sequence[Block], pinned: bool = False) -> list[Block]:
    """Paragraphs opening with a lead-in, when most paragraphs do (``pinned``: whenever any does)."""
    paragraphs = [b for b in body if b.kind == "paragraph"]
    if paragraphs and state.is_footer(paragraphs[-1]):
        paragraphs.pop()  # the file's closing stamp (``*Last updated: …*``) is no lesson's paragraph
    leads: list[Block] = []
    if len(paragraphs) < 2 and not pinned:
        return leads
    lines = state.lines
    if not pinned:
        can_lead = 0
        for block in paragraphs:
            if lines[block.start].lstrip()[:1] in _LEAD_FIRSTS:
                can_lead += 1
        if can_lead < 2:
            return leads  # fewer than two paragraphs can open with a lead-in (most bodies)
    # a lead carrying this tool's own fields (a successor) owns the body paragraphs after
    # it, and a paragraph only of those fields is a mark: neither counts against the share
    owned = written = 0
    ours = False
    for block in paragraphs:
        text = lines[block.start].strip()
        if ENTRY_FIELD.match(text):
            owned += 1
            continue
        lead = _is_lead(state, text) or _wrapped_lead(state, block)
        if ours and not lead:
            owned += 1
            continue
        ours = False
        if lead:
            leads.append(block)
            # a red-herring mark in a lead is not its fields: a marked lesson reads as before
            fields = [line for line in lines[block.start : block.end] if own_field_line(line)]
            ours = bool(fields)
            written += names_superseded(fields)
    if pinned:
        return leads
    if leads and _told_in_fields(state, paragraphs):
        return []  # ``**Issue:** …`` then ``**Expected Behavior:** …``: one lesson's parts
    # the share is the file's own: a lead this tool wrote (a successor) does not tip it
    theirs, rest = len(leads) - written, len(paragraphs) - owned - written
    # four in five paragraphs open with a lead-in; from three leads on, two in three (a lesson
    # may run on into a paragraph of its own)
    if len(leads) >= 2 and (theirs * 5 >= rest * 4 or (theirs >= 3 and theirs * 3 >= rest * 2)):
        return leads
    return []


# the first characters of a lead-in (``_is_lead``); ``lead_paragraphs`` counts the paragraphs
# opening with one before reading any
_LEAD_FIRSTS = frozenset("[*_0123456789")


def _may_lead(lines: Sequence[str], body: Sequence[Block]) -> bool:
    """Whether a paragraph of ``body`` opens with a lead-in's first character: asked of every
    body before its paragraphs are read as lead-ins, in a loop (not a generator) for its cost."""
    for block in body:
        if block.kind == "paragraph" and lines[block.start].lstrip()[:1] in _LEAD_FIRSTS:
            return True
    return False


def _is_lead(state: State, text: str) -> bool:
    """A timestamp lead (``[2030-01-02] Title: …``) or a bold lead-in that is no field label."""
    if not text or text[0] not in _LEAD_FIRSTS:
        return False
    if TIMESTAMP_LEAD.compiled.match(text) or ID_LEAD.match(text):
        return True  # ``[2030-01-02] Title: …``, ``[BUG-001] [2026-03-28]`` over its fields
    found = lead_label(text)
    if not (found and BOLD_LABEL.match(text) and not state.is_field_label(*found) and found[0]):
        return False
    return not aside.is_meta(found[0])  # ``**Format**: `[date] | rule` ``: a note on the file


def _told_in_fields(state: State, paragraphs: Sequence[Block]) -> bool:
    """Bold-label paragraphs that open with a lesson's field (``**Issue:**``), name another field
    (``**Status:**``) and each label once: one lesson told in parts, its other labels
    (``**Current Behavior:**``) parts too. Lessons each followed by their fields repeat them
    (``**Fix:**`` after every title); one field before lessons (``**Context:**``) is their note."""
    labels: list[tuple[str, bool]] = []
    for block in paragraphs:
        found = lead_label(state.lines[block.start].strip())
        if found is not None and found[1]:
            labels.append((found[0], state.is_field_label(*found)))
    if len(labels) < 3 or not labels[0][1]:
        return False
    if not parts.opens_report(labels[0][0]) and sum(field for _, field in labels) < 2:
        return False
    names = [label for label, _ in labels]
    return len(set(names)) == len(names)


def _wrapped_lead(state: State, block: Block) -> bool:
    """A bold sentence wrapped over the paragraph's first lines (``**Reproduce the reporter's
    case, on the surface they use, before you`` / ``call it fixed.** Use their …``): a lead-in
    too long for one line, never a field's label."""
    first = state.lines[block.start].strip()
    if not opens_wrapped_bold(first) or block.end - block.start < 2:
        return False
    marker = first[:2]
    for n in range(block.start + 1, min(block.end, block.start + 3)):
        closing = state.lines[n].find(marker)
        if closing >= 0:
            return len(first.split()) >= 3 and closing > 0
    return False


def _lists_under_leads(state: State, body: Sequence[Block]) -> bool:
    """Two or more lead-in paragraphs, and every list comes after the first of them: the
    lists are those lessons' parts (``**Reproduce the case first.** Use …`` / ``- #834 came
    back 4 times``)."""
    if not _may_lead(state.lines, body):
        return False
    leads = lead_paragraphs(state, body)
    if len(leads) < 2:
        return False
    first = leads[0].start
    return all(b.start > first for b in body if b.kind == "item")


def hr_blocks(body: Sequence[Block]) -> list[Block]:
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


def lessons_table(body: Sequence[Block], parts_header: Callable[[Block], bool] | None = None) -> Block | None:
    """The one table of at least two rows that is (nearly) all the body holds: one other block
    at most, or, when its header names a lesson's parts (``| Gotcha | What goes wrong | Fix |``),
    an introduction and a closing note around it (``See docs/… for …``)."""
    tables = [b for b in body if b.kind == "table"]
    rest = [b for b in body if b.kind not in ("table", "html", "hr")]
    if len(tables) != 1 or tables[0].end - tables[0].start < 4:
        return None
    if len(rest) <= 1 or (len(rest) <= 3 and parts_header is not None and parts_header(tables[0])):
        return tables[0]
    return None


def own_blocks_after(state: State, body: Sequence[Block], item: Block) -> bool:
    """A ``---`` block after ``item`` opens with a lesson carrying this tool's field line (a
    successor or a captured lesson written after a one-bullet block)."""
    return any(
        b.start > item.start
        and b.kind == "paragraph"
        and state.writes_own(b)
        for b in hr_blocks(body)
    )


def own_field_bullet_blocks(state: State, body: Sequence[Block], items: Sequence[Block]) -> bool:
    """Every lesson bullet opens a ``---`` block of field bullets and carries this tool's field
    line in its list (a successor written in the form of blocks like ``- **Problem:** …``,
    ``- **Fix:** …``), and other blocks are there: the body is a body of blocks."""
    firsts = hr_blocks(body)
    if len(firsts) <= len(items):
        return False
    opening = {b.start for b in firsts}
    starts = {b.start: n for n, b in enumerate(body) if b.start in opening}
    return all(
        item.start in starts
        and any(
            ENTRY_FIELD.match(line) and OWN_FIELDS.search(line)
            for line in state.lines[item.start : list_end(body, starts[item.start])]
        )
        for item in items
    )


def list_end(body: Sequence[Block], at: int) -> int:
    """The line after the run of items (the list) that opens with ``body[at]``."""
    end = body[at].end
    for block in body[at + 1 :]:
        if block.kind != "item" or block.list_id != body[at].list_id:
            break
        end = block.end
    return end


def plural(kind: str) -> str:
    return {"paragraph": "lead-in paragraphs", "block": "blocks between --- rules", "row": "table rows"}.get(
        kind, kind
    )


# ---------------------------------------------------------------- the rules

UnitRule = Callable[[State, Section, Sequence[Block], int, str], "list[Span] | None"]


def table_unit(
    state: State, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    table = lessons_table(body, state.parts_header)
    if table is None or state.data_table(table) or state.file_map(table):
        return None
    if key.table_is_key(state, table):
        return None  # ``| tag | means |`` over the tags the lessons below carry
    if key.table_restates(state, table):
        return None  # ``| Plaintext credentials | Critical | FIXED |``: a tracker of the headings
    return state.row_spans(table, section, why or "a row of the lessons table")


def item_unit(state: State, section: Section, body: Sequence[Block], end: int, why: str) -> list[Span] | None:
    items, _ = lesson_items(state, body)
    if key.list_is_key(state, items):
        return None  # ``- 🔴 **CRITICAL** — …`` over the ``## 🔴 CRITICAL`` sections below
    if len(items) == 1 and own_blocks_after(state, body, items[0]):
        return None  # one bullet, then lessons this tool added after --- rules: a body of blocks
    if items and own_field_bullet_blocks(state, body, items):
        return None  # blocks of field bullets, the only lesson bullets those this tool wrote
    if items and _lists_under_leads(state, body):
        return None  # each list is the evidence under a lead-in paragraph: those are the lessons
    return state.spans_from("item", items, end, section, why or "a list item", body) if items else None


def hr_unit(state: State, section: Section, body: Sequence[Block], end: int, why: str) -> list[Span] | None:
    # a closing block that tells the reader to add lessons here is a note on the file, an
    # opening one that names the file (``This document lists …``) says what the file is for, and
    # one saying lessons will come (``(No lessons yet.)``, ``当前为空。``) holds none
    firsts = [
        b
        for b in hr_blocks(body)
        if not state.asks_to_record(b)
        and not state.names_file(b)
        and not state.is_footer(b)
        and not recording.is_placeholder(state.first_text(b).lstrip("> "))
    ]
    if len(firsts) < 2:  # one block left between the rules is the body's text, not a series
        return None
    if _ruled_off_intro(state, body):
        return None  # an introduction ruled off above lessons led in bold: those are the lessons
    if _dated_log(state, body):
        return None  # a log of dated lines below a rule: its lines are the lessons, not the runs
    return state.spans_from("block", firsts, end, section, why or "a block between --- rules", body)


def _ruled_off_intro(state: State, body: Sequence[Block]) -> bool:
    """One ``---`` rule, with no lead-in paragraph above it and two or more below it (``*One
    lesson per entry, newest first.*`` / ``---`` / ``**S9 (2026-08-19) - …**``): the rule
    closes an introduction; it does not separate two lessons."""
    rules = [n for n, b in enumerate(body) if b.kind == "hr"]
    if len(rules) != 1:
        return False
    before, after = body[: rules[0]], body[rules[0] + 1 :]
    return len(lead_paragraphs(state, after)) >= 2 and not lead_paragraphs(state, before)


def _dated_log(state: State, body: Sequence[Block]) -> bool:
    """Two or more paragraphs in a row opening with a date and no more than a line or two each
    (``2026-05-14 — Maximize the viewport …``): a log of one line a lesson."""
    run = 0
    for block in body:
        if block.kind == "paragraph" and block.end - block.start <= 2 and TIMESTAMP_LEAD.compiled.match(
            state.lines[block.start]
        ):
            run += 1
            if run >= 2:
                return True
        elif block.kind != "html":
            run = 0
    return False


def paragraph_unit(
    state: State, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    # both ask for a paragraph opening with a lead-in's first character: most bodies hold none
    if not _may_lead(state.lines, body):
        return None
    leads = lead_paragraphs(state, body) or _lone_kept_lead(state, body)
    if not leads:
        return None
    return state.spans_from("paragraph", leads, end, section, why or "a paragraph with a lead-in")


def _lone_kept_lead(state: State, body: Sequence[Block]) -> list[Block]:
    """One lead-in paragraph carrying this tool's entry fields, the others its prose (a red
    herring's caveat splits what followed it off): a lesson this tool keeps, alone."""
    first = next((b for b in body if b.kind == "paragraph"), None)
    if first is None or state.lines[first.start].lstrip()[:1] not in _LEAD_FIRSTS:
        return []  # most bodies: prose, no lead-in to carry fields
    if not any(ENTRY_FIELD.match(line) for line in state.lines[first.start : first.end]):
        return []
    others = [b for b in body if b.kind == "paragraph" and b is not first]
    if any(_is_lead(state, state.lines[b.start].strip()) for b in others):
        return []
    return lead_paragraphs(state, [first], pinned=True)


def callout_unit(
    state: State, section: Section, body: Sequence[Block], end: int, why: str
) -> list[Span] | None:
    """GitHub warning callouts (``> [!WARNING]``), two or more: each one is a lesson."""
    callouts = [b for b in body if b.kind == "quote" and _CALLOUT.match(state.lines[b.start])]
    if len(callouts) < 2:
        return None
    out = []
    for index, block in enumerate(callouts):
        stop = callouts[index + 1].start if index + 1 < len(callouts) else end
        text = state.lines[block.start + 1] if block.end > block.start + 1 else ""
        title = lead_title(text.lstrip(" >").strip()) or vocabulary.plain(state.lines[block.start]).strip(
            "> "
        )
        reason = why or "a warning callout (> [!WARNING])"
        out.append(
            Span("paragraph", block.start, block.start + 1, stop, title, 0, "", section.title or None, reason)
        )
    return out


# (the block kind a rule needs in the body, the rule), in order of preference
UNIT_RULES: tuple[tuple[str, UnitRule], ...] = (
    ("table", table_unit),
    ("item", item_unit),
    ("hr", hr_unit),
    ("quote", callout_unit),
    ("paragraph", paragraph_unit),
)


def unit_spans(
    state: State, section: Section, body: Sequence[Block], end: int, reason: str
) -> list[Span] | None:
    """Entries made of the body's own units, by the first unit rule that finds any."""
    kinds = {b.kind for b in body}
    for needs, rule in UNIT_RULES:
        if needs in kinds:
            spans = rule(state, section, body, end, reason)
            if spans:
                return spans
    return None
