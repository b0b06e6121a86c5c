"""Structure forged through a lesson: a body, title, ruled-out item, evidence, diagnostic or
red-herring note may not add a section, an entry, a rule or a field to the record.

Each case is refused by propose with ``ForgedStructure`` before anything is stored, and
the record and the proposals directory stay exactly as they were. Ordinary Markdown in a
body — code with ``#`` comments, deeper emphasis, lists, a colon in prose — still proposes.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import pytest

from gotchas import edit, errors, operations, proposal
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
    return operations.propose_supersede(Workspace(root), **args, no_hold=True)


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
            no_hold=True,
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
        "--no-hold",
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


# --- every heading, setext underline and front-matter fence, wherever it stands ----------------

# The target is a ``###`` entry under ``##`` sections: a deeper heading would still split
# its body (the reading may then take the heading as the entry), so every level is refused.
BODY_PLACES = {
    "first line": "{}\n\nCache it.",
    "middle": "Cache it.\n\n{}\n\nThen reload once.",
    "last line": "Cache it.\n\n{}",
    "inside a quote": "Cache it.\n\n> {}",
    "inside a list item": "Cache it.\n\n- {}",
}


@pytest.mark.parametrize("level", range(1, 7))
@pytest.mark.parametrize("place", BODY_PLACES)
def test_a_heading_of_any_level_anywhere_in_a_body_is_refused(project: Path, level: int, place: str) -> None:
    before = snapshot(project)
    body = BODY_PLACES[place].format("#" * level + " Deeper detail")
    with pytest.raises(errors.ForgedStructure) as caught:
        propose(project, body=body)
    assert f"a {'#' * level} heading" in caught.value.message
    assert "write it as a bold line or plain text" in caught.value.message
    assert snapshot(project) == before


@pytest.mark.parametrize("underline", ["=", "===", "---", "  ---", "-----------"])
@pytest.mark.parametrize("place", ["Text\n{}\n\nmore", "Cache it.\n\nText\n{}", "One\ntwo\n{}"])
def test_a_setext_underline_anywhere_in_a_body_is_refused(project: Path, underline: str, place: str) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure) as caught:
        propose(project, body=place.format(underline))
    assert "setext heading underline" in caught.value.message
    assert "bold line or plain text" in caught.value.message
    assert snapshot(project) == before


@pytest.mark.parametrize(
    "body",
    [
        "---\nstatus: resolved\n---",
        "Cache it.\n\n---\nid: other\n---\n",
        "Cache it.\n\n---",
        "Cache it.\n\n***\n\nmore",
        "Cache it.\n\n_ _ _",
    ],
)
def test_a_front_matter_fence_or_break_anywhere_in_a_body_is_refused(project: Path, body: str) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure) as caught:
        propose(project, body=body)
    assert "remove it" in caught.value.message or "bold line or plain text" in caught.value.message
    assert snapshot(project) == before


@pytest.mark.parametrize("key", ["status", "tasks", "supersedes", "superseded-by", "red-herring-for", "id"])
@pytest.mark.parametrize("shape", ["{}: value", "- {}: value", "**{}:** value", "note: x · {}: value"])
def test_a_field_line_that_would_change_the_new_entry_is_refused(project: Path, key: str, shape: str) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure) as caught:
        propose(project, body="Cache it.\n\n" + shape.format(key))
    assert "reword it" in caught.value.message
    assert snapshot(project) == before


# --- every free-text argument that lands in the record -----------------------------------------

TEXT_ARGUMENTS: dict[str, Any] = {
    "title": lambda text: {"title": f"Per-call {text} reloads"},
    "body": lambda text: {"body": f"Cache {text} it."},
    "diagnostic": lambda text: {"diagnostic": f"profile {text} one call"},
    "ruled_out item": lambda text: {"ruled_out": ["chunking", f"more {text} swap"]},
    "evidence": lambda text: {"evidence": f"relaunch {text} v17"},
    "red_herring_note": lambda text: {"red_herring_note": f"Chunking {text} only hid it."},
}


@pytest.mark.parametrize("control", ["\x00", "\x1b", "\x07", "\x7f"])
@pytest.mark.parametrize("argument", TEXT_ARGUMENTS)
def test_a_control_character_in_any_text_argument_is_refused_and_named(
    project: Path, argument: str, control: str
) -> None:
    before = snapshot(project)
    with pytest.raises(errors.InvalidArgument) as caught:
        propose(project, **TEXT_ARGUMENTS[argument](control))
    assert caught.value.code == "invalid-argument"
    assert caught.value.message.startswith(f"{argument} holds the control character U+{ord(control):04X}")
    assert "record" not in caught.value.message  # the argument is blamed, never the record
    assert snapshot(project) == before


FORGED_ONE_LINERS = ["x · status: landed", "x · superseded-by: other (for #1)", "**Status: fixed**"]
ONE_LINE_ARGUMENTS: dict[str, Any] = {
    "diagnostic": lambda text: {"diagnostic": text},
    "ruled-out": lambda text: {"ruled_out": ["chunking", text]},
    "evidence": lambda text: {"evidence": text},
    "red_herring_note": lambda text: {"red_herring_note": text},
}


@pytest.mark.parametrize("text", FORGED_ONE_LINERS)
@pytest.mark.parametrize("argument", ONE_LINE_ARGUMENTS)
def test_no_one_line_argument_can_smuggle_a_field_or_a_status(
    project: Path, argument: str, text: str
) -> None:
    before = snapshot(project)
    with pytest.raises(errors.ForgedStructure) as caught:
        propose(project, **ONE_LINE_ARGUMENTS[argument](text))
    assert caught.value.message.startswith(argument)
    assert snapshot(project) == before


def test_an_ordinary_red_herring_note_lands_in_the_caveat(project: Path) -> None:
    note = "Chunking only hid it: the step loop still blocks (see the profile)."
    made = propose(project, red_herring_note=note)
    assert made["proposal_id"] is not None
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "applied"
    assert note.encode() in (project / RECORD).read_bytes()
    assert operations.verify_record(Workspace(project))["ok"]


@pytest.mark.parametrize("note", [*FORGED_ONE_LINERS, "Chunking\x00 only hid it."])
def test_a_stored_proposal_with_a_forged_note_is_refused_at_apply(project: Path, note: str) -> None:
    """The file is rewritten as anyone can: the note, its id and the hash of the bytes it makes."""
    made = propose(project)
    assert made["proposal_id"] is not None
    proposals = project / ".claude" / "gotchas" / "proposals"
    stored = proposal.load(proposals, made["proposal_id"])
    ws = Workspace(project)
    current = ws.load(project / RECORD)
    plan = edit.plan_supersede(current, target=current.get(TARGET), task="#664", new=stored.lesson, note=note)
    forged = dataclasses.replace(
        stored, red_herring_note=note, result_sha256=hashlib.sha256(plan.data).hexdigest()
    )
    forged = dataclasses.replace(forged, id=proposal.make_id(forged))
    proposal.save(proposals, forged)
    before = (project / RECORD).read_bytes()

    result = operations.apply(Workspace(project), proposal_id=forged.id)

    assert result["status"] == "refused"
    assert result.get("code") in (errors.ForgedStructure.code, errors.InvalidArgument.code)
    assert "red_herring_note" in result["reason"]
    assert (project / RECORD).read_bytes() == before


def test_the_cli_refuses_a_forged_note_on_one_line(project: Path) -> None:
    before = (project / RECORD).read_bytes()
    done = cli(
        project,
        "propose",
        "--no-hold",
        "--target-id",
        TARGET,
        "--task",
        "#664",
        "--title",
        "Per-call tokenizer reloads",
        "--body",
        "Cache it.",
        "--diagnostic",
        "profile one call",
        "--red-herring-note",
        "hid it · status: resolved",
    )
    assert done.returncode == 2
    assert done.stderr.startswith("gotchas: forged-structure: red_herring_note holds a second field")
    assert len(done.stderr.strip().splitlines()) == 1
    assert (project / RECORD).read_bytes() == before


@pytest.mark.parametrize(
    "change",
    [
        {"task": "#664) · status: landed"},
        {"task": "#664 (for #1)"},
        {"task": "#664\n## Section"},
        {"task": "#664\x00"},
        {"tasks": ["#7 · supersedes: other"]},
        {"tasks": ["#7", "#8)\nstatus: resolved"]},
    ],
)
def test_the_link_scope_takes_task_references_only(project: Path, change: dict[str, Any]) -> None:
    """The task lands in the link's scope (``supersedes: x (for #664)``): only a task reference
    in its normal form is written there, never the text as given."""
    before = snapshot(project)
    with pytest.raises(errors.InvalidArgument) as caught:
        propose(project, **change)
    assert caught.value.code == "invalid-task"
    assert "use #664" in caught.value.message
    assert snapshot(project) == before
