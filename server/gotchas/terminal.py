"""Text from the repository made safe to print on a terminal.

A lesson's title, an id, a commit message or a ledger line is hostile input, and a
terminal obeys control characters: an ``ESC [2J`` clears the screen, a carriage return
lets a line overwrite the one before, OSC sequences retitle the window or forge links,
and Unicode bidi overrides make text read in another order than it is stored. Everything
the human CLI prints passes through :func:`printable`, which shows each such character as
an escape (``\\x1b``, ``\\u202e``) instead of letting it act. Line feeds and tabs stay; a
CR stays only as part of a CRLF line ending.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"  # C0 but LF/TAB/CR, DEL, C1, bidi
    "|\r(?!\n)"  # a CR that is not the first half of a CRLF line ending
)
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, C1 and bidi override/isolate character shown as an escape."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def json_printable(dumped: str) -> str:
    """JSON text (from ``json.dumps``, which escapes C0 already) with DEL, C1 and bidi
    characters written as ``\\u`` escapes too: the same JSON value, inert on a terminal."""
    if not _JSON_UNSAFE.search(dumped):
        return dumped
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", dumped)
