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
    args += ["--hold", hold] if hold else ["--no-hold"]
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


def propose_lesson(root: Path, title: str) -> dict[str, Any]:
    args = ["propose", "--json", "--no-hold", "--title", title, "--body", "Pin the allocator's arena size."]
    result: dict[str, Any] = json.loads(
        run_gotchas(root, *args, "--tasks", "800", "--root-cause", "suspected").stdout
    )
    return result


def test_a_proposal_whose_target_changed_is_refused_alone_and_the_others_apply(root: Path) -> None:
    proposed = propose(root, hold=None)
    other = propose_lesson(root, "Arena size decides the #800 fragmentation")
    record = root / RECORD_PATH
    text = record.read_text("utf-8")
    record.write_text(text.replace("One `llm.generate()`", "A single `llm.generate()`"), "utf-8")
    # statuses are read first: the changed target reads as conflicting and is refused
    assert statuses(root)[proposed["proposal_id"]]["status"] == "conflicting"
    done = gotchas(root, "apply", "--released", "--json")
    assert done.returncode == 7, done.stderr
    answer = json.loads(done.stdout)
    [refused] = answer["refused"]
    assert (refused["proposal_id"], refused["status"], refused["code"]) == (
        proposed["proposal_id"],
        "refused",
        "conflict",
    )
    assert [r["proposal_id"] for r in answer["applied"]] == [other["proposal_id"]]
    written = record.read_text("utf-8")
    assert "Arena size decides" in written and CORRECTION_TITLE not in written
    again = gotchas(root, "apply", "--released")
    assert again.returncode == 7
    assert f"refused {proposed['proposal_id']}: " in again.stdout and "conflict" in again.stdout


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
    path = root / PROPOSALS / f"{proposed['proposal_id']}.json"
    path.write_text(path.read_text("utf-8").replace("#664", "#665"), "utf-8")
    before = (root / RECORD_PATH).read_bytes()
    listed = gotchas(root, "proposals", "--json")
    assert json.loads(listed.stdout)["proposals"] == []
    assert f"left out: proposal {proposed['proposal_id']} was changed after it was made" in listed.stderr
    done = gotchas(root, "apply", "--released")
    assert done.returncode == 7
    assert f"refused {proposed['proposal_id']}: proposal {proposed['proposal_id']} was changed" in done.stdout
    assert (root / RECORD_PATH).read_bytes() == before


PROPOSALS = Path(".claude/gotchas/proposals")


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def forge(root: Path, body: dict[str, Any]) -> str:
    """Store ``body`` as a proposal whose id and checksum are right: only deeper checks refuse it."""
    body = {k: v for k, v in body.items() if k != "checksum"}
    keys = ("kind", "record", "base_sha256", "target_id", "task", "red_herring_note", "after_id", "hold")
    intent = {**{k: body[k] for k in keys}, "lesson": body["lesson"]}
    body["id"] = "p-" + hashlib.sha256(_canonical(intent).encode()).hexdigest()[:12]
    body["checksum"] = hashlib.sha256(_canonical(body).encode()).hexdigest()
    (root / PROPOSALS / f"{body['id']}.json").write_text(json.dumps(body, indent=2), "utf-8")
    return str(body["id"])


def test_each_bad_stored_proposal_is_refused_alone_named_with_its_reason(root: Path) -> None:
    good = propose(root, hold=None)
    stored = json.loads((root / PROPOSALS / f"{good['proposal_id']}.json").read_text("utf-8"))
    bad = {
        forge(root, {**stored, "kind": "rewrite"}): "unknown kind",
        forge(root, {**stored, "hold": "predicate-664-maybe"}): "hold is malformed",
        forge(root, {**stored, "hold": ["predicate-664-lands"]}): "hold is not a predicate",
        forge(root, {**stored, "task": "#701", "result_sha256": "0" * 64}): "forged",
        forge(
            root, {**stored, "task": "#702", "insertions": [{"at": "0", "lines": []}]}
        ): "insertions are not",
    }
    for name, text in (
        ("p-aaaaaaaaaaaa", '{"format": "gotchas-proposal/1", "kind": '),
        ("p-bbbbbbbbbbbb", "[" * 50_000 + "]" * 50_000),
        ("p-cccccccccccc", '{"a": ' * 50_000 + "1" + "}" * 50_000),
    ):
        (root / PROPOSALS / f"{name}.json").write_text(text, "utf-8")
    bad |= {
        "p-aaaaaaaaaaaa": "not a readable proposal file",
        "p-bbbbbbbbbbbb": "nested too deeply",
        "p-cccccccccccc": "nested too deeply",
    }
    (root / PROPOSALS / "p-eeeeeeeeeeee.json").mkdir()  # not a file at all
    outside = root.parent / "elsewhere.json"
    outside.write_text("{}", "utf-8")
    (root / PROPOSALS / "p-ffffffffffff.json").symlink_to(outside)  # never followed
    bad |= {"p-eeeeeeeeeeee": "", "p-ffffffffffff": ""}
    copied = root / PROPOSALS / "p-dddddddddddd.json"  # a real proposal under another's name
    copied.write_bytes((root / PROPOSALS / f"{good['proposal_id']}.json").read_bytes())
    bad["p-dddddddddddd"] = "does not match its own id"

    done = gotchas(root, "apply", "--released", "--json")
    assert done.returncode == 7, done.stderr
    answer = json.loads(done.stdout)
    assert [r["proposal_id"] for r in answer["applied"]] == [good["proposal_id"]]
    refused = {r["proposal_id"]: r for r in answer["refused"]}
    assert set(refused) == set(bad)
    for pid, why in bad.items():
        assert why in refused[pid]["reason"], (pid, refused[pid])
        assert refused[pid]["status"] == "refused" and refused[pid]["code"]
    assert CORRECTION_TITLE in (root / RECORD_PATH).read_text("utf-8")
    assert run_gotchas(root, "verify").returncode == 0

    # a forged result shows only on the bytes it claims to edit; the others are refused every run
    forged = next(pid for pid, why in bad.items() if why == "forged")
    (root / PROPOSALS / f"{forged}.json").unlink()
    del bad[forged]
    after = tree(root)
    again = gotchas(root, "apply", "--released")
    assert again.returncode == 7
    for pid, why in bad.items():
        line = next((x for x in again.stdout.splitlines() if x.startswith(f"refused {pid}: ")), again.stdout)
        assert why in line, again.stdout
    assert "nothing to apply" not in again.stdout
    assert tree(root) == after  # refusals write nothing
