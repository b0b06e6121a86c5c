"""Entry ids: the explicit ``id:`` field, else the title's slug, ``-2``, ``-3``… in file order.

Ids are what every tool names an entry by, so they must not change when nothing about the
entries changed, and they are assigned on every read: linear in the number of entries,
whatever the titles (:class:`Slugs` keeps, per slug, the suffix where the next search starts).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gotchas.fields import Field

MAX_ID_LENGTH = 48


class Slugs:
    """Hands out free ids for slugs, in order.

    The taken set only grows, so once ``base-n`` was found taken it stays taken: the search
    for a slug resumes where the last one for the same slug stopped. Each probe that fails
    meets an id no later search for that slug meets again, so all searches together probe
    at most about twice as many ids as they hand out (``probes`` counts them).
    """

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.resume: dict[str, int] = {}
        self.probes = 0

    def claim(self, base: str) -> str:
        n = self.resume.get(base, 1)
        candidate = base if n == 1 else f"{base}-{n}"
        self.probes += 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base}-{n}"
            self.probes += 1
        self.resume[base] = n
        self.taken.add(candidate)
        return candidate


def assign(
    drafts: Sequence[tuple[str, tuple[Field, ...]]], *, slugs: Slugs | None = None
) -> list[tuple[str, bool]]:
    """``(id, explicit)`` for each ``(title, fields)``: explicit ``id:`` fields win, every other
    entry gets a free id from its title's slug. ``slugs``, when given, starts empty and is used."""
    explicit = [explicit_id(fields) if fields else None for _, fields in drafts]  # most have none
    if slugs is None:
        slugs = Slugs(set())
    slugs.taken.update(value for value in explicit if value)
    out: list[tuple[str, bool]] = []
    for (title, _), given in zip(drafts, explicit, strict=True):
        out.append((given, True) if given else (slugs.claim(slugify(title)), False))
    return out


# an id holds no space, comma, parenthesis or quote: none of them can stand in a link's target
# (``link._LINK``), and a quoted value with a comma after it is code, not an id
_ID_VALUE = re.compile(r"[^\s(),'\"`]+")


def explicit_id(fields: Sequence[Field]) -> str | None:
    """The value of the first ``id:`` field, without markup or quotes around it; none when it
    could not be named in a link (``id: 'server-components',`` in a code sample is no id)."""
    for field in fields:
        if field.key == "id":
            value = field.value.strip("`*_ '\"")
            return value if _ID_VALUE.fullmatch(value) else None
    return None


# a tag or a link's target runs to the first ``>`` or ``)``, as far as a real one may run: a
# run of ``](`` with no ``)`` after it is then read in linear time, not from each of its starts
_MARKUP = re.compile(r"<[^>]{0,256}>|\]\([^)]{0,2048}\)")
_NON_WORD = re.compile(r"[\W_]+")
# ``_NON_WORD`` over ASCII: every character but a letter or a digit becomes a gap
_ASCII_GAPS = bytes(c if c < 128 and chr(c).isalnum() else 32 for c in range(256))
# the same, lower-casing letters on the way: one pass over a plain ASCII title
_ASCII_SLUG = bytes(c + 32 if 65 <= c <= 90 else c for c in _ASCII_GAPS)


@lru_cache(maxsize=1 << 14)  # a server parses the same titles after every edit
def slugify(title: str) -> str:
    """Lower-case words joined by ``-``; letters of any script kept; at most 48 characters."""
    if title.isascii() and "<" not in title and "](" not in title:
        # most titles: lower-case, apostrophes dropped and gaps made in one ``translate``
        slug = b"-".join(title.encode().translate(_ASCII_SLUG, b"'").split()).decode()
        if len(slug) > MAX_ID_LENGTH:
            slug = slug[:MAX_ID_LENGTH].rsplit("-", 1)[0]
        if slug:
            return slug
    text = (title if title.isascii() else unicodedata.normalize("NFKC", title)).lower()
    if "<" in text or "](" in text:
        text = _MARKUP.sub(" ", text)
    text = text.replace("'", "").replace("’", "")
    if text.isascii():  # the same slug without a regular expression: most titles, many times
        slug = "-".join(text.encode().translate(_ASCII_GAPS).decode().split())
    else:
        slug = _NON_WORD.sub("-", text).strip("-")
    if len(slug) > MAX_ID_LENGTH:
        slug = slug[:MAX_ID_LENGTH].rsplit("-", 1)[0]
    if not slug:
        slug = "entry-" + hashlib.sha256(title.encode("utf-8")).hexdigest()[:8]
    return slug
