"""Words about keeping the record itself: how lessons are to be recorded (a policy), a
section on the format or on when to record, a placeholder where lessons will go, and a line
asking the reader to add one. Such text names lessons without holding any.

Rules as data, as in ``vocabulary``: a language is a line in a pattern below.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from gotchas.aside import is_meta
from gotchas.pattern import LazyPattern
from gotchas.vocabulary import bare_title, plain, words

_HOW_TO_RECORD = re.compile(
    r"^(?:how\s+(?:to|we)\s+)?(?:record|recording|add|adding|write|writing|capture|capturing|log|logging|"
    r"maintain|maintaining|keep|keeping)\s+(?:new\s+|the\s+)?(?:lessons?(?:\s+learned)?|gotchas?|"
    r"learnings?|entries|pitfalls?)\b",
    re.IGNORECASE,
)


# the same in other languages (``教訓の記録``, ``记录经验教训``): as often a log's own name, so it
# counts only beside sections about the record (its format, when to record)
_HOW_TO_RECORD_CJK = re.compile(
    r"^(?:(?:教訓|学び|知見|教训|经验教训|교훈)(?:の|を|的)?\s*(?:記録|记录|기록)|(?:记录|記録)(?:经验)?(?:教训|教訓))"
    r"(?:の?(?:方法|ルール|運用)|规则|方法|규칙)?$"
)
# a section about recording itself: when to record, what triggers an entry
_RECORDING = re.compile(
    r"^(?:when\s+to\s+(?:record|log|write)|what\s+to\s+record|triggers?)\b|記録する(?:トリガー|タイミング|もの)|"
    r"記録しない|フォーマット|记录(?:时机|格式|触发)|^yyyy-mm-dd\b|"
    # a policy's own sections: when to check or write lessons, where they live, their schema
    r"^(?:when|how)\s+to\s+(?:check|write|add|capture|consult|read|review|update)\s+(?:\w+\s+){0,2}"
    r"(?:lessons?|entr(?:y|ies)|gotchas?|learnings?)\b|"
    r"^where\s+(?:the\s+)?(?:lessons?|entries|gotchas?|learnings?)\s+(?:live|go|are\s+kept)\b|"
    r"^(?:capturing|recording|consulting|adding|writing|checking)\s+(?:an?\s+|new\s+|existing\s+)?"
    r"(?:lessons?|entr(?:y|ies)|gotchas?|learnings?)\b|"
    r"^(?:the\s+)?(?:fixed\s+)?(?:lesson|entry)\s+(?:schema|format|template)\b|^cross-?references?$|"
    r"いつ記録|何を記録|参照タイミング|记录什么|何时记录|"
    # the log's own rules for recording (``## 記録ルール``, ``## Recording rules``), as in Korean below
    r"^(?:recording|logging)\s+rules$|^記録(?:ルール|方法|の仕方)$|^记录(?:规则|方法)$|"
    # and in Korean: what is recorded and what is not, when, in what form
    r"^기록\s*(?:대상|시점|형식|방법|규칙)|기록하지\s*않는|언제\s*기록|무엇을\s*기록",
    re.IGNORECASE,
)


def names_how_to_record(title: str) -> bool:
    """``Recording lessons``, ``How to add gotchas``: a rule about the record, holding none."""
    return bool(_HOW_TO_RECORD.match(plain(title).strip()))


def may_name_how_to_record(title: str) -> bool:
    """``教訓の記録``: how lessons are recorded, or the record's own name."""
    return bool(_HOW_TO_RECORD_CJK.match(plain(title).strip()))


def about_recording(title: str) -> bool:
    """A section on the record itself: its format or template, or when an entry is due."""
    return is_meta(title) or bool(_RECORDING.search(bare_title(title)))


