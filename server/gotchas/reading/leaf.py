"""A leaf's role: is a heading over units (bullets, paragraphs, rows) their group, or one lesson
whose units are its facts?

The title's evidence (``titles``) and the body's shape are summed; 1.5 or more reads as a group.
``sections`` reads every leaf so. ``siblings`` asks again for a leaf this tool has marked a red
herring: the mark makes it one lesson, but its siblings must weigh it as it read before the
mark, or a correction would change how they read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas import parts, vocabulary
from gotchas.blockmap import Block
from gotchas.reading.model import Span
from gotchas.reading.state import State
from gotchas.reading.text import (
    CONTINUES,
    ID_LEAD,
    MARK,
    NUMBERED_TITLE,
    item_text,
    lead_label,
    opens_bold_sentence,
)
from gotchas.reading.titles import title_evidence
from gotchas.reading.tree import Section
from gotchas.reading.units import lesson_items, plural, unit_spans
from gotchas.table import has_id_column

GROUP = 1.5  # the evidence from which a leaf reads as a group of its units
# a part of the file numbered as a document's parts are, not as its lessons: a Chinese numeral
# before an enumeration comma (``三、后端与安全``), a capital letter before a stop (``B. Vast
# lifecycle``); the lessons inside are numbered with digits, if at all. Weighed here, over a
# leaf's units, not among the title rules: a title's evidence also decides whether a lone
# heading among groups is a group of its first paragraph, and a part's number says nothing there
_PART_NUMBER = re.compile(r"^(?:[一二三四五六七八九十]{1,3}、|[A-H][.)]\s)")
_NESTED = re.compile(r"^\s+(?:[-*+]|\d+[.)])\s")  # a bullet of a list nested in a bullet
_COUNTED_ROWS = 3  # rows at least that a number or id can make a catalogue of
TOLD_WORDS = 20  # the mean length of units that each tell a lesson, not one lesson's facts


# a paragraph's bold lead-in that is a sentence, ended by its stop inside the bold, however many
# lines it is wrapped over (``**Scope a vendor rule to that vendor.** …``)
_BOLD_CLAIM = re.compile(r"^\s*(?:\*\*([^*]+?)\*\*|__([^_]+?)__)")
_STOPS = (".", "。", "!", "！", "?", "？")


def _states_in_bold(state: State, unit: Span) -> bool:
    """A paragraph that opens with a whole sentence in bold: a lesson's claim, not a label."""
    found = _BOLD_CLAIM.match(" ".join(state.lines[unit.start : min(unit.end, unit.start + 4)]))
    if found is None:
        return False
    claim = (found[1] or found[2]).strip()
    return claim.endswith(_STOPS) and vocabulary.words(claim) >= 3


def names_field(state: State, block: Block) -> bool:
    """An item led by a lesson's own field name (``- Fix: …``, ``- **Cause:** …``), not merely
    by a label that recurs."""
    found = lead_label(state.first_text(block))
    return found is not None and found[1] and found[0] in parts.FIELDS and state.is_field_item(block)


