"""A log that shows its own entry form: a fenced template whose first line is a heading
(``### [YYYY-MM-DD] <title>``) says that each lesson is a heading of that level.

A person reading such a log takes the template at its word: the lessons are the headings of
the template's level outside it, and when none is written in the template's form, the log
has no lesson yet. A file whose headings of that level are none of them written in the template's form
(``## When to write``, ``## Promoting a lesson`` beside ``## YYYY-MM-DD <title>``) is a note on how
to record lessons, with none recorded yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gotchas import aside, vocabulary
from gotchas.reading import series
from gotchas.reading.model import Note, Reading
from gotchas.reading.sections import Reader
from gotchas.reading.text import PLACEHOLDER, blank_title, lead_label
from gotchas.reading.tree import Section, walk

_HEADING = re.compile(r"^ {0,3}(#{2,6})[ \t]+(\S.*)$")
# how a template writes an entry's title, and how a written title shows it follows that form
_FORMS = (
    # ``N. <title>``, ``Lesson N: <title>``: a number first, or after one word
    (
        "numbered",
        re.compile(r"(?:[^\W\d]+\s+)?#?\s*(?:\d+|[NnX])\b\s*[.):-]?"),
        re.compile(r"^(?:[^\W\d]+\s+)?#?\s*\d+"),
    ),
    (
        "dated",
        re.compile(r".{0,3}(?:YYYY|yyyy|date\b|datum\b|fecha\b|日期|日付|날짜|\d{4}-\d\d)", re.IGNORECASE),
        re.compile(r"(?:19|20)\d\d"),
    ),
    ("bracketed", re.compile(r"\["), re.compile(r"^\[")),
)


def _form(title: str) -> re.Pattern[str] | None:
    """What a title written in the template's form shows (a number first, a year, a bracket
    first); ``None``: any title does. Brackets that are the template's only placeholders
    (``[Category]: [Learning title]``) stand for words, not for brackets written around them."""
    bracketed_only = PLACEHOLDER.sub("", _BRACKETS.sub("", title)) == _BRACKETS.sub("", title)
    for name, template, written in _FORMS:
        if template.match(title) and not (name == "bracketed" and bracketed_only):
            return written
    return None


_BRACKETS = re.compile(r"\[[^\[\]]{1,40}\]")
_MARKER = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?")


def _template(reader: Reader, root: Section) -> tuple[int, str, Section] | None:
    """The first fenced block whose first line is a heading written with placeholders
    (``<title>``, ``[Category]``, ``YYYY``), in a section that explains the log's form: its
    level, its title, and that section. A lesson quoting Markdown in its body shows no form.
    Failing that, a heading of its own written with placeholders directly under a section about
    the file (``## Format`` over ``### [DATE] — [SHORT TITLE]``)."""
    for section in walk(root):
        for block in section.body:
            if block.kind != "fence":
                continue
            first = next((line for line in reader.lines[block.start + 1 : block.end] if line.strip()), "")
            heading = _HEADING.match(first)
            if heading and PLACEHOLDER.search(heading[2]) and _explains_form(section, root, len(heading[1])):
                return len(heading[1]), heading[2].strip().rstrip("#").strip(), section
    for section in walk(root):
        # most sections have no sub-section: asked first, it spares a title's reading
        if section is root or not section.children or not aside.is_meta(section.title):
            continue
        for child in section.children:
            if PLACEHOLDER.search(child.title) and _form(child.title) is not None:
                return child.level, child.title, section
    return None


def _fields(reader: Reader, root: Section, title: str) -> frozenset[str]:
    """The field labels the template titled ``title`` writes under its heading (``**Symptom:**``,
    ``**Root cause:**``): a lesson opening with two of them is written in its form."""
    for section in walk(root):
        for block in section.body:
            if block.kind != "fence":
                continue
            lines = [line for line in reader.lines[block.start + 1 : block.end - 1] if line.strip()]
            heading = _HEADING.match(lines[0]) if lines else None
            if heading is None or heading[2].strip().rstrip("#").strip() != title:
                continue
            found = (lead_label(_MARKER.sub("", line)) for line in lines[1:])
            return frozenset(label for label, field in filter(None, found) if field)
    return frozenset()


def _filled(reader: Reader, section: Section, fields: frozenset[str]) -> bool:
    """A section whose own text opens two or more of the template's fields: a lesson written in
    its form under a title of its own (``## Seed: …`` beside ``## YYYY-MM-DD: <title>``)."""
    if len(fields) < 2:
        return False
    opened = set()
    for block in section.body:
        for line in reader.lines[block.start : block.end]:
            found = lead_label(_MARKER.sub("", line))
            if found is not None and found[1] and found[0] in fields:
                opened.add(found[0])
    return len(opened) >= 2


def _explains_form(section: Section, root: Section, level: int) -> bool:
    """The file's own introduction, a section about the file (``## Format``), or a section of a
    template and a note or two, above the template's level."""
    if section is root or aside.is_meta(section.title):
        return True
    if section.children or section.level >= level:
        return False
    prose = [b for b in section.body if b.kind not in ("fence", "html", "hr")]
    return len(prose) <= 2 and all(b.kind == "paragraph" for b in prose)


def _at_level(
    root: Section, level: int, holder: Section, written: re.Pattern[str] | None, title: str
) -> list[Section]:
    """The sections of ``level``, not about the file itself, other than the template's own
    section and, when that section is about the file (``## Format``), its parts. Headings of
    that level written in the template's definite form (dated, numbered), placeholders filled
    in, are lessons appended below it in its section; the template itself, as a heading, is not,
    nor is an example written as its heading (``## Example Entry`` over ``### [2026-03-01] …``)."""
    found: list[Section] = []
    meta = holder is not root and aside.is_meta(holder.title)
    ruled = _ruled_off(holder) if meta else None
    # sections about the file or plans (``## Next steps``) other than the template's own: what
    # they hold is theirs, not lessons (``### Rules to add`` under ``## Future improvements``)
    asides = [s for s in walk(root) if s is not root and s is not holder and aside.is_meta(s.title)]
    for section in walk(root):
        if section is holder or section.level != level:
            continue
        if aside.is_meta(section.title):
            continue
        if any(other.start < section.start < other.end for other in asides):
            continue
        inside = meta and holder.start < section.start < holder.end
        below = ruled is not None and section.start > ruled  # written after the form, ruled off
        if inside and (section.title == title or not (below or _appended(section.title, written))):
            continue
        found.append(section)
    return found


def _ruled_off(holder: Section) -> int | None:
    """The line of the ``---`` rule closing the form in its own section (``## Template`` over
    its fence, then ``---``, then ``### Retrieved text treated as instructions``): what
    follows the rule is written below the form, as a lesson; ``None`` without one."""
    shown = False
    for section in walk(holder):
        for block in section.body:
            if block.kind == "hr" and shown:
                return block.start
            shown = shown or block.kind not in ("hr", "html")
    return None


def _appended(title: str, written: re.Pattern[str] | None) -> bool:
    """A heading in the template's own section written in its definite form, placeholders
    filled in (``### 2026-03-24 — Sessions hang on commit`` below ``### [DATE] — [TITLE]``; a
    bracket may stay, filled with the date: ``### [2026-04-14] …`` below ``### [Date] …``)."""
    return written is not None and written.search(title) is not None and not blank_title(title)


def own_template(reader: Reader, root: Section) -> Reading | None:
    """The lessons of a log titled as lessons that shows its entry form in a template."""
    if root.heading is None or not vocabulary.names_lessons(root.title):
        return None
    found = _template(reader, root)
    if found is None:
        return None
    level, title, holder = found
    written = _form(title)
    sections = _at_level(root, level, holder, written, title)
    # a template in the file's introduction or in a section about the file is the log's own;
    # one in a section of its own (``## Format for new entries``) counts where its form is
    # definite (dated, numbered, bracketed) and written below it, not to empty a file
    about = holder is root or aside.is_meta(holder.title)
    fields = _fields(reader, root, title)

    def in_form(section: Section) -> bool:
        """Titled in the template's form, or opening its fields under a title of its own."""
        titled = written is not None and written.search(section.title) is not None
        return titled or _filled(reader, section, fields)

    grouped = False
    if written is not None and not any(map(in_form, sections)):
        # lessons written in the form one level down, under groups (``## Mentor's slips`` over
        # ``### 2026-09-16 — …`` below a ``## YYYY-MM-DD — title`` template): their level
        deeper = _at_level(root, level + 1, holder, written, title)
        if any(written.search(s.title) for s in deeper):
            level, sections, grouped = level + 1, deeper, True
    if not sections or (written is not None and not any(map(in_form, sections))):
        if not about or any(map(_holds_content, sections)):
            return None  # a section of notes beside the template (``## Current Notes``) is read as such
        why = "no lesson yet: the log shows an entry's form in a template, and no section is written in it"
        return Reading("not-lessons", [], why, [], [], _with_template(reader, holder, root, []))
    if (not about and written is None) or any(s.children for s in sections):
        return None  # sections of the template's level that hold others: left to the section rules
    if _written_otherwise(root, level, holder):
        return None  # some lessons are rows or bullets: the section rules read both shapes
    if written is not None:
        sections = _from_first_written(reader, sections, in_form)
    for section in [s for s in sections if reader.awaits_lessons(s)]:
        # ``## Entries`` over nothing, the lessons below it at its own level: where they go
        why = "where the lessons go, none in it"
        reader.left_out.append(Note(section.start, section.end, "empty", section.title, why))
        sections.remove(section)
    why = f"the log's own template shows each lesson as an h{level} heading"
    if grouped:
        why = f"the log's own template shows each lesson's form, written as h{level} headings under groups"
    spans = series.settle(reader, [reader.heading_span(s, why) for s in sections])
    return Reading("lessons", spans, why, [], reader.groups, _with_template(reader, holder, root, sections))


def _from_first_written(
    reader: Reader, sections: list[Section], in_form: Callable[[Section], bool]
) -> list[Section]:
    """The sections from the first written in the template's definite form on: those above it
    written otherwise (``## Hard Cap: 15 entries``, ``## Hygiene Rules`` over the first
    ``## [2026-03-28] …``) are the log's own rules, not lessons."""
    first = next((n for n, s in enumerate(sections) if in_form(s)), 0)
    for section in sections[:first]:
        why = "above the first lesson written in the log's template, and written otherwise"
        reader.left_out.append(Note(section.start, section.end, "context", section.title, why))
    return sections[first:]


def _written_otherwise(root: Section, level: int, holder: Section) -> bool:
    """A section above the template's level, over none of its own, holding a table
    (``## Anti-patterns to avoid`` over rows beside ``### …`` lessons); a list there may be
    notes (``## Open questions``)."""
    for section in walk(root):
        if section is root or section is holder or section.children or section.level > level:
            continue
        if not aside.is_meta(section.title) and any(b.kind == "table" for b in section.body):
            return True
    return False


def _holds_content(section: Section) -> bool:
    """A section with bullets of its own, not a placeholder, or two sub-sections or more that
    have them (``## Initial entries`` over ``### P-1: …``, ``### P-2: …``): lessons, written
    otherwise."""
    if section.children:
        return sum(map(_holds_content, section.children)) >= 2
    return sum(1 for b in section.body if b.kind == "item") >= 2


def _with_template(reader: Reader, holder: Section, root: Section, lessons: list[Section]) -> list[Note]:
    """The parts left out, the template's own section among them unless it holds lessons."""
    if holder is not root and not any(holder.start < s.start < holder.end for s in lessons):
        why = "the log's entry template"
        reader.left_out.append(Note(holder.start, holder.end, "template", holder.title, why))
    return reader.left_out