# A body that only says lessons will come (``- TBD``, ``- Review after using the project…``).
_PLACEHOLDER = LazyPattern(
    r"^(?:(?:tbd|todo|\(?(?:none|nothing)(?:\s+(?:yet|currently|so\s+far|known|reported))?\)?|n/?a)\W*$|"
    r"(?:to\s+be\s+(?:added|filled|discovered)|review\s+after|fill\s+in|"
    # ``None currently. Ordinary work remains.``, ``Nothing currently open — see below.``,
    # ``None at this time.``, ``None identified yet, as the project is in early development``
    r"(?:none|nothing)\s+(?:(?:identified|found|known|reported|recorded|observed)\s+)?"
    r"(?:currently|yet|so\s+far|right\s+now|for\s+now|at\s+th(?:is|e)\s+(?:time|moment))"
    r"(?:\s+(?:open|known|pending|outstanding))?\s*(?:[.;:,—–]|$)|"
    # or the time first: ``None currently identified``, ``Nothing yet reported.``
    r"(?:none|nothing)\s+(?:currently|yet|so\s+far)\s+(?:identified|found|known|reported|recorded|observed)"
    r"\s*(?:[.;:,—–]|$)|"
    r"add\s+(?:entries|lessons|gotchas|quirks)\s+(?:here|as)|"
    # ``No lessons recorded yet``; ``No critical issues at this time``, ``No regressions detected``
    r"no\s+(?:(?:known|open|critical|high|medium|low|major|minor|priority)\s+){0,2}"
    r"(?:lessons|entries|gotchas|pitfalls|issues|mistakes|items|bugs|regressions|problems|blockers|patterns|projects)"
    r"(?:\s+(?:recorded|logged|captured|added|observed|completed))?\s+(?:yet|at\s+th(?:is|e)\s+(?:time|moment)|detected)|"
    # ``There aren't any at the moment``, ``There are none yet``
    r"there\s+(?:aren'?t|are\s+no|is\s+no|isn'?t)\s*(?:any|none|one|(?:known\s+)?(?:issues|lessons|entries|"
    r"problems|bugs|gotchas))?\s*(?:yet|currently|so\s+far|"
    r"at\s+the\s+moment|for\s+now)\W*$|there\s+are\s+none(?:\s+(?:yet|so\s+far|at\s+the\s+moment))?\W*$)(?!\w))",
    re.IGNORECASE,
)


# the words a placeholder opens with: a cheap test before the pattern, met by few texts
_PLACEHOLDER_FIRST = frozenset("tbd tbd. todo none n/a na nothing to review fill add no there".split())


# the same in other scripts and languages: ``当前为空。``, ``暂无``, ``まだありません``, ``아직 없음``,
# ``Пока нет``, ``Noch keine Einträge``
_PLACEHOLDER_ELSEWHERE = LazyPattern(
    r"^(?:当前为空|目前为空|暂无|尚无|还没有|まだ(?:ありません|ない|なし)|現在なし|아직\s*없|"
    # in traditional characters, and ``目前無其他已知問題`` (no other known issue for now)
    r"目前(?:為空|無|无|沒有|没有)|暫無|尚無|還沒有|"
    r"пока\s+(?:нет|пусто)|noch\s+keine\b|aucune?\s+(?:entrée|leçon)s?\s+pour\s+l'instant)",
    re.IGNORECASE,
)


def is_placeholder(text: str) -> bool:
    """A bullet or paragraph that only says lessons will come (``- TBD``, ``(No lessons yet.)``)."""
    if not text.isascii() and _PLACEHOLDER_ELSEWHERE.compiled.match(plain(text).lstrip(" _*(（")):
        return True
    head = text.lstrip(" _*(").split(None, 1)
    if not head or head[0].lower().rstrip(".:)") not in _PLACEHOLDER_FIRST:
        return False
    return bool(_PLACEHOLDER.compiled.match(plain(text).strip(" _*.(")))


# an instruction to add entries to this file: ``After every correction: add one line here.``,
# ``добавить урок сюда``, ``ここに追記``, ``在此追加``; it names what is recorded
_ASKS_TO_RECORD = LazyPattern(
    r"\b(?:add|append|record|log|document|update)\b[^.\n]{0,50}?\b(?:here|this\s+file)\b|"
    # or to the file kept for them: ``add learnings to .kiro/steering/learnings.md``
    r"\b(?:add|append|record|log)\s+(?:\w+\s+){0,2}?(?:lessons?|learnings?|gotchas?|mistakes?)\s+(?:to|in)\s+"
    r"\S{0,80}?(?:lessons?|learnings?|gotchas|mistakes|pitfalls)[\w-]*\.mdc?\b|"
    r"\b(?:add|append)\s+(?:\w+\s+){0,3}?(?:entr(?:y|ies)|lessons?|gotchas?|learnings?|mistakes?|pitfalls?)\s+"
    r"(?:\w+\s+){0,2}?(?:above|below)\b|"
    r"добав\w*[^.\n]{0,40}?сюда|сюда[^.\n]{0,20}?добав|ここに(?:追記|追加)|在此(?:追加|添加|记录)",
    re.IGNORECASE,
)
_RECORDED = LazyPattern(
    r"\b(?:mistakes?|corrections?|lessons?|learnings?|gotchas?|pitfalls?|problems?|bugs?|issues?|"
    r"entry|entries|line|patterns?|fix(?:es)?|reverts?)\b|ошибк|урок|問題|教訓|ミス|问题|教训|错误|踩坑",
    re.IGNORECASE,
)


_RECORD_HINTS = ("here", "this file", "above", "below", ".md", "сюда", "ここに", "在此")