def leaf_evidence(
    state: State, section: Section, body: Sequence[Block], units: Sequence[Span]
) -> tuple[float, list[str]]:
    """How much a leaf over ``units`` (at least one) reads as their group rather than as one
    lesson, and why."""
    score, reasons = title_evidence(section.title)
    if _PART_NUMBER.match(section.title.lstrip(" *_")):
        score += 1.0
        reasons.append("its title numbers a part of the file (三、, B.), not a lesson")
    kind = units[0].kind
    if len(units) >= 2 and vocabulary.names_checklist(section.title):
        score -= 2.0
        reasons.append("its title names a checklist: its units are steps to take each time, not lessons")
    if kind != "item":
        reasons.append(f"its body is {len(units)} {plural(kind)}")
        stated = sum(_states_in_bold(state, unit) for unit in units) if kind == "paragraph" else 0
        if len(units) >= 2 and stated * 3 >= len(units) * 2:
            score += 1.5
            reasons.append("its paragraphs open with bold sentences, each a lesson's claim")
        # ``## 5. Pitfalls`` over ``| 1 | … |`` to ``| 31 | … |``: rows counted or given ids
        # (``INC-001``) are a catalogue's, each cited by its own; a lesson's table is not counted
        rows = [state.lines[s.start] for s in units] if kind == "row" else []
        if len(rows) >= _COUNTED_ROWS and has_id_column(rows):
            score += 1.5
            reasons.append("each of its rows carries a number or id of its own, as a catalogue's lessons do")
        return score + 1.0, reasons
    _, others = lesson_items(state, body)
    starts = {s.start for s in units}
    lists = {b.list_id for b in body if b.kind == "item" and b.start in starts}
    if any(b.kind == "item" and b.list_id in lists and names_field(state, b) for b in body):
        score -= 2.0
        reasons.append("its bullets are one lesson's facts beside its fields (Fix: …)")
    if others:
        score -= 1.0
        reasons.append("its list follows or precedes prose of its own")
    elif len(units) >= 2:
        score += 1.0
        reasons.append(f"its body is only a list of {len(units)} lessons")
        told = _mean_words(state, units)
        if told >= TOLD_WORDS and not NUMBERED_TITLE.match(vocabulary.plain(section.title)):
            score += 1.0
            reasons.append(f"its bullets run {told:.0f} words each: each tells a lesson")
    else:
        score += 0.5
        reasons.append("its body is one lesson bullet")
    texts = [item_text(state.lines[s.start]) for s in units]  # each bullet's text, read once
    # a successor this tool wrote among them need not carry one (its fields name it)
    pairs = zip(units, texts, strict=True)
    theirs = [text for s, text in pairs if not state.writes_own(Block("item", s.start, s.end))]
    ided = sum(1 for text in theirs if ID_LEAD.match(text))
    if len(theirs) >= 2 and ided == len(theirs):
        score += 1.5
        reasons.append("each of its bullets carries an id of its own (PITFALL-001, L-007), as lessons do")
    if len(units) >= 2 and (
        vocabulary.names_many_lessons(section.title) or vocabulary.names_anti_patterns_only(section.title)
    ):
        score += 2.0
        reasons.append("its title names lessons in the plural over a list of them")
    if len(units) >= 2 and vocabulary.names_open_questions(section.title):
        score += 2.0
        reasons.append("its title names open questions over a list of them: each an issue still open")
    if len(units) >= 3 and vocabulary.names_procedure(section.title, texts):
        score -= 2.0
        reasons.append("its bullets are steps to take (Check …, Verify …): one problem's procedure")
    # a problem is told in a few words (``## Offline screen shows``); one word names a category
    if (
        len(units) <= _FEW
        and others == []
        and vocabulary.words(section.title) >= 2
        and _of_problems(state)
        and _notes(state, units)
    ):
        score -= 2.0
        reasons.append("a problem in a troubleshooting file: its few short bullets are what to check or know")
    if len(units) >= 2 and any(CONTINUES.match(text) for text in texts[1:]):
        score -= 1.5
        reasons.append("a bullet continues the one before it (Otherwise …, Without it …): one lesson's facts")
    stated = sum(opens_bold_sentence(text) for text in texts)
    if len(units) >= 3 and stated * 3 >= len(units) * 2:
        score += 1.5
        reasons.append("its bullets open with bold sentences, as lessons do")
    return score, reasons


_FEW = 4  # bullets at most under a problem that are its notes, not problems of their own
_SHORT = 15  # words a bullet at most, on average, to be a note or a step


def _notes(state: State, units: Sequence[Span]) -> bool:
    """Plain short bullets, a line or two each: notes or steps, not problems named in bold or
    told with details of their own (``1. **Bundle >500KB:** …`` over its sub-bullets)."""
    for unit in units:
        text = item_text(state.lines[unit.start])
        lines = [line for line in state.lines[unit.start : unit.end] if line.strip(" -*_\t")]
        if text.startswith(("**", "__")) or len(lines) > 2:
            return False
    return _mean_words(state, units) < _SHORT


def _of_problems(state: State) -> bool:
    """A file titled as troubleshooting (``# Troubleshooting``, ``# 故障排除``): its sections are
    problems, each over what to check or know about it. In a file of known issues short bullets
    under a heading are issues of their own."""
    tops = [s for s in state.tree.children if s.heading is not None]
    return bool(tops) and tops[0].level == 1 and vocabulary.names_problem_file(tops[0].title)


def _mean_words(state: State, units: Sequence[Span]) -> float:
    """The mean length of the units in words; characters of scripts written without spaces
    count half a word each, as titles' words do."""
    total = 0
    for unit in units:
        for n in range(unit.start, unit.end):
            line = state.lines[n]
            if n > unit.start and _NESTED.match(line):
                break  # a nested list: the bullet's own details, not its telling
            # most lines have no character of a script written without spaces: split them alone
            plain = line.isascii() or max(line) < "\u3040"
            total += len(line.split()) if plain else vocabulary.words(line)
    return total / len(units)


def marked(state: State, section: Section) -> bool:
    """A leaf this tool marked a red herring: a paragraph of its own opens with the mark."""
    return any(b.kind == "paragraph" and MARK.compiled.match(state.lines[b.start]) for b in section.body)


def unmarked_units(state: State, section: Section) -> list[Span]:
    """The units a marked leaf grouped before its mark, from its own content; none when it
    was one lesson then."""
    content = state.own_content(section)
    state.item_titles = False  # as a leaf weighs its units, untitled
    try:
        units = unit_spans(state, section, content, section.end, "") or []
    finally:
        state.item_titles = True
    grouped = bool(units) and leaf_evidence(state, section, content, units)[0] >= GROUP
    return units if grouped else []


def unmarked_role(state: State, section: Section) -> str:
    """``group`` or ``lesson``: how a marked leaf read before its mark."""
    return "group" if unmarked_units(state, section) else "lesson"
