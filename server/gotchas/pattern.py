"""Regular expressions compiled on first use.

A one-shot command imports every reading rule, but a given file meets only some of them:
compiling the others at import is start-up time spent for nothing. Patterns that most reads
use stay plain ``re.compile`` constants.
"""

from __future__ import annotations

import re
from functools import cached_property


class LazyPattern:
    """``re.compile(source, flags)``, done the first time ``compiled`` is read, then kept."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)
