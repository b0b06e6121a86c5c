"""The one fixture layer: scratch projects, the #664 record, the CLI runner, the async backend.

A test that needs a project on disk asks for ``project`` (a scratch project holding the
#664 record, ``support.project.SCENARIO``) or ``repo`` (the same, as a git repository on
``main``); a hold test that builds a history asks for ``history`` (a
``support.gitrepo.Repo``, with the environment pinned to its identity). Helpers to build
other records live in ``support.project``; the one CLI runner is ``support.clients.gotchas``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from support.gitrepo import GIT_ENV, Repo
from support.project import SCENARIO, git_init, write_record

# In CI every property test draws the same examples on every run, so a red run is reproducible
# and names a real regression; locally they draw new examples each run and keep exploring.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

if os.environ.get("GOTCHAS_TEST_WHOLE_PARSE") == "1":
    from support import whole_parse

    whole_parse.install()

    def pytest_report_header() -> str:
        return whole_parse.HEADER


@pytest.fixture(autouse=True)
def user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's trust file for this test (absent until written): never the real one."""
    path = tmp_path_factory.mktemp("user-config") / "config.toml"
    monkeypatch.setenv("GOTCHAS_USER_CONFIG", str(path))
    return path


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch project holding the #664 record, with an empty home beside it."""
    root = tmp_path / "project"
    write_record(root, SCENARIO.read_bytes())
    (tmp_path / "home").mkdir()
    return root


@pytest.fixture
def repo(project: Path) -> Path:
    """The scratch project as a git repository on ``main``."""
    return git_init(project)


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A real git repository on ``main`` with one commit; git in the test process sees the same
    identity and no user config."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return Repo(tmp_path / "project")
