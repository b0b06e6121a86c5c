"""The example workflow docs/workflows/gotchas-apply-released.yml, its apply step run as the
runner would run it: in a fresh clone of a scratch origin, against the local GitHub stand-in.
Before the task lands nothing happens; after, the correction arrives as a pull request (or,
switched, as a commit on the default branch), and a second run lands nothing."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from support.clients import (
    HOLD,
    RECORD_PATH,
    REPO,
    git,
    gotchas_exe,
    land_task,
    make_scenario_repo,
    run_gotchas,
)
from support.fake_github import FakeGitHub
from support.project import TARGET

WORKFLOW = REPO / "docs" / "workflows" / "gotchas-apply-released.yml"
TITLE = "Per-call tokenizer reloads starved generation"


def workflow() -> dict[Any, Any]:
    yaml: Any = importlib.import_module("yaml")
    loaded: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    return loaded


def apply_step() -> dict[str, Any]:
    steps = workflow()["jobs"]["apply"]["steps"]
    [step] = [s for s in steps if s.get("name") == "Apply released corrections"]
    return dict(step)


def test_the_workflow_runs_on_landing_and_on_closed_issues() -> None:
    loaded = workflow()
    triggers: Any = loaded["on"] if "on" in loaded else loaded[True]  # YAML 1.1 reads `on` as true
    assert triggers["push"]["branches"] == ["main"]
    assert triggers["issues"]["types"] == ["closed"]
    assert loaded["jobs"]["apply"]["env"]["GOTCHAS_LAND"] == "pull-request"
    assert "gotchas apply --released --commit" in apply_step()["run"]


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, Path]:
    """A bare origin and a developer's clone holding a correction proposed while #664 was open."""
    (tmp_path / "home").mkdir()
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    work = tmp_path / "work"
    make_scenario_repo(work)
    git(work, "remote", "add", "origin", str(bare))
    args = ["propose", "--json", "--target-id", TARGET, "--task", "664", "--title", TITLE, "--hold", HOLD]
    args += [
        "--body",
        "Cache the tokenizer; chunking never helped.",
        "--diagnostic",
        "profile one render call",
    ]
    run_gotchas(work, *args)
    git(work, "add", ".claude/gotchas/proposals")
    git(work, "commit", "-q", "-m", "Park the #664 correction until #664 lands")
    git(work, "push", "-q", "origin", "main")
    return bare, work


