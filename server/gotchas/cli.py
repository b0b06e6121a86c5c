"""The ``gotchas`` command: the same operations as the MCP tools, for people and CI.

Output is a readable table or, with ``--json``, the same object the tool returns. A
refusal is one line on stderr and a non-zero exit (2 for bad input, 1 otherwise);
``check-hold`` exits 0 released, 3 held, 4 unsatisfiable, 5 unknown. The MCP SDK is
imported only by ``serve`` and ``demo``, so every other command starts fast.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gotchas import __version__
from gotchas.errors import GotchasError, InvalidArgument, from_os_error

EXIT_ERROR = 1
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except GotchasError as exc:
        print(f"gotchas: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, InvalidArgument) else EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        failure = from_os_error(exc)
        print(f"gotchas: {failure.code}: {failure.message}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug: still one line, never a traceback
        print(f"gotchas: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


def _workspace(args: argparse.Namespace) -> Any:
    from gotchas.workspace import Workspace

    return Workspace.discover(root=args.root or args.global_root, record=args.record or args.global_record)


def _emit(value: object, as_json: bool, text: str | None = None) -> None:
    if as_json or text is None:
        sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))


def _list(args: argparse.Namespace) -> int:
    from gotchas import operations, query

    result = operations.list_gotchas(
        _workspace(args),
        task=args.task,
        query_text=args.query,
        status=args.status,
        root_cause=args.root_cause,
        limit=args.limit,
        cursor=args.cursor,
        verbose=args.verbose,
    )
    _emit(result, args.json, query.table(result))
    if "notice" in result and not args.json:
        print(f"gotchas: {result['notice']}", file=sys.stderr)
    return 0


def _outline(args: argparse.Namespace) -> int:
    from gotchas import outline

    ws = _workspace(args)
    parsed = ws.load(ws.record_path())
    decision = outline.describe(parsed.reading, [e.id for e in parsed.entries])
    _emit(decision, args.json, outline.text(decision))
    return 0


def _show(args: argparse.Namespace) -> int:
    from gotchas import operations

    entry = operations.get_gotcha(_workspace(args), entry_id=args.id)
    _emit(entry, args.json, entry["text"])
    return 0


def _check_hold(args: argparse.Namespace) -> int:
    # the hold sources alone: no record model, no Markdown parser on this path
    from gotchas.holds.check import check_hold
    from gotchas.holds.decision import EXIT_CODES

    ws = _workspace(args)
    answer = check_hold(args.predicate, ws.root, ws.config).to_view()
    lines = [f"{answer['predicate']}: {answer['state']}"]
    for task in answer["tasks"]:
        lines.append(f"  {task['task']}: {task['state'] or 'unknown'} (source: {task['source'] or '-'})")
        for item in task["evidence"]:
            lines.append("    " + ", ".join(f"{k}={v}" for k, v in item.items()))
    _emit(answer, args.json, "\n".join(lines))
    return EXIT_CODES[answer["state"]]


def _task(args: argparse.Namespace) -> int:
    from gotchas import taskref
    from gotchas.holds.sources import ledger

    ws = _workspace(args)
    task = taskref.normalize(args.task)
    if args.task_command == "set":
        by = args.by or os.environ.get("GOTCHAS_ACTOR") or os.environ.get("USER") or "unknown"
        line = ledger.set_task_state(ws.root, task, args.state, by)
        _emit(_line_dict(line), args.json, f"{line.task}: {line.state} (at {line.at} by {line.by})")
        return 0
    history = [_line_dict(line) for line in ledger.task_history(ws.root, task)]
    text = "\n".join(f"{h['at']}  {h['state']:<10} by {h['by']}" for h in history) or (
        f"{task}: no ledger lines"
    )
    _emit({"task": task, "history": history}, args.json, text)
    return 0


def _line_dict(line: Any) -> dict[str, Any]:
    return {"task": line.task, "state": line.state, "at": line.at, "by": line.by, "line": line.line}


_PROPOSE_KEYS = (
    "target_id",
    "task",
    "title",
    "body",
    "diagnostic",
    "ruled_out",
    "evidence",
    "red_herring_note",
    "hold",
    "tasks",
    "root_cause",
    "after",
)


def _propose(args: argparse.Namespace) -> int:
    from gotchas import operations
    from gotchas.arguments import json_types_problem

    spec: dict[str, Any] = {}
    if args.from_json:
        raw = sys.stdin.read() if args.from_json == "-" else Path(args.from_json).read_text("utf-8")
        try:
            spec = json.loads(raw)
        except ValueError as exc:
            raise InvalidArgument(f"--from-json: not JSON ({exc})") from None
        if not isinstance(spec, dict):
            raise InvalidArgument("--from-json: expected a JSON object")
        unknown = set(spec) - set(_PROPOSE_KEYS)
        if unknown:
            raise InvalidArgument(f"--from-json: unknown keys {sorted(unknown)}")
        problem = json_types_problem(spec)
        if problem:
            raise InvalidArgument(problem)
    for key in _PROPOSE_KEYS:
        value = getattr(args, key, None)
        if value not in (None, []):
            spec[key] = value
    if args.body_file:
        spec["body"] = Path(args.body_file).read_text("utf-8")
    ws = _workspace(args)
    if spec.get("target_id"):
        _require(spec, "task", "title", "body", "diagnostic")
        result = operations.propose_supersede(
            ws,
            target_id=spec["target_id"],
            task=spec["task"],
            title=spec["title"],
            body=spec["body"],
            diagnostic=spec["diagnostic"],
            ruled_out=spec.get("ruled_out") or [],
            evidence=spec.get("evidence"),
            red_herring_note=spec.get("red_herring_note"),
            hold=spec.get("hold"),
            tasks=spec.get("tasks") or [],
            root_cause=spec.get("root_cause") or "confirmed",
        )
    else:
        _require(spec, "title", "body", "tasks", "root_cause")
        result = operations.propose_lesson(
            ws,
            title=spec["title"],
            body=spec["body"],
            tasks=spec["tasks"],
            root_cause=spec["root_cause"],
            diagnostic=spec.get("diagnostic"),
            ruled_out=spec.get("ruled_out") or [],
            evidence=spec.get("evidence"),
            after=spec.get("after"),
            hold=spec.get("hold"),
        )
    text = f"{result['status']}: {result['proposal_id'] or result['new_id']}\n{result['diff']}"
    _emit(result, args.json, text + result["next_step"])
    return 0


def _require(spec: dict[str, Any], *keys: str) -> None:
    missing = [k for k in keys if not spec.get(k)]
    if missing:
        raise InvalidArgument("missing " + ", ".join("--" + k.replace("_", "-") for k in missing))


def _apply(args: argparse.Namespace) -> int:
    from gotchas import operations

    result = operations.apply(_workspace(args), proposal_id=args.proposal_id)
    _emit(result, args.json, f"{result['status']}: {result['reason']}")
    return 0 if result["status"] in ("applied", "already-applied") else 3


def _proposals(args: argparse.Namespace) -> int:
    from gotchas import operations

    found = operations.list_proposals(_workspace(args))
    text = (
        "\n".join(f"{p['proposal_id']}  {p['kind']:<9} {p['new_id']}  hold={p['hold'] or '-'}" for p in found)
        or "no stored proposals"
    )
    _emit({"proposals": found}, args.json, text)
    return 0


def _verify(args: argparse.Namespace) -> int:
    from gotchas import operations

    result = operations.verify_record(_workspace(args))
    lines = [
        f"{p['severity']}: {p['code']} {p['entry'] or ''} (line {p['line']}): {p['message']}"
        for p in result["problems"]
    ]
    verdict = "ok" if result["ok"] else "problems found"
    lines.append(f"{result['record']}: {result['entries']} entries, {verdict}")
    _emit(result, args.json, "\n".join(lines))
    failing = not result["ok"] or (args.strict and result["problems"])
    return EXIT_ERROR if failing else 0


def _serve(args: argparse.Namespace) -> int:
    # Importing the MCP SDK allocates hundreds of thousands of long-lived objects; collecting
    # them during start-up is wasted work, so collection waits until the server is built, and
    # what exists then is frozen out of later collections.
    gc.disable()
    ws = _workspace(args)
    if args.http:
        from gotchas.server import serve_http

        _start_collecting()
        serve_http(ws, args.host, args.port, os.environ.get("GOTCHAS_TOKEN") or None)
        return 0
    from gotchas.server import build

    server = build(ws)
    _start_collecting()
    server.run()
    return 0


def _start_collecting() -> None:
    gc.freeze()
    gc.enable()


def _demo(args: argparse.Namespace) -> int:
    from gotchas.demo import run

    return run(interactive=sys.stdin.isatty() and not args.no_pause)


def _parser() -> argparse.ArgumentParser:
    def locations(target: argparse.ArgumentParser, prefix: str) -> None:
        target.add_argument(
            "--root",
            dest=f"{prefix}root",
            help="project root (default: $GOTCHAS_ROOT, else the git top level)",
        )
        target.add_argument(
            "--record",
            dest=f"{prefix}record",
            help="lessons file inside the root (default .claude/rules/gotchas.md)",
        )

    common = argparse.ArgumentParser(add_help=False)
    locations(common, "")
    parser = argparse.ArgumentParser(
        prog="gotchas",
        description="Keep the team's lessons file correct: list, hold, propose, apply, verify.",
    )
    locations(parser, "global_")
    parser.add_argument("--version", action="version", version=f"gotchas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, run: Any, help_text: str) -> argparse.ArgumentParser:
        cmd = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        cmd.set_defaults(run=run)
        return cmd

    def json_flag(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--json", action="store_true", help="print the JSON object the tool returns")

    cmd = command("list", _list, "list lessons compactly")
    cmd.add_argument("--task", help="only entries for this task")
    cmd.add_argument("--query", help="words that must all appear")
    cmd.add_argument(
        "--status", help="open, fixed, resolved, closed, wontfix, superseded, active or red-herring"
    )
    cmd.add_argument("--root-cause", choices=["confirmed", "suspected", "none"])
    cmd.add_argument("--limit", type=int)
    cmd.add_argument("--cursor")
    cmd.add_argument("--verbose", action="store_true", help="also give each entry's title")
    json_flag(cmd)

    cmd = command("outline", _outline, "show how the record was read: unit, sections, entries, left out")
    json_flag(cmd)

    cmd = command("show", _show, "show one lesson in full")
    cmd.add_argument("id")
    json_flag(cmd)

    cmd = command(
        "check-hold",
        _check_hold,
        "evaluate a hold (exit 0 released, 3 held, 4 unsatisfiable, 5 unknown)",
    )
    cmd.add_argument("predicate", help="predicate-<task>-lands or -terminal, joined by +")
    json_flag(cmd)

    cmd = command("task", _task, "record or show a task's state in the ledger")
    task_sub = cmd.add_subparsers(dest="task_command", required=True)
    setter = task_sub.add_parser("set", parents=[common], help="record a task state")
    setter.add_argument("task")
    setter.add_argument("state", choices=["open", "running", "landed", "abandoned", "cancelled", "failed"])
    setter.add_argument("--by", help="who sets it (default $GOTCHAS_ACTOR or $USER)")
    json_flag(setter)
    shower = task_sub.add_parser("show", parents=[common], help="a task's ledger history")
    shower.add_argument("task")
    json_flag(shower)

    cmd = command(
        "propose",
        _propose,
        "propose a supersession (--target-id) or a new lesson; writes only the proposal",
    )
    cmd.add_argument("--from-json", metavar="FILE", help="arguments as a JSON object ('-': stdin)")
    cmd.add_argument("--target-id")
    cmd.add_argument("--task")
    cmd.add_argument("--title")
    cmd.add_argument("--body")
    cmd.add_argument("--body-file")
    cmd.add_argument("--diagnostic")
    cmd.add_argument("--ruled-out", action="append", default=[])
    cmd.add_argument("--evidence")
    cmd.add_argument("--red-herring-note")
    cmd.add_argument("--hold")
    cmd.add_argument("--tasks", action="append", default=[], help="capture: tasks (repeat)")
    cmd.add_argument("--root-cause", choices=["confirmed", "suspected"])
    cmd.add_argument("--after", help="capture: entry id to place it after")
    json_flag(cmd)

    cmd = command("apply", _apply, "apply a stored proposal (exit 3 when refused)")
    cmd.add_argument("proposal_id")
    json_flag(cmd)

    cmd = command("proposals", _proposals, "list stored proposals")
    json_flag(cmd)

    for name in ("verify", "lint"):
        cmd = command(name, _verify, "check the record's links and fields (exit 1 on errors)")
        cmd.add_argument("--strict", action="store_true", help="warnings fail too")
        json_flag(cmd)

    cmd = command("serve", _serve, "run the MCP server (stdio; --http for streamable HTTP)")
    cmd.add_argument("--http", action="store_true")
    cmd.add_argument("--host", default="127.0.0.1")
    cmd.add_argument("--port", type=int, default=8000)

    cmd = command("demo", _demo, "walk through the #664 correction on a scratch copy")
    cmd.add_argument("--no-pause", action="store_true")
    return parser
