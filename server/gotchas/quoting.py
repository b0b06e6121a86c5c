"""Lesson text shown as data: a code fence the text inside cannot close, and a TOML string.

A CommonMark fence closes on a line of at least as many of its characters, indented up to
three spaces and followed only by spaces — so the only safe fence is longer than every
backtick run anywhere in the text, whatever the indentation or what follows it on the
line. Tilde runs are counted too, so the bound holds for either fence character.
"""

from __future__ import annotations

import re
import unicodedata

_RUN = re.compile(r"`+|~+")


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick or tilde run in ``text`` (at least four)."""
    longest = max((len(run) for run in _RUN.findall(text)), default=0)
    return "`" * max(4, longest + 1)


def quoted(text: str, info: str = "markdown") -> str:
    """``text`` inside a fence it cannot close, labelled with ``info``."""
    fence = fence_for(text)
    return f"{fence}{info}\n{text}\n{fence}"


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quotes and backslashes escaped; control characters, and
    characters that change how the line shows without showing (bidi overrides, zero-width
    marks, line separators), as ``\\uXXXX``. A section title is the repository's text, written
    into the project's config: a person reading the config sees every character of it."""
    out = "".join("\\" + c if c in '"\\' else f"\\u{ord(c):04x}" if _hidden(c) else c for c in text)
    return f'"{out}"'


def _hidden(c: str) -> bool:
    return ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or unicodedata.category(c) in ("Cf", "Zl", "Zp")
