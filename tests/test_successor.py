"""A supersede's successor looks like a sibling; its caveat renders as a block inside the target.

Cases are data: ``tests/fixtures/successor/*.md``, in markdown-it-py's fixture-file style,
four dot-separated sections per case: a name, the input record, the target's id, and the
expected result, every line prefixed ``"  "`` when it was already there and ``"+ "`` when the
supersede inserted it. Each case also runs with CRLF line endings and without a final newline,
and its rendering is checked with markdown-it-py (CommonMark, inline on).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gotchas import edit, record, verification
from gotchas.errors import InvalidArgument, UnsupportedEntry
from support.caveat import caveat_problems

FIXTURES = Path(__file__).parent / "fixtures" / "successor"
TASK = "#7"
LESSON = edit.lesson("Confirmed cause", "It was the cache.", [TASK], "confirmed", "look at the cache")


def read_cases(path: Path) -> list[tuple[str, str, str, str]]:
    """(name, input, target id, expected) per case; a section ends at a line holding one dot."""
    cases = []
    sections: list[str] = []
    current: list[str] = []
    name = ""
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.rstrip("\n") == ".":
            if not sections and not current:
                pass
            if name == "":
                name = "".join(current).strip()
            else:
                sections.append("".join(current))
            current = []
            if len(sections) == 3:
                cases.append((name, sections[0], sections[1].strip(), sections[2]))
                sections, name = [], ""
            continue
        current.append(line)
    return cases


CASES = [
    pytest.param(*case, id=f"{path.stem}: {case[0]}")
    for path in sorted(FIXTURES.glob("*.md"))
    for case in read_cases(path)
]


def supersede(data: bytes, target_id: str) -> tuple[record.Record, record.Entry, edit.Plan]:
    parsed = record.parse(data)
    target = parsed.get(target_id)
    return parsed, target, edit.plan_supersede(parsed, target, TASK, LESSON)


def gutter(data: bytes, plan: edit.Plan) -> str:
    """The result with each line marked as kept (``"  "``) or inserted (``"+ "``)."""
    kept = data.decode("utf-8").splitlines()
    inserted = {i.at: i.lines for i in plan.insertions}
    out = []
    for index in range(len(kept) + 1):
        out += [f"+ {line}".rstrip() for line in inserted.get(index, ())]
        if index < len(kept):
            out.append(f"  {kept[index]}".rstrip())
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(("name", "given", "target_id", "expected"), CASES)
def test_successor_fixture(name: str, given: str, target_id: str, expected: str) -> None:
    data = given.encode("utf-8")
    parsed, target, plan = supersede(data, target_id)
    assert gutter(data, plan) == expected, name
    after = record.parse(plan.data)
    check = verification.check_edit(parsed, after, plan, LESSON)
    assert check.ok, check.problems
    assert caveat_problems(plan.data, after.get(target_id), TASK) == []


@pytest.mark.parametrize("final", [True, False], ids=["final-newline", "no-final-newline"])
@pytest.mark.parametrize("eol", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(("name", "given", "target_id", "expected"), CASES)
def test_successor_fixture_line_endings(
    name: str, given: str, target_id: str, expected: str, eol: bytes, final: bool
) -> None:
    lf = given.encode("utf-8")
    _, _, reference = supersede(lf, target_id)
    data = lf.replace(b"\n", eol)
    if not final:
        data = data.rstrip(b"\n").rstrip(b"\r")
    parsed, _, plan = supersede(data, target_id)
    want = reference.data.replace(b"\n", eol)
    if not final:
        want = want[: -len(eol)]
    assert plan.data == want
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, LESSON).ok
    assert caveat_problems(plan.data, after.get(target_id), TASK) == []


def test_every_fixture_has_an_expected_result() -> None:
    assert len(CASES) >= 20
    assert all(case.values[3].strip() for case in CASES)  # type: ignore[union-attr]
