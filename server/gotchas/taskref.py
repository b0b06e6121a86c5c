"""Task references: ``#664``, ``owner/repo#664``, tracker keys such as ``ABC-123`` and ``PM-2026-008``.

One normal form per task so that filters, holds and links compare by string:
``#664``, ``owner/repo#664`` (the repository in lower case: GitHub and GitLab names are
case-insensitive), ``ABC-123`` / ``PM-2026-008`` (upper case). ``normalize`` reads what a
person types; ``mentions`` reads prose, where the same shapes also spell colours, versions,
model names and ordinals, so it is stricter: a reference is reported only when its shape
and its neighbours say it is one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from gotchas.errors import TaskRefError, shown
from gotchas.pattern import LazyPattern

_REPO = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}"
_KEY = r"[A-Za-z][A-Za-z0-9]{0,9}-\d{1,9}(?:-\d{1,9})?"
_URL = rf"https?://[^\s/]+/(?P<urepo>{_REPO})/(?:-/)?(?:issues|pulls?|merge_requests)/(?P<unum>\d{{1,9}})"

_EXACT = re.compile(
    rf"^(?:(?P<repo>{_REPO})#(?P<rnum>\d{{1,9}})|#?(?P<num>\d{{1,9}})|(?P<key>{_KEY})|{_URL}/?)$"
)

ACCEPTED_FORMS = (
    "#664, 664, owner/repo#664, an issue or pull-request URL, or a tracker key such as ABC-123 or PM-2026-008"
)


def normalize(raw: str) -> str:
    """Return the normal form of one task reference, or raise TaskRefError saying what is accepted."""
    text = raw.strip()
    match = _EXACT.match(text)
    if match is None:
        raise TaskRefError(f"not a task reference: {shown(raw)}; use {ACCEPTED_FORMS}")
    if match["repo"]:
        return f"{match['repo'].lower()}#{int(match['rnum'])}"
    if match["urepo"]:
        return f"{match['urepo'].lower()}#{int(match['unum'])}"
    if match["num"]:
        return f"#{int(match['num'])}"
    return match["key"].upper()


def aliases(task: str, home: str | None) -> tuple[str, ...]:
    """The spellings of one normalised task: with the project's own repository ``home``
    (``owner/name``), ``#45`` and ``owner/name#45`` are the same issue."""
    if not home:
        return (task,)
    own = home.strip().lower()
    if task.startswith("#"):
        return (task, f"{own}{task}")
    repo, hash_, number = task.rpartition("#")
    if hash_ and repo == own:
        return (task, f"#{number}")
    return (task,)


def try_normalize(raw: str) -> str | None:
    try:
        return normalize(raw)
    except TaskRefError:
        return None


def declared_keys(prefixes: Iterable[str]) -> frozenset[str]:
    """Tracker key prefixes as ``mentions`` compares them (upper case)."""
    return frozenset(p.strip().upper() for p in prefixes if p.strip())


# --------------------------------------------------------------------------- lists


_SPLIT = re.compile(r"[,;\s]+(?:and\s+)?")
_RANGE_GAP = re.compile(r"\s*([–—-])\s*#")
_TOKEN_RANGE = re.compile(r"^#?(\d{1,9})[–—-]#?(\d{1,9})$")
_TOKEN_RANGE_MARKED = LazyPattern(r"^#(\d{1,9})[–—-]#?(\d{1,9})$")
_SLASHED = re.compile(r"^#\d{1,9}(?:/#?\d{1,9})+$")
_BARE = LazyPattern(r"^\d{1,9}$")
MAX_RANGE = 50


