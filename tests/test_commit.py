"""`gotchas apply --commit`: one commit holding exactly the record, the journal and the applied
proposals, built in a temporary index, so whatever the person staged stays staged and out of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gotchas import record
from support.clients import RECORD_PATH, git, gotchas, make_scenario_repo, run_gotchas
from support.project import TARGET

JOURNAL = ".claude/gotchas/journal.jsonl"


def propose(root: Path, task: str, title: str, target: str = TARGET) -> dict[str, Any]:
    args = ["propose", "--no-hold", "--json", "--target-id", target, "--task", task, "--title", title]
    args += ["--body", f"What {task} really taught.", "--diagnostic", f"how to recognise {task}'s cause"]
    result: dict[str, Any] = json.loads(run_gotchas(root, *args).stdout)
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    git(repo, "config", "user.name", "Lesson Keeper")
    git(repo, "config", "user.email", "keeper@example.invalid")
    (repo / "notes.txt").write_text("work in progress\n", "utf-8")
    git(repo, "add", "notes.txt")  # staged by the person: must stay staged, out of the commit
    (repo / "README.txt").write_text("unstaged\n", "utf-8")
    return repo


def changed_in(root: Path, commit: str) -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", commit).split())


def trailers(root: Path, commit: str) -> list[str]:
    return git(root, "log", "-1", "--format=%(trailers:only,unfold)", commit).split("\n")


def test_apply_commit_holds_exactly_the_record_journal_and_proposal(root: Path) -> None:
    before_head = git(root, "rev-parse", "HEAD").strip()
    proposed = propose(root, "#664", "Per-call tokenizer reloads starved generation")
    hook = root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f"#!/bin/sh\ntouch {root.parent / 'hook-ran'}\n", "utf-8")
    hook.chmod(0o755)

    done = run_gotchas(root, "apply", proposed["proposal_id"], "--commit", "--json")
    result = json.loads(done.stdout)
    assert result["status"] == "applied"
    head = git(root, "rev-parse", "HEAD").strip()
    assert result["commit"] == head and git(root, "rev-parse", "HEAD^").strip() == before_head
    assert changed_in(root, head) == {
        str(RECORD_PATH),
        JOURNAL,
        f".claude/gotchas/proposals/{proposed['proposal_id']}.json",
    }
    subject = git(root, "log", "-1", "--format=%s").strip()
    assert "#664" in subject
    assert f"Gotchas-Proposal: {proposed['proposal_id']}" in trailers(root, head)
    assert f"Supersedes: {TARGET} (for #664)" in trailers(root, head)
    # the committed record is the one on disk, and the person's staging is untouched
    assert git(root, "show", f"HEAD:{RECORD_PATH}").encode() == (root / RECORD_PATH).read_bytes()
    assert git(root, "diff", "--cached", "--name-only").split() == ["notes.txt"]
    status = git(root, "status", "--porcelain").splitlines()
    assert not [line for line in status if str(RECORD_PATH) in line or "journal" in line]
    assert not (root.parent / "hook-ran").exists(), "no hook of the repository ran"


def test_released_commit_makes_one_commit_naming_every_proposal(root: Path) -> None:
    first = propose(root, "#664", "The hang came from tokenizer reloads")
    other = record.parse((root / RECORD_PATH).read_bytes()).entries[-1].id
    second = propose(root, "#700", "Shallow clones were not why #700 failed", target=other)
    done = gotchas(root, "apply", "--released", "--commit", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["applied"]) == 2
    found = trailers(root, result["commit"])
    assert {f"Gotchas-Proposal: {p['proposal_id']}" for p in (first, second)} <= set(found)
    assert "#664" in git(root, "log", "-1", "--format=%s") and "#700" in git(root, "log", "-1", "--format=%s")
    head = git(root, "rev-parse", "HEAD").strip()
    again = gotchas(root, "apply", "--released", "--commit", "--json")
    assert again.returncode == 0 and "commit" not in json.loads(again.stdout)
    assert git(root, "rev-parse", "HEAD").strip() == head


def test_commit_outside_a_git_work_tree_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    record = make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    proposed = propose(root, "#664", "Tokenizer reloads, not a deadlock")
    import shutil

    shutil.rmtree(root / ".git")
    before = record.read_bytes()
    done = gotchas(root, "apply", proposed["proposal_id"], "--commit")
    assert done.returncode == 1 and "commit-failed" in done.stderr and done.stderr.count("\n") == 1
    assert record.read_bytes() == before
    assert not (root / JOURNAL).exists()


@pytest.mark.parametrize("where", ["work tree", "index"])
@pytest.mark.parametrize("released", [False, True])
def test_commit_is_refused_when_the_record_has_changes_of_its_own(
    root: Path, where: str, released: bool
) -> None:
    proposed = propose(root, "#664", "Tokenizer reloads, not a deadlock")
    path = root / RECORD_PATH
    path.write_bytes(path.read_bytes() + b"\nA line someone is still writing.\n")
    if where == "index":
        git(root, "add", str(RECORD_PATH))
    before, head = path.read_bytes(), git(root, "rev-parse", "HEAD").strip()
    staged = git(root, "diff", "--cached", "--name-only")
    args = ["--released"] if released else [proposed["proposal_id"]]
    done = gotchas(root, "apply", *args, "--commit")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "record-uncommitted" in done.stderr and str(RECORD_PATH) in done.stderr
    assert ("staged in the index" if where == "index" else "in the work tree") in done.stderr
    assert path.read_bytes() == before and not (root / JOURNAL).exists()
    assert git(root, "rev-parse", "HEAD").strip() == head
    assert git(root, "diff", "--cached", "--name-only") == staged
    # without --commit the same apply goes ahead: only the commit would carry the edits
    assert gotchas(root, "apply", *args).returncode == 0


def test_commit_is_refused_for_a_record_that_was_never_committed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    git(root, "rm", "--cached", "--quiet", str(RECORD_PATH))
    git(root, "-c", "user.name=K", "-c", "user.email=k@example.invalid", "commit", "-qm", "untrack")
    proposed = propose(root, "#664", "Tokenizer reloads, not a deadlock")
    done = gotchas(root, "apply", proposed["proposal_id"], "--commit")
    assert done.returncode == 1 and "record-uncommitted" in done.stderr and "untracked" in done.stderr
