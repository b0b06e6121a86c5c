"""The pure edit: insertions only, the file's line endings, BOM and final-newline state kept."""

from __future__ import annotations

import pytest

from gotchas import edit, record
from gotchas.errors import InvalidArgument

LESSON = edit.lesson("Confirmed cause", "It was the cache.", ["#7"], "confirmed", "look at the cache")


def supersede(data: bytes, target: str = "old") -> tuple[record.Record, edit.Plan]:
    parsed = record.parse(data)
    return parsed, edit.plan_supersede(parsed, parsed.get(target), "#7", LESSON)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("final", [False, True])
def test_supersede_keeps_every_outside_byte(eol: bytes, bom: bool, final: bool) -> None:
    lines = [b"# G", b"", b"## Old", b"", b"tasks: #7", b"", b"Chunk it.", b"", b"## Keep", b"", b"Other."]
    data = (record.BOM if bom else b"") + eol.join(lines) + (eol if final else b"")
    parsed, plan = supersede(data.replace(b"## Old", b"## Old\n\nid: old".replace(b"\n", eol)))
    before = parsed.data
    keep = parsed.get("keep")
    target = parsed.get("old")
    after = plan.data
    assert after[: target.start] == before[: target.start]
    assert after.endswith(before[keep.start :])
    assert after.startswith(record.BOM) == bom
    assert after.endswith(eol) == final
    if eol == b"\r\n":
        assert after.count(b"\n") == after.count(b"\r\n")
    reparsed = record.parse(after)
    new = reparsed.get(plan.new_id)
    assert new.root_cause == "confirmed" and [s.target for s in new.supersedes] == ["old"]
    assert reparsed.get("old").red_herring_for == ("#7",)
    assert reparsed.get("keep").sha256 == keep.sha256


def test_list_item_target_gets_a_list_item_successor() -> None:
    data = b"# L\n\n- **Old** \xe2\x80\x94 chunk it\n  id: old\n- **Keep** \xe2\x80\x94 other\n"
    _, plan = supersede(data)
    reparsed = record.parse(plan.data)
    assert [e.kind for e in reparsed.entries] == ["item", "item", "item"]
    assert reparsed.entries[1].id == plan.new_id
    assert b"- **Keep**" in plan.data


def test_suspected_cause_cannot_supersede() -> None:
    parsed = record.parse(b"## Old\n\nid: old\n")
    guess = edit.lesson("Guess", "maybe", ["#7"], "suspected")
    with pytest.raises(InvalidArgument, match="confirmed"):
        edit.plan_supersede(parsed, parsed.get("old"), "#7", guess)


@pytest.mark.parametrize(
    ("title", "body", "root_cause", "diagnostic", "message"),
    [
        ("", "b", "suspected", None, "title is empty"),
        ("t" * 201, "b", "suspected", None, "limit"),
        ("t", "   ", "suspected", None, "body is empty"),
        ("t", "b", "confirmed", None, "diagnostic"),
        ("t", "b", "maybe", None, "root_cause"),
    ],
)
def test_bad_lessons_are_refused(
    title: str, body: str, root_cause: str, diagnostic: str | None, message: str
) -> None:
    with pytest.raises(InvalidArgument, match=message):
        edit.lesson(title, body, ["#1"], root_cause, diagnostic)


def test_diff_shows_only_the_change() -> None:
    parsed, plan = supersede(b"## Old\n\nid: old\n\ntext\n\n## Keep\n\nx\n")
    diff = edit.unified_diff("g.md", parsed.data, plan.data)
    assert diff.startswith("--- a/g.md\n+++ b/g.md\n@@ -")
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert any("red-herring-for: #7" in line for line in added)
    assert not [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
