"""Holds against real git repositories built in temporary directories.

Covers the issue's acceptance story (#664 running → held; a closing commit on main →
released with that commit; #665 released with no ledger line; a side branch lands
nothing; abandoned → unsatisfiable for -lands, released for -terminal) and every way a
commit may close a task.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from gotchas.config import load_config
from gotchas.holds.check import check_hold
from gotchas.holds.settings import GitConfig
from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.git import Git, GitSource, closing_reason, remote_slug
from gotchas.holds.sources.ledger import set_task_state
from support.gitrepo import Repo

# --- the acceptance story ------------------------------------------------------------------


def test_running_in_the_ledger_holds_until_a_commit_on_main_closes_the_task(history: Repo) -> None:
    set_task_state(history.path, "664", "running", "session-664")
    held = check_hold("predicate-664-lands", history.path)
    assert held.state == "held"
    (task,) = held.tasks
    assert (task.task, task.state, task.source) == ("#664", "running", "ledger")
    assert task.evidence[0]["source"] == "ledger"
    assert task.evidence[0]["line"] == 1

    sha = history.commit(
        "Cache the tokenizer in _render()", "Per-call reloads starved generation.\n\nFixes #664"
    )
    released = check_hold("predicate-664-lands", history.path)

    assert released.state == "released"
    (task,) = released.tasks
    assert (task.state, task.source) == ("landed", "git")
    assert task.evidence[0]["commit"] == sha
    assert task.evidence[0]["subject"] == "Cache the tokenizer in _render()"
    assert task.evidence[0]["branch"] == "main"
    precedence = next(e for e in task.evidence if e["source"] == "precedence")
    assert precedence["chosen"] == "git"
    assert precedence["overruled"] == [{"source": "ledger", "state": "running"}]
    assert task.observed_at is not None


def test_a_closing_commit_releases_a_task_the_ledger_never_saw(history: Repo) -> None:
    sha = history.commit("Fix #665: reap the orphaned EngineCore by exact pid")
    answer = check_hold("predicate-665-lands", history.path)
    assert answer.state == "released"
    assert answer.tasks[0].evidence[0]["commit"] == sha


def test_a_closing_commit_on_a_side_branch_releases_nothing(history: Repo) -> None:
    history.git("switch", "-q", "-c", "experiment")
    history.commit("Chunk llm.generate()", "Fixes #664")
    history.git("switch", "-q", "main")

    assert check_hold("predicate-664-lands", history.path).state == "unknown"
    set_task_state(history.path, "664", "running", "session-664")
    assert check_hold("predicate-664-lands", history.path).state == "held"


def test_the_side_branch_lands_once_it_is_merged_into_main(history: Repo) -> None:
    history.git("switch", "-q", "-c", "fix-664")
    sha = history.commit("Cache the tokenizer", "Closes #664")
    history.git("switch", "-q", "main")
    history.git("merge", "-q", "--no-ff", "-m", "Merge branch fix-664", "fix-664")

    answer = check_hold("predicate-664-lands", history.path)
    assert answer.state == "released"
    assert answer.tasks[0].evidence[0]["commit"] == sha


def test_an_abandoned_task_makes_lands_unsatisfiable_and_terminal_released(history: Repo) -> None:
    set_task_state(history.path, "664", "abandoned", "lead")
    assert check_hold("predicate-664-lands", history.path).state == "unsatisfiable"
    assert check_hold("predicate-664-terminal", history.path).state == "released"


def test_every_predicate_joined_with_plus_must_hold(history: Repo) -> None:
    history.commit("Fixes #665")
    set_task_state(history.path, "664", "running", "s")
    answer = check_hold("predicate-664-lands+predicate-665-lands", history.path)
    assert answer.state == "held"
    assert [t.task for t in answer.tasks] == ["#664", "#665"]
    assert [t.state for t in answer.tasks] == ["running", "landed"]
    history.commit("Resolves #664")
    assert check_hold("predicate-664-lands+predicate-665-lands", history.path).state == "released"


def test_a_landing_in_git_outranks_a_stale_abandoned_line(history: Repo) -> None:
    set_task_state(history.path, "664", "abandoned", "lead")
    history.commit("Tokenizer cache (#664)")
    answer = check_hold("predicate-664-lands", history.path)
    assert answer.state == "released"
    assert answer.tasks[0].source == "git"


# --- how a commit closes a task ------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "Close #664",
        "closes #664",
        "Closed #664",
        "fix #664",
        "FIXES #664",
        "Fixed #664 at last",
        "resolve #664",
        "Resolves #664",
        "resolved #664.",
        "Fixes: #664",
        "Tokenizer cache\n\nThis fixes #664 and more.",
        "Tokenizer cache\n\nfixes octo/proj#664",
        "Cache the tokenizer (#664)",
        "Cache the tokenizer\n\nTask: #664\nStatus: landed",
        "Cache the tokenizer\n\nTask: #664 (landed)",
        "Cache the tokenizer\n\nSigned-off-by: A <a@b>\nTask: #664\nLanded: 2026-11-30",
    ],
)
def test_closing_forms_are_recognised(message: str) -> None:
    assert closing_reason(message, 664, "octo/proj") is not None


@pytest.mark.parametrize(
    "message",
    [
        "Refs #664",
        "See #664 for context",
        "Fixes #6640",
        "Fixes #66",
        "prefixes #664",
        "Fixes other/repo#664",
        "Cache the tokenizer (#664) for now\n\nmore",
        "Cache the tokenizer\n\nTask: #664",
        "Task: #664 landed",
        'Revert "Fixes #664"\n\nThis reverts commit 0123456.',
        "Fixes #665",
    ],
)
def test_mentions_that_do_not_close_the_task_are_ignored(message: str) -> None:
    assert closing_reason(message, 664, "octo/proj") is None


def test_the_reason_names_the_form_that_matched() -> None:
    assert closing_reason("Fixes #1", 1) == "closing keyword"
    assert closing_reason("Thing (#1)", 1) == "squash-merge subject"
    assert closing_reason("Thing\n\nTask: #1\nStatus: landed", 1) == "Task trailer"


def test_a_reverted_landing_does_not_count_until_it_is_reapplied(history: Repo) -> None:
    sha = history.commit("Chunk the batch (#664)")
    history.git("revert", "--no-edit", sha)
    answer = check_hold("predicate-664-lands", history.path)
    assert answer.state == "unknown"
    reverted = [e for e in answer.tasks[0].evidence if e.get("commit") == sha]
    assert reverted and "reverted" in str(reverted[0]["note"])

    revert_sha = history.git("rev-parse", "HEAD")
    history.git("revert", "--no-edit", revert_sha)
    again = check_hold("predicate-664-lands", history.path)
    assert again.state == "released"
    assert again.tasks[0].evidence[0]["commit"] == sha


def test_evidence_keeps_the_commit_date_in_utc(history: Repo) -> None:
    history.env["GIT_COMMITTER_DATE"] = "2026-11-29T23:30:00+02:00"
    history.commit("Fixes #664")
    evidence = GitSource(history.path).observe("#664").evidence[0]
    assert evidence["date"] == "2026-11-29T21:30:00Z"


# --- which branch, which repository --------------------------------------------------------


def test_origin_head_is_the_default_branch_so_unpushed_work_has_not_landed(
    history: Repo, tmp_path: Path
) -> None:
    upstream = tmp_path / "upstream.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(upstream)], check=True)
    history.git("remote", "add", "origin", str(upstream))
    history.git("push", "-q", "origin", "main")
    history.git("remote", "set-head", "origin", "main")
    history.commit("Fixes #664")  # committed locally, never pushed

    assert Git(history.path).default_branch() == "origin/main"
    assert check_hold("predicate-664-lands", history.path).state == "unknown"
    history.git("push", "-q", "origin", "main")
    history.git("fetch", "-q", "origin")
    answer = check_hold("predicate-664-lands", history.path)
    assert answer.state == "released"
    assert answer.tasks[0].evidence[0]["branch"] == "origin/main"


def test_without_origin_main_or_master_or_init_default_branch_is_used(tmp_path: Path) -> None:
    master = Repo(tmp_path / "m", branch="master")
    master.git("switch", "-q", "-c", "topic")
    master.commit("Fixes #1")
    assert Git(master.path).default_branch() == "master"

    trunk = Repo(tmp_path / "t", branch="trunk")
    assert Git(trunk.path).default_branch() is None  # never HEAD: it may be unmerged work
    trunk.git("config", "init.defaultBranch", "trunk")
    assert Git(trunk.path).default_branch() == "trunk"


def test_a_configured_branch_wins_over_detection(history: Repo) -> None:
    history.git("switch", "-q", "-c", "release")
    history.commit("Fixes #664")
    history.git("switch", "-q", "main")
    config_file = history.path / ".claude" / "gotchas.toml"
    config_file.parent.mkdir()
    config_file.write_text('[holds.git]\nbranch = "release"\n', encoding="utf-8")

    answer = check_hold("predicate-664-lands", history.path)
    assert answer.state == "released"
    assert answer.tasks[0].evidence[0]["branch"] == "release"


def test_owner_repo_tasks_count_only_in_their_own_repository(history: Repo) -> None:
    history.git("remote", "add", "origin", "git@github.com:octo/proj.git")
    history.commit("Fixes #664")
    history.git("update-ref", "refs/remotes/origin/main", "HEAD")  # as if pushed

    assert check_hold("predicate-octo/proj#664-lands", history.path).state == "released"
    other = check_hold("predicate-other/thing#664-lands", history.path)
    assert other.state == "unknown"
    assert "not this repository's task" in str(other.tasks[0].evidence[0]["note"])

    config = load_config(history.path)
    source = GitSource(history.path, github_repo="other/thing")
    assert source.observe("other/thing#664").state == "landed"
    assert config.holds.github.repo is None


def test_tracker_keys_are_unknown_to_git(history: Repo) -> None:
    history.commit("Fixes ABC-123")
    observed = GitSource(history.path).observe("ABC-123")
    assert observed.state is None
    assert "#N" in str(observed.evidence[0]["note"])


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("https://github.com/octo/proj.git", "octo/proj"),
        ("https://github.com/octo/proj", "octo/proj"),
        ("git@github.com:octo/proj.git", "octo/proj"),
        ("ssh://git@ghe.example.com:2222/team/svc.git", "team/svc"),
        ("not a url", None),
    ],
)
def test_remote_urls_name_their_repository(url: str, slug: str | None) -> None:
    assert remote_slug(url) == slug


# --- failures never release ----------------------------------------------------------------


def test_an_empty_repository_knows_no_landing(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    subprocess.run(["git", "init", "-q", str(empty)], check=True)
    observed = GitSource(empty).observe("#664")
    assert observed.state is None
    assert observed.error is None


def test_outside_a_repository_git_fails_as_evidence_and_the_hold_is_not_released(
    tmp_path: Path,
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    set_task_state(plain, "664", "landed", "ana")
    answer = check_hold("predicate-664-lands", plain)
    errors = [e for e in answer.tasks[0].evidence if e.get("source") == "git" and "error" in e]
    assert errors and "not a git repository" in str(errors[0]["error"]).lower()
    # git could only have added a landing, which would not change a released -lands hold.
    assert answer.state == "released"

    set_task_state(plain, "664", "running", "ana")
    answer = check_hold("predicate-664-lands", plain)
    assert answer.state == "unknown"
    assert any(e.get("source") == "hold" for e in answer.tasks[0].evidence)


def test_a_missing_git_executable_is_an_error_in_the_evidence(
    history: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    answer = check_hold("predicate-664-lands", history.path)
    assert answer.state == "unknown"
    assert answer.tasks[0].evidence == [{"source": "git", "error": "git is not installed or not on PATH"}]


def test_a_configured_branch_that_does_not_exist_is_an_error_not_a_release(history: Repo) -> None:
    history.commit("Fixes #664")
    set_task_state(history.path, "664", "running", "s")
    config = load_config(history.path)
    config = replace(config, hold_settings=replace(config.holds, git=GitConfig(branch="no-such-branch")))

    answer = check_hold("predicate-664-lands", history.path, config=config)

    assert answer.state == "unknown"
    errors = [str(e["error"]) for e in answer.tasks[0].evidence if "error" in e]
    assert errors and "no-such-branch" in errors[0]
    with pytest.raises(SourceFailed):
        GitSource(history.path, branch="no-such-branch").observe("#664")
