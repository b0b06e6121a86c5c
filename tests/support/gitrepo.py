"""A real git repository in a temporary directory, with the test's own identity and config.

Hold tests build histories with it: crafted messages, real ``git revert``, ``--no-ff``
merges and committer dates of the test's choosing. No user or system git config is read.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ana Dev",
    "GIT_AUTHOR_EMAIL": "ana@example.com",
    "GIT_COMMITTER_NAME": "Ana Dev",
    "GIT_COMMITTER_EMAIL": "ana@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Repo:
    """A repository at ``path`` on ``branch``, started with one commit."""

    def __init__(self, path: Path, branch: str = "main") -> None:
        self.path = path
        self.changes = 0
        path.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, **GIT_ENV, "HOME": str(path.parent), "XDG_CONFIG_HOME": str(path.parent)}
        self.git("init", "-q", "-b", branch)
        self.commit("Initial commit")

    def git(self, *args: str) -> str:
        result = subprocess.run(
            ["git", *args], cwd=self.path, env=self.env, capture_output=True, text=True, check=True
        )
        return result.stdout.strip()

    def commit(self, subject: str, body: str = "", date: str | None = None) -> str:
        """A real change (so it can be reverted) with this message and, if given, committer date."""
        self.changes += 1
        (self.path / f"change-{self.changes}.txt").write_text(subject + "\n", encoding="utf-8")
        self.git("add", "-A")
        env = {**self.env, "GIT_COMMITTER_DATE": date} if date else self.env
        message = ["-m", subject] + (["-m", body] if body else [])
        subprocess.run(["git", "commit", "-q", *message], cwd=self.path, env=env, check=True)
        return self.git("rev-parse", "HEAD")

    def merge(self, branch: str, message: str) -> str:
        self.git("merge", "-q", "--no-ff", "-m", message, branch)
        return self.git("rev-parse", "HEAD")
