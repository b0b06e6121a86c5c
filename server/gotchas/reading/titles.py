"""Title rules, registered as data: evidence that a heading names a group of lessons (+)
or one lesson (-). Summed by ``title_evidence``; a new rule is one row of ``TITLE_RULES``."""

from __future__ import annotations

import re
from collections.abc import Callable

from gotchas import vocabulary
from gotchas.reading.text import CLAUSE, CODE_SPAN, DATE, DISCOVERED, NUMBERED_TITLE, TICKET, words

TitleRule = tuple[str, Callable[[str], bool], float]

_ASIDE = re.compile(r"\s*[(（][^()（）]*[)）]")


def _aside_out(title: str) -> str:
    """A title without its asides (``Seed lessons (from the corpus — verified)``): they
    qualify the title, they do not make it a sentence or a claim."""
    return _ASIDE.sub("", title) if "(" in title or "（" in title else title


def _names_lessons(title: str) -> bool:
    """Titled as lessons, not as one (``教訓 #1: …``, ``Lesson 3 — …``: numbered, or a claim)."""
    if not vocabulary.names_lessons(title) or vocabulary.names_one_lesson(title):
        return False
    bare = vocabulary.plain(_aside_out(title))
    return not (NUMBERED_TITLE.match(bare) or CLAUSE.search(bare) or _ORDINAL.search(bare))


_ORDINAL = re.compile(r"#\s?\d|\b(?:no\.?|nr\.?)\s?\d|第.{1,3}[条個个]|\d+\s*[:：.]")


TITLE_RULES: tuple[TitleRule, ...] = (
    ("is numbered or carries an id", lambda t: bool(NUMBERED_TITLE.match(vocabulary.plain(t))), -1.0),
    ("carries a ticket id", lambda t: bool(TICKET.search(t)), -1.0),
    ("quotes code", lambda t: bool(CODE_SPAN.search(t)), -1.0),
    ("reads as a sentence (over seven words)", lambda t: words(_aside_out(t)) > 7, -1.0),
    (
        "states a claim after a colon or dash",
        lambda t: bool(CLAUSE.search(vocabulary.plain(_aside_out(t)))),
        -1.0,
    ),
    ("records when it was found", lambda t: bool(DISCOVERED.search(t)), -1.0),
    ("carries a status mark", lambda t: "~~" in t or "✅" in t or "❌" in t, -1.0),
    (
        "reads as a category (a short name)",
        lambda t: words(t) <= 5 and not CODE_SPAN.search(t) and not t.rstrip().endswith((".", "!", "?")),
        1.0,
    ),
    ("reads as a date group", lambda t: bool(DATE.search(t)) and words(DATE.sub("", t)) <= 3, 1.0),
    ("names a phase, sprint, release or period", vocabulary.names_period, 1.0),
    ("names lessons (``Seed lessons``, ``Known issues``)", _names_lessons, 2.0),
)


def title_evidence(title: str) -> tuple[float, list[str]]:
    score = 0.0
    reasons = []
    for reason, test, weight in TITLE_RULES:
        if test(title):
            score += weight
            reasons.append(reason)
    return score, reasons
