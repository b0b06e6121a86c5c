"""``propose``, ``apply`` and ``proposals``: a correction written as a proposal, then applied."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from gotchas.cli.exits import EXIT_HELD, EXIT_REFUSED
from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import color_flag, color_mode, columns, diff, emit, say, write
from gotchas.errors import InvalidArgument
from gotchas.wording import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gotchas.results import ApplyResult

_KEYS = (
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
"""What ``propose`` takes, as options or as the keys of a ``--from-json`` object."""

_LISTS = frozenset({"ruled_out", "tasks"})

Spec = dict[str, "str | list[str] | None"]


def add_propose(cmd: argparse.ArgumentParser) -> None:
    cmd.epilog = (
        "A supersession needs --target-id, --task, --title, --body and --diagnostic;\n"
        "a new lesson needs --title, --body, --tasks and --root-cause. Either is held until its\n"
        "task lands (--hold to choose another hold, --no-hold for none); then `gotchas apply`."
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
        help="apply is refused until this hold is released "
        "(default: until the task lands, predicate-<task>-lands)",
    )
    cmd.add_argument("--no-hold", action="store_true", help="no hold: the proposal may be applied at once")
    cmd.add_argument(
        "--tasks", action="append", default=[], metavar="TASK", help="new lesson: a task (repeat)"
    )
    cmd.add_argument(
        "--root-cause", choices=["confirmed", "suspected"], help="new lesson: how sure the cause is"
    )
    cmd.add_argument(
        "--after",
        metavar="ID",
        help="new lesson: the entry to place it after (default: where a comment in the file asks "
        "for new lessons, else the end of the section whose lessons share its tasks or words; "
        "refused when none does)",
    )
    cmd.add_argument(
        "--retire", metavar="ID", help="retire: mark this lesson no longer true (--why, --evidence)"
    )
    cmd.add_argument("--recheck", action="store_true", help="with --retire: still true as of --evidence REV")
    cmd.add_argument("--why", help="retire: what changed, one line")
    json_flag(cmd)
    color_flag(cmd)


def run_propose(args: argparse.Namespace) -> int:
    from gotchas import operations

    spec = _from_json(args.from_json) if args.from_json else {}
    for key in _KEYS:
        value = getattr(args, key, None)
        if value not in (None, []):
            spec[key] = value
    if args.body_file:
        spec["body"] = Path(args.body_file).read_text("utf-8")
    ws = workspace(args)
    if args.retire:
        _require(spec, "why")
        result = operations.propose_retire(
            ws,
            target_id=args.retire,
            why=_text(spec, "why"),
            evidence=_optional(spec, "evidence"),
            recheck=args.recheck,
            hold=_optional(spec, "hold"),
        )
    elif spec.get("target_id"):
        _require(spec, "task", "title", "body", "diagnostic")
        result = operations.propose_supersede(
            ws,
            target_id=_text(spec, "target_id"),
            task=_text(spec, "task"),
            title=_text(spec, "title"),
            body=_text(spec, "body"),
            diagnostic=_text(spec, "diagnostic"),
            ruled_out=_texts(spec, "ruled_out"),
            evidence=_optional(spec, "evidence"),
            red_herring_note=_optional(spec, "red_herring_note"),
            hold=_optional(spec, "hold"),
            no_hold=args.no_hold,
            tasks=_texts(spec, "tasks"),
            root_cause=_optional(spec, "root_cause") or "confirmed",
        )
    else:
        _require(spec, "title", "body", "tasks", "root_cause")
        result = operations.propose_lesson(
            ws,
            title=_text(spec, "title"),
            body=_text(spec, "body"),
            tasks=_texts(spec, "tasks"),
            root_cause=_text(spec, "root_cause"),
            diagnostic=_optional(spec, "diagnostic"),
            ruled_out=_texts(spec, "ruled_out"),
            evidence=_optional(spec, "evidence"),
            after=_optional(spec, "after"),
            hold=_optional(spec, "hold"),
            no_hold=args.no_hold,
        )
    if args.json:
        emit(result, True)
        return 0
    head = f"{result['status']}: {result['proposal_id'] or result['new_id']}"
    # the diff coloured as git colours one, on a terminal; every line escaped all the same
    write([*diff(head, False), *diff(result["diff"], color_mode(args)), *diff(result["next_step"], False)])
    return 0


def _from_json(source: str) -> Spec:
    """The ``--from-json`` object, its keys and the types of its values checked."""
    from gotchas import json_text

    raw = sys.stdin.read() if source == "-" else Path(source).read_text("utf-8")
    try:
        spec = json_text.loads(raw)
    except ValueError as exc:
        raise InvalidArgument(f"--from-json: not JSON ({exc})") from None
    if not isinstance(spec, dict):
        raise InvalidArgument("--from-json: expected a JSON object")
    unknown = set(spec) - set(_KEYS)
    if unknown:
        raise InvalidArgument(f"--from-json: unknown keys {sorted(unknown)}")
    problem = json_types_problem(spec)
    if problem:
        raise InvalidArgument(problem)
    return spec


def json_types_problem(spec: dict[str, object]) -> str | None:
    """What in a ``--from-json`` object has the wrong type: lists must be lists of strings
    (``"ruled_out": "abc"`` is not three items), everything else a string or null."""
    for key, value in spec.items():
        if value is None:
            continue
        if key in _LISTS:
            if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                return f'--from-json: {key} must be a list of strings, like ["{key}-one", "{key}-two"]'
        elif not isinstance(value, str):
            return f"--from-json: {key} must be a string, got {type(value).__name__}"
    return None


def _require(spec: Spec, *keys: str) -> None:
    missing = [k for k in keys if not spec.get(k)]
    if missing:
        raise InvalidArgument("missing " + ", ".join("--" + k.replace("_", "-") for k in missing))


def _text(spec: Spec, key: str) -> str:
    value = spec[key]
    assert isinstance(value, str)  # checked by json_types_problem or given as an option
    return value


def _optional(spec: Spec, key: str) -> str | None:
    value = spec.get(key)
    return value if isinstance(value, str) else None


def _texts(spec: Spec, key: str) -> list[str]:
    value = spec.get(key)
    return value if isinstance(value, list) else []


def add_apply(cmd: argparse.ArgumentParser) -> None:
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


def run_apply(args: argparse.Namespace) -> int:
    from gotchas import operations

    if args.released:
        if args.proposal_id:
            raise InvalidArgument("give a proposal id or --released, not both")
        return _apply_released(args)
    if not args.proposal_id:
        raise InvalidArgument("give the proposal id to apply, or --released for every released one")
    ws = workspace(args)
    if args.commit:
        from gotchas.commit import preflight

        preflight(ws, [args.proposal_id])
    result = operations.apply(ws, proposal_id=args.proposal_id)
    text = f"{result['status']}: {result['reason']}"
    if args.commit and result["status"] in ("applied", "already-applied"):
        from gotchas.commit import commit_applied

        made = commit_applied(ws, [result["proposal_id"]])  # already-applied: finish a stopped commit
        if made:
            result["commit"] = made
            text += f"\ncommitted {made}"
    emit(result, args.json, f"{text}\nnext: {_after_apply(result, committed='commit' in result)}")
    return 0 if result["status"] in ("applied", "already-applied") else EXIT_HELD


def _after_apply(result: ApplyResult, *, committed: bool) -> str:
    """The command a person runs next, after an apply."""
    pid = result["proposal_id"]
    if result["status"] == "refused":
        if result.get("code") == "hold-not-released":
            return f"once the hold is released, `gotchas apply {pid}` again (`gotchas check-hold` tells)"
        return f"`gotchas proposals` shows why; propose again, or `gotchas withdraw {pid}`"
    report = result["verification"]
    if report is not None and not report["ok"]:
        return "`gotchas verify` lists the problems to fix"
    if committed or result["status"] == "already-applied":
        return "`gotchas verify`"
    record = shlex.quote(result["record"])
    files = f"{record} .claude/gotchas/journal.jsonl .claude/gotchas/proposals/{pid}.json"
    return f"`gotchas verify`, then `git add {files} && git commit` (or apply with --commit)"


def _apply_released(args: argparse.Namespace) -> int:
    """Exit 0: nothing left to apply; 3: some proposals are still held; 7: some were refused."""
    from gotchas import operations, pending

    ws = workspace(args)
    operations.refuse_unresolved_merge(ws)
    stopped: list[str] = []
    if args.commit:
        from gotchas.commit import preflight, unfinished

        preflight(ws, None)
        stopped = [p.id for p in unfinished(ws, None)]  # written by a commit that did not finish
    result = pending.apply_released(ws)
    if args.commit and (result["applied"] or stopped):
        from gotchas.commit import commit_applied

        made = commit_applied(
            ws, list(dict.fromkeys([r["proposal_id"] for r in result["applied"]] + stopped))
        )
        if made:
            result["commit"] = made
    lines = [f"applied {r['proposal_id']}: {r['reason']}" for r in result["applied"]]
    if "commit" in result:
        lines.append(f"committed {result['commit']}")
    lines += [f"refused {r['proposal_id']}: {r['reason']}" for r in result["refused"]]
    lines += [f"held    {p['proposal_id']}: {p['reason']}" for p in result["held"]]
    if not result["applied"] and not result["refused"]:
        lines.append("nothing to apply")
    emit(result, args.json, "\n".join(lines))
    if result["refused"]:
        return EXIT_REFUSED
    return EXIT_HELD if result["held"] else 0


def add_proposals(cmd: argparse.ArgumentParser) -> None:
    shown = cmd.add_mutually_exclusive_group()
    shown.add_argument("--all", action="store_true", help="also the withdrawn proposals")
    shown.add_argument("--pending", action="store_true", help="only the pending proposals")
    shown.add_argument(
        "--status",
        choices=["pending", "applied", "superseded", "conflicting", "withdrawn"],
        help="only the proposals of this status",
    )
    json_flag(cmd)


def run_proposals(args: argparse.Namespace) -> int:
    from gotchas import pending, proposal
    from gotchas.holds.prose import answer_lines
    from gotchas.withdraw import select

    ws = workspace(args)
    every = pending.assess(ws)
    found = select(every, "all" if args.all else "pending" if args.pending else args.status)
    rows: list[tuple[str, ...]] = [("PROPOSAL", "STATUS", "KIND", "NEW ID", "HOLD")]
    details: list[str] = []
    for p in found:
        hold = p["hold_state"]
        held = f"{p['hold']} ({hold['state']})" if hold else (p["hold"] or "-")
        rows.append((p["proposal_id"], p["status"], p["kind"], p["new_id"], held))
        details.append(f"{p['proposal_id']}: {p['reason']}")
        if hold and p["status"] == "pending":
            details += answer_lines({**hold, "release": []}, "  ")
    count = counted(len(found), "proposal")
    hidden = sum(p["status"] == "withdrawn" for p in every) if not (args.all or args.status) else 0
    if hidden and not args.pending:
        count += f" ({counted(hidden, 'withdrawn proposal')} not shown; --all shows them)"
    if found:
        text = "\n".join([*columns(rows), *details, count])
    elif every:
        which = "pending " if args.pending else f"{args.status} " if args.status else ""
        text = f"no {which}proposals among {counted(len(every), 'stored proposal')}"
        text += f" ({counted(hidden, 'withdrawn')}; --all shows them)" if hidden else ""
    else:
        text = "no stored proposals"
    emit({"proposals": found}, args.json, text)
    for problem in proposal.unreadable(ws.proposals_dir):
        say(f"left out: {problem}")
    return 0


def add_withdraw(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "proposal_id", metavar="PROPOSAL", help="the proposal id (p-...), as `gotchas proposals` shows"
    )
    cmd.add_argument("--why", metavar="TEXT", help="why it is withdrawn, kept in the journal")
    json_flag(cmd)


def run_withdraw(args: argparse.Namespace) -> int:
    from gotchas.withdraw import said, withdraw

    result = withdraw(workspace(args), proposal_id=args.proposal_id, why=args.why)
    text = f"{result['status']}: {result['proposal_id']} ({said(result['withdrawn'])})"
    text += f"\nnext: {result['next_step']}"
    emit(result, args.json, text)
    return 0
