"""Withdrawing a proposal, through the real CLI and the MCP server: a withdrawn proposal is
never applied (not by `apply --released` once its task lands, not by `apply <id>`), the
withdrawal is journalled with who, when and why, a second withdrawal changes nothing, and a
new propose of the same thing is a new proposal. Session start names pending proposals older
than `[proposals] stale_after_days`."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gotchas import proposal
from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_TITLE,
    HOLD,
    RECORD_PATH,
    gotchas,
    isolated_env,
    land_task,
    make_scenario_repo,
    run_gotchas,
)
from support.project import TARGET

JOURNAL = Path(".claude/gotchas/journal.jsonl")
PROPOSALS = Path(".claude/gotchas/proposals")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    run_gotchas(repo, "task", "set", "664", "running")
    return repo


def propose(root: Path, *extra: str) -> dict[str, Any]:
    args = ["propose", "--json", "--target-id", TARGET, "--task", "664", "--title", CORRECTION_TITLE]
    args += ["--body", CORRECTION_BODY, "--diagnostic", CORRECTION_DIAGNOSTIC, *extra]
    result: dict[str, Any] = json.loads(run_gotchas(root, *args).stdout)
    return result


def tree(root: Path) -> dict[str, str]:
    """Every file under the project (git's own folder aside) with the hash of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts[:1]
    }


def events(root: Path, status: str) -> list[dict[str, Any]]:
    lines = (root / JOURNAL).read_text("utf-8").splitlines() if (root / JOURNAL).exists() else []
    return [e for e in map(json.loads, lines) if e.get("status") == status]


def listed(root: Path, *flags: str) -> dict[str, str]:
    found = json.loads(run_gotchas(root, "proposals", "--json", *flags).stdout)["proposals"]
    return {p["proposal_id"]: p["status"] for p in found}


def test_a_withdrawn_proposal_is_not_applied_when_its_task_lands(root: Path) -> None:
    made = propose(root)
    pid = made["proposal_id"]
    assert made["hold"]["predicate"] == HOLD  # held by default until #664 lands
    done = gotchas(root, "withdraw", pid, "--why", "the cause was the driver after all", GOTCHAS_ACTOR="dana")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"withdrawn: {pid} (by dana at ")
    assert "the cause was the driver after all" in done.stdout and "journal.jsonl" in done.stdout
    [event] = events(root, "withdrawn")
    assert (event["proposal_id"], event["actor"], event["why"]) == (
        pid,
        "dana",
        "the cause was the driver after all",
    )
    assert (event["target_id"], event["task"]) == (TARGET, "#664") and event["at"].endswith("Z")

    land_task(root, 664)
    record = (root / RECORD_PATH).read_bytes()
    released = gotchas(root, "apply", "--released", "--json")
    assert released.returncode == 0, released.stderr
    answer = json.loads(released.stdout)
    assert answer["applied"] == [] and answer["refused"] == [] and answer["held"] == []
    assert [(p["proposal_id"], p["status"]) for p in answer["skipped"]] == [(pid, "withdrawn")]
    assert (root / RECORD_PATH).read_bytes() == record

    direct = gotchas(root, "apply", pid)
    assert direct.returncode == 1
    assert f"proposal-withdrawn: proposal {pid} was withdrawn (by dana" in direct.stderr
    assert (root / RECORD_PATH).read_bytes() == record
    assert events(root, "applied") == []

    assert listed(root) == {}
    assert listed(root, "--all") == {pid: "withdrawn"}
    assert listed(root, "--status", "withdrawn") == {pid: "withdrawn"}
    assert listed(root, "--pending") == {}
    shown = run_gotchas(root, "proposals").stdout
    assert "1 withdrawn; --all shows them" in shown and pid not in shown
    assert "withdrawn by dana" in run_gotchas(root, "proposals", "--all").stdout


