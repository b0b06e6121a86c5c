"""Root-cause history: four successive corrections of #664 read back as one story, oldest
first, with what superseded each and when (from git for the older ones, the journal for the
ones applied here); the history is read through the CLI and the stdio server alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gotchas import operations, record
from gotchas.history import parse_log_patch
from gotchas.workspace import Workspace
from support.clients import git, gotchas_exe, isolated_env, make_scenario_repo, run_gotchas
from support.hypotheses import HYPOTHESES, correct
from support.project import RECORD, TARGET

JOURNAL = ".claude/gotchas/journal.jsonl"


@pytest.fixture
def story(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, bytes, list[str], str]:
    """The scenario repository after four corrections: two committed long ago (their journal
    lines lost with the machine that made them), two applied here."""
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    original = (root / RECORD).read_bytes()
    ws = Workspace(root)
    monkeypatch.setenv("GOTCHAS_ACTOR", "laptop-ana")
    made: list[str] = []
    target = TARGET
    for n in range(4):
        proposed = correct(ws, target, n)
        assert proposed["status"] == "proposed", proposed
        assert operations.apply(ws, proposal_id=proposed["proposal_id"])["status"] == "applied"
        made.append(proposed["new_id"])
        target = proposed["new_id"]
        if n == 1:
            git(root, "add", RECORD)
            git(root, "commit", "-q", "-m", "Record what #664 taught so far")
            (root / JOURNAL).unlink()
    old_commit = git(root, "rev-parse", "HEAD").strip()
    return root, original, made, old_commit


def test_four_successive_corrections_read_back_as_one_story(
    story: tuple[Path, bytes, list[str], str],
) -> None:
    root, original, made, old_commit = story
    done = run_gotchas(root, "history", "664", "--json")
    result = json.loads(done.stdout)
    ids = [e["id"] for e in result["entries"]]
    assert ids == [TARGET, *made]
    corrections = result["entries"][1:]
    assert [e["title"] for e in corrections] == [h["title"] for h in HYPOTHESES]
    assert [e["root_cause"] for e in corrections] == ["superseded"] * 3 + ["confirmed"]
    assert [e["red_herring"] for e in result["entries"]] == [True] * 4 + [False]
    assert result["current"] == made[-1]
    assert [e["supersedes"] for e in corrections] == [[TARGET], *[[m] for m in made[:-1]]]
    assert [e["ruled_out"] for e in corrections] == [h["ruled_out"] for h in HYPOTHESES]

    whens = [e["superseded_by"] for e in result["entries"]]
    assert whens[-1] == []
    for n, (later,) in enumerate(whens[:-1]):
        assert later["id"] == made[n]
    # the first two were superseded in the commit; the journal of that machine is gone
    for later in (whens[0][0], whens[1][0]):
        assert (later["source"], later["commit"]) == ("git", old_commit)
        commit_date = git(root, "show", "-s", "--format=%cI", old_commit).strip()
        assert (later["at"], later["proposal_id"]) == (commit_date, None)
    # the last two were applied here, and the journal says when and by whom
    for later in (whens[2][0], whens[3][0]):
        assert (later["source"], later["by"]) == ("journal", "laptop-ana")
        assert later["proposal_id"].startswith("p-")

    text = run_gotchas(root, "history", "#664").stdout
    for n, entry_id in enumerate([TARGET, *made], start=1):
        assert f"\n{n}. {entry_id}  " in text
    assert "(red herring)" in text and "ruled out: " in text

    assert run_gotchas(root, "verify").returncode == 0
    before = record.parse(original)
    after = record.parse((root / RECORD).read_bytes())
    for entry in before.entries:
        if entry.id != TARGET:
            assert after.get(entry.id).sha256 == entry.sha256
            assert after.text(after.get(entry.id)) == before.text(entry)


def test_history_of_a_task_with_one_lesson_and_of_an_unknown_task(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    one = json.loads(run_gotchas(root, "history", "588", "--json").stdout)
    assert [(e["root_cause"], e["red_herring"]) for e in one["entries"]] == [("confirmed", False)]
    none = json.loads(run_gotchas(root, "history", "9999", "--json").stdout)
    assert none["entries"] == [] and none["current"] is None
    bad = run_gotchas(root, "history", "--not-a-task", check=False)
    assert bad.returncode == 2


def test_the_git_patch_reader_takes_only_added_supersedes_lines() -> None:
    output = (
        "\0" + "a" * 40 + "\x1f2026-01-01T00:00:00Z\n\ndiff --git a/x b/x\n"
        "+++ b/supersedes: fake (for #1)\n"
        "-supersedes: removed (for #664)\n"
        "+tasks: #664 · root-cause: confirmed · supersedes: old-one (for #664)\n"
        "\0" + "b" * 40 + "\x1f2026-02-01T00:00:00Z\n\n"
        "+supersedes: old-one (for #664)\n"
    )
    assert parse_log_patch(output) == {("old-one", "#664"): ("a" * 40, "2026-01-01T00:00:00Z")}


@pytest.mark.anyio
async def test_history_through_the_stdio_server_reads_only(story: tuple[Path, bytes, list[str], str]) -> None:
    from mcp import Client, StdioServerParameters

    root, _, made, _ = story
    files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    params = StdioServerParameters(
        command=gotchas_exe(), args=["serve"], cwd=str(root), env=isolated_env(root.parent / "home")
    )
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        hints = tools["history"].annotations
        assert hints is not None and hints.read_only_hint is True
        result: Any = await client.call_tool("history", {"task": "#664"})
        assert not result.is_error, result.content
        data = result.structured_content
        assert [e["id"] for e in data["entries"]][1:] == made
        assert data["current"] == made[-1]
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts} == files


def test_history_in_a_hostile_repository_runs_none_of_its_programs(
    story: tuple[Path, bytes, list[str], str],
) -> None:
    root, _, made, _ = story
    marker = root.parent / "ran"
    script = root.parent / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n", "utf-8")
    script.chmod(0o755)
    git(root, "config", "core.fsmonitor", str(script))
    git(root, "config", "diff.external", str(script))
    git(root, "config", "core.pager", str(script))
    (root / ".gitattributes").write_text("*.md diff=evil\n", "utf-8")
    git(root, "config", "diff.evil.textconv", str(script))
    git(root, "config", "diff.evil.command", str(script))
    marker.unlink(missing_ok=True)
    result = json.loads(run_gotchas(root, "history", "664", "--json").stdout)
    assert [e["id"] for e in result["entries"]][1:] == made
    assert result["entries"][1]["superseded_by"][0]["source"] == "git"
    assert not marker.exists()
