"""The words that name a lesson's parts (``Problem``, ``Fix``, ``Symptom``, ``Attempt 2``), as
sub-headings and as bold or plain labels: a section or bullet so named is part of the lesson
around it, not a lesson of its own.

Rules as data, as in ``vocabulary``: adding a language or a part is a one-line change here.
"""

from __future__ import annotations

import re

from gotchas.pattern import LazyPattern
from gotchas.vocabulary import plain

# Names of a lesson's own parts: as sub-headings or bold/plain labels they are fields.
FIELD_WORDS = (
    "problem",
    "problems",
    "issue",
    "symptom",
    "symptoms",
    "cause",
    "causes",
    "root cause",
    "root causes",
    "why",
    "why it happens",
    "how to apply",
    "how to fix",
    "fix",
    "fixes",
    "solution",
    "solutions",
    "resolution",
    "workaround",
    "workarounds",
    "prevention",
    "context",
    "impact",
    "status",
    "tl;dr",
    "tldr",
    "summary",
    "background",
    "details",
    "example",
    "examples",
    "evidence",
    "notes",
    "note",
    "recommendation",
    "recommendations",
    "references",
    "takeaway",
    "takeaways",
    "rule",
    "rules",
    "lesson",
    "lesson learned",
    "what happened",
    "what to do",
    "attempt",
    "시도",
    "bug",
    "error",
    "observation",
    "action",
    "action taken",
    "follow-up",
    "category",
    "tasks",
    "root-cause",
    "diagnostic",
    "id",
    "see",
    "related",
    # a lesson told as what to do and what not to: ``**Do:**`` / ``**Don't:**``, ``Wrong approach:``
    *("do", "don't", "don’t", "do not", "wrong approach", "right approach", "correct approach"),
    # other languages
    "проблема",
    "причина",
    "решение",
    "контекст",
    "урок",
    "årsak",
    "rotårsak",
    "løsning",
    "fiks",
    "regel",
    # Finnish: problem, cause, root cause, symptom(s), solution, fix, impact, workaround, lesson
    *("ongelma", "syy", "juurisyy", "oire", "oireet", "ratkaisu", "korjaus", "vaikutus", "kiertotie"),
    "opetus",
    # Polish: fix, solution, cause, symptoms, lesson, conclusions
    *("poprawka", "rozwiązanie", "przyczyna", "objaw", "objawy", "lekcja", "wnioski"),
    "problème",
    "cause racine",
    "solución",
    "problema",
    "sintoma",
    "síntoma",
    # Portuguese and Spanish, their qualifier after the part: root cause, observed symptom,
    # proposed fix, an attempt at a fix, the decision taken
    *("causa raiz", "causa raíz", "sintoma observado", "síntoma observado", "fix proposto"),
    *("correção proposta", "solución propuesta", "tentativa", "tentativa de fix", "intento", "decisão"),
    "correção",
    "corrección",
    "solução",
    "belirti",
    "sebep",
    "kök neden",
    "çözüm",
    "etki",
    "causa",
    "ursache",
    "lösung",
    "现象",
    "根因",
    "原因",
    "解决",
    "解决方案",
    "正确做法",
    "症状",
    "対策",
    "解決策",
    "状态",
    "规避",
    # Japanese, Korean and Chinese names of the same parts
    *("現象", "根本原因", "回避策", "解決方法", "影響", "再現手順", "教訓", "背景", "現状", "理由"),
    *("문제", "증상", "원인", "근본 원인", "해결", "해결 방법", "해결책", "영향", "교훈"),
    *("재현 절차", "배경", "조치"),
    # Vietnamese: symptom, cause, solution, how to fix, lesson
    *("triệu chứng", "nguyên nhân", "giải pháp", "cách khắc phục", "bài học"),
    *("问题描述", "解决方法", "修复方案", "影响", "教训", "背景", "复现步骤", "根本原因", "预防措施", "现状"),
    # and in traditional characters: symptom, solution, how to solve, impact, lesson
    *("症狀", "解決", "解決方案", "解決方法", "影響", "教訓", "問題描述"),
)
FIELDS = frozenset(FIELD_WORDS)
# A bug report's parts, as sub-headings under one problem (``### Environment``, ``### Reproduction``);
# as a bold label opening a paragraph, ``**Environment.**`` may be a lesson's own title.
REPORT_PARTS = frozenset(
    (
        *("environment", "reproduction", "steps to reproduce", "description", "investigation"),
        *("expected behavior", "actual behavior", "what happens", "what's broken", "what is broken"),
        *("what broke", "what was wrong"),
        *("симптом", "симптомы", "причины", "решения"),
    )
)
# and the words that qualify a part's heading: ``### Proposed fix``, ``### Suggested Workarounds``
PART_QUALIFIERS = frozenset("recommended proposed suggested proper permanent immediate".split())
# A field named with a qualifier is that field: ``Key takeaway``, ``Suspected cause``.
QUALIFIERS = frozenset("key main suspected possible likely actual temporary".split())
# a cheap first test before the full one: a field heading starts with one of these words
FIELD_FIRST_WORDS = frozenset(
    [*(w.split()[0] for w in FIELD_WORDS), "the", "a", "an", "for", *QUALIFIERS, *PART_QUALIFIERS]
)


