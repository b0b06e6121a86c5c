"""``list``, ``outline`` and ``show``: reading the record without changing it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import (
    color_mode,
    emit,
    format_flags,
    output_format,
    say,
    table,
    terminal_limit,
    tsv,
    write,
)
from gotchas.terminal import paint
from gotchas.wording import counted

if TYPE_CHECKING:
    from gotchas.results import EntrySummary, ListResult


def add_list(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--task", metavar="TASK", help="only entries for this task (#664, ABC-123)")
    cmd.add_argument("--query", metavar="WORDS", help="only entries where all these words appear")
    cmd.add_argument(
        "--status",
        metavar="STATUS",
        help="open, fixed, resolved, closed, wontfix, superseded, active or red-herring",
    )
    cmd.add_argument("--root-cause", choices=["confirmed", "suspected", "none"], help="only this root cause")
    cmd.add_argument("--all", action="store_true", help="every entry, however many (default: the first 100)")
    cmd.add_argument("--limit", type=int, metavar="N", help="at most N entries (default 100, up to 1000)")
    cmd.add_argument("--cursor", help="the next_cursor of a --json page, for the page after it")
    cmd.add_argument(
        "--verbose", action="store_true", help="with --json, also give each entry's title and group"
    )
    format_flags(cmd, FORMATS)


def run_list(args: argparse.Namespace) -> int:
    from gotchas import collector

    with collector.paused():  # one listing, then the process ends: no cyclic garbage to collect
        return _listed(args)


def _listed(args: argparse.Namespace) -> int:
    from gotchas import lookup, query

    ws = workspace(args)
    ws.one_shot = True  # nothing edits the record after a listing
    named = bool(args.record or args.global_record)
    shape = output_format(args)

    def page(cursor: str | None, limit: int | None) -> ListResult:
        return lookup.list_gotchas(
            ws,
            task=args.task,
            query_text=args.query,
            status=args.status,
            root_cause=args.root_cause,
            limit=limit,
            cursor=cursor,
            verbose=args.verbose or shape != "json",
            missing_ok=not named,
        )

    result = page(args.cursor, query.MAX_LIMIT if args.all else args.limit)
    while args.all and result["next_cursor"]:
        following = page(result["next_cursor"], query.MAX_LIMIT)
        following["entries"] = result["entries"] + following["entries"]
        result = following
    if shape == "json":
        emit(result, True)
    elif shape == "tsv":
        write(tsv([_cells(item) for item in result["entries"]]))
        if len(result["entries"]) < result["total"]:
            say(_count(result))
    else:
        write(_listing_table(result, color=color_mode(args), limit=terminal_limit()))
    if "notice" in result and shape != "json":
        say(result["notice"])
    return 0


FORMATS = ("table", "tsv", "json")
_STATE_STYLES = {
    "red herring": ("yellow",),
    "superseded": ("yellow",),
    "confirmed": ("green",),
    "suspected": ("magenta",),
}


def _cells(item: EntrySummary) -> tuple[str, str, str, str, str, str]:
    """One entry's cells: id, lines, tasks, state, group, title (a TSV row in this order)."""
    from gotchas.query import lines_text, state_words

    tasks = " ".join(item.get("tasks", [])) or " ".join(item.get("mentions", []))
    return (
        item["id"],
        lines_text(item["lines"]),
        tasks,
        ", ".join(state_words(item)),
        item.get("section", ""),
        item.get("title", ""),
    )


def _listing_table(result: ListResult, *, color: bool, limit: int | None) -> list[str]:
    """Aligned columns fitted to the terminal: id, lines, tasks, state (only when some entry
    is more than plainly active), title; a group's name as a heading line above its entries;
    a count that reads. Titles give up width first, down to 24 columns, and are left out
    below that (an id is most often its title's slug), then ids; what is cut ends in ``…``."""
    cells = [_cells(item) for item in result["entries"]]
    stated = any(row[3] for row in cells)
    header = ("ID", "LINES", "TASKS", *(["STATE"] if stated else []), "TITLE")
    title = len(header) - 1
    rows: list[tuple[str, ...] | str] = []
    group = ""
    for row in cells:
        if row[4] and row[4] != group:
            rows.append(row[4])
        group = row[4]
        rows.append((row[0], row[1], row[2] or "-", *([row[3]] if stated else []), row[5]))

    def style(column: int, cell: str) -> tuple[str, ...]:
        if column == 0:
            return ("cyan",)
        if stated and column == 3:
            return _STATE_STYLES.get(cell.split(",", maxsplit=1)[0], ())
        return ()

    shrink = {title: 24, 2: 9, 0: 16, **({3: 11} if stated else {})}
    lines = (
        table(header, rows, limit=limit, shrink=shrink, droppable=title, color=color, style=style)
        if cells
        else []
    )
    count = _count(result)
    return [*lines, paint(count, "dim") if color else count]


def _count(result: ListResult) -> str:
    shown, total = len(result["entries"]), result["total"]
    count = counted(total, "entry")
    return f"{shown} of {count} shown; --all lists every one" if shown < total else count


def add_outline(cmd: argparse.ArgumentParser) -> None:
    json_flag(cmd)


def run_outline(args: argparse.Namespace) -> int:
    from gotchas import outline

    ws = workspace(args)
    parsed = ws.load(ws.record_path())
    assert parsed.reading is not None  # a record read from a file always has its reading
    decision = outline.describe(parsed.reading, [e.id for e in parsed.entries])
    emit(decision, args.json, outline.text(decision))
    return 0


def add_show(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("id", help="the entry's id, as `gotchas list` shows it")
    json_flag(cmd)


def run_show(args: argparse.Namespace) -> int:
    from gotchas import lookup

    entry = lookup.get_gotcha(workspace(args), entry_id=args.id)
    # a CR or CRLF is a line break in the record (the parser splits there): print it as one
    emit(entry, args.json, entry["text"].replace("\r\n", "\n").replace("\r", "\n"))
    return 0
