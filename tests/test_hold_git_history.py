"""What a history means for a hold: negated landings, reverts, topological order, default branch.

Every case is a real repository in a temporary directory: crafted messages, real ``git
revert``, ``--no-ff`` merges as GitHub's buttons make them, committer dates in the
future, and bare repositories standing in for ``origin``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gotchas.holds.check import check_hold
from gotchas.holds.sources.git import Git, GitSource, closing_reason
from support.gitrepo import Repo


def notes(answer_repo: Repo, task: str = "664") -> str:
    answer = check_hold(f"predicate-{task}-lands", answer_repo.path)
    return " ".join(str(entry.get("note", "")) for entry in answer.tasks[0].evidence)


# --- negated landings ----------------------------------------------------------------------

NEGATED = [
    ("Tokenizer cache groundwork", "this does not fix #664 yet"),
    ("Won't fix #664", ""),
    ("Document the hang", "Don't close #664 until the soak test passes."),
    ("Tune the batch size", "This doesn't resolve #664; it only narrows it."),
    ("Tune the batch size", "It never fixed #664 and it cannot close #664 either."),
    ("Cache the tokenizer", "Task: #664 (not landed)"),
    ("Cache the tokenizer", "Task: #664\nLanded: no"),
    ("Cache the tokenizer", "Task: #664\nStatus: running"),
    ("Cache the tokenizer", "Fixes #664\n\nTask: #664 (not yet landed)"),
    ("WIP: tokenizer cache (#664)", ""),
    ("[WIP] Fixes #664", ""),
    ("fixup! Fixes #664", ""),
    ("Part of #664", ""),
    ("Refs #664", ""),
    ("Fixes #6640", ""),
    ('Revert "Fixes #664"', ""),
    ("Undo the cache (#700)", '* Revert "Fixes #664"\n\nThe cache leaked.'),
]


@pytest.mark.parametrize(("subject", "body"), NEGATED)
def test_a_negated_or_unfinished_landing_releases_nothing(history: Repo, subject: str, body: str) -> None:
    sha = history.commit(subject, body)
    observed = GitSource(history.path).observe("#664")
    assert observed.state is None
    assert all(entry.get("commit") != sha for entry in observed.evidence)
    assert (
        _state(
            history,
        )
        == "unknown"
    )


POSITIVE = [
    ("Cache the tokenizer", "Closes #664"),
    ("Cache the tokenizer", "CLOSED: #664"),
    ("Cache the tokenizer", "Fixes octo/proj#664"),
    ("Cache the tokenizer", "This does not touch the engine; it fixes #664."),
    ("Won't fix #665 but fixes #664", ""),
    ("Cache the tokenizer (#664)", ""),
    ("Cache the tokenizer", "Task: #664 (landed)"),
    ("Cache the tokenizer", "Task: #664\nLanded: yes"),
    ("Cache the tokenizer", "Task: #664\nLanded: 2026-11-30"),
]


@pytest.mark.parametrize(("subject", "body"), POSITIVE)
def test_the_positive_forms_still_land(history: Repo, subject: str, body: str) -> None:
    history.git("remote", "add", "origin", "https://github.com/octo/proj.git")
    sha = history.commit(subject, body)
    history.git("update-ref", "refs/remotes/origin/main", "HEAD")
    observed = GitSource(history.path).observe("#664")
    assert observed.state == "landed"
    assert observed.evidence[0]["commit"] == sha


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("Task: #664 (landed)", None),  # a trailer only counts in a body's trailer block
        ("x\n\nTask: #664 (landed)", "Task trailer"),
        ("x\n\nTask: #664 (landed in 2.1)", "Task trailer"),
        ("x\n\nTask: #664 (pending)", None),
        ("x\n\nTask: #664\nLanded: false", None),
        ("x\n\nTask: #664\nLanded: soon", None),
        ("x\n\nTask: #664\nLanded: 9f1c2ab", "Task trailer"),
        ("x\n\nTask: #665 (landed)\nTask: #664", None),
        ("x\n\nFixes #664\n\nTask: #664\nLanded: no", None),
        ("x\n\nnot a fix: this fixes #664", "closing keyword"),
        ("x\n\nThis is not a refactor. It fixes #664", "closing keyword"),
        ("x\n\nPartially fixes #664", None),
        ("x\n\nthis won’t fix #664", None),
    ],
)
def test_trailer_values_and_clauses_decide(message: str, reason: str | None) -> None:
    assert closing_reason(message, 664) == reason


# --- reverts and ordering ------------------------------------------------------------------


def test_a_default_revert_of_a_landing_that_closes_in_its_body_undoes_it(history: Repo) -> None:
    sha = history.commit(
        "Cache the tokenizer in _render()", "Per-call reloads starved generation.\n\nCloses #664"
    )
    assert (
        _state(
            history,
        )
        == "released"
    )
    history.git("revert", "--no-edit", sha)
    revert = history.git("rev-parse", "HEAD")

    observed = GitSource(history.path).observe("#664")
    assert observed.state is None
    (undone,) = [entry for entry in observed.evidence if entry.get("commit") == sha]
    assert undone["reverted_by"] == revert
    assert (
        _state(
            history,
        )
        == "unknown"
    )

    history.git("revert", "--no-edit", revert)  # the revert of the revert lands it again
    observed = GitSource(history.path).observe("#664")
    assert observed.state == "landed"
    assert observed.evidence[0]["commit"] == sha


@pytest.mark.parametrize("length", [40, 12, 7])
def test_a_hand_written_revert_naming_the_landing_by_sha_undoes_it(history: Repo, length: int) -> None:
    sha = history.commit("Cache the tokenizer", "Fixes #664")
    history.commit("Unrelated work")
    history.git("revert", "--no-commit", sha)
    history.git(
        "commit", "-q", "-m", "Back out the tokenizer cache", "-m", f"This reverts commit {sha[:length]}."
    )
    assert (
        _state(
            history,
        )
        == "unknown"
    )


def test_reverting_the_merge_of_a_pull_request_undoes_the_landings_it_brought_in(history: Repo) -> None:
    history.git("switch", "-q", "-c", "fix-664")
    landing = history.commit("Cache the tokenizer", "Closes #664")
    history.commit("Tidy the cache")
    history.git("switch", "-q", "main")
    history.commit("Meanwhile on main")
    merge = history.merge("fix-664", "Merge pull request #12 from octo/fix-664\n\nTokenizer cache")
    assert (
        _state(
            history,
        )
        == "released"
    )

    # GitHub's Revert button: a branch with `git revert -m 1 <merge>`, merged as a pull request.
    history.git("switch", "-q", "-c", "revert-12-fix-664")
    history.git("revert", "--no-edit", "-m", "1", merge)
    revert = history.git("rev-parse", "HEAD")
    assert "reversing" in history.git("log", "-1", "--format=%B")
    history.git("switch", "-q", "main")
    history.merge(
        "revert-12-fix-664", 'Merge pull request #13 from octo/revert-12-fix-664\n\nRevert "Tokenizer cache"'
    )

    observed = GitSource(history.path).observe("#664")
    assert observed.state is None
    (undone,) = [entry for entry in observed.evidence if entry.get("commit") == landing]
    assert undone["reverted_by"] == revert
    assert (
        _state(
            history,
        )
        == "unknown"
    )

    history.git("revert", "--no-edit", revert)  # reapplying the pull request lands it again
    assert (
        _state(
            history,
        )
        == "released"
    )


def test_a_merge_revert_leaves_landings_the_merge_did_not_bring_in(history: Repo) -> None:
    kept = history.commit("Cache the tokenizer", "Fixes #664")
    history.git("switch", "-q", "-c", "other")
    history.commit("Unrelated feature")
    history.git("switch", "-q", "main")
    history.commit("Meanwhile on main")
    merge = history.merge("other", "Merge pull request #20 from octo/other")
    history.git("revert", "--no-edit", "-m", "1", merge)
    observed = GitSource(history.path).observe("#664")
    assert observed.state == "landed"
    assert observed.evidence[0]["commit"] == kept


def test_a_fix_dated_in_the_future_and_reverted_through_a_merge_is_not_landed(history: Repo) -> None:
    fix = history.commit("Cache the tokenizer", "Fixes #664", date="2099-01-01T00:00:00+00:00")
    history.git("switch", "-q", "-c", "back-out")
    history.git("revert", "--no-edit", fix)
    history.git("switch", "-q", "main")
    history.commit("Meanwhile on main")
    history.merge("back-out", "Merge branch back-out")
    # Date order shows the future-dated fix before the revert that undid it.
    dated = history.git("log", "--format=%H", "main").splitlines()
    assert dated.index(fix) < dated.index(history.git("rev-parse", "back-out"))

    assert (
        _state(
            history,
        )
        == "unknown"
    )


def test_a_future_dated_merge_revert_is_read_in_topological_order(history: Repo) -> None:
    history.git("switch", "-q", "-c", "fix-664")
    history.commit("Cache the tokenizer", "Closes #664", date="2099-06-01T00:00:00+00:00")
    history.git("switch", "-q", "main")
    merge = history.merge("fix-664", "Merge pull request #12 from octo/fix-664")
    history.git("revert", "--no-edit", "-m", "1", merge)
    assert (
        _state(
            history,
        )
        == "unknown"
    )


# --- which branch is the default -----------------------------------------------------------


def test_a_trunk_repository_with_head_on_an_unmerged_branch_is_unknown(tmp_path: Path, history: Repo) -> None:
    trunk = Repo(tmp_path / "trunk", branch="trunk")
    trunk.git("switch", "-q", "-c", "feature")
    trunk.commit("Fixes #664")
    assert _state(trunk) == "unknown"
    note = notes(trunk)
    assert "cannot tell the default branch" in note
    assert "[holds.git] branch" in note

    (trunk.path / ".claude").mkdir()
    (trunk.path / ".claude" / "gotchas.toml").write_text('[holds.git]\nbranch = "trunk"\n', encoding="utf-8")
    assert _state(trunk) == "unknown"
    trunk.git("switch", "-q", "trunk")
    trunk.git("merge", "-q", "feature")
    assert _state(trunk) == "released"


def test_a_side_branch_named_main_next_to_master_is_not_taken_for_the_default(
    tmp_path: Path, history: Repo
) -> None:
    legacy = Repo(tmp_path / "legacy", branch="master")
    legacy.git("switch", "-q", "-c", "main")
    legacy.commit("Fixes #664")
    legacy.git("switch", "-q", "master")
    assert Git(legacy.path).default_branch() is None
    assert _state(legacy) == "unknown"
    assert "both main and master exist" in notes(legacy)


def test_init_default_branch_picks_a_local_only_default(tmp_path: Path, history: Repo) -> None:
    trunk = Repo(tmp_path / "trunk", branch="trunk")
    trunk.git("config", "init.defaultBranch", "trunk")
    trunk.commit("Fixes #664")
    assert _state(trunk) == "released"


def test_an_origin_without_head_does_not_count_an_unpushed_fix(tmp_path: Path, history: Repo) -> None:
    upstream = tmp_path / "upstream.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(upstream)], check=True, env=history.env)
    history.git("remote", "add", "origin", str(upstream))
    history.git("push", "-q", "-u", "origin", "main")
    assert history.git("for-each-ref", "refs/remotes/origin/HEAD") == ""
    history.commit("Cache the tokenizer", "Fixes #664")  # committed, never pushed

    assert Git(history.path).default_branch() == "origin/main"
    assert (
        _state(
            history,
        )
        == "unknown"
    )
    history.git("push", "-q", "origin", "main")
    assert (
        _state(
            history,
        )
        == "released"
    )


def test_an_origin_that_was_never_fetched_is_unknown_not_the_local_branch(history: Repo) -> None:
    history.git("remote", "add", "origin", "https://github.com/octo/proj.git")
    history.commit("Fixes #664")
    assert (
        _state(
            history,
        )
        == "unknown"
    )
    assert "git remote set-head origin --auto" in notes(history)


def test_a_fresh_clone_uses_origin_head_with_no_configuration(tmp_path: Path, history: Repo) -> None:
    upstream = tmp_path / "upstream.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "trunk", str(upstream)], check=True, env=history.env)
    history.git("push", "-q", str(upstream), "main:trunk")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True, env=history.env)
    assert Git(clone).default_branch() == "origin/trunk"
    subprocess.run(["git", "switch", "-q", "-c", "feature"], cwd=clone, check=True, env=history.env)
    (clone / "f.txt").write_text("x\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=clone, check=True, env=history.env)
    subprocess.run(["git", "commit", "-q", "-m", "Fixes #664"], cwd=clone, check=True, env=history.env)
    assert check_hold("predicate-664-lands", clone).state == "unknown"
    subprocess.run(["git", "push", "-q", "origin", "feature:trunk"], cwd=clone, check=True, env=history.env)
    subprocess.run(["git", "fetch", "-q", "origin"], cwd=clone, check=True, env=history.env)
    assert check_hold("predicate-664-lands", clone).state == "released"


def _state(history: Repo, task: str = "664") -> str:
    return check_hold(f"predicate-{task}-lands", history.path).state
