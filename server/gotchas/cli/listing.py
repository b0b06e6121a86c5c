"""``list``, ``outline`` and ``show``: reading the record without changing it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit, say
from gotchas.terminal import printable
from gotchas.wording import counted

if TYPE_CHECKING:
    from gotchas.results import ListResult


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
    cmd.add_argument("--verbose", action="store_true", help="with --json, also give each entry's title")
    json_flag(cmd)


def run_list(args: argparse.Namespace) -> int:
    from gotchas import lookup, query

    ws = workspace(args)
    ws.one_shot = True  # nothing edits the record after a listing
    named = bool(args.record or args.global_record)

    def page(cursor: str | None, limit: int | None) -> ListResult:
        return lookup.list_gotchas(
            ws,
            task=args.task,
            query_text=args.query,
            status=args.status,
            root_cause=args.root_cause,
            limit=limit,
            cursor=cursor,
            verbose=args.verbose or not args.json,
            missing_ok=not named,
        )

    result = page(args.cursor, query.MAX_LIMIT if args.all else args.limit)
    while args.all and result["next_cursor"]:
        following = page(result["next_cursor"], query.MAX_LIMIT)
        following["entries"] = result["entries"] + following["entries"]
        result = following
    emit(result, args.json, _listing_text(result))
    if "notice" in result and not args.json:
        say(result["notice"])
    return 0


def _listing_text(result: ListResult) -> str:
    """Aligned columns (id, lines, tasks, state, title), ids in full, and a count that reads."""
    from gotchas.query import render_links

    rows: list[tuple[str, ...]] = [("ID", "LINES", "TASKS", "STATE", "TITLE")]
    for item in result["entries"]:
        start, end = item["lines"]
        state = [item.get("status", "active")]
        if "root_cause" in item:
            state.append(item["root_cause"])
        if "red_herring_for" in item:
            state = ["red herring for " + ",".join(item["red_herring_for"])]
        if "superseded_by" in item:
            state.append("by " + render_links(item["superseded_by"]))
        tasks = " ".join(item.get("tasks", [])) or " ".join(item.get("mentions", [])) or "-"
        cells = (item["id"], f"{start}-{end}", tasks, ", ".join(state), item.get("title", ""))
        rows.append(tuple(printable(cell) for cell in cells))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)) + "  " + row[4]
        for row in rows
    ]
    shown, total = len(result["entries"]), result["total"]
    count = counted(total, "entry")
    if shown < total:
        count = f"{shown} of {count} shown; --all lists every one"
    body = [line.rstrip() for line in lines] if shown else []
    return "\n".join([*body, count])


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
