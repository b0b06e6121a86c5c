"""`gotchas check-hold` and `gotchas task` as a script uses them: exit codes, JSON, one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support.clients import git
from support.clients import gotchas as run


def gotchas(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(root, *args, GOTCHAS_ACTOR="release-bot")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "home").mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "Start")
    return root


def test_exit_codes_follow_the_hold(repo: Path) -> None:
    assert gotchas(repo, "check-hold", "predicate-664-lands").returncode == 5  # nobody knows it
    assert gotchas(repo, "task", "set", "664", "running").returncode == 0
    held = gotchas(repo, "check-hold", "predicate-664-lands", "--json")
    assert held.returncode == 3
    answer = json.loads(held.stdout)
    assert answer["state"] == "held"
    assert answer["tasks"][0]["source"] == "ledger"
    assert answer["tasks"][0]["evidence"][0]["by"] == "release-bot"

    git(repo, "commit", "-q", "--allow-empty", "-m", "Cache the tokenizer (closes #664)")
    released = gotchas(repo, "check-hold", "predicate-664-lands", "--json")
    assert released.returncode == 0
    evidence = json.loads(released.stdout)["tasks"][0]["evidence"]
    assert any(e.get("subject") == "Cache the tokenizer (closes #664)" for e in evidence)

    assert gotchas(repo, "task", "set", "700", "abandoned").returncode == 0
    assert gotchas(repo, "check-hold", "predicate-700-lands").returncode == 4
    assert gotchas(repo, "check-hold", "predicate-700-terminal").returncode == 0
    both = gotchas(repo, "check-hold", "predicate-664-lands+predicate-700-lands")
    assert both.returncode == 4


def test_a_malformed_predicate_is_one_line_and_exit_2(repo: Path) -> None:
    done = gotchas(repo, "check-hold", "predicate-abc-lands;rm -rf /")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "predicate-<task>-lands" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_task_show_lists_the_ledger_history(repo: Path) -> None:
    gotchas(repo, "task", "set", "ABC-12", "running")
    gotchas(repo, "task", "set", "abc-12", "landed")
    shown = json.loads(gotchas(repo, "task", "show", "ABC-12", "--json").stdout)
    assert shown["task"] == "ABC-12"
    assert [h["state"] for h in shown["history"]] == ["running", "landed"]
    bad = gotchas(repo, "task", "set", "664", "merged")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
