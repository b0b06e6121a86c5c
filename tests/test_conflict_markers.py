"""A record left with git conflict markers: `verify` reports each marker as a
`conflict-markers` error at its line, and propose and apply (CLI and MCP) refuse to plan
on it, writing nothing. The conflict is made by a real `git merge`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.clients import git, git_env, gotchas_exe, isolated_env
from support.clients import gotchas as cli

RECORD = ".claude/rules/gotchas.md"
BASE = """\
# Lessons

### Pin the CUDA wheel index

tasks: #12 · root-cause: confirmed
diagnostic: `pip download torch` picks the CPU wheel

Install torch from the CUDA index, or the CPU wheel wins.

### Retry flaky downloads

tasks: #14 · root-cause: confirmed
diagnostic: the log shows a reset connection

Retry three times with backoff.
"""
TARGET = "retry-flaky-downloads"
LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): error conflict-markers (?P<message>.+)$")


def conflicted(tmp_path: Path) -> Path:
    """A repository whose record two branches changed on the same line, merged with a conflict."""
    root = tmp_path / "project"
    (root / RECORD).parent.mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (root / RECORD).write_text(BASE, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "lessons")
    git(root, "checkout", "-qb", "side")
    edit(root, "Retry three times with backoff.", "Retry five times with backoff.")
    git(root, "checkout", "-q", "main")
    edit(root, "Retry three times with backoff.", "Retry twice, then fail loudly.")
    done = _git_status(root, "merge", "side")
    assert done != 0, "the merge was expected to conflict"
    assert "<<<<<<< HEAD" in (root / RECORD).read_text(encoding="utf-8")
    return root


def edit(root: Path, old: str, new: str) -> None:
    path = root / RECORD
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    git(root, "commit", "-qam", f"say {new}")


def _git_status(root: Path, *args: str) -> int:
    """git's exit status (a conflicted merge exits 1, which ``git()`` would raise on)."""
    done = subprocess.run(["git", *args], cwd=root, env=git_env(), capture_output=True, check=False)
    return done.returncode


def marker_lines(root: Path) -> list[int]:
    lines = (root / RECORD).read_text(encoding="utf-8").splitlines()
    return [n for n, text in enumerate(lines, 1) if text.startswith(("<<<<<<< ", "=======", ">>>>>>> "))]


def state_files(root: Path) -> dict[str, bytes]:
    """Proposals and the journal: what an apply writes besides the record (lock files aside)."""
    state = root / ".claude" / "gotchas"
    files = state.rglob("*") if state.exists() else []
    return {str(p): p.read_bytes() for p in files if p.is_file() and "locks" not in p.parts}


def test_verify_reports_each_marker_at_its_line(tmp_path: Path) -> None:
    root = conflicted(tmp_path)
    done = cli(root, "verify")
    assert done.returncode == 1
    found = [LINE.match(line) for line in done.stdout.splitlines()]
    hits = [m for m in found if m]
    assert [int(m["line"]) for m in hits] == marker_lines(root)
    assert len(hits) == 3
    assert all(m["path"] == RECORD and m["col"] == "1" for m in hits)
    assert "unresolved" in hits[0]["message"]
    as_json = json.loads(cli(root, "verify", "--json").stdout)
    codes = [p["line"] for p in as_json["problems"] if p["code"] == "conflict-markers"]
    assert codes == marker_lines(root) and as_json["ok"] is False


def test_markers_in_code_and_a_setext_underline_are_not_conflicts(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / RECORD).parent.mkdir(parents=True)
    (tmp_path / "home").mkdir()
    text = BASE.replace(
        "Retry three times with backoff.\n",
        "Retry three times with backoff.\n\n```\n<<<<<<< HEAD\n=======\n>>>>>>> side\n```\n",
    )
    text += "\nA closing note\n=======\n"
    (root / RECORD).write_text(text, encoding="utf-8")
    done = cli(root, "verify", "--json")
    assert "conflict-markers" not in done.stdout


