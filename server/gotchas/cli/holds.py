"""``check-hold`` and ``task``: a hold's state now, and the task ledger it reads."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from gotchas.cli.options import common, json_flag, workspace
from gotchas.cli.output import emit

if TYPE_CHECKING:
    from gotchas.holds.sources.ledger import LedgerLine
    from gotchas.results import LedgerLineView


def add_check_hold(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("predicate", help="predicate-<task>-lands or -terminal, joined by +")
    json_flag(cmd)


def run_check_hold(args: argparse.Namespace) -> int:
    # the hold sources alone: no record model, no Markdown parser on this path
    from gotchas.holds.check import check_hold
    from gotchas.holds.decision import EXIT_CODES

    ws = workspace(args)
    answer = check_hold(args.predicate, ws.root, ws.config).to_view()
    lines = [f"{answer['predicate']}: {answer['state']}"]
    for task in answer["tasks"]:
        lines.append(f"  {task['task']}: {task['state'] or 'unknown'} (source: {task['source'] or '-'})")
        for item in task["evidence"]:
            lines.append("    " + ", ".join(f"{k}={v}" for k, v in item.items()))
    emit(answer, args.json, "\n".join(lines))
    return EXIT_CODES[answer["state"]]


def add_task(cmd: argparse.ArgumentParser) -> None:
    parent = common()
    task_sub = cmd.add_subparsers(dest="task_command", required=True, metavar="ACTION")
    setter = task_sub.add_parser("set", parents=[parent], help="record a task state")
    setter.add_argument("task", help="the task (#664, owner/repo#664, ABC-123)")
    setter.add_argument(
        "state",
        choices=["open", "running", "landed", "abandoned", "cancelled", "failed"],
        help="the state to record",
    )
    setter.add_argument("--by", metavar="NAME", help="who sets it (default: $GOTCHAS_ACTOR, else $USER)")
    json_flag(setter)
    shower = task_sub.add_parser("show", parents=[parent], help="a task's ledger history")
    shower.add_argument("task", help="the task (#664, owner/repo#664, ABC-123)")
    json_flag(shower)


def run_task(args: argparse.Namespace) -> int:
    from gotchas import taskref
    from gotchas.holds.sources import ledger

    ws = workspace(args)
    task = taskref.normalize(args.task)
    if args.task_command == "set":
        by = args.by or os.environ.get("GOTCHAS_ACTOR") or os.environ.get("USER") or "unknown"
        line = ledger.set_task_state(ws.root, task, args.state, by)
        emit(_line_view(line), args.json, f"{line.task}: {line.state} (at {line.at} by {line.by})")
        return 0
    history = [_line_view(line) for line in ledger.task_history(ws.root, task)]
    text = "\n".join(f"{h['at']}  {h['state']:<10} by {h['by']}" for h in history) or (
        f"{task}: no ledger lines"
    )
    emit({"task": task, "history": history}, args.json, text)
    return 0


def _line_view(line: LedgerLine) -> LedgerLineView:
    return {"task": line.task, "state": line.state, "at": line.at, "by": line.by, "line": line.line}
