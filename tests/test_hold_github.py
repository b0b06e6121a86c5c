"""The GitHub source against a local stand-in that answers GitHub's documented shapes."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path

import pytest

from gotchas.holds.check import check_hold
from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.github import GitHubSource, rate_limit_retry_at
from gotchas.holds.sources.ledger import set_task_state
from gotchas.workspace import CONFIG_PATH
from support.fake_github import FakeGitHub, issue, pull_request
from support.project import allow

REPO = "octo/proj"


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    for proxy in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    with FakeGitHub() as fake:
        yield fake


def source(root: Path, fake: FakeGitHub, **options: object) -> GitHubSource:
    settings: dict[str, object] = {"repo": REPO, "base_url": fake.base_url, "timeout": 2.0}
    settings.update(options)
    return GitHubSource(root, **settings)  # type: ignore[arg-type]


# --- states --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "reason", "expected"),
    [
        ("open", None, "running"),
        ("open", "reopened", "running"),
        ("closed", "completed", "landed"),
        ("closed", None, "landed"),
        ("closed", "not_planned", "abandoned"),
        ("closed", "duplicate", "abandoned"),
    ],
)
def test_issue_states_map_to_task_states(
    tmp_path: Path, github: FakeGitHub, state: str, reason: str | None, expected: str
) -> None:
    github.issues[REPO, 664] = issue(664, state=state, state_reason=reason)
    observed = source(tmp_path, github).observe("#664")
    assert observed.state == expected
    assert observed.evidence[0]["url"] == f"https://github.com/{REPO}/issues/664"
    assert observed.evidence[0]["state"] == state
    assert observed.evidence[0]["state_reason"] == reason
    assert list(github.paths()) == [f"/repos/{REPO}/issues/664"]


@pytest.mark.parametrize(
    ("state", "merged_at", "expected"),
    [
        ("closed", "2026-11-29T12:00:00Z", "landed"),
        ("closed", None, "abandoned"),
        ("open", None, "running"),
    ],
)
def test_pull_requests_are_read_for_merged_at(
    tmp_path: Path, github: FakeGitHub, state: str, merged_at: str | None, expected: str
) -> None:
    github.issues[REPO, 700] = issue(700, state=state, pull=True)
    github.pulls[REPO, 700] = pull_request(700, state=state, merged_at=merged_at)
    observed = source(tmp_path, github).observe("#700")
    assert observed.state == expected
    assert observed.evidence[0]["kind"] == "pull_request"
    assert observed.evidence[0]["merged_at"] == merged_at
    assert list(github.paths()) == [f"/repos/{REPO}/issues/700", f"/repos/{REPO}/pulls/700"]


def test_an_owner_repo_task_is_asked_only_of_the_configured_repository(
    tmp_path: Path, github: FakeGitHub
) -> None:
    github.issues["other/thing", 5] = issue(5, state="closed", state_reason="completed", repo="other/thing")
    github.issues[REPO, 5] = issue(5, state="closed", state_reason="completed")
    assert source(tmp_path, github).observe("other/thing#5").state is None
    assert github.requests == []
    assert source(tmp_path, github).observe(f"{REPO.upper()}#5").state == "landed"


def test_tracker_keys_are_not_github_issues(tmp_path: Path, github: FakeGitHub) -> None:
    observed = source(tmp_path, github).observe("ABC-123")
    assert observed.state is None
    assert github.requests == []


def test_the_repository_defaults_to_the_origin_remote(tmp_path: Path, github: FakeGitHub) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "remote", "add", "origin", "https://github.com/octo/proj.git"],
        check=True,
    )
    github.issues[REPO, 664] = issue(664)
    assert source(tmp_path, github, repo=None).observe("#664").state == "running"


def test_no_repository_at_all_is_a_clear_error(tmp_path: Path, github: FakeGitHub) -> None:
    with pytest.raises(SourceFailed, match=r"\[holds.github\] repo"):
        source(tmp_path, github, repo=None).observe("#664")


# --- requests ------------------------------------------------------------------------------


def test_requests_carry_the_documented_headers_and_the_token(tmp_path: Path, github: FakeGitHub) -> None:
    github.issues[REPO, 664] = issue(664)
    source(tmp_path, github, token="ghp_secret").observe("#664")
    headers = github.requests[0].headers
    assert headers["authorization"] == "Bearer ghp_secret"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["user-agent"]


def test_without_a_token_no_authorization_is_sent(tmp_path: Path, github: FakeGitHub) -> None:
    github.issues[REPO, 664] = issue(664)
    source(tmp_path, github).observe("#664")
    assert "authorization" not in github.requests[0].headers


def test_an_enterprise_base_url_keeps_its_path(tmp_path: Path, github: FakeGitHub) -> None:
    github.issues[REPO, 664] = issue(664)
    source(tmp_path, github, base_url=github.base_url + "/api/v3/").observe("#664")
    assert list(github.paths()) == [f"/api/v3/repos/{REPO}/issues/664"]


# --- failures ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("404", "no issue or pull request octo/proj#664 (404)"),
        ("401", "401 unauthorized"),
        ("rate-limit", "rate limited; retry after 2026-11-30T07:00:00Z"),
        ("retry-after", "rate limited; retry after "),
        ("drop", "dropped the connection"),
        ("bad-json", "not JSON"),
        ("500", "GitHub answered 500"),
    ],
)
def test_each_failure_is_a_clear_source_error(
    tmp_path: Path, github: FakeGitHub, failure: str, message: str
) -> None:
    github.issues[REPO, 664] = issue(664, state="closed", state_reason="completed")
    github.failure = failure
    with pytest.raises(SourceFailed) as caught:
        source(tmp_path, github).observe("#664")
    assert message in caught.value.message


def test_a_rate_limit_says_when_to_retry_in_the_details(tmp_path: Path, github: FakeGitHub) -> None:
    github.failure = "rate-limit"
    with pytest.raises(SourceFailed) as caught:
        source(tmp_path, github).observe("#664")
    assert caught.value.details["retry_after"] == "2026-11-30T07:00:00Z"
    assert caught.value.details["status"] == 403


def test_401_blames_the_token_when_one_was_sent(tmp_path: Path, github: FakeGitHub) -> None:
    github.failure = "401"
    with pytest.raises(SourceFailed, match=r"token in \$GITHUB_TOKEN was refused"):
        source(tmp_path, github, token="expired").observe("#664")
    with pytest.raises(SourceFailed, match=r"set \$GITHUB_TOKEN"):
        source(tmp_path, github).observe("#664")


def test_no_answer_in_time_is_a_timeout(tmp_path: Path, github: FakeGitHub) -> None:
    github.failure = "hang"
    with pytest.raises(SourceFailed, match=r"did not answer within 0\.2s"):
        source(tmp_path, github, timeout=0.2).observe("#664")


def test_nobody_listening_is_an_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = GitHubSource(tmp_path, repo=REPO, base_url=f"http://127.0.0.1:{port}", timeout=2)
    with pytest.raises(SourceFailed, match="cannot reach GitHub"):
        closed.observe("#664")


def test_an_answer_without_the_documented_fields_is_an_error(tmp_path: Path, github: FakeGitHub) -> None:
    github.issues[REPO, 664] = {"message": "weird"}
    with pytest.raises(SourceFailed, match="'state'"):
        source(tmp_path, github).observe("#664")


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1796022000"}, "2026-11-30T07:00:00Z"),
        (429, {"retry-after": "90"}, "2026-11-30T06:01:30Z"),
        (403, {"retry-after": "30", "x-ratelimit-remaining": "12"}, "2026-11-30T06:00:30Z"),
        (429, {}, "2026-11-30T06:01:00Z"),
        (403, {"x-ratelimit-remaining": "12"}, None),
        (404, {"retry-after": "30"}, None),
    ],
)
def test_rate_limit_headers_give_the_retry_time(
    status: int, headers: dict[str, str], expected: str | None
) -> None:
    message = Message()
    for name, value in headers.items():
        message[name] = value
    now = datetime(2026, 11, 30, 6, 0, 0, tzinfo=UTC)
    assert rate_limit_retry_at(status, message, now) == expected


# --- through check_hold --------------------------------------------------------------------


def configure(root: Path, fake: FakeGitHub, sources: str) -> None:
    """The repository asks for the stand-in host and variable; the user's trust file allows both."""
    path = root / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"[holds]\nsources = {sources}\n[holds.github]\n"
        f'repo = "{REPO}"\nbase_url = "{fake.base_url}"\ntoken_env = "FAKE_GH_TOKEN"\n',
        encoding="utf-8",
    )
    user_config = Path(os.environ["GOTCHAS_USER_CONFIG"])
    allow(user_config, root, github_base_url=fake.base_url, github_token_env="FAKE_GH_TOKEN")


