"""What a command prints: the JSON object the tool returns, or text for people, and one-line
messages on stderr. Everything quoted from the repository is escaped on the way out."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gotchas.terminal import json_printable, printable


def say(message: str) -> None:
    """One line on stderr; what it quotes from the repository cannot drive the terminal."""
    print(f"gotchas: {printable(message)}", file=sys.stderr)


def emit(value: object, as_json: bool, text: str | None = None) -> None:
    """The JSON object (exact JSON, its control and bidi characters escaped) or the text for
    people, every control character in it shown as an escape (:mod:`gotchas.terminal`)."""
    if as_json or text is None:
        import json  # only --json output: text for people needs none

        sys.stdout.write(json_printable(json.dumps(value, indent=2, ensure_ascii=False)) + "\n")
    else:
        shown = printable(text)
        sys.stdout.write(shown + ("\n" if not shown.endswith("\n") else ""))


def columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as left-aligned columns two spaces apart, each cell escaped for the terminal."""
    cells = [tuple(printable(cell) for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]


def shown_path(path: Path) -> str:
    """A path as editors and CI resolve it: relative to where the command runs."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)
