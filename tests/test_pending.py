"""Pending corrections land themselves: `gotchas proposals` tells where each stored proposal
stands now, and `gotchas apply --released` applies the released ones, in creation order, once."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from gotchas import journal
from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_RULED_OUT,
    CORRECTION_TITLE,
    HOLD,
    RECORD_PATH,
    gotchas,
    land_task,
    make_scenario_repo,
    run_gotchas,
)
from support.project import TARGET

JOURNAL = Path(".claude/gotchas/journal.jsonl")


def propose(
    root: Path, *, task: str = "664", title: str = CORRECTION_TITLE, hold: str | None = HOLD
) -> dict[str, Any]:
    args = ["propose", "--json", "--target-id", TARGET, "--task", task, "--title", title]
    args += ["--body", CORRECTION_BODY, "--diagnostic", CORRECTION_DIAGNOSTIC]
    for item in CORRECTION_RULED_OUT:
        args += ["--ruled-out", item]
    if hold:
        args += ["--hold", hold]
    result: dict[str, Any] = json.loads(run_gotchas(root, *args).stdout)
    return result


def tree(root: Path) -> dict[str, str]:
    """Every file under the project (git's own folder aside) with the hash of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts[:1]
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    run_gotchas(repo, "task", "set", "664", "running")
    return repo


def statuses(root: Path) -> dict[str, dict[str, Any]]:
    listed = json.loads(run_gotchas(root, "proposals", "--json").stdout)["proposals"]
    return {p["proposal_id"]: p for p in listed}


def test_propose_while_held_then_land_then_apply_released_once(root: Path) -> None:
    proposed = propose(root)
    before = (root / RECORD_PATH).read_bytes()

    listed = statuses(root)[proposed["proposal_id"]]
    assert (listed["status"], listed["hold_state"]["state"]) == ("pending", "held")
    assert listed["hold_state"]["tasks"][0]["evidence"], "the hold's evidence is shown"
    text = run_gotchas(root, "proposals").stdout
    assert proposed["proposal_id"] in text and "(held)" in text and "source: ledger" in text

    held = gotchas(root, "apply", "--released", "--json")
    assert held.returncode == 3, held.stderr
    answer = json.loads(held.stdout)
    assert [p["proposal_id"] for p in answer["held"]] == [proposed["proposal_id"]]
    assert answer["applied"] == [] and answer["refused"] == []
    assert (root / RECORD_PATH).read_bytes() == before

    land_task(root, 664)
    listed = statuses(root)[proposed["proposal_id"]]
    assert listed["hold_state"]["state"] == "released"
    assert any("Cache the tokenizer" in json.dumps(t["evidence"]) for t in listed["hold_state"]["tasks"])

    done = gotchas(root, "apply", "--released", "--json", GOTCHAS_ACTOR="landing-bot")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    [applied] = answer["applied"]
    assert applied["proposal_id"] == proposed["proposal_id"]
    assert applied["verification"]["ok"] is True
    assert CORRECTION_TITLE in (root / RECORD_PATH).read_text("utf-8")
    assert run_gotchas(root, "verify").returncode == 0
    [event] = journal.read(root / JOURNAL)
    assert (event["status"], event["task"], event["target_id"]) == ("applied", "#664", TARGET)
    assert (event["new_id"], event["actor"]) == (proposed["new_id"], "landing-bot")
    assert statuses(root)[proposed["proposal_id"]]["status"] == "applied"

    after = tree(root)
    again = gotchas(root, "apply", "--released")
    assert again.returncode == 0 and "nothing to apply" in again.stdout
    assert tree(root) == after  # the second run writes nothing, not even a journal line


def test_listing_proposals_reads_and_never_writes(root: Path) -> None:
    propose(root)
    before = tree(root)
    run_gotchas(root, "proposals", "--json")
    run_gotchas(root, "proposals")
    assert tree(root) == before


def test_a_newer_proposal_supersedes_an_older_one_and_a_changed_target_conflicts(root: Path) -> None:
    older = propose(root, title="A first account of the #664 hang")
    newer = propose(root, title="A second account of the #664 hang")
    other = propose(root, task="700", title="What #700 taught about the same advice", hold=None)
    listed = statuses(root)
    assert listed[older["proposal_id"]]["status"] == "superseded"
    assert listed[older["proposal_id"]]["superseded_by"] == newer["proposal_id"]
    assert listed[newer["proposal_id"]]["status"] == "pending"
    assert listed[other["proposal_id"]]["status"] == "pending"

    released = gotchas(root, "apply", "--released", "--json")  # #700 has no hold; #664 is held
    assert released.returncode == 3
    answer = json.loads(released.stdout)
    assert [r["proposal_id"] for r in answer["applied"]] == [other["proposal_id"]]
    assert [p["proposal_id"] for p in answer["held"]] == [newer["proposal_id"]]
    assert {p["proposal_id"] for p in answer["skipped"]} == {older["proposal_id"]}

    listed = statuses(root)
    assert listed[other["proposal_id"]]["status"] == "applied"
    assert listed[newer["proposal_id"]]["status"] == "conflicting"
    assert "conflict" in listed[newer["proposal_id"]]["reason"]


def test_a_proposal_whose_target_changed_is_skipped_as_conflicting_and_nothing_written(root: Path) -> None:
    proposed = propose(root, hold=None)
    record = root / RECORD_PATH
    text = record.read_text("utf-8")
    record.write_text(text.replace("One `llm.generate()`", "A single `llm.generate()`"), "utf-8")
    # statuses are read first: the changed target reads as conflicting and is skipped
    assert statuses(root)[proposed["proposal_id"]]["status"] == "conflicting"
    before = record.read_bytes()
    done = gotchas(root, "apply", "--released", "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["skipped"][0]["status"] == "conflicting"
    assert record.read_bytes() == before


def test_bad_arguments_are_one_line_and_exit_2(root: Path) -> None:
    for args in (("apply",), ("apply", "p-000000000000", "--released")):
        done = gotchas(root, *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1


@pytest.mark.anyio
async def test_list_proposals_through_the_stdio_server_tells_status_and_hold_and_reads_only(
    root: Path,
) -> None:
    from mcp import Client, StdioServerParameters

    from support.clients import gotchas_exe, isolated_env

    proposed = propose(root)
    land_task(root, 664)
    before = tree(root)
    params = StdioServerParameters(
        command=gotchas_exe(), args=["serve"], cwd=str(root), env=isolated_env(root.parent / "home")
    )
    async with Client(params) as client:
        result: Any = await client.call_tool("list_proposals", {})
        assert not result.is_error, result.content
        [listed] = result.structured_content["proposals"]
    assert (listed["proposal_id"], listed["status"]) == (proposed["proposal_id"], "pending")
    assert listed["hold_state"]["state"] == "released" and "ready to apply" in listed["reason"]
    assert tree(root) == before


def test_a_proposal_file_edited_by_hand_is_left_out_and_said_so(root: Path) -> None:
    proposed = propose(root, hold=None)
    path = root / ".claude/gotchas/proposals" / f"{proposed['proposal_id']}.json"
    path.write_text(path.read_text("utf-8").replace("#664", "#665"), "utf-8")
    before = (root / RECORD_PATH).read_bytes()
    listed = gotchas(root, "proposals", "--json")
    assert json.loads(listed.stdout)["proposals"] == []
    assert f"left out: proposal {proposed['proposal_id']} was changed after it was made" in listed.stderr
    done = gotchas(root, "apply", "--released")
    assert done.returncode == 0 and "nothing to apply" in done.stdout
    assert (root / RECORD_PATH).read_bytes() == before
