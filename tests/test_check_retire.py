"""Retire and re-check, gated like a correction: propose → apply → verify → history, through
the CLI and through the MCP server as a real stdio subprocess; lines are only inserted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.clients import gotchas, gotchas_exe, isolated_env
from support.gitrepo import Repo

RECORD = ".claude/rules/gotchas.md"
TEXT = (
    "# Gotchas\n\n"
    "## Settings are read at import\n\ntasks: #4\n\nEdit src/settings.py, then restart.\n\n"
    "## Cache keys carry the tenant\n\ntasks: #4\n\nSee src/cache.py.\n"
)


@pytest.fixture
def stale(tmp_path: Path) -> Path:
    """A repository where the first lesson's path was deleted after it was written."""
    root = tmp_path / "repo"
    repo = Repo(root)
    (root / "src").mkdir()
    (root / "src" / "settings.py").write_text("X = 1\n")
    (root / "src" / "cache.py").write_text("Y = 1\n")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / RECORD).write_text(TEXT)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "lessons")
    repo.git("rm", "-q", "src/settings.py")
    repo.git("commit", "-qm", "settings move to the environment")
    (tmp_path / "home").mkdir(exist_ok=True)
    return root


def _inserted_only(before: str, after: str) -> None:
    remaining = iter(after.splitlines())
    assert all(any(line == seen for seen in remaining) for line in before.splitlines())


def test_retire_round_trip_through_the_cli(stale: Path) -> None:
    before = (stale / RECORD).read_text()
    found = json.loads(gotchas(stale, "check", "--json").stdout)["findings"]
    assert [(f["code"], f["entry"]) for f in found] == [("stale-path", "settings-are-read-at-import")]
    removed_by = found[0]["evidence"]["removed_by"]

    proposed = gotchas(
        stale,
        "propose",
        "--retire",
        "settings-are-read-at-import",
        "--why",
        "settings moved to the environment",
        "--evidence",
        removed_by,
        "--json",
    )
    assert proposed.returncode == 0, proposed.stderr
    result = json.loads(proposed.stdout)
    assert result["status"] == "proposed" and "+retired: settings moved to the environment" in result["diff"]
    assert (stale / RECORD).read_text() == before  # a proposal writes no record

    listed = gotchas(stale, "proposals").stdout
    assert "retire" in listed and "pending" in listed
    applied = json.loads(gotchas(stale, "apply", result["proposal_id"], "--json").stdout)
    assert applied["status"] == "applied" and applied["verification"]["ok"] is True
    after = (stale / RECORD).read_text()
    _inserted_only(before, after)
    assert f"Evidence: {removed_by}" in after
    again = json.loads(gotchas(stale, "apply", result["proposal_id"], "--json").stdout)
    assert again["status"] == "already-applied" and (stale / RECORD).read_text() == after

    assert gotchas(stale, "verify").returncode == 0
    assert json.loads(gotchas(stale, "check", "--json").stdout)["findings"] == []  # retired: not judged
    history = json.loads(gotchas(stale, "history", "#4", "--json").stdout)
    retired = next(e for e in history["entries"] if e["id"] == "settings-are-read-at-import")
    assert retired["root_cause"] == "retired"
    assert retired["marks"][0]["why"] == "settings moved to the environment"
    assert retired["marks"][0]["proposal_id"] == result["proposal_id"] and retired["marks"][0]["at"]
    shown = gotchas(stale, "history", "#4").stdout
    assert f"retire at {retired['marks'][0]['at']} ({result['proposal_id']}): settings moved" in shown
    journal = [
        json.loads(x) for x in (stale / ".claude" / "gotchas" / "journal.jsonl").read_text().splitlines()
    ]
    assert [(e["kind"], e["status"]) for e in journal] == [
        ("retire", "applied"),
        ("retire", "already-applied"),
    ]


def test_recheck_moves_the_anchor_and_bad_words_are_refused(stale: Path) -> None:
    before = (stale / RECORD).read_bytes()
    forged = gotchas(
        stale, "propose", "--retire", "cache-keys-carry-the-tenant", "--why", "x · status: fixed"
    )
    assert forged.returncode == 0  # the separator is written as a dash, never a second field
    nul = gotchas(stale, "propose", "--retire", "cache-keys-carry-the-tenant", "--why", "a\x07b")
    assert nul.returncode == 2 and (stale / RECORD).read_bytes() == before
    missing = gotchas(stale, "propose", "--retire", "no-such-lesson", "--why", "gone")
    assert missing.returncode != 0 and "no-such-lesson" in missing.stderr

    proposed = json.loads(
        gotchas(
            stale,
            "propose",
            "--retire",
            "settings-are-read-at-import",
            "--recheck",
            "--why",
            "still read at import, from the environment now",
            "--json",
        ).stdout
    )
    assert proposed["status"] == "proposed" and "+rechecked: " in proposed["diff"]
    assert (
        json.loads(gotchas(stale, "apply", proposed["proposal_id"], "--json").stdout)["status"] == "applied"
    )
    assert json.loads(gotchas(stale, "check", "--json").stdout)["findings"] == []  # judged as of HEAD now


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data if set(data) != {"result"} else dict(data["result"])


@pytest.mark.anyio
async def test_retire_round_trip_through_the_stdio_server(stale: Path) -> None:
    from mcp import Client, StdioServerParameters

    before = (stale / RECORD).read_text()
    params = StdioServerParameters(
        command=gotchas_exe(), args=["serve"], cwd=str(stale), env=isolated_env(stale.parent / "home")
    )
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["check_record"].annotations and tools["check_record"].annotations.read_only_hint
        found = _structured(await client.call_tool("check_record", {}))
        assert len(found["findings"]) == 1 and "settings-are-read-at-import:" in found["findings"][0]
        assert "stale-path" in found["findings"][0]

        proposed = _structured(
            await client.call_tool(
                "propose_retire",
                {"id": "settings-are-read-at-import", "why": "settings moved to the environment"},
            )
        )
        assert proposed["status"] == "proposed" and (stale / RECORD).read_text() == before
        applied = _structured(
            await client.call_tool("apply_supersede", {"proposal_id": proposed["proposal_id"]})
        )
        assert applied["status"] == "applied" and applied["verification"]["ok"] is True
        _inserted_only(before, (stale / RECORD).read_text())
        assert _structured(await client.call_tool("verify_record", {}))["ok"] is True
        history = _structured(await client.call_tool("history", {"task": "#4"}))
        marks = next(e for e in history["entries"] if e["id"] == "settings-are-read-at-import")["marks"]
        assert marks[0]["kind"] == "retire" and marks[0]["proposal_id"] == proposed["proposal_id"]
        assert _structured(await client.call_tool("check_record", {}))["findings"] == []


def test_the_tool_list_stays_within_its_budget(tmp_path: Path) -> None:
    """Every tool's argument schema and description, as the model reads them: at most 8k characters."""
    from gotchas.server import build
    from gotchas.workspace import Workspace

    Repo(tmp_path / "r")
    tools = build(Workspace.discover(root=str(tmp_path / "r")))._tool_manager.list_tools()
    assert {"check_record", "propose_retire"} <= {t.name for t in tools}
    assert sum(len(json.dumps(t.parameters)) + len(t.description or "") for t in tools) <= 8000
