"""The ``gotchas`` command: the same operations as the MCP tools, for people and CI.

Output is a readable table or, with ``--json``, the same object the tool returns. A
refusal is one line on stderr and a non-zero exit (:data:`EXIT_CODES`); hints name the
commands and options of this surface (:mod:`gotchas.surface`). The MCP SDK is imported
only by ``serve`` and ``demo``, so every other command starts fast.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from gotchas import __version__, surface
from gotchas.errors import GotchasError, InvalidArgument, from_os_error
from gotchas.terminal import json_printable, printable
from gotchas.wording import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMMANDS = (
    *("list", "outline", "show", "check-hold", "task", "propose", "apply", "proposals", "merge-record"),
    *("init", "session-start", "history", "verify", "lint", "serve", "demo", "check"),
)
"""Every command's name: a command line that starts with one builds that command's parser alone."""

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CANNOT_LISTEN = 6
EXIT_TOKEN_REQUIRED = 8
# One table, shown by --help and the README: a code means one thing whichever command exits.
EXIT_CODES = (
    (0, "success (check-hold: released; verify: no problem that fails)"),
    (1, "an error: a refusal, a problem found by verify, a failed read or write"),
    (2, "bad input: unknown option, invalid argument"),
    (3, "held: check-hold's hold is held, apply refused, or apply --released left some held"),
    (4, "check-hold: unsatisfiable (a task can no longer land)"),
    (5, "check-hold: unknown (no source could tell)"),
    (6, "serve --http cannot listen: port in use, address not this machine's, no permission"),
    (
        7,
        "apply --released: some proposals were refused, each named with its reason (unreadable, "
        "forged, a conflict, or verification found problems)",
    ),
    (8, "serve --http beyond loopback without GOTCHAS_TOKEN (token-required)"),
    (130, "interrupted"),
)


def main(argv: Sequence[str] | None = None) -> int:
    surface.use("cli")
    parser = _parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except GotchasError as exc:
        _say(f"{exc.code}: {exc.message}")
        if exc.code == "cannot-listen":
            return EXIT_CANNOT_LISTEN
        if exc.code == "token-required":
            return EXIT_TOKEN_REQUIRED
        return EXIT_USAGE if isinstance(exc, InvalidArgument) else EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        failure = from_os_error(exc)
        _say(f"{failure.code}: {failure.message}")
        return EXIT_ERROR
    except Exception as exc:  # a bug: still one line, never a traceback
        _say(f"internal error: {type(exc).__name__}: {exc}")
        return EXIT_ERROR


def _say(message: str) -> None:
    """One line on stderr; what it quotes from the repository cannot drive the terminal."""
    print(f"gotchas: {printable(message)}", file=sys.stderr)


def _workspace(args: argparse.Namespace) -> Any:
    from gotchas.workspace import Workspace

    return Workspace.discover(root=args.root or args.global_root, record=args.record or args.global_record)


def _emit(value: object, as_json: bool, text: str | None = None) -> None:
    """The JSON object (exact JSON, its control and bidi characters escaped) or the text for
    people, every control character in it shown as an escape (:mod:`gotchas.terminal`)."""
    if as_json or text is None:
        import json  # only --json output: text for people needs none

        sys.stdout.write(json_printable(json.dumps(value, indent=2, ensure_ascii=False)) + "\n")
    else:
        shown = printable(text)
        sys.stdout.write(shown + ("\n" if not shown.endswith("\n") else ""))


def _list(args: argparse.Namespace) -> int:
    """One listing, then the process ends: the cyclic collector stays off throughout (the
    parse, the entries read and the page make no cyclic garbage, and a collection would
    walk every object of the parse)."""
    from gotchas.record import collector_paused

    with collector_paused():
        return _listed(args)


def _listed(args: argparse.Namespace) -> int:
    from gotchas import lookup, query

    ws = _workspace(args)
    ws.one_shot = True  # nothing edits the record after a listing
    named = bool(args.record or args.global_record)

    def page(cursor: str | None, limit: int | None) -> Any:
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
    _emit(result, args.json, _listing_text(result))
    if "notice" in result and not args.json:
        _say(result["notice"])
    return 0


def _listing_text(result: Any) -> str:
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


def _outline(args: argparse.Namespace) -> int:
    from gotchas import outline

    ws = _workspace(args)
    parsed = ws.load(ws.record_path())
    decision = outline.describe(parsed.reading, [e.id for e in parsed.entries])
    _emit(decision, args.json, outline.text(decision))
    return 0


def _show(args: argparse.Namespace) -> int:
    from gotchas import lookup

    entry = lookup.get_gotcha(_workspace(args), entry_id=args.id)
    # a CR or CRLF is a line break in the record (the parser splits there): print it as one
    _emit(entry, args.json, entry["text"].replace("\r\n", "\n").replace("\r", "\n"))
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
    "why",
)


def _propose(args: argparse.Namespace) -> int:
    from gotchas import json_text, operations
    from gotchas.arguments import json_types_problem

    spec: dict[str, Any] = {}
    if args.from_json:
        raw = sys.stdin.read() if args.from_json == "-" else Path(args.from_json).read_text("utf-8")
        try:
            spec = json_text.loads(raw)
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
    if args.retire:
        _require(spec, "why")
        result = operations.propose_retire(
            ws,
            target_id=args.retire,
            why=spec["why"],
            evidence=spec.get("evidence"),
            recheck=args.recheck,
            hold=spec.get("hold"),
        )
    elif spec.get("target_id"):
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

    if args.released:
        if args.proposal_id:
            raise InvalidArgument("give a proposal id or --released, not both")
        return _apply_released(args)
    if not args.proposal_id:
        raise InvalidArgument("give the proposal id to apply, or --released for every released one")
    ws = _workspace(args)
    if args.commit:
        from gotchas.commit import preflight, records_of

        preflight(ws, records_of(ws, [args.proposal_id]))
    result = operations.apply(ws, proposal_id=args.proposal_id)
    text = f"{result['status']}: {result['reason']}"
    if args.commit and result["status"] == "applied":
        from gotchas.commit import commit_applied

        result["commit"] = commit_applied(ws, [result["proposal_id"]])
        text += f"\ncommitted {result['commit']}"
    _emit(result, args.json, text)
    return 0 if result["status"] in ("applied", "already-applied") else 3


EXIT_HELD = 3
EXIT_REFUSED = 7


def _apply_released(args: argparse.Namespace) -> int:
    """Exit 0: nothing left to apply; 3: some proposals are still held; 7: some were refused."""
    from gotchas import operations, pending

    ws = _workspace(args)
    operations.refuse_unresolved_merge(ws)
    if args.commit:
        from gotchas.commit import preflight, records_of

        preflight(ws, records_of(ws, None))
    result = pending.apply_released(ws)
    if args.commit and result["applied"]:
        from gotchas.commit import commit_applied

        result["commit"] = commit_applied(ws, [r["proposal_id"] for r in result["applied"]])
    lines = [f"applied {r['proposal_id']}: {r['reason']}" for r in result["applied"]]
    if "commit" in result:
        lines.append(f"committed {result['commit']}")
    lines += [f"refused {r['proposal_id']}: {r['reason']}" for r in result["refused"]]
    lines += [f"held    {p['proposal_id']}: {p['reason']}" for p in result["held"]]
    if not result["applied"] and not result["refused"]:
        lines.append("nothing to apply")
    _emit(result, args.json, "\n".join(lines))
    if result["refused"]:
        return EXIT_REFUSED
    return EXIT_HELD if result["held"] else 0


def _proposals(args: argparse.Namespace) -> int:
    from gotchas import operations

    ws = _workspace(args)
    found = operations.list_proposals(ws)
    rows: list[tuple[str, ...]] = [("PROPOSAL", "STATUS", "KIND", "NEW ID", "HOLD")]
    details: list[str] = []
    for p in found:
        hold = p["hold_state"]
        held = f"{p['hold']} ({hold['state']})" if hold else (p["hold"] or "-")
        cells = (p["proposal_id"], p["status"], p["kind"], p["new_id"], held)
        rows.append(tuple(printable(cell) for cell in cells))
        details.append(f"{p['proposal_id']}: {p['reason']}")
        for task in hold["tasks"] if hold else []:
            state, source = task["state"] or "unknown", task["source"] or "-"
            details.append(f"  {task['task']}: {state} (source: {source})")
            for item in task["evidence"]:
                details.append("    " + ", ".join(f"{k}={v}" for k, v in item.items()))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    count = counted(len(found), "proposal")
    text = "\n".join([*table, *details, count]) if found else "no stored proposals"
    _emit({"proposals": found}, args.json, text)
    from gotchas import proposal

    for problem in proposal.unreadable(ws.proposals_dir):
        _say(f"left out: {problem}")
    return 0


def _history(args: argparse.Namespace) -> int:
    from gotchas.history import history

    result = history(_workspace(args), task=args.task)
    hypotheses = counted(len(result["entries"]), "hypothesis")
    lines = [f"{result['task']}: {hypotheses}, current: {result['current'] or '-'}"]
    for n, entry in enumerate(result["entries"], start=1):
        mark = " (red herring)" if entry["red_herring"] else ""
        lines.append(
            f"{n}. {entry['id']}  {entry['root_cause']}{mark}  lines {entry['lines'][0]}-{entry['lines'][1]}"
        )
        lines.append(f"   {entry['title']}")
        for later in entry["superseded_by"]:
            when = later["at"] or "when unknown"
            how = later["proposal_id"] or (later["commit"] or "")[:12] or "-"
            lines.append(
                f"   superseded by {later['id']} at {when} ({later['source'] or 'record only'}: {how})"
            )
        if entry["ruled_out"]:
            lines.append("   ruled out: " + "; ".join(entry["ruled_out"]))
        for marked in entry.get("marks", []):
            said = marked["why"] or f"still true as of {marked['evidence']}"
            how = marked["proposal_id"] or "-"
            lines.append(f"   {marked['kind']} at {marked['at'] or 'when unknown'} ({how}): {said}")
    _emit(result, args.json, "\n".join(lines))
    return 0


def _check(args: argparse.Namespace) -> int:
    from gotchas.check.command import main as check_main

    return check_main(_workspace(args), args)


def _merge_record(args: argparse.Namespace) -> int:
    """The git merge driver: exit 0 merged (into %A), 1 conflict markers left in %A."""
    from gotchas import merge

    try:  # the three versions are read as the repository pins its record (entries = …)
        read: merge.Read = _workspace(args).parse_as_edit
    except GotchasError as exc:
        _say(f"{exc.message}; reading the record unpinned")
        read = merge.read_guessed
    status, line = merge.run(
        Path(args.base), Path(args.ours), Path(args.theirs), args.path or args.ours, read
    )
    _say(line)
    return status


def _init(args: argparse.Namespace) -> int:
    from gotchas import initialize

    changes = initialize.run(_workspace(args), dry_run=args.dry_run)
    verb = "would change" if args.dry_run else "changed"
    lines = [f"{'kept' if c.kept else verb} {c.target}: {c.what}" for c in changes]
    if all(c.kept for c in changes):
        lines.append("nothing to change: already set up")
    view = {
        "dry_run": args.dry_run,
        "changes": [{"target": c.target, "what": c.what, "kept": c.kept} for c in changes],
    }
    _emit(view, args.json, "\n".join(lines))
    return 0


def _session_start(args: argparse.Namespace) -> int:
    """The SessionStart hook: always exit 0, print nothing unless proposals are ready."""
    from gotchas import session_start

    try:
        text = session_start.hook_output(_workspace(args))
    except Exception:  # a failing hook must not stop the session from starting
        return 0
    if text:
        sys.stdout.write(text + "\n")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from gotchas import lookup

    ws = _workspace(args)
    result = lookup.verify_record(ws, history=args.history)
    problems = result["problems"]
    errors = sum(p["severity"] == "error" for p in problems)
    warnings = len(problems) - errors
    failing = not result["ok"] or (args.strict and bool(problems))
    path = _shown_path(ws.root / result["record"])
    if args.json:
        _emit(result, True)
        return EXIT_ERROR if failing else 0
    lines = [_problem_line(path, p, args.format) for p in problems]
    counts = [counted(n, word) for n, word in ((errors, "error"), (warnings, "warning")) if n]
    entries = counted(result["entries"], "entry")
    if not failing:
        verdict = "ok" + (f" ({', '.join(counts)})" if counts else "")
    elif result["ok"]:
        verdict = f"failed: {', '.join(counts)} (--strict fails on warnings)"
    else:
        verdict = f"failed: {', '.join(counts)}"
    lines.append(f"{path}: {entries}, {verdict}")
    _emit(result, False, "\n".join(lines))
    return EXIT_ERROR if failing else 0


def _shown_path(path: Path) -> str:
    """The record as editors and CI resolve it: relative to where the command runs."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def _problem_line(path: str, problem: Any, style: str) -> str:
    """``path:line:col: severity code message``, or a GitHub Actions annotation."""
    line = problem["line"] or 1
    message = f"{problem['entry']}: {problem['message']}" if problem["entry"] else problem["message"]
    if style == "github":
        level = "error" if problem["severity"] == "error" else "warning"
        props = f"file={_gh(path, True)},line={line},col=1,title={_gh(problem['code'], True)}"
        return f"::{level} {props}::{_gh(message, False)}"
    return f"{path}:{line}:1: {problem['severity']} {problem['code']} {message}"


