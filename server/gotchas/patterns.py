"""``lazy``: the name a few reading modules still call for a compiled pattern.

It is ``re.compile`` and nothing else; new code calls ``re.compile`` at module level. This
module goes when the last of those calls does.
"""

from __future__ import annotations

import re


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``."""
    return re.compile(pattern, flags)
