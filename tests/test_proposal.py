"""A proposal pins a verified plan: the plan comes back whole from the proposal, and from
the proposal's stored JSON; a file edited by hand is refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gotchas import edit, proposal, record
from gotchas.errors import ProposalInvalid
from gotchas.proposal import Proposal
from support.project import RECORD, SCENARIO, TARGET


def planned() -> tuple[edit.Plan, Proposal]:
    parsed = record.parse(SCENARIO.read_bytes())
    lesson = edit.lesson(
        "Per-call tokenizer reloads starve generation",
        body="Cache the tokenizer.",
        tasks=["#664"],
        root_cause="confirmed",
        diagnostic="profile one render call",
    )
    plan = edit.plan_supersede(
        parsed, target=parsed.get(TARGET), task="#664", new=lesson, note="chunking did not help"
    )
    draft = Proposal.of_plan(
        plan,
        kind="supersede",
        record=RECORD,
        base_sha256=parsed.sha256,
        lesson=lesson,
        result_sha256="0" * 64,
        diff="",
        entries_digest="",
        created_at="2026-12-01T00:00:00Z",
        red_herring_note="chunking did not help",
    )
    return plan, dataclasses.replace(draft, id=proposal.make_id(draft))


def test_the_plan_comes_back_from_its_proposal() -> None:
    plan, pinned = planned()
    assert (pinned.target_id, pinned.task, pinned.new_id) == (TARGET, "#664", plan.new_id)
    assert pinned.as_plan(plan.data) == plan


def test_the_plan_comes_back_from_the_stored_file(tmp_path: Path) -> None:
    plan, pinned = planned()
    proposal.save(tmp_path, pinned)
    assert proposal.load(tmp_path, pinned.id).as_plan(plan.data) == plan


def test_an_annotation_adds_no_lesson_and_a_supersede_does() -> None:
    _, pinned = planned()
    assert pinned.adds == pinned.lesson
    assert dataclasses.replace(pinned, kind="annotate").adds is None


def test_a_stored_proposal_edited_by_hand_is_refused(tmp_path: Path) -> None:
    _, pinned = planned()
    path = proposal.save(tmp_path, pinned)
    path.write_text(path.read_text("utf-8").replace('"#664"', '"#665"'), "utf-8")
    with pytest.raises(ProposalInvalid, match="checksum"):
        proposal.load(tmp_path, pinned.id)
