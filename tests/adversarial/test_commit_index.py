"""`apply --commit` never leaves an index that undoes its commit, and a stopped commit is finished.

Before: with ``.git/index.lock`` held by another git process, apply said "committed" while the
index still staged the old record, so the person's next ``git commit`` silently reverted the
correction; a stop between the write and the commit made every later ``--commit`` refuse
the record (``record-uncommitted``) for good; and a ``filter.<x>.clean`` of the local git
config ran during the final index update.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.clients import RECORD_PATH, git, gotchas, make_scenario_repo, run_gotchas
from support.project import TARGET


def propose(root: Path) -> str:
    args = ["propose", "--json", "--no-hold", "--target-id", TARGET, "--task", "#664"]
    args += ["--title", "Per-call tokenizer reloads", "--body", "Cache it.", "--diagnostic", "profile"]
    result: dict[str, Any] = json.loads(run_gotchas(root, *args).stdout)
    return str(result["proposal_id"])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    git(repo, "config", "user.name", "Lesson Keeper")
    git(repo, "config", "user.email", "keeper@example.invalid")
    return repo


def index_matches_head(root: Path) -> bool:
    return git(root, "diff", "--cached", "--name-only", "HEAD").strip() == ""


def test_a_held_index_lock_is_a_reported_failure_and_the_next_run_finishes(root: Path) -> None:
    proposal_id = propose(root)
    head = git(root, "rev-parse", "HEAD").strip()
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")  # another git process is writing the index

    stopped = gotchas(root, "apply", proposal_id, "--commit", "--json")

    assert stopped.returncode != 0 and "commit-failed" in stopped.stderr + stopped.stdout
    assert "index.lock" in stopped.stderr + stopped.stdout
    assert git(root, "rev-parse", "HEAD").strip() == head, "nothing committed behind a stale index"
    assert index_matches_head(root), "the index stages no revert"

    lock.unlink()  # the other process is done
    finished = json.loads(run_gotchas(root, "apply", proposal_id, "--commit", "--json").stdout)

    assert finished["status"] == "already-applied"
    assert (
        git(root, "rev-parse", "HEAD^").strip() == head
        and finished["commit"] == git(root, "rev-parse", "HEAD").strip()
    )
    assert index_matches_head(root)
    assert git(root, "status", "--porcelain", "--", str(RECORD_PATH)) == ""
    assert "Per-call tokenizer reloads" in git(root, "show", f"HEAD:{RECORD_PATH}")


@pytest.mark.parametrize("staged", [False, True])
def test_a_write_that_was_never_committed_is_finished_by_the_next_commit(root: Path, staged: bool) -> None:
    proposal_id = propose(root)
    head = git(root, "rev-parse", "HEAD").strip()
    run_gotchas(root, "apply", proposal_id)  # as if killed after the write, before the commit
    if staged:  # killed after the index learned the new version, before the branch moved
        git(root, "update-index", "--add", "--", str(RECORD_PATH))

    finished = json.loads(run_gotchas(root, "apply", proposal_id, "--commit", "--json").stdout)

    assert finished["status"] == "already-applied" and "commit" in finished
    assert git(root, "rev-parse", "HEAD^").strip() == head
    assert index_matches_head(root)
    assert git(root, "status", "--porcelain", "--", str(RECORD_PATH)) == ""


def test_an_edit_of_someone_else_is_still_refused(root: Path) -> None:
    proposal_id = propose(root)
    run_gotchas(root, "apply", proposal_id)
    record = root / RECORD_PATH
    record.write_bytes(record.read_bytes() + b"\nAn unreviewed line.\n")

    done = gotchas(root, "apply", proposal_id, "--commit", "--json")

    assert done.returncode != 0 and "record-uncommitted" in done.stderr + done.stdout


def test_no_filter_of_the_local_config_runs(root: Path) -> None:
    marker = root.parent / "filter-ran"
    (root / ".gitattributes").write_text("* filter=evil\n", "utf-8")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-qm", "attributes")
    git(root, "config", "filter.evil.clean", f"touch {marker}; cat")
    git(root, "config", "filter.evil.smudge", f"touch {marker}; cat")
    git(root, "config", "filter.evil.process", f"touch {marker}")
    proposal_id = propose(root)
    marker.unlink(missing_ok=True)

    done = json.loads(run_gotchas(root, "apply", proposal_id, "--commit", "--json").stdout)

    assert done["status"] == "applied" and done["commit"]
    assert not marker.exists()