def _gh(text: str, prop: bool) -> str:
    """GitHub's workflow-command escaping: ``%``, CR and LF always; ``:`` and ``,`` in properties."""
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def _serve(args: argparse.Namespace) -> int:
    # Importing the MCP SDK allocates hundreds of thousands of long-lived objects; collecting
    # them during start-up is wasted work, so collection waits until the server is built, and
    # what exists then is frozen out of later collections.
    gc.disable()
    surface.use("mcp")  # the server's hints name its tools, not these commands
    ws = _workspace(args)
    if args.http:
        from gotchas import endpoint

        hosts = endpoint.parse_hosts([os.environ.get(endpoint.HOSTS_VARIABLE, ""), *args.allowed_host])
        raw_token = os.environ.get(endpoint.TOKEN_VARIABLE)
        endpoint.require_token(args.host, hosts, raw_token)  # exit 8 before any other token check
        token = endpoint.parse_token(raw_token)
        _start_collecting()
        endpoint.serve(ws, args.host, args.port, token, hosts)
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

    surface.use("mcp")  # the demo shows the tool calls a model makes
    return run(interactive=sys.stdin.isatty() and not args.no_pause)


class _Unbuilt:
    """Stands for the parser of a command this run does not name: every call is a no-op."""

    def add_argument(self, *args: object, **kwargs: object) -> None:
        pass

    def add_subparsers(self, **kwargs: object) -> _Unbuilt:
        return self

    def add_parser(self, *args: object, **kwargs: object) -> _Unbuilt:
        return self


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``argv`` that starts with a command, only that command's
    parser is built (the others would cost a fifth of a one-shot listing, and a command's
    arguments are parsed by its own parser alone). Anything else -- ``--help``, an option
    first, a name that is no command -- builds every command, so help and errors are whole."""
    first = argv[0] if argv else None

    def locations(target: argparse.ArgumentParser, prefix: str) -> None:
        target.add_argument(
            "--root",
            dest=f"{prefix}root",
            metavar="DIR",
            help="project root (default: $GOTCHAS_ROOT, else $CLAUDE_PROJECT_DIR, else the git top "
            "level, else the current directory)",
        )
        target.add_argument(
            "--record",
            dest=f"{prefix}record",
            metavar="FILE",
            help="lessons file inside the root (default: $GOTCHAS_RECORD, else `record` in "
            ".claude/gotchas.toml, else .claude/rules/gotchas.md)",
        )

    exit_table = "exit codes:\n" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES)
    common = argparse.ArgumentParser(add_help=False)
    locations(common, "")
    parser = argparse.ArgumentParser(
        prog="gotchas",
        description="Keep the team's lessons file correct: list, hold, propose, apply, verify.",
        epilog=exit_table,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    locations(parser, "global_")
    parser.add_argument("--version", action="version", version=f"gotchas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, run: Any, help_text: str, epilog: str | None = None) -> argparse.ArgumentParser:
        if first in COMMANDS and name != first:
            return _Unbuilt()  # type: ignore[return-value]  # takes the calls that build a parser
        cmd = sub.add_parser(
            name,
            parents=[common],
            help=help_text,
            description=help_text,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        cmd.set_defaults(run=run)
        return cmd

    def json_flag(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--json", action="store_true", help="print the JSON object the tool returns")

    cmd = command("list", _list, "list lessons: id, lines, tasks, state and title")
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

    cmd = command("outline", _outline, "show how the record was read: unit, sections, entries, left out")
    json_flag(cmd)

    cmd = command("show", _show, "show one lesson in full")
    cmd.add_argument("id", help="the entry's id, as `gotchas list` shows it")
    json_flag(cmd)

    cmd = command(
        "check-hold",
        _check_hold,
        "evaluate a hold (exit 0 released, 3 held, 4 unsatisfiable, 5 unknown)",
    )
    cmd.add_argument("predicate", help="predicate-<task>-lands or -terminal, joined by +")
    json_flag(cmd)

    cmd = command("task", _task, "record or show a task's state in the ledger")
    task_sub = cmd.add_subparsers(dest="task_command", required=True, metavar="ACTION")
    setter = task_sub.add_parser("set", parents=[common], help="record a task state")
    setter.add_argument("task", help="the task (#664, owner/repo#664, ABC-123)")
    setter.add_argument(
        "state",
        choices=["open", "running", "landed", "abandoned", "cancelled", "failed"],
        help="the state to record",
    )
    setter.add_argument("--by", metavar="NAME", help="who sets it (default: $GOTCHAS_ACTOR, else $USER)")
    json_flag(setter)
    shower = task_sub.add_parser("show", parents=[common], help="a task's ledger history")
    shower.add_argument("task", help="the task (#664, owner/repo#664, ABC-123)")
    json_flag(shower)

    cmd = command(
        "propose",
        _propose,
        "propose a supersession (--target-id) or a new lesson; writes only the proposal",
        epilog="A supersession needs --target-id, --task, --title, --body and --diagnostic;\n"
        "a new lesson needs --title, --body, --tasks and --root-cause. Apply with `gotchas apply`.",
    )
    cmd.add_argument("--from-json", metavar="FILE", help="arguments as a JSON object ('-': stdin)")
    cmd.add_argument("--target-id", metavar="ID", help="supersede: the entry whose root cause was wrong")
    cmd.add_argument("--task", metavar="TASK", help="supersede: the task the correction is for")
    cmd.add_argument("--title", help="the new lesson's title")
    cmd.add_argument("--body", help="the new lesson's text")
    cmd.add_argument("--body-file", metavar="FILE", help="read the new lesson's text from FILE")
    cmd.add_argument("--diagnostic", help="how the root cause was confirmed")
    cmd.add_argument(
        "--ruled-out", action="append", default=[], metavar="TEXT", help="a cause ruled out (repeat)"
    )
    cmd.add_argument("--evidence", metavar="TEXT", help="where the evidence is (a link, a commit)")
    cmd.add_argument(
        "--red-herring-note", metavar="TEXT", help="supersede: why the old lesson misled, kept beside it"
    )
    cmd.add_argument(
        "--hold",
        metavar="PREDICATE",
        help="apply is refused until this hold is released (predicate-664-lands)",
    )
    cmd.add_argument(
        "--tasks", action="append", default=[], metavar="TASK", help="new lesson: a task (repeat)"
    )
    cmd.add_argument(
        "--root-cause", choices=["confirmed", "suspected"], help="new lesson: how sure the cause is"
    )
    cmd.add_argument("--after", metavar="ID", help="new lesson: the entry to place it after")
    cmd.add_argument(
        "--retire", metavar="ID", help="retire: mark this lesson no longer true (--why, --evidence)"
    )
    cmd.add_argument("--recheck", action="store_true", help="with --retire: still true as of --evidence REV")
    cmd.add_argument("--why", help="retire: what changed, one line")
    json_flag(cmd)

    _apply_command(command("apply", _apply, "apply a stored proposal (exit 3 when refused)"))

    cmd = command("proposals", _proposals, "list stored proposals: status and hold now, with evidence")
    json_flag(cmd)

    cmd = command(
        "merge-record",
        _merge_record,
        "git merge driver for the record: keeps both sides' corrections (exit 1 on conflict)",
    )
    cmd.add_argument("base", help="%%O: the common ancestor's version")
    cmd.add_argument("ours", help="%%A: our version; the merge is written here")
    cmd.add_argument("theirs", help="%%B: their version")
    cmd.add_argument("path", nargs="?", help="%%P: the record's path, for messages")

    cmd = command(
        "init",
        _init,
        "set the repository up: record, .mcp.json, allowed tools, session hook, merge driver",
    )
    cmd.add_argument("--dry-run", action="store_true", help="print the changes without making them")
    json_flag(cmd)

    command(
        "session-start",
        _session_start,
        "Claude Code SessionStart hook: report held proposals whose hold is released (reads only)",
    )

    cmd = command("check", _check, "find lessons the repository has moved away from (reads only)")
    from gotchas.check.options import add_arguments

    add_arguments(cmd)

    cmd = command("history", _history, "the chain of root-cause hypotheses recorded for a task")
    cmd.add_argument("task", help="#664, 664, owner/repo#664 or ABC-123")
    json_flag(cmd)

    for name in ("verify", "lint"):
        cmd = command(
            name,
            _verify,
            "check the record's links and fields: one `path:line:col: severity code message` line "
            "per problem (exit 1 on errors)",
        )
        cmd.add_argument("--strict", action="store_true", help="warnings fail too")
        cmd.add_argument(
            "--history", action="store_true", help="also the findings of `gotchas check` (asks git)"
        )
        cmd.add_argument(
            "--format",
            choices=["text", "github"],
            default="text",
            help="text lines, or GitHub Actions annotations (default: %(default)s)",
        )
        json_flag(cmd)

    cmd = command(
        "serve",
        _serve,
        "run the MCP server (stdio; --http for streamable HTTP)",
        epilog="environment:\n"
        "  GOTCHAS_TOKEN          bearer token every HTTP request must carry; required beyond\n"
        "                         loopback (clients send 'Authorization: Bearer <token>')\n"
        "  GOTCHAS_ALLOWED_HOSTS  more Host names to accept, comma-separated (like --allowed-host)\n"
        "exit 6 when the address cannot be listened on (port in use, not this machine's);\n"
        "exit 8 (token-required) beyond loopback -- a non-loopback --host or allowed host --\n"
        "without GOTCHAS_TOKEN.",
    )
    cmd.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    cmd.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="address to listen on with --http (default: %(default)s; beyond loopback, "
        "GOTCHAS_TOKEN is required)",
    )
    cmd.add_argument(
        "--port",
        type=int,
        default=8000,
        help="port to listen on with --http (default: %(default)s; 0: any free)",
    )
    cmd.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name clients use to reach the server (repeat; default: the bind address, "
        "loopback names, and for 0.0.0.0 this machine's names)",
    )

    cmd = command("demo", _demo, "walk through the #664 correction on a scratch copy")
    cmd.add_argument("--no-pause", action="store_true", help="run through without waiting for Enter")
    return parser


def _apply_command(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "proposal_id",
        nargs="?",
        metavar="PROPOSAL",
        help="the proposal id (p-...), as `gotchas proposals` shows; or --released",
    )
    cmd.add_argument(
        "--released",
        action="store_true",
        help="apply every pending proposal whose hold is released, in creation order "
        "(exit 0 nothing left, 3 some still held, 7 some refused)",
    )
    cmd.add_argument(
        "--commit",
        action="store_true",
        help="commit exactly the record, the journal and the applied proposals (nothing else staged)",
    )
    cmd.add_argument("--json", action="store_true", help="print the JSON object the tool returns")
