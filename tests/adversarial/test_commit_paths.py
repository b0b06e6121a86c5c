"""`apply --commit` stages only the record and genuine state files, by their own paths and modes.

A repository may commit a symlink in place of a state file (``journal.jsonl -> ../../.env``):
the commit must refuse before anything is written, never carry the file the link points to.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from support.clients import RECORD_PATH, git, make_scenario_repo, run_gotchas
from support.project import TARGET

JOURNAL = ".claude/gotchas/journal.jsonl"


def propose(root: Path) -> dict[str, Any]:
    args = ["propose", "--json", "--no-hold", "--target-id", TARGET, "--task", "#664"]
    args += ["--title", "Per-call tokenizer reloads", "--body", "Cache it.", "--diagnostic", "profile"]
    result: dict[str, Any] = json.loads(run_gotchas(root, *args).stdout)
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    git(repo, "config", "user.name", "Lesson Keeper")
    git(repo, "config", "user.email", "keeper@example.invalid")
    return repo


def test_a_symlinked_journal_is_refused_before_anything_is_written(root: Path) -> None:
    (root / ".gitignore").write_text(".env\n", "utf-8")
    (root / ".env").write_text("API_TOKEN=secret\n", "utf-8")
    state = root / ".claude" / "gotchas"
    state.mkdir(parents=True, exist_ok=True)
    os.symlink("../../.env", state / "journal.jsonl")
    git(root, "add", ".gitignore", JOURNAL)
    git(root, "commit", "-q", "-m", "state")
    proposed = propose(root)
    record_before = (root / RECORD_PATH).read_bytes()
    head = git(root, "rev-parse", "HEAD").strip()

    done = run_gotchas(root, "apply", proposed["proposal_id"], "--commit", "--json", check=False)

    assert done.returncode != 0
    assert "unsafe-path" in done.stdout + done.stderr
    assert "journal.jsonl is a symbolic link" in done.stdout + done.stderr
    assert (root / RECORD_PATH).read_bytes() == record_before, "the record was not rewritten"
    assert git(root, "rev-parse", "HEAD").strip() == head, "nothing was committed"
    assert ".env" not in git(root, "ls-files").split()
    assert (root / ".env").read_text("utf-8") == "API_TOKEN=secret\n"


def test_a_symlinked_state_folder_is_refused_for_released_commits(root: Path, tmp_path: Path) -> None:
    proposed = propose(root)
    assert proposed["status"] == "proposed"
    state = root / ".claude" / "gotchas"
    moved = tmp_path / "elsewhere"
    state.rename(moved)
    os.symlink(moved, state)
    record_before = (root / RECORD_PATH).read_bytes()

    done = run_gotchas(root, "apply", "--released", "--commit", check=False)

    assert done.returncode != 0
    assert (root / RECORD_PATH).read_bytes() == record_before


def test_commit_keeps_an_executable_records_mode(root: Path) -> None:
    (root / RECORD_PATH).chmod(0o755)
    git(root, "add", str(RECORD_PATH))
    git(root, "commit", "-q", "-m", "executable record")
    proposed = propose(root)

    done = run_gotchas(root, "apply", proposed["proposal_id"], "--commit", "--json")

    assert json.loads(done.stdout)["status"] == "applied"
    mode = git(root, "ls-tree", "HEAD", "--", str(RECORD_PATH)).split()[0]
    assert mode == "100755"
    assert git(root, "status", "--porcelain", "--", str(RECORD_PATH)).strip() == ""
