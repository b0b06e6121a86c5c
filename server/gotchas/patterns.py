"""Regular expressions compiled on first use.

Compiling is pure Python and costs up to milliseconds a pattern; the reading path defines
about a hundred and a one-shot ``gotchas list`` uses some of them, so compiling each at
import was a fifth of its run. :func:`lazy` stands for the compiled pattern: the first
method looked up on it compiles it (with ``re.compile``, so the same object and cache) and
keeps that method, so later look-ups cost what they cost on the pattern itself.
"""

from __future__ import annotations

import re


class _Lazy:
    """A pattern not compiled yet: attributes are the compiled pattern's, fetched once."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return repr(re.compile(*self._source))


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done where the pattern is first used."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]  # it answers as the pattern does
