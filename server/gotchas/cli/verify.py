"""``verify`` (and its alias ``lint``): the record's problems as editor lines or CI annotations,
with the controls of a linter: ``--select``/``--ignore`` (and ``[lint]`` in the config),
``--statistics``, ``--fix``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gotchas.cli.exits import EXIT_ERROR
from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit, say, shown_path
from gotchas.wording import counted

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from gotchas.repair import Fix
    from gotchas.results import ProblemView
    from gotchas.workspace import Workspace


def add_verify(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--strict", action="store_true", help="warnings fail too")
    cmd.add_argument("--history", action="store_true", help="also the findings of `gotchas check` (asks git)")
    cmd.add_argument(
        "--format",
        choices=["text", "github"],
        default="text",
        help="text lines, or GitHub Actions annotations (default: %(default)s)",
    )
    cmd.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="report only these codes or code prefixes, comma-separated (replaces [lint] select)",
    )
    cmd.add_argument(
        "--ignore",
        action="append",
        metavar="CODES",
        help="leave out these codes or code prefixes, comma-separated (added to [lint] ignore)",
    )
    cmd.add_argument("--statistics", action="store_true", help="counts per code, not a line a problem")
    cmd.add_argument(
        "--fix",
        action="store_true",
        help="repair what has one safe fix (a link to a renamed entry, a missing reciprocal mark); "
        "no other byte changes",
    )
    json_flag(cmd)


def run_verify(args: argparse.Namespace) -> int:
    from gotchas import lookup

    ws = workspace(args)
    select, ignore = _rules(args, ws)
    if args.fix:
        for fix in _fix(ws, lambda code: _chosen(code, select, ignore)):
            say(f"fixed {fix.code} in {fix.entry} (line {fix.line}): {fix.done}")
    result = lookup.verify_record(ws, history=args.history)
    everything = result["problems"]
    known = {*_codes(), *(p["code"] for p in everything)}
    for selector in [*select, *ignore]:
        _check_selector(selector, known)
    problems = [p for p in everything if _chosen(p["code"], select, ignore)]
    errors = sum(p["severity"] == "error" for p in problems)
    warnings = len(problems) - errors
    failing = bool(errors) or (args.strict and bool(problems))
    path = shown_path(ws.root / result["record"])
    if args.json:
        result["problems"] = problems
        result["ok"] = not errors
        emit(result, True)
        return EXIT_ERROR if failing else 0
    shown = (
        statistics(problems) if args.statistics else [problem_line(path, p, args.format) for p in problems]
    )
    lines = list(shown)
    left_out = len(everything) - len(problems)
    summary = counted(len(problems), "problem") if problems else "no problems"
    if problems:
        summary += f" ({counted(errors, 'error')}, {counted(warnings, 'warning')})"
    summary += f" in {counted(result['entries'], 'entry')}"
    if left_out:
        summary += f", {left_out} more not selected"
    if not failing:
        verdict = "ok"
    elif errors:
        verdict = "failed"
    else:
        verdict = "failed (--strict fails on warnings)"
    lines.append(f"{path}: {summary}: {verdict}")
    emit(result, False, "\n".join(lines))
    return EXIT_ERROR if failing else 0


def statistics(problems: list[ProblemView]) -> list[str]:
    """One line a code, most frequent first: count, code, severity."""
    from collections import Counter

    counts = Counter((p["code"], p["severity"]) for p in problems)
    if not counts:
        return []
    wide = max(len(code) for code, _ in counts)
    return [
        f"{n:>7}  {code.ljust(wide)}  {severity}"
        for (code, severity), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def problem_line(path: str, problem: ProblemView, style: str) -> str:
    """``path:line:col: severity code message``, or a GitHub Actions annotation."""
    line = problem["line"] or 1
    column = problem.get("column") or 1
    message = f"{problem['entry']}: {problem['message']}" if problem["entry"] else problem["message"]
    if style == "github":
        level = "error" if problem["severity"] == "error" else "warning"
        props = f"file={_gh(path, True)},line={line},col={column},title={_gh(problem['code'], True)}"
        return f"::{level} {props}::{_gh(message, False)}"
    return f"{path}:{line}:{column}: {problem['severity']} {problem['code']} {message}"


def _gh(text: str, prop: bool) -> str:
    """GitHub's workflow-command escaping: ``%``, CR and LF always; ``:`` and ``,`` in properties."""
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


# --- which codes ---------------------------------------------------------------------------


def _rules(args: argparse.Namespace, ws: Workspace) -> tuple[list[str], list[str]]:
    """``--select`` (else ``[lint] select``) and ``[lint] ignore`` with ``--ignore`` added."""
    lint = ws.config.lint
    select = _split(args.select) if args.select else list(lint.select)
    return select, [*lint.ignore, *_split(args.ignore or [])]


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _chosen(code: str, select: list[str], ignore: list[str]) -> bool:
    """Selected (no ``select``, or a selector matches) and not ignored; a selector matches a
    code it is, or begins (``dangling`` matches both dangling codes); ``ALL`` matches every code."""

    def matches(selector: str) -> bool:
        return selector == "ALL" or code.startswith(selector)

    return (not select or any(matches(s) for s in select)) and not any(matches(s) for s in ignore)


def _codes() -> list[str]:
    from gotchas.verification import CODES

    return list(CODES)


def _check_selector(selector: str, known: set[str]) -> None:
    """A selector that matches no code is a typo: say so, with the nearest code."""
    if selector == "ALL" or any(code.startswith(selector) for code in known):
        return
    import difflib

    near = difflib.get_close_matches(selector, sorted(known), n=1)
    hint = f"; did you mean {near[0]}?" if near else f"; codes: {', '.join(sorted(known))}"
    say(f"{selector!r} matches no lint code{hint}")


# --- --fix ---------------------------------------------------------------------------------


def _fix(ws: Workspace, wanted: Callable[[str], bool]) -> list[Fix]:
    """Make the safe fixes of the ``wanted`` codes under the record's lock, written as apply
    writes: compare-and-swap against the version read, read back, never over a change made
    meanwhile."""
    from gotchas import repair, verification
    from gotchas.workspace import RecordChanged

    path = ws.writable_record()
    with ws.lock(path):
        snapshot = ws.snapshot(path)
        before = ws.parse(snapshot.data, name=ws.name(path))
        verification.refuse_conflict_markers(before)
        after, fixes = repair.repaired(before, ws.parse_as_edit, wanted)
        if not fixes:
            return []
        try:
            swap = ws.swap(path, after.data, expect=snapshot)
        except RecordChanged:
            raise RecordChanged(
                f"{ws.name(path)} changed while it was being fixed; nothing was written, run the fix again"
            ) from None
        for warning in swap.warnings:
            say(warning)
        _read_back(ws, path, after.data, swap.late)
    return fixes


def _read_back(ws: Workspace, path: Path, data: bytes, late: bytes | None) -> None:
    from gotchas.errors import Conflict

    if late is not None:  # a write landed in the old file after the compare: it is not in the record
        raise Conflict(
            f"{ws.name(path)} was written by someone else while it was being fixed; the fixes are in "
            "place but that write is not: check the record (git diff) and run the fix again"
        )
    if ws.read(path) != data:
        raise Conflict(f"{ws.name(path)} read back is not what the fix wrote; check it (git diff)")