def test_cli_propose_refuses_and_writes_nothing(tmp_path: Path) -> None:
    root = conflicted(tmp_path)
    before = (root / RECORD).read_bytes()
    supersede = cli(
        root, "propose", "--target-id", TARGET, "--task", "#14", "--title", "Proxy resets",
        "--body", "The proxy resets idle connections.", "--diagnostic", "the proxy log shows it",
    )  # fmt: skip
    capture = cli(
        root, "propose", "--title", "Proxy resets", "--body", "Idle resets.", "--tasks", "#15",
        "--root-cause", "confirmed", "--diagnostic", "the proxy log shows it",
    )  # fmt: skip
    for done in (supersede, capture):
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("gotchas: conflict-markers: ")
        assert "resolve the merge first" in done.stderr and "`gotchas verify`" in done.stderr
        assert done.stdout == ""
    assert (root / RECORD).read_bytes() == before
    assert state_files(root) == {}


def test_cli_apply_refuses_a_proposal_made_before_the_merge(tmp_path: Path) -> None:
    root = conflicted(tmp_path)
    git(root, "merge", "--abort")
    made = cli(
        root, "propose", "--target-id", TARGET, "--task", "#14", "--title", "Proxy resets",
        "--body", "The proxy resets idle connections.", "--diagnostic", "the proxy log shows it", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    proposal_id = json.loads(made.stdout)["proposal_id"]
    assert _git_status(root, "merge", "side") != 0
    before, state = (root / RECORD).read_bytes(), state_files(root)
    done = cli(root, "apply", proposal_id)
    assert done.returncode == 1
    assert done.stderr.startswith("gotchas: conflict-markers: ")
    assert (root / RECORD).read_bytes() == before
    assert state_files(root) == state  # no journal line either


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.anyio
async def test_mcp_propose_and_apply_refuse(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    root = conflicted(tmp_path)
    git(root, "merge", "--abort")
    made = cli(
        root, "propose", "--title", "Proxy resets", "--body", "Idle resets.", "--tasks", "#15",
        "--root-cause", "confirmed", "--diagnostic", "the proxy log shows it", "--json",
    )  # fmt: skip
    proposal_id = json.loads(made.stdout)["proposal_id"]
    assert _git_status(root, "merge", "side") != 0
    before, state = (root / RECORD).read_bytes(), state_files(root)
    params = StdioServerParameters(
        command=gotchas_exe(), args=["serve"], cwd=str(root), env=isolated_env(root.parent / "home")
    )
    async with Client(params) as client:
        results = [
            await client.call_tool(
                "propose_supersede",
                {
                    "target_id": TARGET,
                    "task": "#14",
                    "title": "Proxy resets",
                    "body": "The proxy resets idle connections.",
                    "diagnostic": "the proxy log shows it",
                },
            ),
            await client.call_tool(
                "propose_lesson",
                {
                    "title": "Other",
                    "body": "Text.",
                    "tasks": ["#16"],
                    "root_cause": "confirmed",
                    "diagnostic": "seen in the log",
                },
            ),
            await client.call_tool("apply_supersede", {"proposal_id": proposal_id}),
        ]
    for result in results:
        assert result.is_error
        assert "conflict-markers: the record holds git conflict markers" in text_of(result)
        assert "verify_record()" in text_of(result)
    assert (root / RECORD).read_bytes() == before
    assert state_files(root) == state


def test_apply_released_refuses_rather_than_saying_nothing_to_apply(tmp_path: Path) -> None:
    root = conflicted(tmp_path)
    git(root, "merge", "--abort")
    made = cli(
        root, "propose", "--title", "Proxy resets", "--body", "Idle resets.", "--tasks", "#15",
        "--root-cause", "confirmed", "--diagnostic", "the proxy log shows it",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert _git_status(root, "merge", "side") != 0
    before, state = (root / RECORD).read_bytes(), state_files(root)
    done = cli(root, "apply", "--released")
    assert done.returncode == 1
    assert done.stderr.startswith("gotchas: conflict-markers: ")
    assert "nothing to apply" not in done.stdout
    assert (root / RECORD).read_bytes() == before
    assert state_files(root) == state
