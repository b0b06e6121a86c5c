"""``pin``: choose the reading by hand in ``.claude/gotchas.toml``, and see what it reads then.

The notice of a guessed reading names a pin; ``gotchas pin`` writes it (``gotchas pin list``,
``gotchas pin --section "Architecture decisions" none``) and prints the reading before and
after, so the person sees at once whether the pin chose what they meant. The file is edited
line by line (:mod:`gotchas.pin`), only at its fixed path, under its lock, and only if it is
still the version read. With no unit it writes nothing and shows what each pin would read,
so a person who finds the reading wrong can choose without trying them one by one.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from gotchas.blockmap import Block
    from gotchas.outline import Decision
    from gotchas.reading import Pin
    from gotchas.workspace import Snapshot, Workspace

# units that read nothing in a file without their own block (a ``list`` pin reads a numbered
# paragraph, an ``hr-block`` pin the sections of a file without rules)
_NEEDS_ITS_BLOCK = frozenset(("h1", "h2", "h3", "h4", "h5", "h6", "table-row"))

_UNITS = "h1…h6, list, paragraph, table-row, hr-block, single or none (a section also: auto)"


def add_pin(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("unit", nargs="?", help=f"what the entries are: {_UNITS}")
    cmd.add_argument(
        "--section", metavar="TITLE", help="pin one section, by its title as `gotchas outline` shows it"
    )
    cmd.add_argument("--clear", action="store_true", help="remove the pin (the file's, or --section's)")
    cmd.add_argument(
        "--lines",
        metavar="N,N,…",
        help="the lines the lessons start on (as `gotchas list` numbers them): find the pin that reads them",
    )
    cmd.add_argument(
        "--dry-run", action="store_true", help="show the change and the reading it gives; write nothing"
    )
    json_flag(cmd)


def run_pin(args: argparse.Namespace) -> int:
    from gotchas import confine, outline, pin
    from gotchas.config import ENTRY_STYLES, SECTION_STYLES, parse_config
    from gotchas.errors import InvalidArgument
    from gotchas.layout import CONFIG_PATH
    from gotchas.workspace import write_atomic

    if args.lines is not None:
        if args.unit or args.clear or args.section is not None:
            raise InvalidArgument("pin --lines finds the whole pin: give it no unit, --section or --clear")
        return _fit(args)
    if args.clear and args.unit:
        raise InvalidArgument(f"pin takes a unit ({_UNITS}) or --clear, not both")
    styles = SECTION_STYLES if args.section is not None else ENTRY_STYLES
    if args.unit and args.unit not in styles:
        raise InvalidArgument(f"pin: the unit must be one of {', '.join(styles)}, got {args.unit!r}")
    section = None if args.section is None else " ".join(args.section.split())
    if section is not None and (not section or len(section) > 200 or "@" in section):
        raise InvalidArgument(f"pin: --section must be a section's title, got {args.section!r}")
    if not args.unit and not args.clear:
        return _choices(args, section)
    ws = workspace(args)
    path, found, text = _config(ws)
    after, said = pin.edit(text, None if args.clear else args.unit, section)
    settings = parse_config(after, ws.root)  # the unit, the title, the rest of the file: all valid
    record = ws.record_path()
    data = ws.read(record)
    name = ws.name(record)
    before, _ = _reading(ws, data, ws.entry_style, name)
    then, _ = _reading(ws, data, settings.entries, name)
    if not args.dry_run and after != text:
        confine.fixed(ws.root, CONFIG_PATH, doing="pin writes")  # again, at the last moment
        with ws.lock(path):
            write_atomic(path, after.encode("utf-8"), root=ws.root, expect=found)
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


def _config(ws: Workspace) -> tuple[Path, Snapshot, str]:
    """``.claude/gotchas.toml`` at its fixed path (never through a symlink), the version read
    and its text; empty when there is none yet."""
    from gotchas import confine
    from gotchas.errors import ConfigError
    from gotchas.layout import CONFIG_PATH

    path = confine.fixed(ws.root, CONFIG_PATH, doing="pin reads or writes")
    found = ws.snapshot(path, missing_ok=True)
    try:
        text = found.data.decode("utf-8") if found.signature is not None else ""
    except UnicodeDecodeError:
        raise ConfigError(f"{CONFIG_PATH} is not UTF-8; nothing was written") from None
    return path, found, text


def _reading(ws: Workspace, data: bytes, pin: str | None, name: str) -> tuple[Decision, Sequence[Block]]:
    """How ``data``, the record at ``name``, reads under ``pin``, and its blocks."""
    from gotchas import outline
    from gotchas.record import parse

    parsed = parse(data, pin, task_keys=ws.task_keys, reuse=False, name=name)
    assert parsed.reading is not None  # a record read from bytes always has its reading
    blocks = parsed.block_map.blocks if parsed.block_map is not None else ()
    return outline.describe(parsed.reading, [e.id for e in parsed.entries]), blocks


def _choices(args: argparse.Namespace, section: str | None) -> int:
    """What each pin would read beside the reading now: how many lessons, how many it adds and
    drops, and the first titles it adds. Reads the config and the record; writes nothing."""
    from gotchas import outline, pin
    from gotchas.cli.output import columns
    from gotchas.config import ENTRY_STYLES, SECTION_STYLES, parse_config
    from gotchas.quoting import toml_string
    from gotchas.terminal import clip

    ws = workspace(args)
    _, _, text = _config(ws)
    record = ws.record_path()
    data = ws.read(record)
    name = ws.name(record)
    now, blocks = _reading(ws, data, ws.entry_style, name)
    read_now = {e["line"] for e in now["entries"]}
    # headings of a level, or table rows, that the file has none of read nothing: no need to
    # read the file for them (a 10,000-lesson record is read once a unit)
    present = {f"h{b.level}" if b.kind == "heading" else f"{b.kind}-row" for b in blocks}
    choices: list[tuple[str, int, list[str], int]] = []  # unit, lessons, titles added, dropped
    nothing: list[str] = []
    for unit in SECTION_STYLES if section is not None else ENTRY_STYLES:
        if unit in ("single", "none"):
            continue  # the same for every file: said once below
        if unit in _NEEDS_ITS_BLOCK and unit not in present:
            nothing.append(unit)
            continue
        after, _ = pin.edit(text, unit, section)
        entries = _reading(ws, data, parse_config(after, ws.root).entries, name)[0]["entries"]
        if not entries:
            nothing.append(unit)
            continue
        added = [e["title"] for e in entries if e["line"] not in read_now]
        dropped = len(read_now - {e["line"] for e in entries})
        if section is not None and not added and dropped:
            nothing.append(unit)  # reads nothing of the section: as ``none`` does
            continue
        choices.append((unit, len(entries), added, dropped))
    command = "gotchas pin" + (f" --section {toml_string(section)}" if section is not None else "")
    of = f"pin of the section {section!r}" if section is not None else "pin"
    text_lines = outline.summary(now, name, hint=False)
    text_lines.append(f"what each {of} would read (`{command} UNIT` writes one; --dry-run looks first):")
    rows: list[tuple[str, ...]] = [
        (
            f"  {unit}",
            f"{lessons} lesson" + ("s" if lessons != 1 else ""),
            f"+{len(added)} -{dropped}" if added or dropped else "as now",
            " · ".join(clip(title, 40) for title in added[:2]),
        )
        for unit, lessons, added, dropped in choices
    ]
    text_lines += columns(rows) if rows else []
    if nothing:
        where = " in the section" if section is not None else ""
        text_lines.append(f"nothing read{where} by: " + ", ".join(nothing))
    if section is None:
        text_lines.append("single reads the whole file as one lesson; none reads no lesson")
        text_lines.append("none right? `gotchas pin --lines N,N,…` finds the pin for lines lessons start on")
    else:
        text_lines.append("none leaves the section out")
    view = {
        "now": outline.brief(now),
        "section": section,
        "choices": [
            {"unit": u, "lessons": n, "added": len(added), "dropped": dropped, "first_added": added[:3]}
            for u, n, added, dropped in choices
        ],
        "nothing": nothing,
    }
    emit(view, args.json, "\n".join(text_lines))
    return 0


_MAX_LINES = 100_000  # lesson starts one --lines may name


def _starts(text: str, total: int) -> frozenset[int]:
    """``5,12,30`` or ``5 12 30``, or ranges as `gotchas list` prints them (``5-8``): the first
    line of each, 1-based, each inside the file."""
    from gotchas.errors import InvalidArgument

    found: set[int] = set()
    for item in text.replace(",", " ").split():
        first = item.split("-", 1)[0]
        if not first.isdigit() or len(first) > 9 or not 1 <= int(first) <= total:
            raise InvalidArgument(
                f"pin --lines: {item!r} is not a line of the record (1 to {total}); give the lines its "
                "lessons start on, as `gotchas list` numbers them: 5,12,30"
            )
        found.add(int(first))
        if len(found) > _MAX_LINES:
            raise InvalidArgument(f"pin --lines names more than {_MAX_LINES} lines")
    return frozenset(found)


def _fit(args: argparse.Namespace) -> int:
    """Find the pin that reads lessons starting on the lines given and write it (the file's
    unit and its ``[sections]`` rows, replacing the pin there was); when none reads them
    exactly, show the closest and write nothing."""
    from gotchas import confine, fit, outline, pin
    from gotchas.config import parse_config
    from gotchas.errors import ConfigError
    from gotchas.layout import CONFIG_PATH
    from gotchas.reading import Pin
    from gotchas.workspace import write_atomic

    ws = workspace(args)
    path, found, text = _config(ws)
    record = ws.record_path()
    data = ws.read(record)
    name = ws.name(record)
    wanted = _starts(args.lines, data.count(b"\n") + 1)
    best = fit.fit_record(data, wanted, name=name)
    now_pin = Pin.parse(ws.entry_style) or Pin()
    after, said = text, []
    for title, _ in now_pin.sections:
        after, more = pin.edit(after, None, title)
        said += more
    if best.pin.unit is not None or now_pin.unit is not None:
        after, more = pin.edit(after, best.pin.unit)
        said += more
    for title, unit in best.pin.sections:
        after, more = pin.edit(after, unit, title)
        said += more
    before, _ = _reading(ws, data, ws.entry_style, name)
    then, _ = _reading(ws, data, parse_config(after, ws.root).entries, name)
    read = frozenset(e["line"] for e in then["entries"])
    exact = best.exact and read == wanted
    if best.exact and not exact:  # another key of the config (``lessons-section``) reads otherwise
        raise ConfigError(f"{CONFIG_PATH} holds a pin this command does not replace; edit it by hand")
    written = exact and not args.dry_run and after != text
    if written:
        confine.fixed(ws.root, CONFIG_PATH, doing="pin writes")  # again, at the last moment
        with ws.lock(path):
            write_atomic(path, after.encode("utf-8"), root=ws.root, expect=found)
    shown = _pin_text(best.pin)
    if exact:
        verb = "changed" if written else "would change" if after != text else "no change to"
        lines = [f"found the pin that reads lessons on exactly those lines ({best.tries} tried): {shown}"]
        lines += [f"{verb} {CONFIG_PATH}: {change}" for change in said]
    else:
        lines = [
            f"no pin found reads exactly those lessons ({best.tries} tried); the closest, {shown}, misses "
            f"lines {_listed(best.missing)} and reads lines {_listed(best.extra)} too; nothing was written"
        ]
    lines += ["before: " + line for line in outline.summary(before, name, hint=False)]
    then_is = "after: " if exact else "closest: "
    lines += [then_is + line for line in outline.summary(then, name, hint=False)]
    view = {
        "exact": exact,
        "pin": best.pin.render(),
        "missing": [n + 1 for n in best.missing],
        "extra": [n + 1 for n in best.extra],
        "tried": best.tries,
        "dry_run": args.dry_run,
        "changes": said if exact else [],
        "written": written,
        "before": outline.brief(before),
        "after": outline.brief(then),
    }
    emit(view, args.json, "\n".join(lines))
    return 0 if exact else 1


def _pin_text(found: Pin) -> str:
    """A pin as the lines of ``.claude/gotchas.toml`` that write it, on one line."""
    from gotchas.quoting import toml_string

    rows = [f'entries = "{found.unit}"'] if found.unit else []
    rows += [f'[sections] {toml_string(title)} = "{unit}"' for title, unit in found.sections]
    return "; ".join(rows) or "no pin (detection reads them)"


def _listed(lines: Sequence[int]) -> str:
    """0-based lines as a person counts them, the first eight: ``5, 12, 30``; ``none``."""
    shown = [str(n + 1) for n in lines[:8]] + (["…"] if len(lines) > 8 else [])
    return ", ".join(shown) if shown else "none"
