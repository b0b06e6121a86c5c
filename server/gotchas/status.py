"""Status: whether a lesson says it is open, fixed, resolved, closed, won't fix or superseded.

Files say it in many ways: a ``Status:`` field (``**Status:** ✅ **FIXED 2026-01-08**``,
``Статус: закрыто 2026-05-24``, ``状态：已解决``), a marker in the title (``✅ Fixed: …``,
``(Resolved)``, ``[SUPERSEDED 2026-04-15 — …]``, ``FIXED — …``) or a struck-through title
(``~~Title~~``). Each is read into one normalised word, keeping the text as written and
a date written after it. Pure functions on strings; no marker, no status.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from gotchas.pattern import LazyPattern

OPEN = "open"
FIXED = "fixed"
RESOLVED = "resolved"
CLOSED = "closed"
WONTFIX = "wontfix"
SUPERSEDED = "superseded"
STATUSES = (OPEN, FIXED, RESOLVED, CLOSED, WONTFIX, SUPERSEDED)


@dataclass(frozen=True, slots=True)
class Status:
    """``value`` is normalised (one of STATUSES, or a ``status:`` value we do not know, lower case)."""

    value: str
    text: str
    date: str | None = None


# Words as written in several languages, compared case-folded with accents kept.
_WORDS: dict[str, str] = {}
for _status, _spellings in {
    FIXED: "fixed corrigé corrigée behoben gefixt исправлено исправлен исправлена "
    "已修复 已修正 修复 修正済み 修正済 対応済み 対応済 corregido arreglado corrigido "
    "fikset fiksa åtgärdat naprawione",
    RESOLVED: "resolved solved done résolu résolue gelöst erledigt решено решён решена 已解决 "
    "已解決 解决 解決済み 解決済 解決 løst löst resuelto resolvido risolto opgelost rozwiązane",
    CLOSED: "closed fermé fermée geschlossen закрыто закрыт закрыта 已关闭 已關閉 关闭 "
    "クローズ 完了 cerrado fechado chiuso lukket stängd zamknięte",
    OPEN: "open opened reopened unresolved unfixed ouvert offen открыто открыт открыта 未解决 "
    "未解決 未修复 未対応 abierto aberto aperto åpen öppen otwarte investigating under-investigation "
    "in-investigation in-progress ongoing pending unconfirmed wip en-cours расследуется 调查中 調査中",
    WONTFIX: "wontfix won't-fix won’t-fix will-not-fix not-fixing by-design 不修复 対応しない",
    SUPERSEDED: "superseded obsolete replaced устарело устарел заменено 已废弃 已过时 廃止 "
    "remplacé ersetzt erstattet",
}.items():
    for _word in _spellings.split():
        _WORDS[_word.replace("_", " ")] = _status
# Word pairs read as one: `won't fix`, `not fixed`, `ikke løst`.
_NEGATIONS = frozenset("not no non nicht ikke inte ej не pas un".split())
_DONE_MARKS = "✅✔☑🟢"
_OPEN_MARKS = "❌🔴⭕🟠🟡"

_DATE = LazyPattern(r"\b(\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}|\d{1,2}\.\d{1,2}\.\d{4})\b")
_MARKUP = LazyPattern(r"[*_`]+")
_WORD = LazyPattern(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)
# Scripts written without spaces are matched by prefix, longest first.
_CJK = LazyPattern(
    "|".join(re.escape(w) for w in sorted(_WORDS, key=len, reverse=True) if any(ord(c) >= 0x2E80 for c in w))
)

# The first characters of those words: a text opening otherwise leaves the pattern uncompiled.
_CJK_FIRSTS = frozenset(w[0] for w in _WORDS if any(ord(c) >= 0x2E80 for c in w))


def _clean(text: str) -> str:
    if "*" in text or "_" in text or "`" in text:
        text = _MARKUP.compiled.sub("", text)
    text = " ".join(text.split())
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _lookup(text: str) -> str | None:
    """The status named by the first words of ``text`` (after emoji), if any."""
    body = text.lstrip(" " + _DONE_MARKS + _OPEN_MARKS + "\ufe0f[(（【:：-—–")
    cjk = _CJK.compiled.match(body) if body[:1] in _CJK_FIRSTS else None
    if cjk:
        return _WORDS[cjk[0]]
    words = [w.casefold().replace("’", "'") for w in _WORD.compiled.findall(body[:60])[:3]]
    if not words:
        return None
    if len(words) >= 2:
        pair = f"{words[0]}-{words[1]}"
        if pair in _WORDS:
            return _WORDS[pair]
        if words[0] in _NEGATIONS and words[1] in _WORDS and _WORDS[words[1]] != OPEN:
            return OPEN
    return _WORDS.get(words[0])


def _date(text: str) -> str | None:
    found = _DATE.compiled.search(text)
    return found[1] if found else None


def from_field(value: str) -> Status:
    """A ``status:`` value: a known word (after emoji and bold) or, unknown, the value in lower case."""
    clean = _clean(value)
    stripped = clean.strip(" " + _DONE_MARKS + _OPEN_MARKS + "\ufe0f")
    word = _lookup(clean) or (stripped.lower() if stripped or not clean else _mark(clean[0]))
    return Status(word, value.strip(), _date(clean))


def _mark(emoji: str) -> str:
    """``✅`` alone says done; ``❌`` alone says open."""
    return RESOLVED if emoji in _DONE_MARKS else OPEN


_WORD_KEYS = LazyPattern(r"^(fixed|resolved|solved|closed|wontfix)(?:-(?:in|by|on|at|date))?$")


def from_word_field(key: str, value: str) -> Status | None:
    """``fixed: 2026-01-08``, ``resolved-in: #12``: a field named for a status."""
    named = _WORD_KEYS.compiled.match(key)
    if named is None:
        return None
    word = _WORDS[named[1]]
    return Status(word, f"{key}: {value.strip()}", _date(value))