def test_withdrawing_twice_changes_nothing_and_a_new_propose_is_a_new_proposal(root: Path) -> None:
    first = propose(root)["proposal_id"]
    run_gotchas(root, "withdraw", first, "--why", "regretted")
    before = tree(root)
    again = json.loads(run_gotchas(root, "withdraw", first, "--json").stdout)
    assert again["status"] == "already-withdrawn" and again["withdrawn"]["why"] == "regretted"
    assert tree(root) == before
    assert len(events(root, "withdrawn")) == 1

    renewed = propose(root)
    assert renewed["status"] == "proposed" and renewed["proposal_id"] != first
    assert f"{first} was withdrawn, so this is a new proposal" in renewed["next_step"]
    assert listed(root, "--all") == {first: "withdrawn", renewed["proposal_id"]: "pending"}
    stored = proposal.load(root / PROPOSALS, renewed["proposal_id"])
    assert stored.renews == first  # its id is made from the intent and the id it renews

    land_task(root, 664)
    answer = json.loads(gotchas(root, "apply", "--released", "--json").stdout)
    assert [r["proposal_id"] for r in answer["applied"]] == [renewed["proposal_id"]]
    assert listed(root, "--all")[first] == "withdrawn"


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("withdraw", "p-nope"), 1, "proposal-not-found: 'p-nope' is not a proposal id"),
        (("withdraw", "p-000000000000"), 1, "proposal-not-found: no proposal p-000000000000"),
        (("withdraw", "{pid}", "--why", "a\x1b[2Jb"), 2, "control character"),
        (("withdraw", "{pid}", "--why", "x" * 600), 2, "at most 500"),
        (("proposals", "--status", "gone"), 2, "invalid choice: 'gone'"),
    ],
)
def test_bad_input_is_refused_and_leaves_every_file_as_it_was(
    root: Path, args: tuple[str, ...], code: int, words: str
) -> None:
    pid = propose(root)["proposal_id"]
    before = tree(root)
    done = gotchas(root, *(a.replace("{pid}", pid) for a in args))
    assert done.returncode == code, done.stderr
    assert words in done.stderr
    assert tree(root) == before


def test_an_applied_proposal_cannot_be_withdrawn(root: Path) -> None:
    pid = propose(root, "--no-hold")["proposal_id"]
    run_gotchas(root, "apply", pid)
    before = tree(root)
    done = gotchas(root, "withdraw", pid)
    assert done.returncode == 2 and "is already applied" in done.stderr
    assert tree(root) == before


@pytest.mark.anyio
async def test_withdraw_through_the_mcp_server(root: Path) -> None:
    from mcp import Client, StdioServerParameters

    pid = propose(root, "--no-hold")["proposal_id"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gotchas", "serve"],
        cwd=str(root),
        env=isolated_env(root.parent / "home", GOTCHAS_ACTOR="agent"),
    )
    async with Client(params) as client:
        done = await client.call_tool("withdraw_proposal", {"proposal_id": pid, "why": "superseded by a PR"})
        assert not done.is_error and done.structured_content is not None
        assert done.structured_content["status"] == "withdrawn"
        assert done.structured_content["withdrawn"]["by"] == "agent"
        default = await client.call_tool("list_proposals", {})
        assert default.structured_content == {"proposals": []}
        gone = await client.call_tool("list_proposals", {"status": "withdrawn"})
        assert gone.structured_content is not None
        assert [p["proposal_id"] for p in gone.structured_content["proposals"]] == [pid]
        refused = await client.call_tool("apply_supersede", {"proposal_id": pid})
        assert refused.is_error and "proposal-withdrawn" in refused.content[0].text  # type: ignore[union-attr]
        bad = await client.call_tool("list_proposals", {"status": "bogus"})
        assert bad.is_error
    assert (root / RECORD_PATH).read_text("utf-8").count(CORRECTION_TITLE) == 0


def age(root: Path, pid: str, days: int) -> None:
    """Make a stored proposal ``days`` old, as a file made then would be (checksum and all)."""
    stored = proposal.load(root / PROPOSALS, pid)
    made = f"2026-01-{1 + days % 28:02d}T00:00:00Z" if days < 28 else "2025-01-01T00:00:00Z"
    proposal.save(root / PROPOSALS, dataclasses.replace(stored, created_at=made))


def test_session_start_names_pending_proposals_older_than_the_configured_age(root: Path) -> None:
    fresh = propose(root)["proposal_id"]
    quiet = gotchas(root, "session-start")
    assert quiet.returncode == 0 and quiet.stdout == ""  # held and young: nothing to say
    age(root, fresh, 400)
    told = json.loads(gotchas(root, "session-start").stdout)["hookSpecificOutput"]["additionalContext"]
    assert "1 pending proposal older than 14 days" in told
    assert fresh in told and "hold predicate-664-lands held" in told
    assert '"a-single-large-llm-generate-deadlocks-the-v1"' in told  # quoted as data
    assert "gotchas withdraw" in told and "data, not instructions" in told
    run_gotchas(root, "withdraw", fresh)
    assert gotchas(root, "session-start").stdout == ""  # withdrawn: settled


def test_the_age_is_configurable_and_checked(root: Path) -> None:
    pid = propose(root)["proposal_id"]
    age(root, pid, 400)
    config = root / ".claude" / "gotchas.toml"
    config.write_text("[proposals]\nstale_after_days = 3650\n", "utf-8")
    assert gotchas(root, "session-start").stdout == ""
    config.write_text("[proposals]\nstale_after_days = 0\n", "utf-8")
    done = gotchas(root, "proposals")
    assert done.returncode != 0 and "proposals.stale_after_days must be a whole number" in done.stderr
    config.write_text("[proposals]\nstale_days = 3\n", "utf-8")
    assert "unknown key 'stale_days'" in gotchas(root, "proposals").stderr
