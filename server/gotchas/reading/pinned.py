"""A project's pin, read: the entries are every unit of one kind (a heading level, list items,
lead-in paragraphs, ``---`` blocks, table rows), or the file is one lesson, or none.

Detection is a guess; a pin is a person's answer and is read literally, leaving out only
what is about the file itself (a table of contents, a template), as detection does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas import recording, vocabulary
from gotchas.blockmap import Block
from gotchas.reading import series
from gotchas.reading.model import FileKind, Note, Pin, Reading, Span
from gotchas.reading.sections import Reader
from gotchas.reading.text import BOLD_LABEL
from gotchas.reading.tree import Section, walk
from gotchas.reading.units import callout_unit, hr_blocks, lead_paragraphs


def read_pinned(reader: Reader, pin: Pin, root: Section) -> Reading:
    unit = pin.unit or ""
    scopes = [root]
    if pin.section:
        scopes = (
            reader.find_sections(root, lambda t: vocabulary.plain(pin.section or "") in vocabulary.plain(t))
            or []
        )
    if unit == "none":
        return Reading("not-lessons", [], "pinned: the file holds no lessons", pinned=True)
    if unit == "single":
        reading = reader.single("pinned: the whole file is one lesson")
        reading.pinned = True
        return reading
    spans: list[Span] = []
    for scope in scopes:
        spans.extend(pinned_units(reader, scope, unit, pin.checkboxes))
    if re.fullmatch(r"h[1-6]", unit):
        spans = series.settle(reader, spans)  # the report around a numbered series stays out
    kind: FileKind = "lessons-section" if pin.section else "lessons"
    return Reading(kind, spans, f"pinned: entries = {pin.render()!r}", [], [], reader.left_out, True)


def pinned_items(reader: Reader, body: Sequence[Block], checkboxes: bool) -> list[Block]:
    """The list items a ``list`` pin takes: every item but a lesson's field bullets and the
    plain bullets that are the body of a bold title-only item (as detection reads them);
    checkbox and done-mark items too unless ``checkboxes`` is off."""
    items: list[Block] = []
    open_title = False
    for block in body:
        if block.kind != "item" or reader.is_field_item(block):
            continue
        if not checkboxes and reader.is_tick(block):
            continue
        if recording.is_placeholder(reader.first_text(block)):
            continue  # `- TBD`: no lesson yet, as detection reads it
        if open_title and not BOLD_LABEL.match(reader.first_text(block)):
            continue  # the body of the title-only item before it
        items.append(block)
        open_title = reader.title_only(block)
    return items


def pinned_units(reader: Reader, scope: Section, unit: str, checkboxes: bool = True) -> list[Span]:
    sections = walk_lessons(reader, scope)
    level = int(unit[1]) if re.fullmatch(r"h[1-6]", unit) else None
    spans: list[Span] = []
    inside = -1  # the end of a section a section pin read, whose sub-sections it read too
    for section in sections:
        if section.start < inside:
            continue
        pins = reader.section_pins
        if section is not scope and pins is not None and pins.unit_of(section) is not None:
            own = pins.read(section)
            spans.extend(reader.read_section(section) if own is None else own)  # `auto`: detected
            inside = section.end
            continue
        if level is not None:
            if section.heading is not None and section.level == level:
                spans.append(reader.heading_span(section, "pinned heading level", end=section.end))
            continue
        body, end = section.body, section.own_end
        why = f"pinned unit {unit}"
        if unit == "list":
            items = pinned_items(reader, body, checkboxes)
            spans.extend(reader.spans_from("item", items, end, section, why))
        elif unit == "paragraph":
            # warning callouts are paragraph-shaped lessons; beside them, other paragraphs are intros
            callouts = callout_unit(reader, section, body, end, why)
            # with lead-ins, a paragraph without one continues the lesson before it
            paragraphs = lead_paragraphs(reader, body, pinned=True) or [
                b for b in body if b.kind == "paragraph"
            ]
            spans.extend(callouts or reader.spans_from("paragraph", paragraphs, end, section, why))
        elif unit == "hr-block":
            spans.extend(reader.spans_from("block", hr_blocks(body) or body[:1], end, section, why, body))
        elif unit == "table-row":
            for table in [b for b in body if b.kind == "table"]:
                spans.extend(reader.row_spans(table, section, why))
    return sorted(spans, key=lambda s: s.start)


def walk_lessons(reader: Reader, section: Section, top: bool = True) -> list[Section]:
    """The section and its sub-sections, without those about the file itself (a table of
    contents, how to add an entry, a template, an appendix) or, at the top, a report's own parts
    (its summary, test matrix): a pin keeps them out too, as detection does."""
    out = [section]
    for child in section.children:
        if not reader.skip_meta(child, report=top):
            out.extend(walk_lessons(reader, child, top=False))
    return out


class SectionPins:
    """The sections a pin names (``"What went wrong" = "h3"``; ``none`` leaves one out, ``auto``
    reads it by detection), matched by title as ``lessons-section`` is: equal, else contained."""

    def __init__(self, reader: Reader, pin: Pin):
        self.reader = reader
        self.checkboxes = pin.checkboxes
        self.wanted = [(vocabulary.plain(title).lower(), unit) for title, unit in pin.sections]

    def unit_of(self, section: Section) -> str | None:
        if section.heading is None:
            return None
        title = vocabulary.plain(section.title).lower()
        exact = next((u for t, u in self.wanted if t == title), None)
        return exact or next((u for t, u in self.wanted if t in title), None)

    def note_left_out(self, root: Section, left_out: list[Note]) -> None:
        """Each section pinned ``none`` is noted as left out, whether or not the reading came to
        it (a guide's lessons section is read alone), so the outline shows what the pin did."""
        noted = {n.start for n in left_out if n.what == "pinned"}
        for section in walk(root):
            if section.start not in noted and section.heading is not None and self.unit_of(section) == "none":
                why = f"pinned: the section {section.title!r} holds no lessons"
                left_out.append(Note(section.start, section.end, "pinned", section.title, why))

    def read(self, section: Section) -> list[Span] | None:
        """The section's entries as pinned, or ``None`` when it is not pinned (or ``auto``)."""
        unit = self.unit_of(section)
        reader = self.reader
        if unit is None or unit == "auto":
            return None
        if unit == "none":
            why = f"pinned: the section {section.title!r} holds no lessons"
            reader.left_out.append(Note(section.start, section.end, "pinned", section.title, why))
            return []
        if unit == "single":
            return [reader.heading_span(section, f"pinned: the section {section.title!r} is one lesson")]
        return pinned_units(reader, section, unit, self.checkboxes)
