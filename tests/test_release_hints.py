"""A held or unknown hold says what would release it, for the sources configured: a commit on
the branch that closes the task (git), a ledger line (ledger), the issue closed (GitHub), or
how to configure GitHub when it is not. Through the real CLI (check-hold, apply, proposals)
and the MCP server; `check-hold` takes a task alone as "that task lands"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_TITLE,
    RECORD_PATH,
    gotchas,
    gotchas_exe,
    isolated_env,
    land_task,
    make_scenario_repo,
    run_gotchas,
)
from support.fake_github import FakeGitHub, issue
from support.project import TARGET, allow

LEDGER = "`gotchas task set 664 landed`"
GIT = "a commit on main whose message says `closes #664`"
GITHUB_SETUP = 'add "github" to [holds] sources (and [holds.github]) so closing issue #664 releases it'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    return repo


def check(root: Path, what: str, **env: str) -> tuple[int, dict[str, Any], str]:
    """check-hold as JSON and as text: the exit code, the answer and the text."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [gotchas_exe(), *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            env=isolated_env(root.parent / "home", **env),
            check=False,
        )

    as_json = run("check-hold", what, "--json")
    text = run("check-hold", what)
    assert as_json.returncode == text.returncode, (as_json.stderr, text.stderr)
    return text.returncode, json.loads(as_json.stdout), text.stdout


def test_an_unknown_hold_ends_with_the_ways_to_release_it(root: Path) -> None:
    code, answer, text = check(root, "predicate-664-lands")
    assert code == 5 and answer["state"] == "unknown"
    assert answer["release"] == [LEDGER, GIT, GITHUB_SETUP]
    assert text.splitlines()[-4:] == [
        "  to release it, any one of:",
        f"    - {LEDGER}",
        f"    - {GIT}",
        f"    - {GITHUB_SETUP}",
    ]


def test_a_held_hold_names_the_configured_branch_and_each_way_releases_it(root: Path) -> None:
    run_gotchas(root, "task", "set", "664", "running")
    code, answer, _ = check(root, "664")
    assert code == 3 and answer["state"] == "held" and answer["release"][:2] == [LEDGER, GIT]
    run_gotchas(root, "task", "set", "664", "landed")  # the ledger's way
    code, answer, _ = check(root, "664")
    assert code == 0 and answer["release"] == []

    other = root.parent / "other"
    make_scenario_repo(other)
    (other / ".claude" / "gotchas.toml").write_text(
        '[holds]\nsources = ["git"]\n[holds.git]\nbranch = "main"\n'
    )
    code, answer, _ = check(other, "#664")
    assert code == 5 and answer["release"] == [GIT, GITHUB_SETUP]  # no ledger configured: no ledger hint
    land_task(other, 664)  # the git way
    assert check(other, "#664")[0] == 0


def test_a_tracker_key_gets_no_git_or_github_hint(root: Path) -> None:
    (root / ".claude" / "gotchas.toml").write_text('[tasks]\nkeys = ["ABC"]\n', "utf-8")
    code, answer, _ = check(root, "predicate-ABC-12-lands")
    assert code == 5 and answer["release"] == ["`gotchas task set ABC-12 landed`"]


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def test_with_github_configured_the_hint_is_closing_the_issue(root: Path, github: FakeGitHub) -> None:
    github.issues["octo/proj", 664] = issue(664, state="open")
    (root / ".claude" / "gotchas.toml").write_text(
        '[holds]\nsources = ["github", "git"]\n'
        f'[holds.github]\nrepo = "octo/proj"\nbase_url = "{github.base_url}"\n',
        "utf-8",
    )
    trust = root.parent / "trust.toml"
    allow(trust, root, github_base_url=github.base_url)
    env = {"GOTCHAS_USER_CONFIG": str(trust), "no_proxy": "127.0.0.1", "NO_PROXY": "127.0.0.1"}
    code, answer, text = check(root, "octo/proj#664", **env)
    assert code == 3 and answer["predicate"] == "predicate-octo/proj#664-lands"
    assert answer["release"] == [
        "issue octo/proj#664 closed as completed, or its pull request merged",
        "a commit on main whose message says `closes octo/proj#664`",
    ]
    assert "github: " in text and "'source'" not in text
    github.issues["octo/proj", 664] = issue(664, state="closed", state_reason="completed")
    code, answer, _ = check(root, "octo/proj#664", **env)
    assert code == 0 and answer["release"] == []
    assert os.environ.get("GOTCHAS_USER_CONFIG") != str(trust)  # the user's own trust file is untouched


@pytest.mark.parametrize("typed", ["664", "#664", " 664 "])
def test_a_task_alone_means_that_it_lands(root: Path, typed: str) -> None:
    code, answer, text = check(root, typed)
    assert code == 5 and answer["predicate"] == "predicate-664-lands"
    assert text.startswith("predicate-664-lands: unknown\n")


@pytest.mark.parametrize("typed", ["664x", "#", "owner/repo", "a/b/c#1", "664 lands", "predicate-664"])
def test_anything_else_is_still_an_invalid_predicate(root: Path, typed: str) -> None:
    done = gotchas(root, "check-hold", typed)
    assert done.returncode == 2 and "invalid-predicate" in done.stderr


def test_apply_refused_and_proposals_say_how_to_release_the_hold(root: Path) -> None:
    run_gotchas(root, "task", "set", "664", "running")
    args = ["propose", "--json", "--target-id", TARGET, "--task", "664", "--title", CORRECTION_TITLE]
    made = json.loads(
        run_gotchas(root, *args, "--body", CORRECTION_BODY, "--diagnostic", CORRECTION_DIAGNOSTIC).stdout
    )
    assert f"to release it: {LEDGER}; or {GIT}" in made["next_step"]
    before = (root / RECORD_PATH).read_bytes()
    refused = gotchas(root, "apply", made["proposal_id"])
    assert refused.returncode == 3
    assert f"to release it: {LEDGER}; or {GIT}" in refused.stdout
    assert refused.stdout.rstrip().splitlines()[-1].startswith("next: once the hold is released")
    assert (root / RECORD_PATH).read_bytes() == before
    listing = run_gotchas(root, "proposals").stdout
    assert f"to release it: {LEDGER}; or {GIT}" in listing
    land_task(root, 664)
    applied = run_gotchas(root, "apply", made["proposal_id"]).stdout.splitlines()
    assert applied[0] == "applied: applied and verified"
    assert applied[-1].startswith("next: `gotchas verify`, then `git add .claude/rules/gotchas.md ")
    assert applied[-1].endswith("&& git commit` (or apply with --commit)")


@pytest.mark.anyio
async def test_check_hold_over_mcp_takes_a_task_and_gives_the_ways(root: Path) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gotchas", "serve"],
        cwd=str(root),
        env=isolated_env(root.parent / "home"),
    )
    async with Client(params) as client:
        done = await client.call_tool("check_hold", {"predicate": "#664"})
        assert not done.is_error and done.structured_content is not None
        assert done.structured_content["predicate"] == "predicate-664-lands"
        assert done.structured_content["release"] == [LEDGER, GIT, GITHUB_SETUP]
        bad = await client.call_tool("check_hold", {"predicate": "664 please"})
        assert bad.is_error and "invalid-predicate" in bad.content[0].text  # type: ignore[union-attr]
