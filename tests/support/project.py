"""Scratch projects for tests: the #664 record, writing a record, git, the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SCENARIO = HERE / "fixtures" / "scenario-gotchas.md"
"""The #664 record every scenario test starts from: six entries, the chunk-it advice at fault."""
RECORD = ".claude/rules/gotchas.md"
TARGET = "a-single-large-llm-generate-deadlocks-the-v1"
LAST = "shallow-clones-break-git-describe-versioning"  # the last entry: --after it is the end of the file


def write_record(root: Path, data: bytes, record: str = RECORD) -> Path:
    """``data`` as the project's lessons file; returns its path."""
    path = root / record
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def git_init(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


def allow(user_config: Path, root: Path, **settings: object) -> None:
    """Write the user's trust for ``root``: ``command=[...]``, ``github_base_url=...`` and so on."""
    lines = [f"[repositories.{json.dumps(str(root.resolve()))}]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    user_config.parent.mkdir(parents=True, exist_ok=True)
    with user_config.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
