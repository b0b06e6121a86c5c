"""The outline of a lessons file: which blocks are its entries, and why.

``scan`` turns text into the block map (``blocks``); ``read`` decides the entries
(``reading``). This module joins the two for ``record`` and for the ``outline``
command, and renders the decision for people and for JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from gotchas import reading
from gotchas.quoting import toml_string
from gotchas.reading import Note, Pin, Prior, Reading, Span, item_title, unit_name
from gotchas.wording import counted

if TYPE_CHECKING:
    from gotchas import blocks


class NoteView(TypedDict):
    """A part that is not an entry, as data: 1-based first and last line, what it is and why."""

    lines: list[int]
    what: str
    title: str
    reason: str


class EntryView(TypedDict):
    id: str
    kind: str
    line: int
    title: str
    reason: str


class Decision(TypedDict):
    """The reading of a file as data (``describe``), for ``gotchas outline --json``."""

    kind: str
    unit: str | None
    reason: str
    pinned: bool
    lessons_sections: list[NoteView]
    groups: list[NoteView]
    entries: list[EntryView]
    left_out: list[NoteView]
    pin: list[str]
    notice: str | None


__all__ = [
    "Decision",
    "Note",
    "Pin",
    "Prior",
    "Reading",
    "Span",
    "brief",
    "describe",
    "item_title",
    "pin_lines",
    "read",
    "summary",
]


def read(
    text: str, lines: Sequence[str], matter: tuple[int, int] | None, pin: str | None = None
) -> tuple[Reading, blocks.LineSet]:
    """The reading of ``text`` (front matter already blanked) and its literal lines."""
    from gotchas import blocks  # a text read alone: the record's parse passes its block map

    found, block_map = read_map(blocks.scan(text, lines), lines, matter, pin)
    return found, block_map.literal


def read_map(
    block_map: blocks.BlockMap,
    lines: Sequence[str],
    matter: tuple[int, int] | None,
    pin: str | None,
    prior: Prior | None = None,
    keep: bool = True,
    name: str | None = None,
) -> tuple[Reading, blocks.BlockMap]:
    """The reading of a block map already made (by a full parse or a splice); ``prior`` is
    the reading of the text an edit was made on, ``keep`` whether this one is kept for the
    next edit (``reading.read``); ``name`` the file's path, when known."""
    return reading.read(block_map.blocks, lines, matter, Pin.parse(pin), prior, keep, name), block_map


def pin_lines(found: Reading) -> list[str]:
    """The ``.claude/gotchas.toml`` lines that would keep this reading if detection changed."""
    lines = []
    unit = found.unit
    if found.kind == "not-lessons":
        lines.append('entries = "none"')
    elif found.kind == "single-lesson":
        lines.append('entries = "single"')
    elif unit and unit != "mixed":
        pin = {
            "list-item": "list",
            "table-row": "table-row",
            "hr-block": "hr-block",
            "paragraph": "paragraph",
        }.get(unit, unit)
        lines.append(f'entries = "{pin}"')
        if pin == "list":
            lines.append("checkboxes = false")  # detection never reads a checkbox item as a lesson
    if found.kind == "lessons-section" and len(found.sections) == 1:
        lines.append(f"lessons-section = {toml_string(found.sections[0].title)}")
    return lines


def describe(found: Reading, ids: Sequence[str]) -> Decision:
    """The decision as data: unit, lessons sections, groups, entries, what was left out and why."""

    def note(n: Note) -> NoteView:
        return {
            "lines": [n.start + 1, max(n.start + 1, n.end)],
            "what": n.what,
            "title": n.title,
            "reason": n.reason,
        }

    return {
        "kind": found.kind,
        "unit": found.unit,
        "reason": found.reason,
        "pinned": found.pinned,
        "lessons_sections": [note(n) for n in found.sections],
        "groups": [note(n) for n in found.groups],
        "entries": [
            {"id": entry_id, "kind": s.kind, "line": s.start + 1, "title": s.title, "reason": s.reason}
            for s, entry_id in zip(found.spans, ids, strict=True)
        ],
        "left_out": [note(n) for n in sorted(found.left_out, key=lambda n: n.start)],
        "pin": pin_lines(found),
        "notice": found.notice,
    }


def text(decision: Decision) -> str:
    """The decision for people: one line per part, line numbers first."""
    out = [f"{decision['kind']}, unit {decision['unit'] or '-'}: {decision['reason']}"]
    if decision["pinned"]:
        out[0] += " (pinned)"
    if decision["notice"]:
        out.append(f"notice: {decision['notice']}")
    # line numbers right-aligned, so that titles start in one column however long the file
    starts = [p["lines"][0] for p in (*decision["lessons_sections"], *decision["groups"])]
    width = len(str(max([*starts, *(e["line"] for e in decision["entries"]), 1])))
    for part in decision["lessons_sections"]:
        out.append(f"section {part['lines'][0]:>{width}}: {part['title']}")
    for part in decision["groups"]:
        out.append(f"group   {part['lines'][0]:>{width}}: {part['title']} — {part['reason']}")
    for entry in decision["entries"]:
        out.append(f"entry   {entry['line']:>{width}}: [{entry['kind']}] {entry['title']} ({entry['id']})")
    for part in decision["left_out"]:
        start, end = part["lines"]
        out.append(f"left out {start}-{end}: {part['what']} {part['title']!r} — {part['reason']}")
    if decision["pin"]:
        out.append("pin it in .claude/gotchas.toml:")
        out.extend(f"  {line}" for line in decision["pin"])
    return "\n".join(out)


CHECK_IT = (
    "check it: `gotchas outline` shows each part and why; `gotchas pin` shows each other reading, "
    "and `gotchas pin --lines N,N,…` finds the one reading lessons on the lines you name"
)


def summary(decision: Decision, record: str, *, hint: bool = True) -> list[str]:
    """What a new user needs to trust the reading, in a few lines: how many lessons were found
    and in what shape, the notice when it is a guess, and where to look and what to change.
    The first look at a file the tool has not seen is where a wrong reading costs least."""
    entries, unit = decision["entries"], decision["unit"]
    if decision["kind"] == "single-lesson":
        found = "one lesson: the whole file"
    elif not entries:
        found = "no lesson found"
    else:
        found = counted(len(entries), "lesson") + (f" ({unit_name(unit)})" if unit else "")
        if decision["groups"]:
            found += " in " + counted(len(decision["groups"]), "group")
    left = decision["left_out"]
    found += f", {counted(len(left), 'part')} left out" if left and entries else ""
    lines = [f"read {record}: {found}" + (", as pinned" if decision["pinned"] else "")]
    if decision["notice"]:
        lines.append(f"notice: {decision['notice']}")
    if hint:
        lines.append(CHECK_IT)
    return lines


def brief(decision: Decision) -> dict[str, object]:
    """The reading in a few fields, for ``--json``: kind, unit, how many lessons, the notice."""
    return {
        "kind": decision["kind"],
        "unit": decision["unit"],
        "lessons": len(decision["entries"]),
        "notice": decision["notice"],
    }
