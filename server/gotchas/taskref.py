"""Task references: ``#664``, ``664``, ``owner/repo#664`` and tracker keys such as ``ABC-123``.

One normal form per task so that filters, holds and links compare by string:
``#664``, ``owner/repo#664`` (case kept for the repository), ``ABC-123`` (upper case).
"""

from __future__ import annotations

import re

from gotchas.errors import TaskRefError

_REPO = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}"
_KEY = r"[A-Za-z][A-Za-z0-9]{0,9}-\d{1,9}"

_EXACT = re.compile(rf"^(?:(?P<repo>{_REPO})#(?P<rnum>\d{{1,9}})|#?(?P<num>\d{{1,9}})|(?P<key>{_KEY}))$")

# In free text: `#664` not preceded by a word character (so `C#1` and URLs' `#L20` stay out),
# `owner/repo#664`, and upper-case tracker keys. Prefixes that are standards, not trackers,
# are skipped so `UTF-8` or `SHA-256` never read as tasks. The scan looks for `#` first and
# only then for a repository name right before it, which keeps it linear and fast.
_HASH = re.compile(r"#(\d{1,9})\b")
_REPO_BEFORE = re.compile(rf"(?<![\w.-]){_REPO}$")
_TRACKER = re.compile(r"\b([A-Z][A-Z0-9]{1,9})-(\d{1,9})\b")
NOT_TRACKERS = frozenset(
    "UTF ISO SHA MD RFC PEP HTTP TLS SSL AES RSA ECMA IEEE X CP GPT FP BF INT PM ADR CVE CWE "
    "ES KV H A V E P Q".split()
)

ACCEPTED_FORMS = "#664, 664, owner/repo#664 or a tracker key such as ABC-123"


def normalize(raw: str) -> str:
    """Return the normal form of one task reference, or raise TaskRefError saying what is accepted."""
    text = raw.strip()
    match = _EXACT.match(text)
    if match is None:
        raise TaskRefError(f"not a task reference: {raw!r}; use {ACCEPTED_FORMS}")
    if match["repo"]:
        return f"{match['repo']}#{int(match['rnum'])}"
    if match["num"]:
        return f"#{int(match['num'])}"
    return match["key"].upper()


def try_normalize(raw: str) -> str | None:
    try:
        return normalize(raw)
    except TaskRefError:
        return None


_SPLIT = re.compile(r"[,;\s]+(?:and\s+)?")
_RANGE = re.compile(r"^#?(\d{1,9})\s*[–-]\s*#?(\d{1,9})$")
_MAX_RANGE = 50


def parse_list(value: str) -> list[str]:
    """Task references of a ``tasks:`` value, in order, without duplicates.

    Lenient: unknown words are skipped, short ranges such as ``#372–#374`` are expanded.
    """
    found: list[str] = []
    for part in _split_keeping_ranges(value):
        ranged = _RANGE.match(part)
        if ranged:
            lo, hi = int(ranged[1]), int(ranged[2])
            if lo <= hi and hi - lo < _MAX_RANGE:
                found.extend(f"#{n}" for n in range(lo, hi + 1))
                continue
        ref = try_normalize(part.strip("()[]`*_.:"))
        if ref is not None:
            found.append(ref)
    return list(dict.fromkeys(found))


_RANGE_GAP = re.compile(r"\s*([–-])\s*#")


def _split_keeping_ranges(value: str) -> list[str]:
    value = _RANGE_GAP.sub(r"\1#", value)
    return [p for p in _SPLIT.split(value) if p]


def mentions(text: str) -> list[str]:
    """Task references written anywhere in free text, in order of first appearance."""
    found: list[tuple[int, str]] = []
    if "#" in text:
        for match in _HASH.finditer(text):
            at = match.start()
            repo = _REPO_BEFORE.search(text, max(0, at - 141), at)
            if repo:
                found.append((repo.start(), f"{repo[0]}#{int(match[1])}"))
            elif at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_&/#"):
                found.append((at, f"#{int(match[1])}"))
    for match in _TRACKER.finditer(text):
        if match[1] not in NOT_TRACKERS:
            found.append((match.start(), f"{match[1]}-{match[2]}"))
    found.sort()
    return list(dict.fromkeys(ref for _, ref in found))