def asks_to_record(text: str) -> bool:
    """A short text telling the reader to add lessons to this file: a note on the file, never a
    lesson. It names what is recorded and quotes no code: a lesson telling where code goes
    (``add the prefix here in `.env` ``) stays a lesson."""
    if len(text) > 300 or "`" in text:
        return False
    lowered = text.lower()  # most texts name none of these: the patterns are not tried
    for hint in _RECORD_HINTS:  # a loop of ``in``: ``any(map(lowered.__contains__, …))`` is slower
        if hint in lowered:
            break
    else:
        return False
    said = plain(text)
    return bool(_ASKS_TO_RECORD.compiled.search(said)) and bool(_RECORDED.compiled.search(said))


# the record's own units named in its text: a policy for keeping lessons speaks of them in every
# section (``Lessons are stored in `.orqa/lessons/` ``, ``When to write an entry``); a lesson
# speaks of its subject, and names a lesson at most in the label it opens with (``**Lesson:**``)
# (not an entry's own number or id, ``Lesson 12``, ``LESSON-004``: that names one entry, it does
# not speak of lessons; a tag going on in words, ``lesson-02-props``, names a lesson taught)
_RECORD_WORDS = LazyPattern(
    r"\b(?:lessons?|entr(?:y|ies)|learnings?)\b(?!\s+#?\d|[-_]\d+(?![\w-]))", re.IGNORECASE
)
# the links this tool writes name entries by id (``supersedes: lesson-0-title (for #7)``)
_OWN_LINKS = LazyPattern(r"\b(?:supersedes|superseded-by|red-herring-for)\s*:[^|·\n]*", re.IGNORECASE)
_OPENING_LABEL = LazyPattern(
    r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d{1,3}[.)]\s+)?(?:\[[^\]\n]{0,40}\]\s*)?(?:\*\*|__)?"
    r"[^\s:*_]{1,20}(?: [^\s:*_]{1,20}){0,2}(?:\*\*|__)?\s*[:：]"  # a label of three words at most
)


# a line that is only a lesson's field label in bold (``**Lesson**``, ``**Lessons learned:**``):
# the name of a part every lesson has, not talk of lessons
_LABEL_LINE = LazyPattern(r"^\s*(?:\*\*|__)[^\s*_][^*_\n]{0,40}(?:\*\*|__)\s*[:：]?\s*$")


def _is_label_line(line: str) -> bool:
    """``**Lesson**``, ``__Lessons learned:__``, ``### Lesson``: a bold label or a heading of three
    words at most, alone."""
    head = line.lstrip()[:2]
    if head == "##" or (head[:1] == "#" and head[1:] in (" ", "\t")):
        return words(line.lstrip("# \t")) <= 3
    return head in ("**", "__") and bool(_LABEL_LINE.compiled.match(line)) and words(line) <= 3


def speaks_of_the_record(lines: Sequence[str]) -> bool:
    """Whether ``lines`` name lessons, entries or learnings beyond the label a line opens with
    or is."""
    for written in lines:
        if _is_label_line(written):
            continue
        line = _OWN_LINKS.compiled.sub(" ", written) if ":" in written else written
        label = _OPENING_LABEL.compiled.match(line)
        said = line[label.end() :] if label is not None and _RECORD_WORDS.compiled.search(label[0]) else line
        if _RECORD_WORDS.compiled.search(said):
            return True
    return False


# a comment saying where new entries go: a verb of adding, then above or below this line (or
# at a sentence's end), or here (``<!-- Add new lessons above this line -->``, ``<!-- New
# entries are appended below this line -->``, ``<!-- Add new gotchas here -->``)
_ASKS_PLACE = LazyPattern(
    r"\b(?:add|adds|added|adding|append|appends|appended|insert|inserted|new|put|write|go|goes)\b"
    r"[^\n]{0,80}?\b(?:(above|below|under)(?:\s+(?:this|the)\s+(?:line|comment|marker)\b|\s*[.:!]|\s*-->)"
    r"|(here)\b)",
    re.IGNORECASE,
)


_MARKER_CHARS = 400
MARKER_LINES = 5  # lines at most of a comment that marks a place, not a note or a template


def place_asked(comment: str) -> Literal["above", "below"] | None:
    """Where an HTML comment asks new entries to go, ``above`` or ``below`` itself (``here``:
    below), or None for any other comment."""
    if not comment.lstrip().startswith("<!--"):
        return None
    # a comment marking a place says so at once: its first few hundred characters are read
    found = _ASKS_PLACE.compiled.search(comment, 0, _MARKER_CHARS)
    if found is None:
        return None
    return "above" if found[1] and found[1].lower() == "above" else "below"
