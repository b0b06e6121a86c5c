"""What a command prints: the JSON object the tool returns, or text for people, and one-line
messages on stderr. Everything quoted from the repository is escaped on the way out."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gotchas.terminal import COLOR_MODES, clip, json_printable, paint, printable, wants_color, width


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


Style = Callable[[int, str], tuple[str, ...]]
"""The styles of a cell, from its column and its (escaped) text."""


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[str] | str],
    *,
    limit: int | None,
    shrink: Mapping[int, int],
    droppable: int | None = None,
    color: bool = False,
    style: Style | None = None,
) -> list[str]:
    """Rows as left-aligned columns two spaces apart, fitted to ``limit`` columns.

    A row that is a string is a heading line (a group) above the rows that follow. Every
    cell is escaped first (:func:`~gotchas.terminal.printable`); when the rows are wider than
    ``limit``, the columns named in ``shrink`` (index → narrowest width), in that order, give
    up columns and their cells end in ``…``; the ``droppable`` column, once at its narrowest,
    is left out rather than cut further. Colour, when on, is added after fitting, so it never
    counts towards a width.
    """
    head = [printable(cell) for cell in header]
    body: list[list[str] | str] = [
        printable(row) if isinstance(row, str) else [printable(cell) for cell in row] for row in rows
    ]
    cells = [head, *(row for row in body if not isinstance(row, str))]
    widths = [max(width(row[i]) for row in cells) for i in range(len(head))]
    shown = list(range(len(head)))
    if limit is not None:
        over = sum(widths) + 2 * (len(widths) - 1) - limit
        for index, narrowest in shrink.items():
            if over <= 0:
                break
            give = min(over, max(0, widths[index] - narrowest))
            widths[index] -= give
            over -= give
            if index == droppable and over > 0:
                shown.remove(index)
                over -= widths[index] + 2
    last = shown[-1]

    def line(row: Sequence[str], styled: bool) -> str:
        out = []
        for index in shown:
            cut = clip(row[index], widths[index])
            filler = "" if index == last else " " * max(0, widths[index] - width(cut))
            styles = (style(index, row[index]) if style else ()) if styled else ("bold",)
            out.append((paint(cut, *styles) if color else cut) + filler)
        return "  ".join(out).rstrip()

    lines = [line(head, False)]
    for row in body:
        if isinstance(row, str):
            cut = clip(row, limit) if limit is not None else row
            lines.append(paint(cut, "bold", "blue") if color else cut)
        else:
            lines.append(line(row, True))
    return lines


def tsv(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as tab-separated lines for ``cut``, ``awk`` and spreadsheets: no header, no padding,
    a tab or line break inside a cell written as ``\\t``/``\\n``, as :func:`printable` writes
    the other control characters, so each row stays one line."""
    return [
        "\t".join(
            printable(cell).replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n") for cell in row
        )
        for row in rows
    ]


def write(lines: Sequence[str]) -> None:
    """Lines already escaped (:func:`table`, :func:`tsv`, :func:`diff`), written as they are."""
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def format_flags(cmd: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """``--format`` (default: a table on a terminal, tab-separated rows in a pipe), ``--json``
    (its alias for ``--format json``) and ``--color``."""
    cmd.add_argument(
        "--format",
        choices=formats,
        help="table (the default on a terminal), tsv (the default in a pipe: tab-separated rows), or json",
    )
    cmd.add_argument("--json", action="store_true", help="the JSON object the tool returns (--format json)")
    color_flag(cmd)


def color_flag(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--color",
        choices=COLOR_MODES,
        default="auto",
        help="colour: on a terminal unless NO_COLOR is set (auto, the default), always, or never",
    )


def output_format(args: argparse.Namespace) -> str:
    """What ``--format``/``--json`` asked for, else ``table`` on a terminal and ``tsv`` in a pipe."""
    if args.json:
        return "json"
    if args.format:
        return str(args.format)
    return "table" if sys.stdout.isatty() else "tsv"


def color_mode(args: object) -> bool:
    """Whether the command's ``--color`` (default ``auto``) colours standard output."""
    return wants_color(getattr(args, "color", None) or "auto", sys.stdout)


def terminal_limit() -> int | None:
    """The width to fit a table to: the terminal's (``COLUMNS`` first); none when output goes
    to a pipe or a file and ``COLUMNS`` does not say."""
    from gotchas.terminal import columns_available

    if os.environ.get("COLUMNS") or sys.stdout.isatty():
        return columns_available()
    return None


_DIFF_STYLES = (("+++", ("bold",)), ("---", ("bold",)), ("@@", ("cyan",)), ("+", ("green",)), ("-", ("red",)))


def diff(text: str, color: bool) -> list[str]:
    """A unified diff's lines, escaped, coloured as ``git diff`` colours them when ``color``."""
    lines = printable(text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not color:
        return lines
    out = []
    for line in lines:
        styles = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), ())
        out.append(paint(line, *styles))
    return out


def shown_path(path: Path) -> str:
    """A path as editors and CI resolve it: relative to where the command runs."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)
