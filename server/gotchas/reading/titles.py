"""Title rules, registered as data: evidence that a heading names a group of lessons (+)
or one lesson (-). Summed by ``title_evidence``; a new rule is one row of ``TITLE_RULES``."""

from __future__ import annotations

import re
from collections.abc import Callable

from gotchas import vocabulary
from gotchas.pattern import LazyPattern
from gotchas.reading.text import CLAUSE, CODE_SPAN, DATE, DISCOVERED, NUMBERED_TITLE, TICKET
from gotchas.vocabulary import words

TitleRule = tuple[str, Callable[[str], bool], float]

# in either script's parentheses; searched from a bracket (a pattern opening with ``\s*`` would be
# tried at every character), the spaces before it stripped after
_ASIDE = re.compile(r"(?:\([^()]*\)|（[^（）]*）)\s*$")


def _core(title: str) -> str:
    """A title less an aside in parentheses at its end (``Enforcement gaps (from the April
    review — 2026)``): a remark on the section, not what it is, so the aside alone makes no
    sentence or claim of it. Only the evidence against a group is judged without it: a short
    name before an aside may still state one lesson."""
    found = _ASIDE.search(title) if title.rstrip().endswith((")", "）")) else None
    core = title[: found.start()].rstrip() if found is not None else title
    return core or title


# a symptom met (``White screen after activating a plugin``, ``Terminal verbindet nicht``,
# ``LuaHelper 不提示``): one problem, its bullets what to check or do about it. Narrower than the
# words ``vocabulary.names_trouble`` takes for trouble: ``missing``, ``failures`` and ``not found``
# name categories of lessons as often as one symptom (measured: five files read worse with them)
# Three searches, not one: an alternation mixing words after ``\b`` with words in other scripts
# tries every alternative at every character; apart, each script's words are found fast.
_SYMPTOM_WORDS = (
    r"\b(?:(?:not\s+(?:working|showing|loading|found|starting|updating|connecting|displaying|appearing|"
    r"firing|triggering|saving)|fails?|failing|empty|slow|broken|crash(?:es|ing)?|blank|white\s+screen|"
    r"doesn'?t|won'?t|can'?t|cannot|out\s+of\s+sync|hangs?|times\s+out|stuck|freezes?|unavailable|refused)\b|"
    r"(?:verbindet|funktioniert|startet|lädt)\s+nicht\b|no\s+funciona\b)"
)
_SYMPTOM = (  # compiled for the first title outside ASCII
    LazyPattern(_SYMPTOM_WORDS, re.IGNORECASE),
    LazyPattern(r"не\s+работает", re.IGNORECASE),
    LazyPattern(r"不(?:提示|显示|工作|生效)|无法|失败|报错"),
)
# An ASCII title holds none of the other scripts' words, and is searched lower-cased: the same
# match as ``IGNORECASE`` gives in ASCII, found three times as fast.
_ASCII_SYMPTOM = re.compile(_SYMPTOM_WORDS)


# a message quoted as it was seen (``"Channel Not Found" Errors``, ``1.1 “Debug Failure. Output generation
# failed”``): the one problem it names
# (opening the title, after its number: a quoted name inside a title, ``the "image frame"``, names no message)
_QUOTED = re.compile(
    r"^[^\w\"“「『]*(?:\d+(?:\.\d+)*[.)]?\s+)?[\"“「『]"
    r"[^\"“”「」『』]{1,200}?\s[^\"“”「」『』]{0,200}[\"”」』]"  # two words at least, quoted
)


def _quotes_message(title: str) -> bool:
    """A title opening on a quoted message of two words or more."""
    return _QUOTED.match(title) is not None


# a kind of thing named by what it does (``Tests that fail today``, ``Sharing what doesn't scale``,
# ``What Failed``): a category, not one symptom
_RELATIVE = re.compile(r"\b(?:that|which|what|who)\b", re.IGNORECASE)


def _names_symptom(title: str) -> bool:
    """A symptom met (``Terminal verbindet nicht``), not a kind of thing that shows one."""
    if title.isascii():
        found = _ASCII_SYMPTOM.search(title.lower()) is not None
    else:
        found = any(symptom.compiled.search(title) for symptom in _SYMPTOM)
    return found and _RELATIVE.search(title) is None