def test_a_merged_pull_request_releases_the_hold_with_its_evidence(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_GH_TOKEN", "t0k")
    configure(tmp_path, github, '["ledger", "github"]')
    set_task_state(tmp_path, "664", "running", "session")
    github.issues[REPO, 664] = issue(664, state="closed", pull=True)
    github.pulls[REPO, 664] = pull_request(664, state="closed", merged_at="2026-11-29T12:00:00Z")

    answer = check_hold("predicate-664-lands", tmp_path)

    assert answer.state == "released"
    assert answer.tasks[0].source == "github"
    assert answer.tasks[0].evidence[0]["url"] == f"https://github.com/{REPO}/pull/664"
    assert github.requests[0].headers["authorization"] == "Bearer t0k"


def test_a_rate_limited_github_never_releases_a_ledger_landing(tmp_path: Path, github: FakeGitHub) -> None:
    configure(tmp_path, github, '["ledger", "github"]')
    set_task_state(tmp_path, "664", "landed", "session")
    github.failure = "rate-limit"

    answer = check_hold("predicate-664-lands", tmp_path)

    assert answer.state == "unknown"
    errors = [e for e in answer.tasks[0].evidence if e["source"] == "github"]
    assert errors[0]["error"] == "rate limited; retry after 2026-11-30T07:00:00Z"
    assert errors[0]["retry_after"] == "2026-11-30T07:00:00Z"


@pytest.mark.parametrize("failure", ["404", "401", "rate-limit", "drop", "bad-json", "500"])
def test_no_github_failure_releases_anything(tmp_path: Path, github: FakeGitHub, failure: str) -> None:
    configure(tmp_path, github, '["github"]')
    github.failure = failure
    assert check_hold("predicate-664-lands+predicate-664-terminal", tmp_path).state == "unknown"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_tools_that_evaluate_holds_say_they_reach_the_network_only_when_one_does(
    tmp_path: Path, github: FakeGitHub, anyio_backend: str
) -> None:
    """check_hold, list_proposals and apply_supersede all evaluate holds: open-world together."""
    from mcp import Client

    from gotchas.server import build
    from gotchas.workspace import Workspace

    hold_tools = ("check_hold", "list_proposals", "apply_supersede")

    async def open_world(root: Path) -> dict[str, bool | None]:
        async with Client(build(Workspace.discover(root=str(root)))) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        hints = {name: tools[name].annotations for name in hold_tools}
        return {name: hint.open_world_hint for name, hint in hints.items() if hint}

    local = tmp_path / "local"
    local.mkdir()
    assert await open_world(local) == dict.fromkeys(hold_tools, False)
    remote = tmp_path / "remote"
    remote.mkdir()
    configure(remote, github, '["ledger", "github"]')
    assert await open_world(remote) == dict.fromkeys(hold_tools, True)


@pytest.mark.parametrize(("failure", "message"), [("deep-json", "not JSON"), ("deep-json-404", "GitHub")])
def test_an_answer_nested_past_the_parser_s_depth_is_a_source_error(
    tmp_path: Path, github: FakeGitHub, failure: str, message: str
) -> None:
    """Over a real socket: a 200 or an error body nested 100k deep is a clear source error,
    never a RecursionError escaping the hold check."""
    github.issues[REPO, 664] = issue(664, state="closed", state_reason="completed")
    github.failure = failure
    with pytest.raises(SourceFailed) as caught:
        source(tmp_path, github).observe("#664")
    assert message in caught.value.message
