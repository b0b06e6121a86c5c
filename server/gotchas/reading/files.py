"""File rules, registered as data: what kind of file this is and where its lessons live.

A person first decides what a file is: a project's override says (a pin); its title names
something else (a changelog, a plan) or one lesson; it is a guide with a lessons section,
a guide with none, or a lessons file read whole. ``FILE_RULES`` holds those decisions in
order, as (name, rule) rows; the first rule that returns a reading decides. A rule gets
the reader and the ``Frame`` (the title section and its note) and returns ``None`` to pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gotchas import aside, recording, vocabulary
from gotchas.blockmap import Block
from gotchas.reading import pinned, postmortem, series
from gotchas.reading.frame import FileRule, Frame, title_section
from gotchas.reading.model import NONE_UNDER_LESSONS, ONE_BODY, Note, Pin, Reading, Span
from gotchas.reading.sections import Reader
from gotchas.reading.template import own_template
from gotchas.reading.text import CAVEAT, ID_LEAD, TEMPLATE, blank_title
from gotchas.reading.titles import title_evidence
from gotchas.reading.traits import first_content
from gotchas.reading.tree import Section, holding, leaves, walk
from gotchas.reading.units import unit_spans

_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s+\S")


def _pinned_unit(reader: Reader, frame: Frame) -> Reading | None:
    pin = frame.pin
    if pin and pin.unit and pin.unit not in ("auto",):
        return pinned.read_pinned(reader, pin, frame.root)
    return None


def _pinned_section(reader: Reader, frame: Frame) -> Reading | None:
    pin = frame.pin
    if not pin or not pin.section:
        return None
    wanted = vocabulary.plain(pin.section)
    found = reader.find_sections(frame.root, lambda t: wanted in vocabulary.plain(t))
    return reader.read_scopes(found, "pinned lessons section", pinned=True)


# front matter that scopes a rule to the files it applies to: Cursor's ``globs``, Copilot's
# ``applyTo``, Claude Code's ``paths`` (a value, or a list on the lines below)
_SCOPE_KEY = re.compile(r"^(?:applyTo|globs|paths)\s*:(.*)$")
_SCOPE_ITEM = re.compile(r"^\s+-\s+(.*)$")
_LESSONS_PATH = re.compile(r"(?<![^\W_])(?:lessons?|learnings?|gotchas?|pitfalls?)(?![^\W_])", re.IGNORECASE)


def _scoped_to_lessons(reader: Reader, frame: Frame) -> Reading | None:
    """A rule its front matter applies to lessons kept elsewhere (``applyTo:
    ".copilot/lessons/**"``): how to write those files, with none of its own."""
    if reader.matter is None:
        return None
    lines = reader.lines[reader.matter[0] : reader.matter[1]]
    values = []
    for n, line in enumerate(lines):
        key = _SCOPE_KEY.match(line)
        if key is None:
            continue
        values.append(key[1])
        for item in lines[n + 1 :]:
            listed = _SCOPE_ITEM.match(item)
            if listed is None:
                break
            values.append(listed[1])
    scoped = next((v.strip() for v in values if _LESSONS_PATH.search(v)), None)
    if scoped is None:
        return None
    why = f"its front matter applies it to lessons kept elsewhere ({scoped}): a rule for writing them"
    if frame.title_note:
        reader.left_out.append(frame.title_note)
    return Reading("not-lessons", [], why, [], [], reader.left_out)


def _titled_otherwise(reader: Reader, frame: Frame) -> Reading | None:
    """A title naming a changelog, a plan, tasks, terms or a decision: no lessons."""
    root = frame.root
    if root.heading is None:
        return None
    about = sum(1 for c in root.children if recording.about_recording(c.title))
    policy = (
        recording.names_how_to_record(root.title)
        or (recording.may_name_how_to_record(root.title) and about >= 2)
        # a policy: most of its sections say when to check or write lessons, where, in what form,
        # and no other holds them (``## Entries``)
        or (
            about >= 2
            and about * 2 > len(root.children)
            and not any(map(_holds_entries, root.children))
            # nor the file's own text above its sections, in a list
            and sum(1 for b in root.body if b.kind == "item") < 2
        )
    )
    if policy and not reader.has_entry_fields(root):
        why = f"the title {root.title!r} names how lessons are recorded, not a lesson"
    elif vocabulary.names_no_lessons(root.title):
        why = f"the title {root.title!r} names a record of changes, plans, tasks, terms or a decision"
    else:
        return None
    if frame.title_note:
        reader.left_out.append(frame.title_note)
    return Reading("not-lessons", [], why, [], [], reader.left_out)


def _holds_entries(section: Section) -> bool:
    """A section holding lessons beside a policy's (``## Entries``, ``## Ledger`` over dated
    sub-headings, ``## Log`` over bullets): not one about recording, nor an entry template
    (``## <title>``)."""
    title = section.title
    if TEMPLATE.compiled.search(title):
        return False
    if recording.about_recording(title):
        # ``## Template`` over a fence, then lessons written in its form (``### 2026-06-01 — …``):
        # their level puts them under it
        return any(
            not blank_title(child.title) and not recording.about_recording(child.title)
            for child in section.children
        )
    items = sum(1 for b in section.body if b.kind == "item")
    return bool(section.children) or vocabulary.names_lessons(title) or items >= 2


def _one_with_fields(reader: Reader, frame: Frame) -> Reading | None:
    """A titled file whose text carries this tool's entry fields: one lesson, its heading. Not
    under a title naming lessons in the plural (``# Lessons``): a lesson there is its own."""
    root = frame.root
    if (
        root.heading is not None
        and not vocabulary.names_many_lessons(root.title)
        and reader.has_entry_fields(root)
        and not any(b.kind == "item" for b in root.body)
        and reader.owns_fields(root, unit_spans(reader, root, root.body, root.own_end, ""))
    ):
        span = reader.heading_span(root, "its one heading carries entry fields (id:, tasks:…)")
        return Reading("lessons", [span], "a file of one lesson with entry fields")
    return None


def _titled_one(reader: Reader, frame: Frame) -> Reading | None:
    title = frame.root.title
    if (
        frame.root.heading is not None
        and vocabulary.names_one_lesson(title)
        and not vocabulary.names_lessons(title.replace("Lesson", "").replace("lesson", ""))
    ):
        return reader.single(f"the title {title!r} names one lesson")
    return None


def _incident_review(reader: Reader, frame: Frame) -> Reading | None:
    return postmortem.incident_review(reader, frame.root)


def _own_template(reader: Reader, frame: Frame) -> Reading | None:
    return own_template(reader, frame.root)


def _empty_log(reader: Reader, frame: Frame) -> Reading | None:
    """A log with no lesson yet: its sections titled as lessons (or, under a lessons title, all
    its sections) hold only a placeholder; any other section is a short note about the log.
    Settled at the first section that holds more (most files: their first)."""
    root = frame.root
    titled = root.heading is not None and vocabulary.names_lessons(root.title)
    # under a lessons title the intro may show the entries' form in a fence
    intro = ("html", "hr", "paragraph", "quote", *(("fence",) if titled else ()))
    # an introduction that opens by naming the file may also list how to add to it
    named = titled and reader.opens_by_naming_file(root.body)
    if any(b.kind not in intro for b in root.body) and not named:
        return None
    empty: list[Section] = []
    notes = short = placeholders = 0
    for section in leaves(root):
        placeholder = reader.placeholder_only(section) or _waits_after_intro(reader, section, titled)
        if placeholder or reader.awaits_lessons(section):
            if not titled and not vocabulary.names_lessons(section.title):
                return None
            empty.append(section)
            placeholders += placeholder
        elif recording.about_recording(section.title):
            notes += 1  # how to use the log, however long, though it names lessons (``## Lesson Format``)
        elif vocabulary.names_lessons(section.title):
            return None
        elif _short_note(section):
            notes += 1
            short += 1
        else:
            return None
    if not empty or notes > _NOTES:
        return None
    if short and not placeholders:
        return None  # short sections beside a comment only are short lessons, the comment a note
    for section in empty:
        reader.left_out.append(Note(section.start, section.end, "empty", section.title, "only a placeholder"))
    return Reading(
        "not-lessons", [], "an empty log: its lessons sections say no lesson yet", [], [], reader.left_out
    )


_NOTES = 3  # short notes an empty log keeps about itself; more are short lessons


def _waits_after_intro(reader: Reader, section: Section, titled: bool) -> bool:
    """A section titled as lessons whose prose says what its entries will hold and whose last
    line says none is written yet (``Each entry: what happened, root cause …`` over ``No entries
    yet.``): the placeholder closes it, so the prose above is its introduction, no lesson."""
    if section.children or not (titled or vocabulary.names_lessons(section.title)):
        return False
    content = [b for b in section.body if b.kind not in ("html", "hr")]
    if len(content) < 2 or any(b.kind not in ("paragraph", "quote") for b in content[:-1]):
        return False
    last = content[-1]
    if last.kind not in ("paragraph", "quote", "item") or last.end - last.start != 1:
        return False
    return recording.is_placeholder(reader.first_text(last).lstrip("> "))


def _short_note(section: Section) -> bool:
    """Prose of a paragraph or two (``trigger: always``, how the log is updated): no lesson. A
    title stating a claim (``Name scope assumptions explicitly``) is a short lesson's."""
    if title_evidence(section.title)[0] < 0:
        return False
    count = 0
    for block in section.body:
        if block.kind in ("html", "hr"):
            continue
        count += 1
        if count > 2 or block.kind not in ("paragraph", "quote"):
            return False
    return True


def _untitled_lessons(frame: Frame) -> bool:
    return frame.root.heading is None or not vocabulary.names_lessons(frame.root.title)


def _lessons_in_part(frame: Frame) -> bool:
    """A title naming lessons as one part of a guide (``Gotchas, Data Flow & Quick Reference``):
    its sections titled as lessons hold them, as an untitled guide's do."""
    return frame.root.heading is not None and vocabulary.names_lessons_beside_guide(frame.root.title)


def _troubleshooting_guide(frame: Frame) -> bool:
    """A troubleshooting how-to (``# Troubleshooting Guide`` over ``## Tool Selection``, ``##
    Quick Fixes``, ``## Common Issues``): one section titled as lessons, no other naming problems
    or lessons; that one holds them, the others are the how-to's own."""
    root = frame.root
    if root.heading is None or not vocabulary.names_problem_file(root.title):
        return False
    titled = [c for c in root.children if vocabulary.names_lessons(c.title)]
    if len(titled) != 1 or not vocabulary.names_problems(titled[0].title):
        return False  # the one section titled as lessons names the problems met, not a checklist
    others = [c for c in root.children if c is not titled[0] and not aside.is_meta(c.title)]
    # open questions are issues not settled yet: a file holding them is one of issues
    return bool(others) and not any(
        vocabulary.names_trouble(c.title) or vocabulary.names_open_questions(c.title) for c in others
    )


def _lessons_section(reader: Reader, frame: Frame) -> Reading | None:
    """A guide (or an untitled file) with sections titled as lessons: those hold them."""
    root = frame.root
    if not (_untitled_lessons(frame) or _lessons_in_part(frame) or _troubleshooting_guide(frame)):
        return None
    titled = _titled_lessons(frame)
    tops = root.children

    def hindsight(section: Section) -> bool:
        return section in tops and vocabulary.names_hindsight(section.title)

    sections = [_narrowed(s) for s in reader.find_sections(root, titled, hindsight)]
    sections = [s for s in sections if not _one_of_ided(reader, s)]
    if not sections or _siblings_alike(reader, root, sections):
        return None
    if all(vocabulary.names_one_lesson(s.title) for s in sections):
        if reader.parts_of_one(root.children):
            return reader.single("its sections, its one Lesson among them, are the parts of one lesson")
        headings = sum(1 for b in reader.blocks if b.kind == "heading")
        if headings > 3 * len(sections) + 1:
            return None  # `### Lesson: …` among many other headings names itself, not the file's lessons
    # a lesson added beside the lessons section carries this tool's entry fields
    found = reader.find_sections(root, titled, lambda s: hindsight(s) or reader.has_entry_fields(s))
    sections = [_narrowed(s) for s in found]
    return reader.read_scopes(sections, "a guide whose lessons live in its lessons section")


_LABEL = re.compile(r"^(?:[-*+]\s+)?(?:\*\*|__)([^*_:：]{1,40})[:：]?(?:\*\*|__)[:：]?")


def _one_of_ided(reader: Reader, section: Section) -> bool:
    """A section whose title opens with an id of the stem two siblings or more open with
    (``### INC-001 — … footgun`` among ``### INC-051``, ``### INC-050``…): one entry of a
    series, which a lessons word in its title does not make the file's lessons section."""
    found = ID_LEAD.match(section.title)
    parent = holding(reader.tree, section.start)
    if found is None or parent is None:
        return False
    stem = found[0].strip(" *_[]:").split("-")[0]
    alike = sum(
        1 for s in parent.children if s is not section and s.title.strip("*_[ ").startswith(stem + "-")
    )
    return alike >= 2


def _siblings_alike(reader: Reader, root: Section, chosen: list[Section]) -> bool:
    """Sections beside the one titled as lessons whose sub-sections open with the same field
    labels (``**Sintoma:**``, ``- **根因**:``): one title among the categories of one list named
    the lessons, every category holds them, so the file is read whole."""
    if not all(s in root.children for s in chosen) or len(chosen) == len(root.children):
        return False
    others = [c for c in root.children if c not in chosen and c.children and not aside.is_meta(c.title)]

    def labels(section: Section) -> set[str]:
        found = set()
        for child in section.children:
            # past a red-herring mark and its caveat: a correction leaves the categories' reading
            content = reader.own_content(child)
            match = _LABEL.match(reader.lines[content[0].start].strip()) if content else None
            if match is not None:
                found.add(match[1].strip().lower())
        return found

    ours = set().union(*(labels(s) for s in chosen))
    return bool(ours) and bool(others) and all(labels(o) & ours for o in others)


def _narrowed(section: Section) -> Section:
    """A guide's ``## Anti-Patterns`` over rules and one ``### Common Pitfalls``: the pitfalls
    are its lessons; anti-patterns alone may be rules to follow."""
    if not vocabulary.names_anti_patterns_only(section.title):
        return section
    inner = [
        s
        for s in walk(section)
        if s is not section
        and vocabulary.names_lessons(s.title)
        and not vocabulary.names_anti_patterns_only(s.title)
    ]
    return inner[0] if len(inner) == 1 else section


def _titled_lessons(frame: Frame) -> Callable[[str], bool]:
    """A title naming lessons, or pinned as holding some. A retrospective's hindsight (``What went
    wrong``) names them only at the top: under an incident it is one lesson's part."""

    def titled(title: str) -> bool:
        named = vocabulary.names_lessons(title) and not vocabulary.names_hindsight(title)
        return named or _pinned_in(frame, title)

    return titled


def _pinned_in(frame: Frame, title: str) -> bool:
    """A section the pin gives a unit of lessons, or reads by detection (``auto``): a lessons
    section, though its title names none (``"Anti-patterns" = "auto"`` in a guide)."""
    if frame.pin is None:
        return False
    plain = vocabulary.plain(title).lower()
    return any(unit != "none" and vocabulary.plain(t).lower() in plain for t, unit in frame.pin.sections)


def _debugging_procedure(reader: Reader, frame: Frame) -> Reading | None:
    """A file titled as debugging whose sections are a method's phases (``## Four phases``, ``##
    Phase 1: Root-cause investigation``) and its rules, none titled as lessons: a procedure to
    follow, no lesson learned (a section titled as lessons is read by the guide's rule first).
    So is one titled as debugging or troubleshooting whose every section is a debugging tool
    (``## Log File Flags``, ``## Debug Configuration``), none a problem met."""
    root = frame.root
    if root.heading is not None:
        title = root.title
    elif reader.matter is not None:  # an untitled rule says what it is in its front matter
        title = " ".join(reader.lines[reader.matter[0] : reader.matter[1]])[:2000]
    else:
        return None
    debugging = vocabulary.DEBUGGING_TITLE.compiled.search(title) is not None
    debugging = debugging and not vocabulary.names_lessons(title)
    # a troubleshooting title names lessons too: only its debugging tools make it a how-to
    if not debugging and not vocabulary.names_problem_file(title):
        return None
    titles = [c.title for c in root.children]
    if debugging and vocabulary.names_method_phases(titles):
        why = "a debugging method: its sections are its phases and rules, none titled as lessons"
    elif vocabulary.names_debugging_tools(titles):
        why = "a debugging how-to: its sections are ways to see what the program does, none a problem met"
    else:
        return None
    if frame.title_note:
        reader.left_out.append(frame.title_note)
    return Reading("not-lessons", [], why, [], [], reader.left_out)


def _guide(reader: Reader, frame: Frame) -> Reading | None:
    """Sections about the project (setup, architecture, commands), none titled as lessons."""
    root = frame.root
    if not _untitled_lessons(frame) or frame.named_lessons:
        return None
    tops = root.children
    titled = root.heading is not None and bool(vocabulary.GUIDE_TITLE.compiled.search(root.title))
    if root.heading is None:
        # several titles, one of them a guide's (a snippet's own ``# This is NOT the Next.js you
        # know`` before ``# Project Instructions``): the guide's sections are under it
        named = [t for t in tops if t.children and vocabulary.GUIDE_TITLE.compiled.search(t.title)]
        if len(named) == 1 and len(tops) >= 2:
            tops, titled = named[0].children, True
    guide = sum(1 for s in tops if vocabulary.names_guide_section(s.title))
    if tops and guide >= 2 and (guide * 3 >= len(tops) or titled):
        return Reading(
            "not-lessons", [], "a guide: its sections are about the project, none is titled as lessons"
        )
    if root.heading is not None and vocabulary.RULES_TITLE.compiled.search(vocabulary.plain(root.title)):
        # ``# Error Handling Rules``: rules to follow, not lessons learned, and no section names any
        why = f"rules: the title {root.title!r} names rules to follow, and no section is titled as lessons"
        return Reading("not-lessons", [], why)
    first = first_content(root.body)
    if first is not None and first.kind == "paragraph":
        text = reader.first_text(first)
        if _PROJECT_OPENER.match(text) and not vocabulary.names_lessons(text):
            why = "a guide: it opens by saying what the project is, and no section is titled as lessons"
            return Reading("not-lessons", [], why)
    return None


# a guide's opening: what the project is, or whom it addresses (``This is a full-stack expense
# splitting app``, ``This project is a training system``, ``You are an expert in TypeScript``)
_PROJECT_OPENER = re.compile(
    r"^(?:you\s+are\s+(?:a|an)\s|this\s+(?:is\s+an?|project\s+is|repo(?:sitory)?\s+(?:is|contains|holds)|"
    r"app(?:lication)?\s+is|codebase\s+is)\s)",
    re.IGNORECASE,
)


def _progress(reader: Reader, frame: Frame) -> Reading | None:
    """``# Project Progress`` over steps done and next: its lessons, if any, would be under a
    section titled as lessons or issues, which the rules before this one look for."""
    root = frame.root
    if root.heading is None or not vocabulary.names_progress(root.title):
        return None
    if frame.title_note:
        reader.left_out.append(frame.title_note)
    why = f"a record of progress: the title {root.title!r} names one, and no section holds lessons"
    return Reading("not-lessons", [], why, [], [], reader.left_out)


def _named_guide(reader: Reader, frame: Frame) -> Reading | None:
    """A file named as a coding agent's guide (``CLAUDE.md``, ``AGENTS.md``, ``.cursorrules``):
    its lessons, if it keeps any, are a section titled as lessons, which the rules before
    this one find; its other sections are instructions, whatever shape they take."""
    if frame.guide is None or not _untitled_lessons(frame):
        return None
    why = f"an agent guide: coding agents read {frame.guide} as instructions; no section is titled as lessons"
    return Reading("not-lessons", [], why, [], [], reader.left_out)


def _whole_file(reader: Reader, frame: Frame) -> Reading:
    """A lessons file read whole: its sections and bodies decide the entries."""
    root = frame.root
    titled = reader.matter_title()
    if root.heading is None and titled:
        why = f"its front matter titles it {titled!r}; it is read as a whole"
    elif root.heading is None:
        why = "the file has no title; it is read as a whole"
    elif _untitled_lessons(frame):
        why = f"the title {root.title!r} does not name its contents; the whole file is read"
    else:
        why = f"the title {root.title!r} names a lessons file"
    if frame.title_note:
        reader.left_out.append(frame.title_note)
    entries = reader.container(root, top=True)
    if entries:
        entries = series.settle(reader, entries)
    if entries is None:
        return reader.single("the whole file explains one lesson: its sections are that lesson's parts")
    policy = _policy(reader, entries) if entries else []
    if policy:
        # a lesson this tool wrote into it (a capture) is one still; the policy's parts are not
        kept_out = {s.start for s in policy}
        own = [s for s in entries if s.start not in kept_out]
        why = "a policy for keeping lessons: every part read as one speaks of lessons or entries"
        if own:
            why += ", but those this tool wrote"
        kept = "how lessons are kept"
        reader.left_out.extend(Note(s.start, s.end, "policy", s.title, kept) for s in policy)
        return Reading("lessons" if own else "not-lessons", own, why, [], [], reader.left_out)
    if entries:
        return Reading("lessons", entries, why, [], reader.groups, reader.left_out)
    if _checklist(reader):
        return Reading(
            "not-lessons", [], "a checklist: its items are progress, not lessons", [], [], reader.left_out
        )
    if _about_itself(root):
        why = f"no lesson yet: the sections under {root.title!r} are about the log itself"
        return Reading("not-lessons", [], why, [], reader.groups, reader.left_out)
    if _unfilled(reader, root):
        why = "a scaffold: every section of it says nothing is recorded yet"
        return Reading("not-lessons", [], why, [], reader.groups, reader.left_out)
    if _substantial(reader, root) and not reader.pointer and not _template_only(reader, root):
        if _shapeless_collection(reader, root):
            return Reading("not-lessons", [], NONE_UNDER_LESSONS, [], reader.groups, reader.left_out)
        return reader.single(ONE_BODY)
    return Reading(
        "not-lessons", [], "nothing in the file reads as a lesson", [], reader.groups, reader.left_out
    )


KEEPING_PARTS = 4  # the fewest parts that all speak of lessons for a policy, not a coincidence


def _shapeless_collection(reader: Reader, root: Section) -> bool:
    """A file titled as lessons in the plural (``# Lessons Learned``) whose text takes no
    lesson's shape, not even once: no heading under the title, no table, no paragraph led in
    bold. Its prose and lists are its own (how entries are written, a template's fields): no
    lesson yet, and not one lesson. A lone row or bold-led paragraph under such a title is the
    one lesson it holds."""
    if root.heading is None or not vocabulary.names_many_lessons(root.title) or root.children:
        return False
    return not any(
        b.kind == "table" or (b.kind == "paragraph" and reader.lines[b.start].lstrip().startswith(_BOLD))
        for b in reader.blocks
    )


_BOLD = ("**", "__")


def _policy(reader: Reader, entries: list[Span]) -> list[Span]:
    """The parts of a policy for keeping lessons, read as lessons: four or more, every one speaking
    of lessons or entries (``Where a lesson belongs``, ``Lessons are stored in `.orqa/lessons/` ``).
    A lesson speaks of its subject. Lessons this tool wrote, and the marks and caveats it wrote
    into a target, count neither way, so that an edit leaves the reading as it was."""
    theirs = []
    for span in entries:
        if series.own_entry(reader, span):
            continue
        # the mark's links are passed over as this tool's own words; its caveat is left out here
        said = [line for line in reader.lines[span.start : span.end] if not CAVEAT.compiled.match(line)]
        if not recording.speaks_of_the_record(said):
            return []  # most files: their first lesson speaks of its subject
        theirs.append(span)
    return theirs if len(theirs) >= KEEPING_PARTS else []


def _about_itself(root: Section) -> bool:
    """A log titled as lessons whose every section is about the log (``## How to Use``) and
    holds no other: the file says how lessons will be kept, and keeps none yet."""
    return (
        root.heading is not None
        and bool(root.children)
        and vocabulary.names_many_lessons(root.title)
        and all(
            not c.children and (aside.is_meta(c.title) or recording.about_recording(c.title))
            for c in root.children
        )
    )


def _template_only(reader: Reader, root: Section) -> bool:
    """Instructions (paragraphs or a quote) and an entry template (``YYYY-MM-DD``, ``<title>``, a
    heading) in code or in an HTML comment: no lesson yet."""
    content = [b for b in root.body if b.kind not in ("html", "hr")]
    fences = [b for b in content if b.kind == "fence"]
    comments = [b for b in root.body if reader.comment(b)]
    if (
        not (fences or comments)
        or len(content) - len(fences) > 2
        or any(b.kind not in ("paragraph", "quote") for b in content if b.kind != "fence")
    ):
        return False
    return all(_template(reader, b) for b in fences) and (
        bool(fences) or any(_template(reader, b) for b in comments)
    )


def _template(reader: Reader, block: Block) -> bool:
    lines = reader.lines[block.start : block.end]
    return bool(TEMPLATE.compiled.search("\n".join(lines))) or any(
        _HEADING_LINE.match(line) for line in lines
    )


def _checklist(reader: Reader) -> bool:
    """Every list item is a checkbox or a done mark."""
    items = [b for b in reader.blocks if b.kind == "item"]
    return bool(items) and all(reader.is_tick(b) for b in items)


def _unfilled(reader: Reader, root: Section) -> bool:
    """Sections, every one of them left waiting for its entries (``### Reviewer`` over ``No
    patterns observed yet``, ``## Trends`` over ``- Most common blocker: N/A``): a scaffold
    not yet filled in, whatever stamp or counters sit above them."""
    empty = {note.start for note in reader.left_out if note.what == "empty"}
    leaves = [s for s in walk(root) if s is not root and not s.children]
    return bool(leaves) and all(s.start in empty for s in leaves)


def _substantial(reader: Reader, root: Section) -> bool:
    """Text enough to be one lesson, once the entries' form written out is set aside."""
    forms = [(note.start, note.end) for note in reader.left_out if note.what == "template"]

    def kept(n: int) -> bool:
        return not any(start <= n < end for start, end in forms)

    content = [b for b in reader.blocks if b.kind not in ("html", "hr", "heading") and kept(b.start)]
    # a comment or a rule is no text of the lesson (``<!-- lessons will be appended here -->``)
    aside = {n for b in reader.blocks if b.kind in ("html", "hr") for n in range(b.start, b.end)}
    written = (n for n in range(root.start, root.end) if reader.lines[n].strip() and n not in aside)
    lines = sum(1 for n in written if kept(n))
    # headings alone (``## Bug Template`` over empty ``### Symptom``, ``### Fix``) say nothing
    return bool(content) and (reader.matter is not None or len(content) >= 3 or lines >= 4)


# (name, rule), tried in order; the last always decides
FILE_RULES: tuple[tuple[str, FileRule], ...] = (
    ("pinned unit", _pinned_unit),
    ("pinned lessons section", _pinned_section),
    ("scoped to lessons kept elsewhere", _scoped_to_lessons),
    ("titled as something else", _titled_otherwise),
    ("one lesson with entry fields", _one_with_fields),
    ("titled as one lesson", _titled_one),
    ("a postmortem of one incident", _incident_review),
    ("a log showing its entry form in a template", _own_template),
    ("an empty log", _empty_log),
    ("a guide's lessons section", _lessons_section),
    ("a guide without lessons", _guide),
    ("a debugging method or how-to", _debugging_procedure),
    ("a record of progress with no section of lessons", _progress),
    ("an agent guide by its name", _named_guide),
    ("a lessons file read whole", _whole_file),
)


def read_file(reader: Reader, pin: Pin | None, name: str | None = None) -> Reading:
    """The reading the first file rule gives; ``name`` is the file's path, when known."""
    root, note = title_section(reader)
    frame = Frame(root, note, pin, name)
    if pin is not None and pin.sections:
        reader.section_pins = pinned.SectionPins(reader, pin)
    for _name, rule in FILE_RULES:
        found = rule(reader, frame)
        if found is not None:
            if reader.section_pins is not None:
                reader.section_pins.note_left_out(reader.tree, found.left_out)
            return found
    raise AssertionError("the last file rule always decides")
