"""The example workflow docs/workflows/gotchas-apply-released.yml, its apply step run as the
runner would run it: in a fresh clone of a scratch origin, against the local GitHub stand-in.
Before the task lands nothing happens; after, the correction arrives as a pull request (or,
switched, as a commit on the default branch), and a second run lands nothing."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
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
        refs = branches(bare)
        assert refs["main"] == main_before, "the default branch is left to the review"
        assert "gotchas/apply-released-4242" in refs
        [(repo, body)] = github.opened
        assert repo == "octo/proj" and (body["head"], body["base"]) == ("gotchas/apply-released-4242", "main")
        assert "#664" in str(body["title"]) and "Gotchas-Proposal: p-" in str(body["body"])
        [post] = [r for r in github.requests if r.method == "POST"]
        assert post.headers["authorization"] == "Bearer ghs_workflowtoken"
        branch_record = git(bare, "show", f"gotchas/apply-released-4242:{RECORD_PATH}")
        assert TITLE in branch_record
        applied = json.loads((clone.parent / "ci-2-temp" / "gotchas-applied.json").read_text("utf-8"))
        assert [r["status"] for r in applied["applied"]] == ["applied"]


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