_LEADING_ARTICLE = LazyPattern(r"^(?:the|a|an|for)\s+")
_PARENTHESES = LazyPattern(r"\s*\(.*?\)\s*")
_NUMBERING = LazyPattern(r"^\s*(?:\d+(?:\.\d+)*[.):]?|[ivx]+\.)\s+", re.IGNORECASE)
_FIELD_SUFFIX = LazyPattern(r"(?:\s+(?:\d+|[a-z]))?\s*[:：.]?\s*$", re.IGNORECASE)

_CODE_PUNCTUATION = re.compile(r"`[^`]*[:：/][^`]*`")
# a symbol or two opening a heading (``🛠️ ``, ``✅ ``), before its first word
SYMBOL_LEAD = re.compile(r"^[^\w\s*_\[(`#]{1,4}\s+")


def field_base(label: str) -> str:
    """A label's text as written, less emphasis, numbering, an article and what follows a colon:
    ``**Root cause:**`` → ``root cause``; ``Solution 2: X`` → ``solution``. A colon or slash
    inside code (`` `animation-range: entry` mide… ``, `` `/ratings/summary` 404 ``) is the
    code's, not the label's end or a choice of two fields."""
    if "`" in label:
        label = _CODE_PUNCTUATION.sub(lambda span: re.sub(r"[:：/]", " ", span[0]), label)
    text = plain(label)
    if text[:1] and not text[:1].isalnum():
        text = SYMBOL_LEAD.sub("", text)  # ``🛠️ Fix``, ``✅ Solution``: the part's name
    text = _NUMBERING.compiled.sub("", text)
    text = text.split(":", 1)[0].split("：", 1)[0]
    text = _LEADING_ARTICLE.compiled.sub("", text)
    text = _PARENTHESES.compiled.sub(" ", text).strip()
    return _FIELD_SUFFIX.compiled.sub("", text).strip()


# ``Root cause analysis`` and ``Problem / Symptom`` name fields too; in Chinese or Japanese the
# field word ends the name (``怀疑原因``: suspected cause), the longest word tried first.
_CJK_FIELDS = tuple(sorted((w for w in FIELDS if not w.isascii() and len(w) >= 2), key=len, reverse=True))


def field_of(base: str) -> str:
    """The field a label's ``field_base`` names, qualified or not; itself when it names none."""
    if base in FIELDS:
        return base
    if "/" in base and all(len(part.split()) <= 3 for part in base.split("/")):
        for part in base.split("/"):  # ``Problem / Symptom``; not a sentence naming `a/b/category`
            if part.strip() in FIELDS:
                return part.strip()
    words = base.split()
    if len(words) >= 2:
        if words[0] in QUALIFIERS and " ".join(words[1:]) in FIELDS:
            return " ".join(words[1:])
        if words[-1] in _DONE and " ".join(words[:-1]) in FIELDS:
            return " ".join(words[:-1])  # ``Root cause analysis``, ``Fix applied``
    if not base.isascii() and len(words) == 1:
        for word in _CJK_FIELDS:
            if base.endswith(word) and len(base) <= len(word) + 3:
                return word
    return base


# a word after a part's name that says what was done with it: still that part
_DONE = frozenset(("analysis", "applied", "implemented"))

_PART_JOINS = LazyPattern(r"\s*(?:/|&|,|\band\b|\+)\s*")


def is_part(words: str) -> bool:
    """Words (a label's ``field_base``) that name a lesson's part, qualified or not."""
    return field_of(words) in FIELDS


def names_part(text: str) -> bool:
    """A label naming a lesson's part, or parts joined (``Evidence and fix``, ``Cause / fix``)."""
    base = field_base(text)
    return is_part(base) or any(is_part(piece) for piece in _PART_JOINS.compiled.split(base) if piece)


def field_name(label: str) -> str:
    """A field label's normal form: ``**Root cause analysis:**`` → ``root cause``."""
    return field_of(field_base(label))


def may_open_field(word: str) -> bool:
    """A cheap first test of a heading's first word, before the full one: a field's first word,
    or a Chinese or Japanese word ending in one."""
    return word in FIELD_FIRST_WORDS or (not word.isascii() and field_of(word) in FIELDS)


def names_report_part(title: str) -> bool:
    """``Environment``, ``Steps to reproduce``: a part of a problem told as a bug report."""
    return plain(title).strip(" :：.") in REPORT_PARTS


_OPENING_PARTS = frozenset(
    (
        *("symptom", "symptoms", "problem", "description", "what happened", "what happens"),
        *("what's broken", "what is broken", "what broke", "what was wrong", "what went wrong"),
        *("issue", "the issue", "bug", "症状", "现象"),
        *("belirti", "sintoma", "síntoma", "problema", "проблема"),
    )
)


def opens_report(title: str) -> bool:
    """``Symptom``, ``Problem``: the part a problem's story opens with, whatever follows it."""
    return plain(title).strip(" :：.") in _OPENING_PARTS