def parse_list(value: str) -> list[str]:
    """Task references of a ``tasks:`` value, in order, without duplicates.

    A value that is only references (``12, 15``, ``[#12, ABC-7]``) is read whole, bare
    numbers included. A value with prose around its references keeps only what cannot be
    prose: ``#601``, ``owner/repo#12``, URLs and keys; a bare ``12`` there is a count.
    Short ranges such as ``#372–#374`` and slash-joined ``#404/#458`` are expanded.
    """
    parts = [p.strip("()[]{}`*_.:'\"") for p in _SPLIT.split(_RANGE_GAP.sub(r"\1#", value))]
    parts = [p for p in parts if p]
    read = [_token(p, bare=True) for p in parts]
    pure = all(refs is not None for refs in read)
    found: list[str] = []
    for part, refs in zip(parts, read, strict=True):
        if refs is None:
            continue
        if pure or not (
            _BARE.compiled.match(part) or (_TOKEN_RANGE.match(part) and not part.startswith("#"))
        ):
            found.extend(refs)
    return list(dict.fromkeys(found))


def _token(part: str, bare: bool) -> list[str] | None:
    ranged = (_TOKEN_RANGE if bare else _TOKEN_RANGE_MARKED.compiled).match(part)
    if ranged:
        return _expand(int(ranged[1]), int(ranged[2])) or None
    if _SLASHED.match(part):
        return [f"#{int(n.lstrip('#'))}" for n in part.split("/")]
    ref = try_normalize(part)
    return None if ref is None else [ref]


def _expand(low: int, high: int) -> list[str]:
    if low < high and high - low <= MAX_RANGE:
        return [f"#{n}" for n in range(low, high + 1)]
    return []


# --------------------------------------------------------------------------- prose

# `#664` not preceded by a word character (so `C#1` and URLs' `#L20` stay out). The scan
# looks for `#` first and only then at the few characters around it, which keeps it linear.
_HASH = re.compile(r"#(\d{1,9})\b")
_REPO_BEFORE = LazyPattern(rf"(?<![\w.-]){_REPO}$")
_REPO_END = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
_RANGE_AFTER = re.compile(r"(?:\s*[–—]\s*#?|\s*-\s*#|-)(\d{1,9})\b(?![.,]\d)")
# The same ranges over bytes, for a quick check of which entries hold one.
RANGE_BYTES = re.compile(rb"#\d{1,9}(?:\s*(?:\xe2\x80\x93|\xe2\x80\x94)\s*#?|\s*-\s*#|-)\d")
_SLASH_AFTER = re.compile(r"/#(\d{1,9})\b")
_COLOUR_WORDS = frozenset(
    "color colour colors colours rgb rgba hex background bg fill stroke border shadow theme "
    "palette tint accent foreground fg".split()
)
_SAME_FILE_ITEMS = frozenset(
    "pitfall gotcha lesson item entry rule point mistake pattern trap tip finding section step "
    "case example §".split()
)
_PUNCTUATION = " \t:=`'\"(*_"
_ORDINAL_FOLLOWERS = frozenset(
    "and or to in on at for from by with is was were are has had have landed lands merged fixed "
    "closed reopened reverted shipped which that where when if but so then also".split()
)
_WORD_AFTER = LazyPattern(r" ([A-Za-z]+)")
_HEX_WITH_LETTERS = re.compile(
    r"(?<![\w&])#(?=[0-9A-Fa-f]*[A-Fa-f])(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})\b"
)
# A heading line up to its own number: `## ` or `### Issue ` (one word at most before the `#`).
_HEADING_ORDINAL = LazyPattern(r"[ \t]{0,3}#{1,6}[ \t]+(?:[^\W\d]+[ \t]+)?$")
_URL_REF = LazyPattern(_URL)
# `issue-162` in a branch or host name, `PR 45`: the words name the tracker.
_NAMED = LazyPattern(r"(?<![A-Za-z0-9])(?:[Ii]ssue|ISSUE|[Pp]r|PR|[Pp]ull)[-_](\d{1,9})\b|\bPR (\d{1,9})\b")
_NAMED_HINTS = ("ssue-", "ssue_", "SSUE-", "SSUE_", "r-", "r_", "R-", "R_", "ull-", "ull_", "PR ")
_TRACKER = re.compile(r"\b([A-Z][A-Z0-9]{1,9})-(\d{1,9})(?:-(\d{1,9}))?\b(?![.-]\d)")
# Prefixes that name tasks whatever the project; other `ABC-123` shapes need a declaration,
# a tracker word before them, or a tracker URL, because most are versions and model names.
TASK_PREFIXES = frozenset("STEP TASK TICKET ISSUE BUG INC INCIDENT STORY EPIC".split())
# Standards and id schemes that are never tasks, even in the incident shape.
NOT_TRACKERS = frozenset("UTF ISO SHA MD RFC PEP HTTP TLS SSL AES RSA ECMA IEEE CVE CWE ADR INV".split())
_TRACKER_WORD = LazyPattern(
    r"(?i)(?:jira|ticket|issue|task|story|bug|linear|incident|tracker|/browse/)s?\s*[:#]?\s*$"
)
_KEYED_LINE = LazyPattern(
    r"(?im)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?:related[-_ ]?)?"
    r"(?:issues?|tickets?|prs|pull[-_ ]?requests|incidents?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?"
    r"[ \t]*(?P<value>[^\n]*)$"
)
_KEYED_HINTS = ("ssue", "SSUE", "icket", "ICKET", "PR", "prs", "ull", "ULL", "ncident", "NCIDENT")
_YAML_ITEM = LazyPattern(r"[ \t]*-[ \t]+(?P<value>[^\n]*)\n?")


