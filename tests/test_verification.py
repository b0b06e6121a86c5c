"""The record lint, case by case from ``fixtures/lint-cases.txt``: every code has a record
that must raise it, and exactly it; a record linked on both sides raises nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from gotchas import record, verification
from support.project import HERE, SCENARIO

CASES = HERE / "fixtures" / "lint-cases.txt"
CORRECTED = HERE / "fixtures" / "scenario-gotchas-corrected.md"


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    expected: list[str]


def read_cases(path: Path) -> list[Case]:
    """Parse the case file: ``case: name``, ``.``, record, ``.``, expected lines, ``.``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[Case] = []
    index = 0
    while index < len(lines):
        if not lines[index].startswith("case: "):
            index += 1
            continue
        name = lines[index].removeprefix("case: ")
        assert lines[index + 1] == ".", f"{name}: a '.' line must open the record"
        end = lines.index(".", index + 2)
        data = "\n".join(lines[index + 2 : end]) + "\n"
        closing = lines.index(".", end + 1)
        cases.append(Case(name, data.encode("utf-8"), lines[end + 1 : closing]))
        index = closing + 1
    return cases


ALL = read_cases(CASES)


def problems(data: bytes) -> list[str]:
    return [f"{p.severity} {p.code} {p.entry}" for p in verification.check_record(record.parse(data))]


@pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])
def test_lint_case(case: Case) -> None:
    assert problems(case.data) == case.expected


@pytest.mark.parametrize(
    "code",
    [
        "duplicate-id",
        "dangling-supersedes",
        "dangling-superseded-by",
        "supersede-cycle",
        "red-herring-without-successor",
        "confirmed-without-diagnostic",
        "one-sided-supersedes",
        "one-sided-superseded-by",
    ],
)
def test_every_lint_code_has_a_case_that_raises_it(code: str) -> None:
    assert any(line.split()[1] == code for case in ALL for line in case.expected)


def test_the_scenario_before_and_after_the_correction_is_clean() -> None:
    assert [p for p in problems(SCENARIO.read_bytes()) if p.startswith("error")] == []
    assert [p for p in problems(CORRECTED.read_bytes()) if p.startswith("error")] == []
