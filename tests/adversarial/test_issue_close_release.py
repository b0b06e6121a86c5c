"""Who may release a hold by closing an issue: a maintainer, never an outside author alone.

The landing workflow runs on ``issues: closed``. Anyone may open an issue and close it, so
before, the author of an issue could release every hold on it (and have the parked
corrections applied) by closing their own issue. The documented choice
(``docs/landing.md``): a close by the issue's own author counts only when that author is a
maintainer (``author_association`` OWNER, MEMBER or COLLABORATOR); otherwise the task lands
by a closing commit or by a maintainer's close. The github hold source applies the rule,
and the workflow does not run for such a close.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gotchas.holds.check import check_hold
from gotchas.workspace import CONFIG_PATH
from support.fake_github import FakeGitHub, issue
from support.project import allow

REPO = "octo/proj"
WORKFLOW = Path(__file__).parents[2] / "docs" / "workflows" / "gotchas-apply-released.yml"


def workflow() -> Any:
    yaml: Any = importlib.import_module("yaml")
    return yaml.safe_load(WORKFLOW.read_text("utf-8"))


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    for proxy in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    with FakeGitHub() as fake:
        yield fake


def closed(author: str, closer: str, association: str) -> dict[str, object]:
    body = issue(664, state="closed", state_reason="completed")
    body.update(user={"login": author}, closed_by={"login": closer}, author_association=association)
    return body


@pytest.mark.parametrize(
    ("author", "closer", "association", "released"),
    [
        ("drive-by", "drive-by", "NONE", False),
        ("drive-by", "drive-by", "CONTRIBUTOR", False),
        ("drive-by", "maintainer", "NONE", True),
        ("maintainer", "maintainer", "MEMBER", True),
        ("owner", "owner", "OWNER", True),
    ],
)
def test_an_issue_closed_by_its_outside_author_releases_nothing(
    tmp_path: Path, github: FakeGitHub, author: str, closer: str, association: str, released: bool
) -> None:
    config = tmp_path / CONFIG_PATH
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[holds]\nsources = ["github"]\n[holds.github]\nrepo = "{REPO}"\nbase_url = "{github.base_url}"\n',
        encoding="utf-8",
    )
    allow(Path(os.environ["GOTCHAS_USER_CONFIG"]), tmp_path, github_base_url=github.base_url)
    github.issues[REPO, 664] = closed(author, closer, association)

    answer = check_hold("predicate-664-lands", tmp_path)

    assert (answer.state == "released") is released, answer
    if not released:
        notes = [e.get("note", "") for e in answer.tasks[0].evidence]
        assert any("closed by its own author" in str(n) for n in notes)


def test_the_workflow_skips_a_close_by_the_issue_s_outside_author() -> None:
    loaded: Any = workflow()
    condition = " ".join(loaded["jobs"]["apply"]["if"].split())
    assert "github.event_name != 'issues'" in condition
    assert "github.event.sender.login != github.event.issue.user.login" in condition
    assert (
        'contains(fromJSON(\'["OWNER", "MEMBER", "COLLABORATOR"]\'), github.event.issue.author_association)'
        in condition
    )
