"""``gotchas check``, and the one call every surface shares (CLI, lint, MCP, session hook).

The shell: find the record and the repository's top, read the record's bytes through the
workspace, run :func:`gotchas.check.report.check`, print. Reads only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from gotchas.check.report import Report, check, error_codes
from gotchas.errors import GotchasError
from gotchas.terminal import json_printable, printable
from gotchas.wording import counted
from gotchas.workspace import Workspace, git_top_level


def run_check(ws: Workspace, *, rev: str | None = None, ask_sources: bool = True) -> Report:
    """The findings for the workspace's record; a notice instead when it cannot be checked."""
    path = ws.record_path()
    top = git_top_level(ws.root)
    name = ws.name(path)
    if top is None:
        return Report(record=name, notices=["not a git repository: the check needs history; nothing checked"])
    relative = path.resolve().relative_to(top.resolve()).as_posix() if rev is None else _at_top(ws, top, path)
    data = None
    if rev is None:
        try:
            data = ws.read(path)
        except GotchasError as exc:
            return Report(record=name, notices=[f"{exc.message}; nothing checked"])
    report = check(top, relative, data, rev=rev, ask_sources=ask_sources, errors=error_codes(ws.root))
    report.record = name
    return report


def _at_top(ws: Workspace, top: Path, path: Path) -> str:
    return (ws.root.resolve().relative_to(top.resolve()) / ws.name(path)).as_posix()


def main(ws: Workspace, args: argparse.Namespace) -> int:
    """Exit 0 when nothing fails (notices never fail), 1 on an error finding or --strict."""
    report = run_check(ws, rev=args.at, ask_sources=not args.no_sources)
    view = report.to_view()
    failing = any(f.severity == "error" for f in report.findings) or (args.strict and bool(report.findings))
    if args.json:
        sys.stdout.write(json_printable(json.dumps(view, indent=2, ensure_ascii=False)) + "\n")
        return 1 if failing else 0
    shown = _relative(ws.root / report.record)
    lines: list[str] = []
    for f in report.findings:
        message = f"{f.entry}: {f.message}"
        if args.format == "github":
            props = f"file={_gh(shown, True)},line={f.line},col={f.column},title={_gh(f.code, True)}"
            lines.append(f"::{f.severity} {props}::{_gh(message, False)}")
        elif args.format == "text":
            lines.append(f"{shown}:{f.line}:{f.column}: {f.severity} {f.code} {message}")
        else:
            lines.append(f"{f.code}  {f.entry}  (line {f.line})\n  {f.message}")
    for notice in report.notices:
        print(f"gotchas: {printable(notice)}", file=sys.stderr)
    where = f" at {report.commit[:12]}" if report.commit else ""
    total = f"{counted(report.lessons, 'lesson')}, {counted(len(report.findings), 'finding')}"
    lines.append(f"{shown}{where}: {total}")
    sys.stdout.write(printable("\n".join(lines)) + "\n")
    return 1 if failing else 0


def _relative(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _gh(text: str, prop: bool) -> str:
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def compact(report: Report) -> dict[str, object]:
    """What an agent reads: one short line a finding, and the notices."""
    return {
        "record": report.record,
        "commit": report.commit,
        "findings": [f"{f.entry}:{f.line} {f.code} {f.message}" for f in report.findings],
        "notices": report.notices,
    }
