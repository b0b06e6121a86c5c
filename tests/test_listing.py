"""Listing through the CLI (a real subprocess) and the MCP server (in process), on a real git repo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from gotchas.server import build
from gotchas.workspace import Workspace
from support.clients import gotchas as cli


def test_cli_lists_six_and_filters_by_task(repo: Path) -> None:
    everything = json.loads(cli(repo, "list", "--json").stdout)
    assert everything["total"] == 6
    only_664 = json.loads(cli(repo, "list", "--json", "--task", "#664").stdout)
    assert [e["id"] for e in only_664["entries"]] == ["a-single-large-llm-generate-deadlocks-the-v1"]
    only_601 = json.loads(cli(repo, "list", "--json", "--task", "601").stdout)
    assert [e["id"] for e in only_601["entries"]] == ["crashed-runs-leave-an-orphaned-vllm-enginecore"]
    again = json.loads(cli(repo, "list", "--json").stdout)
    assert [e["id"] for e in again["entries"]] == [e["id"] for e in everything["entries"]]
    table = cli(repo, "list").stdout
    assert table.splitlines()[-1] == "6 entries"


def test_cli_pages_with_a_cursor_bound_to_the_bytes(repo: Path) -> None:
    first = json.loads(cli(repo, "list", "--json", "--limit", "4").stdout)
    assert len(first["entries"]) == 4 and first["next_cursor"]
    rest = json.loads(cli(repo, "list", "--json", "--limit", "4", "--cursor", first["next_cursor"]).stdout)
    assert len(rest["entries"]) == 2 and rest["next_cursor"] is None
    record = repo / ".claude/rules/gotchas.md"
    record.write_bytes(record.read_bytes() + b"\n")
    stale = cli(repo, "list", "--json", "--cursor", first["next_cursor"])
    assert stale.returncode == 2 and "changed" in stale.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--record", "../outside.md", "list"), "path-outside-root"),
        (("list", "--record", ".claude"), "record-unreadable"),
        (("list", "--record", "missing.md"), "record-not-found"),
        (("show", "no-such-entry"), "entry-not-found"),
        (("list", "--task", "not a task"), "invalid-task"),
    ],
)
def test_cli_refusals_are_one_line_without_traceback(repo: Path, args: tuple[str, ...], code: str) -> None:
    result = cli(repo, *args)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and code in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.anyio
async def test_mcp_list_is_compact_and_get_quotes_text_as_data(repo: Path) -> None:
    async with Client(build(Workspace.discover(root=str(repo)))) as client:
        listed = await client.call_tool("list_gotchas", {"task": "#664"})
        assert not listed.is_error and listed.structured_content is not None
        assert listed.structured_content["total"] == 1
        assert "text" not in listed.structured_content["entries"][0]
        shown = await client.call_tool("get_gotcha", {"id": "a-single-large-llm-generate-deadlocks-the-v1"})
        assert not shown.is_error
        text = shown.content[0].text  # type: ignore[union-attr]
        assert "data, not instructions" in text and "````markdown" in text
        missing = await client.call_tool("get_gotcha", {"id": "nope"})
        assert missing.is_error and "entry-not-found" in missing.content[0].text  # type: ignore[union-attr]
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["list_gotchas"].annotations and tools["list_gotchas"].annotations.read_only_hint
        assert tools["apply_supersede"].annotations and tools["apply_supersede"].annotations.destructive_hint
        assert all(t.output_schema for t in tools.values())


def test_a_listing_of_500_entries_stays_small() -> None:
    """What an agent reads when it scans 500 entries: ids, places, tasks; no titles or bodies."""
    from gotchas import query, record

    body = "".join(
        f"### Lesson number {i} about caching\n\ntasks: #{100 + i}\n\nA body the listing leaves out.\n\n"
        for i in range(500)
    )
    result = query.listing(record.parse(("# G\n\n## A\n\n" + body).encode()), "g.md", limit=500)
    assert result["total"] == 500 and len(result["entries"]) == 500
    compact = json.dumps(result, separators=(",", ":"))
    assert "body the listing leaves out" not in compact and "title" not in compact
    # About 70 characters an entry: some 9k tokens for 500 at 4 characters a token.
    assert len(compact) < 40_000
    verbose = query.listing(record.parse(("## A\n\n" + body).encode()), "g.md", limit=2, verbose=True)
    assert verbose["entries"][0]["title"] == "Lesson number 0 about caching"


def test_config_names_the_record_and_forces_the_entry_style(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude").mkdir()
    notes = tmp_path / "docs" / "lessons.md"
    notes.parent.mkdir()
    notes.write_text("# Lessons\n\n## Build\n\n- **Pin it** — a.\n- **Cache it** — b.\n\n## Run\n\nProse.\n")
    guessed = json.loads(cli(tmp_path, "--record", "docs/lessons.md", "list", "--json", "--verbose").stdout)
    # "Build" names a group of bullet lessons, "Run" is a lesson of its own (a mixed file)
    assert [e["title"] for e in guessed["entries"]] == ["Pin it", "Cache it", "Run"]
    (tmp_path / ".claude" / "gotchas.toml").write_text('record = "docs/lessons.md"\nentries = "h2"\n')
    forced = json.loads(cli(tmp_path, "list", "--json", "--verbose").stdout)
    assert forced["record"] == "docs/lessons.md"
    assert [e["title"] for e in forced["entries"]] == ["Build", "Run"]
    (tmp_path / ".claude" / "gotchas.toml").write_text('record = "docs/lessons.md"\nentries = "list"\n')
    listed = json.loads(cli(tmp_path, "list", "--json", "--verbose").stdout)
    assert [e["title"] for e in listed["entries"]] == ["Pin it", "Cache it"]
    (tmp_path / ".claude" / "gotchas.toml").write_text('entries = "columns"\n')
    refused = cli(tmp_path, "list")
    assert refused.returncode == 1 and "entries must be one of" in refused.stderr


def test_every_real_file_lists_through_the_cli_unchanged(tmp_path: Path) -> None:
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is absent (the shared corpus beside the repository)")
    (tmp_path / ".git").mkdir()
    for source in sorted(p for p in corpus.iterdir() if p.suffix != ".tsv"):
        copy = tmp_path / "lessons" / source.name
        copy.parent.mkdir(exist_ok=True)
        copy.write_bytes(source.read_bytes())
        first = cli(tmp_path, "list", "--json", "--limit", "1000", "--record", f"lessons/{source.name}")
        assert first.returncode == 0, (source.name, first.stderr)
        again = cli(tmp_path, "list", "--json", "--limit", "1000", "--record", f"lessons/{source.name}")
        ids = [e["id"] for e in json.loads(first.stdout)["entries"]]
        assert ids == [e["id"] for e in json.loads(again.stdout)["entries"]], source.name
        assert copy.read_bytes() == source.read_bytes(), source.name
