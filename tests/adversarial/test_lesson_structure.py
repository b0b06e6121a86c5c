"""Structure forged through a lesson: a body, title, ruled-out item, evidence or diagnostic
may not add a section, an entry, a rule or a field to the record.

Each case is refused by propose with ``ForgedStructure`` before anything is stored, and
the record and the proposals directory stay exactly as they were. Ordinary Markdown in a
body — code with ``#`` comments, deeper emphasis, lists, a colon in prose — still proposes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gotchas import errors, operations
from gotchas.lesson_text import structure_problem
from gotchas.results import ProposalResult
from gotchas.workspace import Workspace
from support.clients import gotchas as cli
from support.project import RECORD, TARGET

GOOD: dict[str, Any] = {
    "target_id": TARGET,
    "task": "#664",
    "title": "Per-call tokenizer reloads starve generation",
    "body": "Cache the tokenizer with functools.lru_cache.",
    "diagnostic": "profile a single render call",
    "ruled_out": ["chunking"],
    "evidence": "relaunch v17",
}

FORGED_BODIES = {
    "an ATX section": "Cache it.\n\n## Unrelated section\n\nText that belongs to no entry.",
    "an ATX heading at entry level": "Cache it.\n### Another lesson\ntasks: #1",
    "an indented ATX heading": "Cache it.\n\n   # Top\n",
    "a closed ATX heading": "## Section ##",
    "a setext title": "Cache it.\n\nSection\n=======\n\nmore",
    "a setext subtitle": "Cache it.\n\nSection\n---\n\nmore",
    "a front-matter block": "---\ntitle: forged\n---\nCache it.",
    "a thematic break": "Cache it.\n\n---\n\nThe next entry.",
    "a starred break": "Cache it.\n\n* * *\n\nmore",
    "a status field": "Cache it.\nstatus: landed",
    "a tasks field": "Cache it.\n\ntasks: #1, #2",
    "a supersedes field": "Cache it.\n\n- supersedes: some-other-lesson",
    "an id field": "Cache it.\n\nid: hijacked-id",
    "a bold status field": "Cache it.\n\n**Status:** resolved",
    "a bolded status line": "Cache it.\n\n**Status: RESOLVED**",
    "a status-word field": "Cache it.\n\nfixed: 2026-01-01",
    "a field after a separator": "Cache it.\n\nroot-cause: confirmed · status: resolved",
    "a CR-only heading": "Cache it.\r\r## Section\rmore",
}

ALLOWED_BODIES = {
    "shell comments in a fence": "Run:\n\n```bash\n# reinstall\npip install x\nstatus: fine-in-code\n```",
    "indented code": "Run:\n\n    # comment\n    id: inside-code",
    "a list": "Steps:\n\n- cache it\n- reload once",
    "a colon in prose": "Note: the cache must be per process.",
    "an unknown key": "Workaround: cache the tokenizer",
    "a hash reference": "#664 describes it.",
}


def propose(root: Path, **change: Any) -> ProposalResult:
    args = {**GOOD, **change}
    return operations.propose_supersede(Workspace(root), **args)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", FORGED_BODIES)
def test_a_body_that_forges_structure_is_refused_and_nothing_changes(project: Path, case: str) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure) as caught:
        propose(project, body=FORGED_BODIES[case])
    assert caught.value.code == "forged-structure"
    assert "body" in caught.value.message
    assert snapshot(project) == before


@pytest.mark.parametrize(
    "change",
    [
        {"ruled_out": ["chunking · status: resolved"]},
        {"ruled_out": ["a", "b · tasks: #9"]},
        {"evidence": "v17 · status: landed"},
        {"evidence": "**Status: fixed**"},
        {"diagnostic": "look · superseded-by: elsewhere"},
        {"title": "[Resolved] Per-call tokenizer reloads"},
        {"title": "status: landed"},
        {"title": "# Top-level"},
        {"title": "---"},
    ],
)
def test_one_line_parts_cannot_forge_a_field_or_status(project: Path, change: dict[str, Any]) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure):
        propose(project, **change)
    assert snapshot(project) == before


def test_a_new_lesson_is_held_to_the_same_rule(project: Path) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure):
        operations.propose_lesson(
            Workspace(project),
            title="A new lesson",
            body="Text.\n\n## Section",
            tasks=["#7"],
            root_cause="suspected",
        )
    assert snapshot(project) == before


@pytest.mark.parametrize("case", ALLOWED_BODIES)
def test_ordinary_markdown_in_a_body_still_proposes_and_verifies(project: Path, case: str) -> None:
    result = propose(project, body=ALLOWED_BODIES[case])
    assert result["status"] == "proposed"
    assert result["proposal_id"]
    assert structure_problem(GOOD["title"], ALLOWED_BODIES[case]) is None


def test_the_cli_reports_the_refusal_on_one_line(project: Path) -> None:
    before = (project / RECORD).read_bytes()
    done = cli(
        project,
        "propose",
        "--target-id",
        TARGET,
        "--task",
        "#664",
        "--title",
        "Per-call tokenizer reloads",
        "--body",
        "Cache it.\n\n## Section",
        "--diagnostic",
        "profile one call",
    )
    assert done.returncode != 0
    assert "forged-structure" in done.stderr or "heading" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert (project / RECORD).read_bytes() == before