_SPLIT_MARKER = LazyPattern(r"[:：]|\s[—–-]\s")
_SEPARATORS = (":", "：", " — ", " – ", " - ")
_NUMBERING = re.compile(r"^\d{1,4}(?:\.\d{1,4})*[.)]?\s+")
_BRACKETED = re.compile(r"[(\[（【](?=[^\d\s])([^()\[\]（）【】]{1,80})[)\]）】]")
_LEADING = LazyPattern(r"^\W{0,4}?([^\W\d_]+(?:['’ -][^\W\d_]+)?)\s*(?:[:：]|\s[—–-]\s)")
_TRAILING = LazyPattern(r"(?:\s[—–-]\s|:\s)\W{0,3}([A-Z][A-Z' ]{1,20}[A-Z])\W{0,3}(?:\s+\S+)?\s*$")


def from_title(title: str) -> Status | None:
    """A status marked in a title: struck through, emoji, bracketed, or a leading/closing word."""
    raw = title.strip()
    clean = _NUMBERING.sub("", _clean(raw.replace("~~", "")))
    if clean and clean[0] in _DONE_MARKS + _OPEN_MARKS:
        word = _lookup(clean)
        if word:
            return Status(word, _SPLIT_MARKER.compiled.split(clean, maxsplit=1)[0].strip(), _date(clean))
    for match in _BRACKETED.finditer(clean):
        word = _lookup(match[1])
        if word:
            return Status(word, match[0], _date(match[1]))
    if not any(separator in clean for separator in _SEPARATORS):
        return _struck(raw)
    leading = _LEADING.compiled.match(clean)
    if leading:
        word = _lookup(leading[1])
        # `FIXED — x` or `Fixed: x`; a title-case `Open: x` is a topic, not a status
        if word and (leading[1].isupper() or (word != OPEN and ":" in leading[0])):
            return Status(word, leading[0].strip(), _date(clean))
    trailing = _TRAILING.compiled.search(clean)
    if trailing:
        word = _lookup(trailing[1])
        if word:
            return Status(word, trailing[0].strip(" —–-:"), _date(trailing[0]))
    return _struck(raw)


def _struck(raw: str) -> Status | None:
    """``~~Title~~``: a known issue crossed out is done with."""
    if raw.startswith("~~") and "~~" in raw[2:]:
        return Status(RESOLVED, raw[: raw.index("~~", 2) + 2])
    return None


_BOLD_LINE = LazyPattern(
    r"^[ \t>*+-]*(?:\*\*|__)(?:status|state|статус|状态|ステータス|estado|statut)\s*[:：]\s*"
    r"(?P<value>[^\n*_]{1,80})(?:\*\*|__)",
    re.IGNORECASE | re.MULTILINE,
)


def from_bold_line(text: str) -> Status | None:
    """``**Status: RESOLVED.**``: a status line bolded whole, which field parsing leaves as prose."""
    match = _BOLD_LINE.compiled.search(text)
    if match is None:
        return None
    word = _lookup(_clean(match["value"]))
    return Status(word, match[0].strip(" >*+-"), _date(match["value"])) if word else None


_AFTER_LEAD = LazyPattern(
    r"^[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])?[ \t]*(\*\*|__)(?!\s)[^\n]{1,160}?\1[ \t]*(?P<rest>[^\n]{0,80})"
)
_BRACKET_AFTER = LazyPattern(r"[(\[（【](?P<word>[^()\[\]（）【】]{1,40})[)\]）】]")
_WORD_DATED = LazyPattern(r"[—–:-][ \t]*(?P<word>[^\W\d_]+(?:['’ ][^\W\d_]+)?)[ \t,]+(?P<date>\S+)")


def from_lead_line(line: str) -> Status | None:
    """A status written on an entry's first line outside its title: after a bold lead-in,
    in brackets (``**Title** (Resolved) — …``) or as a dated word (``**Title** — resuelto
    2026-03-10``); or, for a table row, a cell that is only a status (``✅ Fixed``, ``Open``)."""
    text = line.strip()
    if text.startswith("|"):
        return _from_cells(text)
    lead = _AFTER_LEAD.compiled.match(line)
    if lead is None:
        return None
    rest = lead["rest"]
    bracket = _BRACKET_AFTER.compiled.match(rest)
    if bracket:
        word = _lookup(_clean(bracket["word"]))
        return Status(word, bracket[0], _date(bracket["word"])) if word else None
    dated = _WORD_DATED.compiled.match(rest)
    if dated and _DATE.compiled.match(dated["date"]):
        word = _lookup(dated["word"])
        if word:
            return Status(word, dated[0].lstrip(" —–:-"), _date(dated["date"]))
    return None


def _from_cells(row: str) -> Status | None:
    """The first cell after the first that is only a status word (emoji and emphasis allowed)."""
    for cell in row.strip("|").split("|")[1:]:
        clean = _clean(cell).strip(" " + _DONE_MARKS + _OPEN_MARKS + "\ufe0f")
        if not clean or len(clean.split()) > 3 or any(c.isdigit() for c in clean):
            continue
        word = _lookup(clean)
        if word and _WORDS.get(clean.casefold().replace("’", "'").replace(" ", "-"), word) == word:
            return Status(word, cell.strip())
    return None


STATUS_KEYS = frozenset("status state статус 状态 狀態 ステータス estado statut stato".split())
