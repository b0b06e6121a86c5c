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


def located(data: bytes) -> list[tuple[str, str | None, str]]:
    """(code, entry, the text from the problem's line and column on) of each problem."""
    lines = data.decode("utf-8-sig").splitlines()
    return [
        (p.code, p.entry, lines[p.line - 1][(p.column or 1) - 1 :] if p.line else "")
        for p in verification.check_record(record.parse(data))
    ]


def test_a_problem_points_at_the_link_target_or_the_key_at_fault() -> None:
    data = (
        "\ufeff# Lessons\r\n\r\n### Chunk it\r\n\r\ntasks: #1 · root-cause: confirmed\r\n"
        "red-herring-for: #1 · superseded-by: gone-too (for #1)\r\n\r\nBody.\r\n\r\n"
        "### Cache it\r\n\r\n- tasks: #1\r\n- root-cause: confirmed\r\n"
        "- supersedes: gone (for #1), chunk-it (for #1), gone-again\r\n\r\nBody.\r\n"
    ).encode()
    found = located(data)
    assert ("dangling-supersedes", "cache-it", "gone (for #1), chunk-it (for #1), gone-again") in found
    assert ("dangling-supersedes", "cache-it", "gone-again") in found  # each target its own column
    assert ("one-sided-supersedes", "cache-it", "chunk-it (for #1), gone-again") in found
    assert ("dangling-superseded-by", "chunk-it", "gone-too (for #1)") in found
    assert (
        "red-herring-without-successor",
        "chunk-it",
        "#1 · superseded-by: gone-too (for #1)",  # the task no entry supersedes it for
    ) in found
    assert ("confirmed-without-diagnostic", "chunk-it", "root-cause: confirmed") in found
    assert ("confirmed-without-diagnostic", "cache-it", "root-cause: confirmed") in found


def test_a_table_rows_link_is_located_in_its_continuation_row() -> None:
    data = (
        "# Lessons\n\n| # | Lesson |\n| --- | --- |\n| 1 | Chunk the prompts |\n"
        "| 2 | Cache the tokenizer |\n| ↳ | tasks: #1 · root-cause: confirmed · supersedes: gone (for #1) |\n"
    ).encode()
    found = [f for f in located(data) if f[0] == "dangling-supersedes"]
    assert [text for _, _, text in found] == ["gone (for #1) |"]


def test_a_problem_without_its_field_stays_at_the_entry() -> None:
    data = b"# Lessons\n\n### Retries\n\nid: retries\n\nA.\n\n### Retries again\n\nid: retries\n\nB.\n"
    problems = verification.check_record(record.parse(data))
    assert [(p.code, p.line, p.column) for p in problems] == [("duplicate-id", 11, 1)]
    assert verification.located(record.parse(data), [], {}) == []
