"""``pin``: choose the reading by hand in ``.claude/gotchas.toml``, and see what it reads then.

The notice of a guessed reading names a pin; ``gotchas pin`` writes it (``gotchas pin list``,
``gotchas pin --section "Architecture decisions" none``) and prints the reading before and
after, so the person sees at once whether the pin chose what they meant. The file is edited
line by line (:mod:`gotchas.pin`), only at its fixed path, under its lock, and only if it is
still the version read.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit

if TYPE_CHECKING:
    from pathlib import Path

    from gotchas.outline import Decision
    from gotchas.workspace import Workspace

_UNITS = "h1…h6, list, paragraph, table-row, hr-block, single or none (a section also: auto)"


def add_pin(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("unit", nargs="?", help=f"what the entries are: {_UNITS}")
    cmd.add_argument(
        "--section", metavar="TITLE", help="pin one section, by its title as `gotchas outline` shows it"
    )
    cmd.add_argument("--clear", action="store_true", help="remove the pin (the file's, or --section's)")
    cmd.add_argument(
        "--dry-run", action="store_true", help="show the change and the reading it gives; write nothing"
    )
    json_flag(cmd)


def run_pin(args: argparse.Namespace) -> int:
    from gotchas import confine, outline, pin
    from gotchas.config import ENTRY_STYLES, SECTION_STYLES, parse_config
    from gotchas.errors import ConfigError, InvalidArgument
    from gotchas.layout import CONFIG_PATH
    from gotchas.workspace import write_atomic

    if args.clear == bool(args.unit):
        raise InvalidArgument(f"pin takes a unit ({_UNITS}) or --clear, one of them")
    styles = SECTION_STYLES if args.section is not None else ENTRY_STYLES
    if args.unit and args.unit not in styles:
        raise InvalidArgument(f"pin: the unit must be one of {', '.join(styles)}, got {args.unit!r}")
    section = None if args.section is None else " ".join(args.section.split())
    if section is not None and (not section or len(section) > 200 or "@" in section):
        raise InvalidArgument(f"pin: --section must be a section's title, got {args.section!r}")
    ws = workspace(args)
    path = confine.fixed(ws.root, CONFIG_PATH, doing="pin writes")
    found = ws.snapshot(path, missing_ok=True)
    try:
        text = found.data.decode("utf-8") if found.signature is not None else ""
    except UnicodeDecodeError:
        raise ConfigError(f"{CONFIG_PATH} is not UTF-8; nothing was written") from None
    after, said = pin.edit(text, None if args.clear else args.unit, section)
    settings = parse_config(after, ws.root)  # the unit, the title, the rest of the file: all valid
    record = ws.record_path()
    before = _decision(ws, record, ws.entry_style)
    then = _decision(ws, record, settings.entries)
    if not args.dry_run and after != text:
        confine.fixed(ws.root, CONFIG_PATH, doing="pin writes")  # again, at the last moment
        with ws.lock(path):
            write_atomic(path, after.encode("utf-8"), root=ws.root, expect=found)
    name = ws.name(record)
    verb = "would change" if args.dry_run else "changed"
    lines = [f"{verb} {CONFIG_PATH}: {change}" for change in said]
    lines += ["before: " + line for line in outline.summary(before, name, hint=False)]
    lines += ["after: " + line for line in outline.summary(then, name, hint=False)]
    view = {
        "dry_run": args.dry_run,
        "changes": said,
        "written": not args.dry_run and after != text,
        "before": outline.brief(before),
        "after": outline.brief(then),
    }
    emit(view, args.json, "\n".join(lines))
    return 0


def _decision(ws: Workspace, path: Path, pin: str | None) -> Decision:
    """How the record reads under ``pin`` (the pin string a config gives)."""
    from gotchas import outline
    from gotchas.record import parse

    parsed = parse(ws.read(path), pin, task_keys=ws.task_keys)
    assert parsed.reading is not None  # a record read from a file always has its reading
    return outline.describe(parsed.reading, [e.id for e in parsed.entries])
