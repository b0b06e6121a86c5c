"""What a propose writes and waits for when the caller says nothing more.

The record is durable truth, so the default caveat states only what is known (the task, what
was ruled out *for it*, where the confirmed cause is), and a correction for a task waits until
that task lands unless the caller says otherwise.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gotchas import operations
from gotchas.errors import InvalidArgument
from support.clients import RECORD_PATH, git, land_task, make_scenario_repo, run_gotchas

RECORD = b"""# Lessons

## Retries hide the flaky probe

tasks: #8244

Wrap the probe in the retry helper so a half-open socket does not page anyone.

## Keep the changelog sorted

tasks: #12

Sort entries by date.
"""

RULED_OUT = ["Sentry alert flood from half-open probes", "a stale DNS cache"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    (repo / RECORD_PATH).write_bytes(RECORD)
    git(repo, "add", str(RECORD_PATH))
    git(repo, "commit", "-q", "-m", "lessons")
    return repo


def propose(root: Path, *extra: str) -> dict[str, Any]:
    args = ["propose", "--json", "--target-id", "retries-hide-the-flaky-probe", "--task", "#8244"]
    args += ["--title", "The probe timed out on a closed pool", "--body", "Size the pool."]
    args += ["--diagnostic", "count open sockets"]
    for cause in RULED_OUT:
        args += ["--ruled-out", cause]
    result: dict[str, Any] = json.loads(run_gotchas(root, *args, *extra).stdout)
    return result


def caveat_of(root: Path) -> str:
    text = (root / RECORD_PATH).read_text("utf-8")
    (line,) = [line for line in text.splitlines() if line.startswith("> **Red herring")]
    return line


def test_the_default_caveat_claims_nothing_about_the_entry(root: Path) -> None:
    proposed = propose(root, "--no-hold")
    assert json.loads(run_gotchas(root, "apply", proposed["proposal_id"], "--json").stdout)["status"] == (
        "applied"
    )
    caveat = caveat_of(root)
    # The ruled-out causes are said as such, for the task, never as what the entry advised.
    assert "Ruled out for #8244: Sentry alert flood from half-open probes; a stale DNS cache." in caveat
    assert not re.search(r"advis|this entry (said|says|recommend)|its advice", caveat, re.IGNORECASE)
    sentences = [s.strip() for s in re.split(r"(?<=[.])\s+", caveat.removeprefix("> ")) if s.strip()]
    about_entry = [s for s in sentences if re.search(r"\b(this|the) entry\b", s, re.IGNORECASE)]
    assert about_entry == ["This entry may still hold for other tasks."]


def test_without_ruled_out_causes_the_caveat_only_points_at_the_cause(root: Path) -> None:
    args = ["propose", "--json", "--no-hold", "--target-id", "retries-hide-the-flaky-probe"]
    args += ["--task", "#8244", "--title", "Pool size", "--body", "Size it.", "--diagnostic", "count"]
    proposed = json.loads(run_gotchas(root, *args).stdout)
    run_gotchas(root, "apply", proposed["proposal_id"])
    caveat = caveat_of(root)
    assert caveat.startswith("> **Red herring for #8244.** The confirmed cause is in \u201cPool size\u201d")


def test_a_correction_is_held_until_its_task_lands_by_default(root: Path) -> None:
    proposed = propose(root)
    assert proposed["hold"]["predicate"] == "predicate-8244-lands"
    assert "refused until the hold predicate-8244-lands is released" in proposed["next_step"]
    before = (root / RECORD_PATH).read_bytes()

    refused = run_gotchas(root, "apply", proposed["proposal_id"], "--json", check=False)
    assert refused.returncode == 3
    assert json.loads(refused.stdout)["status"] == "refused"
    assert (root / RECORD_PATH).read_bytes() == before

    land_task(root, 8244)
    applied = json.loads(run_gotchas(root, "apply", proposed["proposal_id"], "--json").stdout)
    assert applied["status"] == "applied"


def test_a_new_lesson_waits_for_every_task_it_is_for(root: Path) -> None:
    args = ["propose", "--json", "--title", "Pin the pool size", "--body", "Pin it."]
    args += ["--tasks", "#8244", "--tasks", "acme/api#9", "--root-cause", "suspected"]
    proposed = json.loads(run_gotchas(root, *args).stdout)
    assert proposed["hold"]["predicate"] == "predicate-8244-lands+predicate-acme/api#9-lands"


def test_no_hold_and_an_explicit_hold_are_honoured(root: Path) -> None:
    assert propose(root, "--no-hold")["hold"] is None
    chosen = propose(root, "--hold", "predicate-12-terminal")
    assert chosen["hold"]["predicate"] == "predicate-12-terminal"


def test_default_hold_rules() -> None:
    assert operations.default_hold(None, tasks=["#664"]) == "predicate-664-lands"
    assert operations.default_hold("none", tasks=["#664"]) is None  # the MCP tools' way to say no hold
    assert operations.default_hold(None, tasks=["#664"], no_hold=True) is None
    assert operations.default_hold(" predicate-1-terminal ", tasks=["#664"]) == "predicate-1-terminal"
    both = operations.default_hold(None, tasks=["#1", "#1", "ABC-2"])
    assert both == "predicate-1-lands+predicate-ABC-2-lands"
    with pytest.raises(InvalidArgument):
        operations.default_hold("predicate-1-lands", tasks=["#1"], no_hold=True)