def run_step(
    bare: Path, name: str, github: FakeGitHub, land: str
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """actions/checkout, then the step's script with the runner's environment."""
    clone = bare.parent / name
    git(bare.parent, "clone", "-q", str(bare), name)
    temp = bare.parent / f"{name}-temp"
    temp.mkdir()
    bin_dir = str(Path(gotchas_exe()).parent)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(bare.parent / "home"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GITHUB_API_URL": github.base_url,
        "GITHUB_REPOSITORY": "octo/proj",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_TOKEN": "ghs_workflowtoken",
        "RUNNER_TEMP": str(temp),
        "DEFAULT_BRANCH": "main",
        "GOTCHAS_ACTOR": "github-actions",
        "GOTCHAS_LAND": land,
    }
    done = subprocess.run(
        ["bash", "-c", apply_step()["run"]], cwd=clone, env=env, capture_output=True, text=True, timeout=120
    )
    return clone, done


def branches(bare: Path) -> dict[str, str]:
    listed = git(bare, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
    return dict(line.split() for line in listed.splitlines())


def corrections_branch(proposal_ids: list[str]) -> str:
    """The branch the workflow names from the applied proposal ids (order does not matter)."""
    return "gotchas/corrections-" + hashlib.sha256("\n".join(sorted(proposal_ids)).encode()).hexdigest()[:12]


def test_held_then_landed_opens_one_pull_request(origin: tuple[Path, Path]) -> None:
    bare, work = origin
    with FakeGitHub() as github:
        _, held = run_step(bare, "ci-1", github, "pull-request")
        assert held.returncode == 0, held.stdout + held.stderr
        assert "No released correction to land." in held.stdout
        assert list(branches(bare)) == ["main"] and github.opened == []

        land_task(work, 664)
        git(work, "push", "-q", "origin", "main")
        main_before = branches(bare)["main"]
        clone, done = run_step(bare, "ci-2", github, "pull-request")
        assert done.returncode == 0, done.stdout + done.stderr
        applied = json.loads((clone.parent / "ci-2-temp" / "gotchas-applied.json").read_text("utf-8"))
        assert [r["status"] for r in applied["applied"]] == ["applied"]
        branch = corrections_branch([r["proposal_id"] for r in applied["applied"]])
        refs = branches(bare)
        assert refs["main"] == main_before, "the default branch is left to the review"
        assert branch in refs
        [(repo, body)] = github.opened
        assert repo == "octo/proj" and (body["head"], body["base"]) == (branch, "main")
        assert "#664" in str(body["title"]) and "Gotchas-Proposal: p-" in str(body["body"])
        [post] = [r for r in github.requests if r.method == "POST"]
        assert post.headers["authorization"] == "Bearer ghs_workflowtoken"
        branch_record = git(bare, "show", f"{branch}:{RECORD_PATH}")
        assert TITLE in branch_record
        asked = [r.path for r in github.requests if r.method == "GET"]
        assert asked == [f"/repos/octo/proj/pulls?head=octo%3A{branch.replace('/', '%2F')}&state=open"]


def test_running_twice_opens_one_pull_request_per_set_of_corrections(origin: tuple[Path, Path]) -> None:
    bare, work = origin
    land_task(work, 664)
    git(work, "push", "-q", "origin", "main")
    with FakeGitHub() as github:
        _, first = run_step(bare, "ci-1", github, "pull-request")
        assert first.returncode == 0, first.stdout + first.stderr
        [(_, opened)] = github.opened
        pushed = branches(bare)
        # the pull request is not merged yet: the next push to main runs the workflow again
        _, second = run_step(bare, "ci-2", github, "pull-request")
        assert second.returncode == 0, second.stdout + second.stderr
        assert "already open: https://github.com/octo/proj/pull/101" in second.stdout
        assert len(github.opened) == 1 and [r.method for r in github.requests].count("POST") == 1
        assert branches(bare) == pushed, "nothing is pushed for a set that already has a pull request"
        assert opened["head"] == corrections_branch(
            [
                json.loads((bare.parent / "ci-1-temp" / "gotchas-applied.json").read_text())["applied"][0][
                    "proposal_id"
                ]
            ]
        )
        # two runs at once: the list misses the other's pull request, the create answers 422
        github.lagging_lists = 1
        _, racing = run_step(bare, "ci-race", github, "pull-request")
        assert racing.returncode == 0, racing.stdout + racing.stderr
        assert "already open: https://github.com/octo/proj/pull/101" in racing.stdout
        assert len(github.opened) == 1 and [r.method for r in github.requests].count("POST") == 2
        # once that pull request is closed unmerged, the next run opens a new one
        github.close(101)
        _, third = run_step(bare, "ci-3", github, "pull-request")
        assert third.returncode == 0, third.stdout + third.stderr
        assert len(github.opened) == 2 and github.opened[1][1]["head"] == opened["head"]


def test_the_stand_in_refuses_a_second_open_pull_request_for_the_same_head() -> None:
    with FakeGitHub() as github:

        def create(head: str) -> int:
            data = json.dumps({"title": "t", "head": head, "base": "main"}).encode()
            request = urllib.request.Request(
                f"{github.base_url}/repos/octo/proj/pulls",
                data=data,
                headers={"Authorization": "Bearer x"},
                method="POST",
            )
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return int(response.status)
            except urllib.error.HTTPError as error:
                body = json.load(error)
                assert "A pull request already exists for octo:b" in body["errors"][0]["message"]
                return int(error.code)

        assert create("b") == 201
        assert create("octo:b") == 422
        assert create("c") == 201
        url = f"{github.base_url}/repos/octo/proj/pulls?head=octo:b&state=open"
        with urllib.request.urlopen(url, timeout=10) as response:
            [listed] = json.load(response)
        assert (listed["number"], listed["head"]["ref"], listed["base"]["ref"]) == (101, "b", "main")
        github.close(101)
        with urllib.request.urlopen(url, timeout=10) as response:
            assert json.load(response) == []
        assert create("b") == 201


def test_switched_to_commit_it_lands_on_main_once(origin: tuple[Path, Path]) -> None:
    bare, work = origin
    land_task(work, 664)
    git(work, "push", "-q", "origin", "main")
    with FakeGitHub() as github:
        _, done = run_step(bare, "ci-1", github, "commit")
        assert done.returncode == 0, done.stdout + done.stderr
        assert TITLE in git(bare, "show", f"main:{RECORD_PATH}")
        trailers = git(bare, "log", "-1", "--format=%(trailers:only)", "main")
        assert "Gotchas-Proposal: p-" in trailers and f"Supersedes: {TARGET} (for #664)" in trailers
        after = branches(bare)
        _, again = run_step(bare, "ci-2", github, "commit")
        assert again.returncode == 0 and "No released correction to land." in again.stdout
        assert branches(bare) == after and github.opened == []