def mentions(text: str, keys: Collection[str] = frozenset()) -> list[str]:
    """Task references written anywhere in free text, in order of first appearance.

    ``keys`` are the project's declared tracker prefixes (upper case): ``ABC-123`` shapes
    with those prefixes count wherever they appear.
    """
    found: list[tuple[int, str]] = []
    if "#" in text:
        _hashes(text, found)
    if "://" in text:
        found.extend(
            (m.start(), f"{m['urepo'].lower()}#{int(m['unum'])}") for m in _URL_REF.compiled.finditer(text)
        )
    if "-" in text:
        _trackers(text, keys, found)
    if any(hint in text for hint in _NAMED_HINTS):
        found.extend((m.start(), f"#{int(m[1] or m[2])}") for m in _NAMED.compiled.finditer(text))
    if ":" in text and any(hint in text for hint in _KEYED_HINTS):
        _keyed_lines(text, found)
    found.sort()
    return list(dict.fromkeys(ref for _, ref in found))


def _hashes(text: str, found: list[tuple[int, str]]) -> None:
    chained = -1  # where a range or slash list continues: `#372–#374`, `#404/#458`
    # the line of the current match, found once a line (matches come in order): a line of
    # thousands of `#664` is scanned once for its ends and once for a colour
    line_start, line_end = 0, -1
    colours: dict[int, bool] = {}
    for match in _HASH.finditer(text):
        at, digits = match.start(), match[1]
        if at > line_end:
            line_start = text.rfind("\n", max(line_end, 0), at) + 1
            after = text.find("\n", at)
            line_end = len(text) if after < 0 else after
        if at < chained:
            continue
        repo = (
            _REPO_BEFORE.compiled.search(text, max(0, at - 141), at)
            if at and text[at - 1] in _REPO_END
            else None
        )
        if repo:
            found.append((repo.start(), f"{repo[0].lower()}#{int(digits)}"))
            continue
        if at and (text[at - 1].isalnum() or text[at - 1] in "_&/#"):
            continue
        if not _is_task_number(text, at, match.end(), digits, (line_start, line_end), colours):
            continue
        number = int(digits)
        found.append((at, f"#{number}"))
        chained = _chain(text, match.end(), number, at, found)


def _chain(text: str, end: int, number: int, at: int, found: list[tuple[int, str]]) -> int:
    """Expand ``#372–#374`` / ``#372-374`` and ``#404/#458`` after a reference; where they end."""
    ranged = _RANGE_AFTER.match(text, end)
    if ranged:
        expanded = _expand(number, int(ranged[1]))
        if expanded:
            found.extend((at, ref) for ref in expanded)
            return ranged.end()
    position = end
    while True:
        slashed = _SLASH_AFTER.match(text, position)
        if slashed is None:
            return position
        if slashed[1][0] != "0":
            found.append((slashed.start(1) - 1, f"#{int(slashed[1])}"))
        position = slashed.end()


