"""The session-start hook's tracker requests are bounded and go only to the project's repository.

Before, a repository storing 250 held proposals made every session start send 250
authenticated GitHub requests, to whatever ``owner/repo`` each proposal's task named.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gotchas import operations, session_start
from gotchas.workspace import CONFIG_PATH, Workspace
from support.fake_github import FakeGitHub, issue
from support.project import allow

REPO = "octo/proj"


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    for proxy in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("FAKE_GH_TOKEN", "secret-token")
    with FakeGitHub() as fake:
        yield fake


def workspace(root: Path, fake: FakeGitHub) -> Workspace:
    config = root / CONFIG_PATH
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[holds]\nsources = ["github"]\n[holds.github]\nrepo = "{REPO}"\n'
        f'base_url = "{fake.base_url}"\ntoken_env = "FAKE_GH_TOKEN"\n',
        encoding="utf-8",
    )
    allow(
        Path(os.environ["GOTCHAS_USER_CONFIG"]),
        root,
        github_base_url=fake.base_url,
        github_token_env="FAKE_GH_TOKEN",
    )
    return Workspace.discover(root=str(root))


def propose(ws: Workspace, task: str) -> None:
    operations.propose_lesson(
        ws, title=f"Lesson of {task}", body="What it showed.", tasks=[task], root_cause="suspected"
    )


def test_many_stored_holds_cost_a_bounded_number_of_requests(tmp_path: Path, github: FakeGitHub) -> None:
    ws = workspace(tmp_path, github)
    count = session_start.MAX_HOLDS + 5
    for n in range(1, count + 1):
        github.issues[REPO, n] = issue(n, state="closed", state_reason="completed")
        propose(ws, f"#{n}")
    github.requests.clear()

    ready = session_start.released(Workspace.discover(root=str(tmp_path)))

    assert 0 < len(github.requests) <= session_start.MAX_HOLDS
    assert len(ready) == session_start.MAX_HOLDS, "the newest holds are the ones evaluated"
    newest = range(count - session_start.MAX_HOLDS + 1, count + 1)
    assert {p["title"] for p in ready} == {f"Lesson of #{n}" for n in newest}


def test_a_task_of_another_repository_sends_no_request(tmp_path: Path, github: FakeGitHub) -> None:
    ws = workspace(tmp_path, github)
    github.issues["attacker/collect", 7] = issue(
        7, state="closed", state_reason="completed", repo="attacker/collect"
    )
    propose(ws, "attacker/collect#7")
    github.requests.clear()

    ready = session_start.released(Workspace.discover(root=str(tmp_path)))

    assert ready == []
    assert github.requests == [], "the token never went to a repository the project did not name"
