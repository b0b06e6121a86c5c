"""``verify`` (and its alias ``lint``): the record's problems as editor lines or CI annotations."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gotchas.cli.exits import EXIT_ERROR
from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit, shown_path
from gotchas.wording import counted

if TYPE_CHECKING:
    from gotchas.results import ProblemView


def add_verify(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--strict", action="store_true", help="warnings fail too")
    cmd.add_argument("--history", action="store_true", help="also the findings of `gotchas check` (asks git)")
    cmd.add_argument(
        "--format",
        choices=["text", "github"],
        default="text",
        help="text lines, or GitHub Actions annotations (default: %(default)s)",
    )
    json_flag(cmd)


def run_verify(args: argparse.Namespace) -> int:
    from gotchas import lookup

    ws = workspace(args)
    result = lookup.verify_record(ws, history=args.history)
    problems = result["problems"]
    errors = sum(p["severity"] == "error" for p in problems)
    warnings = len(problems) - errors
    failing = not result["ok"] or (args.strict and bool(problems))
    path = shown_path(ws.root / result["record"])
    if args.json:
        emit(result, True)
        return EXIT_ERROR if failing else 0
    lines = [problem_line(path, p, args.format) for p in problems]
    counts = [counted(n, word) for n, word in ((errors, "error"), (warnings, "warning")) if n]
    entries = counted(result["entries"], "entry")
    if not failing:
        verdict = "ok" + (f" ({', '.join(counts)})" if counts else "")
    elif result["ok"]:
        verdict = f"failed: {', '.join(counts)} (--strict fails on warnings)"
    else:
        verdict = f"failed: {', '.join(counts)}"
    lines.append(f"{path}: {entries}, {verdict}")
    emit(result, False, "\n".join(lines))
    return EXIT_ERROR if failing else 0


def problem_line(path: str, problem: ProblemView, style: str) -> str:
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