def _is_task_number(
    text: str, at: int, end: int, digits: str, line: tuple[int, int], colours: dict[int, bool]
) -> bool:
    """``#664`` is a task unless it reads as a colour, an ordinal or a cross-reference."""
    if digits[0] == "0":
        return False  # issue numbers never start with 0; colours and padded ids do
    line_start = text.rfind("\n", max(0, at - 40), at) + 1
    last = text[max(line_start, at - 40) : at].rstrip(_PUNCTUATION).rsplit(None, 1)
    word = last[-1].lower().lstrip("([{\"'`*_") if last else ""
    if len(digits) in (3, 4, 6, 8) and _looks_like_colour(text, at, end, digits, word, line, colours):
        return False
    bracketed = text[at - 1 : at] == "("  # `merge rules (#838)`: the reference is the aside's own
    if not bracketed and (word in _SAME_FILE_ITEMS or (word.endswith("s") and word[:-1] in _SAME_FILE_ITEMS)):
        return False
    if len(digits) <= 2 and _HEADING_ORDINAL.compiled.match(text, line_start, at):
        return False  # `## #11`, `### Issue #1: …`: the heading's own number in the file
    if len(digits) == 1:
        following = _WORD_AFTER.compiled.match(text, end)
        if following and following[1].lower() not in _ORDINAL_FOLLOWERS:
            return False  # `#1 bug`, `the #2 cause`
    return True


def _looks_like_colour(
    text: str, at: int, end: int, digits: str, word: str, line: tuple[int, int], colours: dict[int, bool]
) -> bool:
    """After a colour word or a CSS variable, alone in a code span, or a grey. ``line`` is the
    match's line (start, end); ``colours`` keeps whether each line holds a colour."""
    if word.rstrip(":=") in _COLOUR_WORDS or word.startswith("--"):
        return True
    if at and text[at - 1] == "`" and text[end : end + 1] == "`":
        return True
    coloured = colours.get(line[0])
    if coloured is None:
        coloured = colours[line[0]] = _HEX_WITH_LETTERS.search(text, line[0], line[1]) is not None
    if coloured:
        return True  # `#333 on #FFF`: a colour beside a colour
    if len(digits) in (6, 8):
        pairs = {digits[i : i + 2] for i in range(0, 6, 2)}
        return len(pairs) == 1  # a grey such as #141414
    # `#888` alone is an issue as often as a grey: a colour word or a code span says which
    return False


def _trackers(text: str, keys: Collection[str], found: list[tuple[int, str]]) -> None:
    for match in _TRACKER.finditer(text):
        prefix = match[1]
        if prefix in NOT_TRACKERS:
            continue
        incident = match[3] is not None and len(match[2]) == 4 and match[2][:2] in ("19", "20")
        if match[3] is not None and not incident and prefix not in keys:
            continue  # `X-1-2`: a version or a date, not a key
        if incident or prefix in keys or prefix in TASK_PREFIXES or _after_tracker_word(text, match.start()):
            found.append((match.start(), match[0]))


def _after_tracker_word(text: str, at: int) -> bool:
    return _TRACKER_WORD.compiled.search(text, max(0, at - 24), at) is not None


def _keyed_lines(text: str, found: list[tuple[int, str]]) -> None:
    """``related_issues: [12, 15]`` and ``tickets:`` followed by ``- 12`` items (front matter)."""
    for match in _KEYED_LINE.compiled.finditer(text):
        value = match["value"].strip()
        if value:
            found.extend((match.start(), ref) for ref in _strict_list(value))
            continue
        position = match.end() + 1
        while True:
            item = _YAML_ITEM.compiled.match(text, position)
            if item is None:
                break
            found.extend((item.start(), ref) for ref in _strict_list(item["value"]))
            position = item.end()


def _strict_list(value: str) -> list[str]:
    """The references of a value made only of references; nothing when it holds prose."""
    parts = [p.strip("()[]{}`*_.:'\"") for p in _SPLIT.split(value.strip().strip("[]"))]
    refs: list[str] = []
    for part in parts:
        if not part:
            continue
        read = _token(part, bare=True)
        if read is None:
            return []
        refs.extend(read)
    return refs
