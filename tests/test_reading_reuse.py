"""An edit re-reads only the sections it touched, and the reading is still a full one's.

``record.parse(after, near=before)`` takes over the answers ``before``'s reading gave its
leaf sections (headings without sub-headings) whose content reappears unchanged, as long
as the file-wide evidence they rest on (which lead-in labels and sub-heading titles recur)
is the same. Whatever the file and the edit, the reading and every entry must be those of
a full parse: on every held-out reading fixture, and when an edit elsewhere changes how an
untouched section reads.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gotchas import edit, record
from support import edits

VARIATIONS = Path(__file__).parent / "fixtures" / "reading" / "variations"
INSERTS = [
    "",
    "## A new group",
    "### A new lesson (#12)",
    "- **A new bullet** — with prose",
    "- **Cause:** a field",
    "tasks: #7 · root-cause: confirmed",
    "Plain prose line.",
    "---",
    "| a | b |",
    "```",
]


def _same(before: bytes, after: bytes) -> None:
    near = record.parse(before)
    full = record.parse(after)
    spliced = record.parse(after, near=near)
    assert spliced.reading == full.reading
    assert spliced.entries == full.entries
    assert spliced == full
    # a parse that keeps no answers (a one-shot command's) reads the same, and an edit made
    # from it reads everything again, to the same record
    kept_nothing = record.parse(before, reuse=False)
    assert kept_nothing.reading is not None and kept_nothing.reading.leaves is None
    assert kept_nothing == near and kept_nothing.entries == near.entries
    assert record.parse(after, near=kept_nothing) == full


@pytest.mark.parametrize("path", sorted(VARIATIONS.glob("*.md")), ids=lambda p: p.stem)
def test_edits_of_held_out_files_read_as_a_full_parse(path: Path) -> None:
    data = path.read_bytes()
    raw = data.splitlines(keepends=True)
    rnd = random.Random(path.name)
    for _ in range(8):
        at = rnd.randrange(len(raw) + 1)
        removed = rnd.randrange(3)
        inserted = [(rnd.choice(INSERTS) + "\n").encode() for _ in range(rnd.randrange(0, 3))]
        _same(data, b"".join([*raw[:at], *inserted, *raw[at + removed :]]))
    before = record.parse(data)
    for planned in edits.supersedes(before, 3):
        _same(data, planned)


def _areas(late_label: bool) -> bytes:
    lines = ["# Gotchas", ""]
    for n in range(12):
        first = "- **Gizmo:** the first point of this area" if n == 2 else f"- **Point {n}:** a bullet"
        lines += [f"## Area {n}", "", first, f"- **Other {n}:** another bullet", ""]
        if n != 2:  # prose after the list: not siblings of one shape, which would read alike
            lines += ["Some prose of its own.", ""]
    if late_label:
        lines += ["## Area late", "", "- **Gizmo:** again here", "- **Late:** a bullet", ""]
    return "\n".join(lines).encode()


def test_an_edit_that_makes_a_label_recur_rereads_untouched_sections() -> None:
    before, after = _areas(False), _areas(True)
    near = record.parse(before)
    spliced = record.parse(after, near=near)
    # once ``Gizmo:`` recurs it is a field label: Area 2, far above the edit, reads otherwise
    assert "Gizmo" in [e.title for e in near.entries]
    assert "Gizmo" not in [e.title for e in spliced.entries]
    assert spliced == record.parse(after)


def test_untouched_sections_are_taken_over() -> None:
    lines = ["# Gotchas", ""]
    for n in range(40):
        lines += [f"## Lesson {n}", "", f"tasks: #{n + 1}", "", f"- **Fix {n}:** a point", "- more", ""]
    data = "\n".join(lines).encode()
    near = record.parse(data)
    after = data.replace(b"## Lesson 20\n", b"## Lesson 20\n\nA new line.\n")
    spliced = record.parse(after, near=near)
    assert spliced == record.parse(after)
    assert near.reading is not None and spliced.reading is not None
    old, new = near.reading.spans, spliced.reading.spans
    # the leaves before the edit keep their very spans; those after it are moved copies
    assert all(new[n] is old[n] for n in range(19))
    assert new[20] is not old[20] and new[20].end == old[20].end + 2


def _nested(groups: int, lessons: int) -> list[bytes]:
    lines = ["# Gotchas", ""]
    for g in range(groups):
        lines += [f"## Group {g}", ""]
        for n in range(lessons):
            lines += [
                f"### Lesson {g}.{n} quotes `code`",
                "",
                f"tasks: #{g * 100 + n}",
                "",
                "Some prose.",
                "",
            ]
            if n % 3 == 0:
                lines += ["#### Fix", "", "- **Cause:** a field", "- more", ""]
    return [(line + "\n").encode() for line in lines]


def test_a_chain_of_edits_reads_as_full_parses_each_time() -> None:
    # each parse is made near the one before: sections taken over whole at one edit carry
    # their sub-sections' answers, moved, into the next
    raw = _nested(5, 8)
    rnd = random.Random(11)
    near = record.parse(b"".join(raw))
    for _ in range(30):
        at = rnd.randrange(len(raw) + 1)
        removed = rnd.randrange(2)
        inserted = [(rnd.choice(INSERTS) + "\n").encode() for _ in range(rnd.randrange(0, 3))]
        raw = [*raw[:at], *inserted, *raw[at + removed :]]
        data = b"".join(raw)
        spliced = record.parse(data, near=near)
        full = record.parse(data)
        assert spliced.reading == full.reading
        assert spliced == full
        near = spliced


def test_a_chain_of_supersedes_reads_as_full_parses_each_time() -> None:
    data = b"".join(_nested(4, 6))
    near = record.parse(data)
    rnd = random.Random(5)
    for n in range(12):
        target = rnd.choice(near.entries)
        lesson = edit.lesson(
            f"The real cause {n}",
            body="It was the cache.",
            tasks=["#7"],
            root_cause="confirmed",
            diagnostic="the log",
        )
        try:
            plan = edit.plan_supersede(near, target=target, task="#7", new=lesson)
        except Exception:  # a target the planner refuses
            continue
        spliced = record.parse(plan.data, near=near)
        assert spliced == record.parse(plan.data)
        near = spliced


def test_siblings_read_alike_after_an_edit_elsewhere() -> None:
    """A section read as its siblings are (a group among groups, though its title reads as an
    id) reads so again when an edit elsewhere takes the other sections over."""
    lines = ["# Gotchas", ""]
    for n in range(8):
        title = "Askama 0.14" if n == 3 else f"Topic {n}"
        lines += [f"## {title}", "", f"- **Rule {n}a**: a lesson", f"- **Rule {n}b**: another", ""]
    before = "\n".join(lines).encode()
    after = before.replace(b"- **Rule 6b**: another\n", b"- **Rule 6b**: another\n- **Rule 6c**: a third\n")
    near = record.parse(before)
    spliced = record.parse(after, near=near)
    assert spliced == record.parse(after)
    titles = [e.title for e in spliced.entries]
    assert "Rule 3a" in titles and "Askama 0.14" not in titles
    assert len(titles) == 17
