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

from gotchas.pattern import LazyPattern

_UNSAFE = LazyPattern(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"  # C0 but LF/TAB/CR, DEL, C1, bidi
    "|\r(?!\n)"  # a CR that is not the first half of a CRLF line ending
)
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, C1 and bidi override/isolate character shown as an escape."""
    return _UNSAFE.compiled.sub(_escape, text) if _UNSAFE.compiled.search(text) else text


def json_printable(dumped: str) -> str:
    """JSON text (from ``json.dumps``, which escapes C0 already) with DEL, C1 and bidi
    characters written as ``\\u`` escapes too: the same JSON value, inert on a terminal."""
    if not _JSON_UNSAFE.search(dumped):
        return dumped
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", dumped)


# --- fitting text to a terminal and colouring it ---------------------------------------------
# Everything below works on text that :func:`printable` has escaped already: widths are those
# of what the terminal will show, and the only escape sequences are the ones added here.

COLOR_MODES = ("auto", "always", "never")
ELLIPSIS = "…"

_STYLES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def wants_color(mode: str, stream: object, environ: dict[str, str] | None = None) -> bool:
    """Whether to colour ``stream``: ``always``/``never`` as said; ``auto`` colours a terminal
    only, never with ``NO_COLOR`` set (no-color.org), always with ``FORCE_COLOR`` set (not 0)."""
    import os

    env = os.environ if environ is None else environ
    if mode == "always":
        return True
    if mode == "never" or env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and env.get("TERM") != "dumb"


def paint(text: str, *styles: str) -> str:
    """``text`` in the given styles (``bold``, ``red``, …); plain when none are given."""
    if not styles or not text:
        return text
    codes = ";".join(_STYLES[s] for s in styles)
    return f"\x1b[{codes}m{text}\x1b[0m"


def width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (East Asian) characters two, combining ones none."""
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text
    )


def clip(text: str, columns: int) -> str:
    """``text`` cut to at most ``columns`` columns, ending in ``…`` when it was cut."""
    if width(text) <= columns:
        return text
    if columns <= 0:
        return ""
    kept: list[str] = []
    used = 0
    for char in text:
        step = width(char)
        if used + step > columns - 1:
            break
        kept.append(char)
        used += step
    return "".join(kept).rstrip() + ELLIPSIS


def pad(text: str, columns: int) -> str:
    """``text`` left-aligned in ``columns`` columns."""
    return text + " " * max(0, columns - width(text))


def columns_available() -> int:
    """The terminal's width (``COLUMNS`` first, as ``shutil`` reads it; 80 when unknown)."""
    import shutil

    return max(20, shutil.get_terminal_size((80, 24)).columns)
