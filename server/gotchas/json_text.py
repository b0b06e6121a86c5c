"""JSON from files and input the repository controls, parsed without a crash.

The standard parser recurses once per level of nesting, so a line of a hundred thousand
``[`` raises ``RecursionError`` rather than ``ValueError``: a reader that treats bad JSON as
damaged input would let that one line escape as an internal error. :func:`loads` makes too
deep nesting one more way of being malformed.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes) -> Any:
    """``json.loads``, raising ``ValueError`` for nesting deeper than the parser can follow."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested deeper than it can be read") from None
