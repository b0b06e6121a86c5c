"""`gotchas init` sets a repository up in one command: it says each change, merges into JSON
that is there without losing a key, changes nothing on a second run or with --dry-run, and
stops with nothing written when a file it must merge into is malformed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from support.clients import git, gotchas, run_gotchas


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] != ".git"
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "home").mkdir()
    git(repo, "init", "-q", "-b", "main")
    return repo


def test_init_on_an_empty_repository_then_again(root: Path) -> None:
    dry = run_gotchas(root, "init", "--dry-run", "--json")
    planned = json.loads(dry.stdout)["changes"]
    assert {c["target"] for c in planned} == {
        ".claude/rules/gotchas.md",
        ".mcp.json",
        ".claude/settings.json",
        ".gitattributes",
        "git config merge.gotchas.name",
        "git config merge.gotchas.driver",
    }
    assert tree(root) == {}
    assert "merge.gotchas" not in git(root, "config", "--local", "--list")

    done = run_gotchas(root, "init")
    assert done.stdout.count("\n") == len(planned) and "changed .mcp.json" in done.stdout
    assert (root / ".claude/rules/gotchas.md").read_text("utf-8").startswith("# Gotchas")
    assert json.loads((root / ".mcp.json").read_text("utf-8"))["mcpServers"]["gotchas"]["args"] == [
        "gotchas-mcp"
    ]
    settings = json.loads((root / ".claude/settings.json").read_text("utf-8"))
    assert "mcp__gotchas__history" in settings["permissions"]["allow"]
    assert "mcp__gotchas__apply_supersede" not in settings["permissions"]["allow"]
    hook = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert "exec gotchas session-start" in hook and ".venv" not in hook
    attributes = (root / ".gitattributes").read_text("utf-8").splitlines()
    assert ".claude/rules/gotchas.md merge=gotchas" in attributes
    assert ".claude/gotchas/journal.jsonl merge=union" in attributes
    assert git(root, "config", "merge.gotchas.driver").strip() == "gotchas merge-record %O %A %B %P"
    assert git(root, "check-attr", "merge", ".claude/rules/gotchas.md").strip().endswith("merge: gotchas")
    assert run_gotchas(root, "verify").returncode == 0

    before = tree(root)
    again = run_gotchas(root, "init")
    assert again.stdout.strip() == "nothing to change: already set up"
    assert tree(root) == before


def test_init_merges_into_existing_files_and_keeps_every_key_and_line(root: Path) -> None:
    settings: dict[str, Any] = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]},
    }
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text(json.dumps(settings), "utf-8")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}), "utf-8")
    (root / ".gitattributes").write_bytes(b"*.png binary\r\n*.sh text eol=lf")
    record = root / ".claude/rules/gotchas.md"
    record.parent.mkdir(parents=True)
    record.write_bytes(b"# Our lessons\r\n\r\n## One\r\n\r\ntasks: #1\r\n\r\nKeep.\r\n")
    kept = record.read_bytes()

    run_gotchas(root, "init")
    merged = json.loads((root / ".claude/settings.json").read_text("utf-8"))
    assert merged["model"] == "opus" and merged["permissions"]["deny"] == ["Read(./.env)"]
    assert merged["permissions"]["allow"][0] == "Bash(npm test)"
    assert merged["hooks"]["Stop"] == settings["hooks"]["Stop"]
    assert set(json.loads((root / ".mcp.json").read_text("utf-8"))["mcpServers"]) == {"other", "gotchas"}
    assert (root / ".gitattributes").read_bytes().startswith(b"*.png binary\r\n*.sh text eol=lf\r\n")
    assert record.read_bytes() == kept


def test_a_malformed_settings_file_stops_init_with_nothing_written(root: Path) -> None:
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text('{"permissions": {"allow": "everything"}}', "utf-8")
    before = tree(root)
    done = gotchas(root, "init")
    assert done.returncode == 1 and "permissions.allow" in done.stderr and done.stderr.count("\n") == 1
    assert tree(root) == before
    (root / ".claude/settings.json").write_text("{not json", "utf-8")
    assert gotchas(root, "init").returncode == 1
