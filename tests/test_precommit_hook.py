"""The `gotchas-lint` hook through real pre-commit (`try-repo` against this checkout): it
installs only what linting needs, fails a broken record, and runs when a record configured
in .claude/gotchas.toml, or that file itself, changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.clients import REPO, git, git_env

pytestmark = pytest.mark.slow

VALID = """\
# Lessons

### Pin the CUDA wheel index

tasks: #12 · root-cause: confirmed
diagnostic: `pip download torch` picks the CPU wheel

Install torch from the CUDA index, or the CPU wheel wins.
"""

DANGLING = (
    VALID
    + """
### Retry flaky downloads

tasks: #13 · root-cause: confirmed · supersedes: no-such-lesson (for #13)
diagnostic: the log shows a reset connection

Retry three times with backoff.
"""
)


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**git_env(), "PRE_COMMIT_HOME": str(home), "HOME": str(home)}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "gotchas-lint", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_hook_passes_a_valid_record_and_fails_a_broken_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    home = tmp_path / "pre-commit"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    record = repo / ".claude" / "rules" / "gotchas.md"
    record.parent.mkdir(parents=True)
    record.write_text(VALID, encoding="utf-8")
    git(repo, "add", "-A")

    passed = pre_commit(repo, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "gotchas lint" in passed.stdout and "Passed" in passed.stdout

    record.write_text(DANGLING, encoding="utf-8")
    git(repo, "add", "-A")
    failed = pre_commit(repo, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout and "no-such-lesson" in failed.stdout


def test_the_hook_runs_for_a_configured_record_and_for_the_configuration(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    home = tmp_path / "pre-commit"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    record = repo / "docs" / "LESSONS.md"
    record.parent.mkdir()
    record.write_text(DANGLING, encoding="utf-8")
    (repo / "src.py").write_text("print('unrelated')\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Lessons outside .claude")

    # Only the configuration changes: the hook runs and finds the record it names.
    (repo / ".claude").mkdir()
    (repo / ".claude" / "gotchas.toml").write_text('record = "docs/LESSONS.md"\n', encoding="utf-8")
    git(repo, "add", "-A")
    by_config = pre_commit(repo, home)
    assert by_config.returncode == 1 and "no-such-lesson" in by_config.stdout, by_config.stdout
    git(repo, "commit", "-q", "--no-verify", "-m", "Configure the record")

    # Only the configured record changes, now fixed: the hook runs and passes.
    record.write_text(VALID, encoding="utf-8")
    git(repo, "add", "-A")
    by_record = pre_commit(repo, home)
    assert by_record.returncode == 0 and "Passed" in by_record.stdout, by_record.stdout
    git(repo, "commit", "-q", "--no-verify", "-m", "Fix the record")

    # An unrelated change does not start the linter.
    (repo / "src.py").write_text("print('changed')\n", encoding="utf-8")
    git(repo, "add", "-A")
    unrelated = pre_commit(repo, home)
    assert unrelated.returncode == 0 and "Skipped" in unrelated.stdout, unrelated.stdout


def snapshot(into: Path) -> str:
    """This checkout as it is (tracked and new files, uncommitted edits included) committed
    in a repository of its own, as pre-commit fetches a hook repository; its commit."""
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source, target = REPO / name, into / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            target.write_bytes(source.read_bytes())
    git(into, "init", "-q", "-b", "main")
    git(into, "add", "-A")
    git(into, "commit", "-q", "-m", "snapshot")
    return git(into, "rev-parse", "HEAD").strip()


def test_the_hook_environment_holds_only_the_linter(tmp_path: Path) -> None:
    """What `pre-commit install-hooks` puts in the hook's environment: the `gotchas` core
    and markdown-it-py, not the MCP server stack."""
    hooks = tmp_path / "hooks"
    rev = snapshot(hooks)
    repo = tmp_path / "repo"
    home = tmp_path / "pre-commit"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    config = f"repos:\n- repo: {hooks}\n  rev: {rev}\n  hooks:\n  - id: gotchas-lint\n"
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    env = {**git_env(), "PRE_COMMIT_HOME": str(home), "HOME": str(home)}
    env.pop("VIRTUAL_ENV", None)
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "install-hooks"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        timeout=900,
    )
    (python,) = home.glob("repo*/py_env-*/bin/python")
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    installed -= {"pip", "setuptools", "wheel"}
    assert installed == {"gotchas", "markdown-it-py", "mdurl", "typing-extensions"}, installed