# what a clause after a colon or dash is told by: a title holding none of these (most) states none
_CLAUSE_MARK = re.compile(r"[—–:：-]")


def _states_clause(title: str) -> bool:
    """A claim after a colon or dash (``Redis: keys expire early``), the aside left out. After a
    period's or a part's name (``Phase 1 — site skeleton``, ``Section 2: Containers``) the
    clause names what that stretch was about, not a claim."""
    if _CLAUSE_MARK.search(title) is None or vocabulary.names_period_by_word(title):
        return False
    return CLAUSE.search(vocabulary.plain(_core(title))) is not None


def _numbered(title: str) -> bool:
    """A number or id opening the title (``3. …``, ``L-012``), not a period's own number (``Phase 2:
    Setup``, ``Week 1``): that numbers when the lessons under it were learned, not a lesson."""
    plain = vocabulary.plain(title)
    return bool(NUMBERED_TITLE.match(plain)) and not vocabulary.names_period_by_word(title)


# a Korean title ending on an instruction, a ban or a warning (``… 넣지 마라``, ``… import 금지``,
# ``anon key 형식 주의``, ``… 연결 불가``): one lesson's rule, however few its words
_KOREAN_RULE = re.compile(r"(?:마라|하라|[아어여]라|금지|주의|불가|[말할]\s*것)\W*$")


def _korean_rule(title: str) -> bool:
    """Whether a Korean title ends on an instruction, a ban or a warning."""
    if title.isascii():
        return False
    return _KOREAN_RULE.search(_core(title)) is not None


def _dated(title: str) -> bool:
    """A date and three words at most (``2026-02-07``, ``2026-02-07 session``)."""
    return DATE.search(title) is not None and words(DATE.sub("", title)) <= 3


TITLE_RULES: tuple[TitleRule, ...] = (
    ("is numbered or carries an id", _numbered, -1.0),
    ("carries a ticket id", lambda t: bool(TICKET.search(t)), -1.0),
    ("quotes code", lambda t: bool(CODE_SPAN.search(t)), -1.0),
    ("reads as a sentence (over seven words)", lambda t: words(_core(t)) > 7, -1.0),
    ("states a claim after a colon or dash", _states_clause, -1.0),
    ("records when it was found", lambda t: bool(DISCOVERED.search(t)), -1.0),
    ("carries a status mark", lambda t: "~~" in t or "✅" in t or "❌" in t, -1.0),
    (
        "reads as a category (a short name)",
        lambda t: words(t) <= 5 and not CODE_SPAN.search(t) and not t.rstrip().endswith((".", "!", "?")),
        1.0,
    ),
    ("reads as a date group", _dated, 1.0),
    ("names a symptom met", _names_symptom, -1.0),
    ("gives an instruction, a ban or a warning (… 마라, … 금지, … 주의)", _korean_rule, -1.0),
    ("quotes a message seen", _quotes_message, -1.0),
    ("names a period or a numbered part (Sprint 3, Section 2)", vocabulary.names_period, 1.0),
)


def names_date_alone(title: str) -> bool:
    """A title that is a date and nothing more (``## 2026-06-27``): a day's lessons."""
    return DATE.search(title) is not None and words(DATE.sub("", title)) == 0


def names_symptom(title: str) -> bool:
    """A symptom met (``Cache Not Working``, ``Build is Slow``), its aside aside: ``Critical
    Issues (Will Fail Automated Tests)`` names a category of them."""
    return _names_symptom(_core(title))


def reads_as_date_group(title: str) -> bool:
    """A title that is a date or a period, little more (``## 2026-02-07``, ``## Week 3``)."""
    return _dated(title) or vocabulary.names_period(title)


def title_evidence(title: str) -> tuple[float, list[str]]:
    score = 0.0
    reasons = []
    for reason, test, weight in TITLE_RULES:
        if test(title):
            score += weight
            reasons.append(reason)
    return score, reasons
