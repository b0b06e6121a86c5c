"""A hostile ``.claude/gotchas.toml`` against the hold sources that send secrets or run programs.

The repository may ask for a GitHub host, a token variable or a tracker command; only the
user's trust file, outside every repository, can grant them. Without it the source answers
nothing — the hold is ``unknown`` with evidence naming the file and the lines to add — and
no token, variable or program is touched. With it, both work.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gotchas.errors import ConfigError
from gotchas.holds.check import check_hold
from gotchas.holds.sources.ledger import set_task_state
from gotchas.trust import load_trust, user_config_path
from gotchas.workspace import CONFIG_PATH
from support.clients import gotchas_cmd, isolated_env
from support.fake_github import FakeGitHub, issue
from support.project import allow

REPO = "octo/proj"
SECRET = "s3cr3t-value-of-another-variable"


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    for proxy in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("ANY_VAR", SECRET)
    with FakeGitHub() as fake:
        fake.issues[REPO, 664] = issue(664, state="closed", state_reason="completed")
        yield fake


def repo_config(root: Path, text: str) -> None:
    path = root / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def hostile_github(root: Path, base_url: str, sources: str = '["github"]') -> None:
    repo_config(
        root,
        f'[holds]\nsources = {sources}\n[holds.github]\nrepo = "{REPO}"\n'
        f'base_url = "{base_url}"\ntoken_env = "ANY_VAR"\n',
    )


# --- GitHub: where tokens go -----------------------------------------------------------------


def test_a_repository_chosen_host_receives_nothing_and_releases_nothing(
    tmp_path: Path, github: FakeGitHub, user_config: Path
) -> None:
    hostile_github(tmp_path, github.base_url)
    answer = check_hold("predicate-664-lands", tmp_path)
    assert github.requests == []  # not even a request without the token
    assert answer.state == "unknown"
    evidence = answer.tasks[0].evidence[0]
    assert evidence["not_allowed"] is True
    assert evidence["user_config"] == str(user_config)
    assert f'github_base_url = "{github.base_url}"' in str(evidence["add"])
    assert json.dumps(str(tmp_path.resolve())) in str(evidence["add"])


def test_an_unallowed_host_blocks_a_ledger_landing_rather_than_guessing(
    tmp_path: Path, github: FakeGitHub
) -> None:
    hostile_github(tmp_path, github.base_url, sources='["ledger", "github"]')
    set_task_state(tmp_path, "#664", "landed", by="someone")
    answer = check_hold("predicate-664-lands", tmp_path)
    assert answer.state != "released"
    assert github.requests == []


def test_a_repository_cannot_choose_the_variable_even_for_the_public_api(
    tmp_path: Path, user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANY_VAR", SECRET)
    repo_config(
        tmp_path, f'[holds]\nsources = ["github"]\n[holds.github]\nrepo = "{REPO}"\ntoken_env = "ANY_VAR"\n'
    )
    answer = check_hold("predicate-664-lands", tmp_path)  # refused before any network access
    assert answer.state == "unknown"
    assert 'github_token_env = "ANY_VAR"' in str(answer.tasks[0].evidence[0]["add"])


def test_with_the_user_s_opt_in_the_token_reaches_that_host_and_the_hold_releases(
    tmp_path: Path, github: FakeGitHub, user_config: Path
) -> None:
    hostile_github(tmp_path, github.base_url)
    allow(user_config, tmp_path, github_base_url=github.base_url, github_token_env="ANY_VAR")
    answer = check_hold("predicate-664-lands", tmp_path)
    assert answer.state == "released"
    assert [r.headers.get("authorization") for r in github.requests] == [f"Bearer {SECRET}"]


def test_the_user_s_host_does_not_let_the_repository_pick_another(
    tmp_path: Path, github: FakeGitHub, user_config: Path
) -> None:
    with FakeGitHub() as other:
        other.issues[REPO, 664] = issue(664, state="closed", state_reason="completed")
        hostile_github(tmp_path, other.base_url)
        allow(user_config, tmp_path, github_base_url=github.base_url, github_token_env="ANY_VAR")
        answer = check_hold("predicate-664-lands", tmp_path)
        assert other.requests == []
    assert answer.state == "unknown"


def test_trust_for_one_repository_does_not_extend_to_another(
    tmp_path: Path, github: FakeGitHub, user_config: Path
) -> None:
    trusted, hostile = tmp_path / "trusted", tmp_path / "hostile"
    trusted.mkdir()
    hostile.mkdir()
    allow(user_config, trusted, github_base_url=github.base_url, github_token_env="ANY_VAR")
    hostile_github(hostile, github.base_url)
    assert check_hold("predicate-664-lands", hostile).state == "unknown"
    assert github.requests == []


def test_the_cli_reads_trust_from_the_user_s_config_directory(tmp_path: Path, github: FakeGitHub) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    hostile_github(root, github.base_url)
    env = isolated_env(home, ANY_VAR=SECRET, no_proxy="127.0.0.1")
    refused = subprocess.run(
        [*gotchas_cmd(root), "check-hold", "predicate-664-lands"], env=env, capture_output=True
    )
    assert refused.returncode == 5, refused.stderr  # unknown
    assert github.requests == []
    allow(home / "gotchas" / "config.toml", root, github_base_url=github.base_url, github_token_env="ANY_VAR")
    granted = subprocess.run(
        [*gotchas_cmd(root), "check-hold", "predicate-664-lands"], env=env, capture_output=True
    )
    assert granted.returncode == 0, granted.stdout + granted.stderr
    assert [r.headers.get("authorization") for r in github.requests] == [f"Bearer {SECRET}"]


# --- command: which programs run -------------------------------------------------------------


def marker_program(marker: Path, state: str = "landed") -> list[str]:
    answer = json.dumps({"state": state})
    code = f"import pathlib, sys; pathlib.Path({str(marker)!r}).write_text(sys.argv[1]); print({answer!r})"
    return [sys.executable, "-c", code, "{task}"]


def test_a_repository_s_command_never_runs_without_opt_in(tmp_path: Path, user_config: Path) -> None:
    marker = tmp_path / "ran"
    argv = json.dumps(marker_program(marker))
    repo_config(tmp_path, f'[holds]\nsources = ["command"]\n[holds.command]\nargv = {argv}\n')
    answer = check_hold("predicate-ABC-1-lands", tmp_path)
    assert not marker.exists()
    assert answer.state == "unknown"
    evidence = answer.tasks[0].evidence[0]
    assert evidence["user_config"] == str(user_config)
    assert str(evidence["add"]).startswith(
        f"[repositories.{json.dumps(str(tmp_path.resolve()))}]\ncommand = ["
    )


def test_with_opt_in_the_user_s_program_runs_not_the_repository_s(tmp_path: Path, user_config: Path) -> None:
    theirs, mine = tmp_path / "theirs", tmp_path / "mine"
    repo_config(
        tmp_path,
        f'[holds]\nsources = ["command"]\n[holds.command]\nargv = {json.dumps(marker_program(theirs))}\n',
    )
    allow(user_config, tmp_path, command=marker_program(mine))
    answer = check_hold("predicate-ABC-1-lands", tmp_path)
    assert answer.state == "released"
    assert mine.read_text() == "ABC-1"
    assert not theirs.exists()


# --- the user's file ------------------------------------------------------------------------


def test_the_user_file_is_found_by_variable_then_xdg_then_home(tmp_path: Path) -> None:
    assert user_config_path({"GOTCHAS_USER_CONFIG": "/etc/x.toml"}) == Path("/etc/x.toml")
    assert user_config_path({"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/gotchas/config.toml")
    assert user_config_path({}) == Path.home() / ".config" / "gotchas" / "config.toml"
    assert (
        user_config_path({"XDG_CONFIG_HOME": "relative"})
        == Path.home() / ".config" / "gotchas" / "config.toml"
    )


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("repositories = 3", "must be tables"),
        ('[repositories."relative"]', "absolute path"),
        ('[repositories."{root}"]\ncommand = ["tool"]', "{task}"),
        ('[repositories."{root}"]\ngithub_base_url = "file:///etc/passwd"', "http(s) URL"),
        ('[repositories."{root}"]\nbase_url = "x"', "unknown key"),
        ("[other]", "unknown top-level key"),
    ],
)
def test_a_malformed_user_file_is_refused_with_its_path(tmp_path: Path, text: str, complaint: str) -> None:
    path = tmp_path / "user.toml"
    path.write_text(text.replace("{root}", str(tmp_path)), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_trust(tmp_path, path)
    assert str(path) in caught.value.message
    assert complaint in caught.value.message


# --- the config file itself ------------------------------------------------------------------


def test_a_symlinked_config_is_refused_not_followed(tmp_path: Path) -> None:
    from gotchas.config import load_config

    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    outside = tmp_path / "elsewhere.toml"
    outside.write_text('[holds]\nsources = ["command"]\n', encoding="utf-8")
    (root / CONFIG_PATH).symlink_to(outside)
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    assert "symlink" in caught.value.message
    assert caught.value.message.startswith(CONFIG_PATH)
